// Secret text (field values): UTF-8 bytes in a zeroing buffer, compared in constant time, never a long-lived String.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A text that is secret: the exact UTF-8 bytes of a field value (Spec/FORMAT.md §5.3), held in a `SecretBytes`
/// buffer (locked, zeroed when the last copy is released). The bytes are kept as they are, never normalised: a
/// password in NFC and the same password in NFD are different secrets (Spec/MERGE.md §2).
///
/// - `==` compares in constant time for texts of equal length (`sodium_memcmp`); the length itself is not hidden.
/// - `compare(_:)` is the byte order the merge needs for its deterministic choices; it is not constant time.
/// - `description` never shows the text, so interpolating a `SecretText` into a message leaks nothing.
///
/// Copies of a `SecretText` share one immutable buffer. Read it with `withUTF8`; `makeString()` makes an
/// ordinary `String` that cannot be wiped, for the few places that parse text (policies, otpauth URIs).
public struct SecretText: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible, CustomDebugStringConvertible {
    let storage: SecretBytes

    /// The text held in `bytes` (shared, not copied). Returns nil if `bytes` is not valid UTF-8.
    public init?(validating bytes: SecretBytes) {
        guard bytes.withBytes({ SecretText.isValidUTF8($0) }) else { return nil }
        storage = bytes
    }

    /// A copy of `bytes` in a zeroing buffer; the caller wipes its own copy. Returns nil if not valid UTF-8.
    public init?(copying bytes: UnsafeRawBufferPointer) {
        guard SecretText.isValidUTF8(bytes) else { return nil }
        storage = SecretBytes(copying: bytes)
    }

    /// A copy of `bytes` in a zeroing buffer; the caller wipes its own copy. Returns nil if not valid UTF-8.
    public init?(copying bytes: [UInt8]) {
        guard let t = bytes.withUnsafeBytes({ SecretText(copying: $0) }) else { return nil }
        self = t
    }

    /// The UTF-8 bytes of `string`, copied. The `String` itself cannot be wiped: use this for values that
    /// were never secret-held (generated passwords, command-line arguments, imported text) and at boundaries
    /// that only offer a `String`.
    public init(_ string: String) {
        storage = SecretBytes(utf8: string)
    }

    /// A literal in source code (`"abc"`, `"user\(i)"`): for tests, benchmarks and constants, never for a
    /// real secret, which would already have been an unwipeable `String`.
    public init(stringLiteral value: String) { self.init(value) }
    public init(stringInterpolation: StringInterpolation) { self.init(stringInterpolation.text) }

    /// Interpolation into a literal: any value as `String(describing:)`, except a `SecretText`, whose description
    /// is its length, not its text (`"\(other)"` would silently store "SecretText(8 bytes)" as the value).
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation<T>(_ value: T) { text += String(describing: value) }
        @available(*, unavailable, message: "interpolating a SecretText gives its description, not its text")
        public mutating func appendInterpolation(_ value: SecretText) {}
    }

    /// Bytes already checked as UTF-8 (the payload parser). Shares `bytes`.
    init(trusted bytes: SecretBytes) { storage = bytes }

    /// Number of UTF-8 bytes.
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }

    /// Runs `body` with the UTF-8 bytes. They must not escape `body`.
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withBytes(body)
    }

    /// The zeroing buffer itself (shared): for sealing, the clipboard, writing to a descriptor.
    public var bytes: SecretBytes { storage }

    /// An ordinary `String` copy. It cannot be wiped: keep it short-lived and only where a `String` is needed.
    public func makeString() -> String {
        storage.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Constant-time equality of the bytes (`sodium_memcmp`); texts of different length differ at once.
    public static func == (a: SecretText, b: SecretText) -> Bool {
        a.storage === b.storage || a.storage.constantTimeEquals(b.storage)
    }

    public func hash(into hasher: inout Hasher) {
        storage.withBytes { hasher.combine(bytes: $0) }
        hasher.combine(storage.count)
    }

    /// -1, 0 or 1 by the bytes (shorter prefix first): the byte order of Spec/MERGE.md §2. Not constant time.
    public func compare(_ other: SecretText) -> Int {
        storage.withBytes { a in other.storage.withBytes { b in SecretText.compare(a, b) } }
    }

    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let c = memcmp(pa, pb, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    public var description: String { "SecretText(\(count) bytes)" }
    public var debugDescription: String { description }

    /// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF),
    /// checked without building a `String`.
    public static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c < 0x80 { i += 1; continue }
            let len: Int
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: len = 2
            case 0xE0: len = 3; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: len = 3
            case 0xED: len = 3; hi = 0x9F
            case 0xF0: len = 4; lo = 0x90
            case 0xF1...0xF3: len = 4
            case 0xF4: len = 4; hi = 0x8F
            default: return false
            }
            guard i + len <= n else { return false }
            guard bytes[i + 1] >= lo && bytes[i + 1] <= hi else { return false }
            for k in 2..<len where bytes[i + k] < 0x80 || bytes[i + k] > 0xBF { return false }
            i += len
        }
        return true
    }
}
