// Entry paths: validation and normalisation (Spec/FORMAT.md §4).
import Foundation

/// A validated, NFC-normalised entry path such as `Email/gmail` (file `Email/gmail.json`).
public struct EntryPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The path, components joined by `/`.
    public let string: String

    public static let maxBytes = 255
    public static let maxComponentBytes = 100
    public static let maxDepth = 16
    public static let fileExtension = ".json"
    static let forbidden: Set<Unicode.Scalar> = ["\\", ":", "*", "?", "\"", "<", ">", "|"]

    /// Validates and normalises `raw`. A single trailing `/` is not allowed; `//` is not allowed.
    /// - Throws: `CoreError.invalidPath` naming the rule that failed.
    public init(_ raw: String) throws {
        let s = raw.precomposedStringWithCanonicalMapping
        func bad(_ reason: String) -> CoreError { .invalidPath(raw, reason: reason) }
        guard !s.isEmpty else { throw bad("empty path") }
        guard s.utf8.first != 0x2F else { throw bad("absolute paths are not allowed") }
        guard s.utf8.count <= Self.maxBytes else { throw bad("longer than \(Self.maxBytes) bytes") }
        for scalar in s.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                throw bad("control characters are not allowed")
            }
            if scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator {
                throw bad("line separators are not allowed")
            }
        }
        // Split and test on bytes and scalars, never on Characters: a combining mark after "/", "." or
        // "\\" would otherwise hide it inside a grapheme cluster.
        let parts = Self.split(s)
        guard parts.count <= Self.maxDepth else { throw bad("deeper than \(Self.maxDepth) levels") }
        for part in parts {
            let b = Array(part.utf8)
            if b.isEmpty { throw bad("empty path component") }
            if b == [0x2E] || b == [0x2E, 0x2E] { throw bad("\".\" and \"..\" are not allowed") }
            if b.first == 0x2E { throw bad("a component may not start with \".\"") }
            if b.first == 0x20 || b.last == 0x20 || b.last == 0x2E {
                throw bad("a component may not start or end with a space or end with \".\"")
            }
            if let c = part.unicodeScalars.first(where: { Self.forbidden.contains($0) }) { throw bad("character \"\(c)\" is not allowed") }
            if b.count > Self.maxComponentBytes { throw bad("a component is longer than \(Self.maxComponentBytes) bytes") }
        }
        // A folder named "x.json" would be the same name as the file of entry "x" (§4.2 rule 9).
        if parts.dropLast().contains(where: { $0.utf8.count >= 5 && $0.utf8.suffix(5).elementsEqual(Self.fileExtension.utf8) }) {
            throw bad("a folder name may not end in \".json\"")
        }
        string = s
    }

    /// The entry path of a vault-relative file path `a/b.json`, or nil if the file is not an entry file.
    public init?(filePath: String) {
        let bytes = Array(filePath.utf8), ext = Array(Self.fileExtension.utf8)
        guard bytes.count > ext.count, Array(bytes.suffix(ext.count)) == ext else { return nil }
        let stem = String(decoding: bytes.dropLast(ext.count), as: UTF8.self)
        // Byte equality: a name that is only canonically equivalent (not NFC) names another file on disk.
        guard let p = try? EntryPath(stem), Array(p.string.utf8) == Array(stem.utf8) else { return nil }
        self = p
    }

    /// Vault-relative file path: `Email/gmail.json`.
    public var filePath: String { string + Self.fileExtension }
    /// Path components.
    public var components: [String] { Self.split(string) }
    /// Last component.
    public var name: String { components.last! }
    /// The folder part, `""` at the top level.
    public var folder: String { components.dropLast().joined(separator: "/") }
    /// The key that decides case collisions (Spec/FORMAT.md §4.3).
    public var collisionKey: String { string.lowercased().precomposedStringWithCanonicalMapping }

    public var description: String { string }

    /// Splits at the byte `/` (splitting valid UTF-8 at an ASCII byte leaves valid UTF-8).
    static func split(_ s: String) -> [String] {
        s.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
    public static func < (a: EntryPath, b: EntryPath) -> Bool { a.string.utf8.lexicographicallyPrecedes(b.string.utf8) }
}
