// Entry paths: validation and normalisation (Spec/FORMAT.md §4).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A validated, NFC-normalised entry path such as `Email/gmail` (file `Email/gmail.json`).
public struct EntryPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The path, components joined by `/`.
    public let string: String

    public static let maxBytes = 255
    public static let maxComponentBytes = 100
    public static let maxDepth = 16
    public static let fileExtension = ".json"
    /// The characters a component may not hold (Spec/FORMAT.md §4.2), all ASCII, as a table indexed by byte. (Not a
    /// `Set`: its first use would instantiate the set's type by name, a scan of the binary's conformance records.)
    static let forbiddenTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in #"\:*?"<>|"#.utf8 { table[Int(byte)] = true }
        return table
    }()
    static let extensionBytes = Array(fileExtension.utf8)

    /// The rules of Spec/FORMAT.md §4.2 an entry path can break (the number is the rule's).
    public enum Rule: Equatable, Sendable {
        /// 1: the path is empty.
        case empty
        /// 1: the path starts with `/`.
        case absolute
        /// 2: longer than `maxBytes` UTF-8 bytes.
        case tooLong(maxBytes: Int)
        /// 3: a control character (C0, DEL, C1).
        case controlCharacter
        /// 3: U+2028 or U+2029.
        case lineSeparator
        /// 4: more than `maxDepth` components.
        case tooDeep(maxDepth: Int)
        /// 5: an empty component (`//` or a trailing `/`).
        case emptyComponent
        /// 5: a component `.` or `..`.
        case dotComponent
        /// 6: a component that starts with `.`.
        case leadingDot
        /// 6: a component that starts or ends with a space or ends with `.`.
        case spaceOrTrailingDot
        /// 7: one of `\` `:` `*` `?` `"` `<` `>` `|`.
        case forbiddenCharacter(Unicode.Scalar)
        /// 8: a component longer than `maxBytes` UTF-8 bytes.
        case componentTooLong(maxBytes: Int)
        /// 9: a folder whose name ends in `.json`.
        case folderEndsInJSON
        /// 10: a component that is `git~1` in some ASCII case (the component as written).
        case gitShortName(String)
    }

    /// Validates and normalises `raw`. A single trailing `/` is not allowed; `//` is not allowed.
    /// - Throws: `CoreError.invalidPath` naming the rule that failed.
    public init(_ raw: String) throws {
        // ASCII is already NFC and holds no line separators: skip Foundation's normalisation and the Unicode
        // property look-ups for it (listing 10,000 names was half spent there).
        let ascii = raw.utf8.allSatisfy { $0 < 0x80 }
        let s = ascii ? raw : raw.nfc
        func bad(_ rule: Rule) -> CoreError { .invalidPath(raw, rule: rule) }
        guard !s.isEmpty else { throw bad(.empty) }
        guard s.utf8.first != 0x2F else { throw bad(.absolute) }
        guard s.utf8.count <= Self.maxBytes else { throw bad(.tooLong(maxBytes: Self.maxBytes)) }
        if ascii {
            if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw bad(.controlCharacter) }
        } else {
            for scalar in s.unicodeScalars {
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    throw bad(.controlCharacter)
                }
                if scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator {
                    throw bad(.lineSeparator)
                }
            }
        }
        // Test on bytes, never on Characters: a combining mark after "/", "." or "\\" would otherwise hide
        // it inside a grapheme cluster. Every byte tested is ASCII, and in UTF-8 an ASCII byte is always that
        // character, never part of another.
        if let rule = Array(s.utf8).withUnsafeBufferPointer({ Self.componentViolation($0) }) { throw bad(rule) }
        string = s
    }

    /// A path already known to be valid and NFC.
    init(validated string: String) { self.string = string }

    /// The first rule of §4.2 about components that `bytes` (a whole path) breaks, nil if none: depth,
    /// then each component in order, then folders named like entry files. Index arithmetic on one array,
    /// no slices or strings per component (listing 10,000 entries validates 10,000 paths).
    static func componentViolation(_ bytes: UnsafeBufferPointer<UInt8>) -> Rule? {
        var depth = 1
        for b in bytes where b == 0x2F { depth += 1 }
        guard depth <= maxDepth else { return .tooDeep(maxDepth: maxDepth) }
        let n = bytes.count
        var folderLikeEntryFile = false
        var start = 0
        while start <= n {
            var end = start
            while end < n && bytes[end] != 0x2F { end += 1 }
            if let rule = componentRule(UnsafeBufferPointer(rebasing: bytes[start..<end])) { return rule }
            // A folder named "x.json" would be the same name as the file of entry "x" (§4.2 rule 9); reported
            // after every component's own rules.
            if end < n, endsInFileExtension(UnsafeBufferPointer(rebasing: bytes[start..<end])) { folderLikeEntryFile = true }
            start = end + 1
        }
        return folderLikeEntryFile ? .folderEndsInJSON : nil
    }

    /// The first rule of §4.2 that one component breaks on its own (rules 5 to 8 and 10), nil if none; whether it may
    /// be a folder's name is `endsInFileExtension` (rule 9).
    static func componentRule(_ c: UnsafeBufferPointer<UInt8>) -> Rule? {
        let length = c.count
        if length == 0 { return .emptyComponent }
        let first = c[0], last = c[length - 1]
        if first == 0x2E && (length == 1 || (length == 2 && last == 0x2E)) { return .dotComponent }
        if first == 0x2E { return .leadingDot }
        if first == 0x20 || last == 0x20 || last == 0x2E { return .spaceOrTrailingDot }
        let forbidden = forbiddenTable
        for b in c where forbidden[Int(b)] { return .forbiddenCharacter(Unicode.Scalar(b)) }
        if length > maxComponentBytes { return .componentTooLong(maxBytes: maxComponentBytes) }
        // §4.2 rule 10: "git~1" in any ASCII case, the short name of ".git" that git refuses in a tree.
        if length == 5, c[3] == 0x7E, c[4] == 0x31, c[0] | 0x20 == 0x67, c[1] | 0x20 == 0x69, c[2] | 0x20 == 0x74 {
            return .gitShortName(String(decoding: c, as: UTF8.self))
        }
        return nil
    }

    /// Whether a name ends in `.json`, the file extension (§4.2 rule 9: no folder may be named so).
    static func endsInFileExtension(_ c: UnsafeBufferPointer<UInt8>) -> Bool {
        let ext = extensionBytes
        return c.count >= ext.count && memcmp(c.baseAddress! + (c.count - ext.count), ext, ext.count) == 0
    }

    /// The entry path of a vault-relative file path `a/b.json`, or nil if the file is not an entry file.
    public init?(filePath: String) {
        // Printable ASCII (nearly every name; already NFC, no control characters or separators): checked in
        // place, with one String made for the result. Anything else takes the general way below.
        var file = filePath
        let quick: EntryPath?? = file.withUTF8 { all in
            let ext = Self.extensionBytes, stemCount = all.count - ext.count
            guard stemCount > 0, memcmp(all.baseAddress! + stemCount, ext, ext.count) == 0 else { return .some(nil) }
            let stem = UnsafeBufferPointer(rebasing: all[..<stemCount])
            guard stem.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            guard stemCount <= Self.maxBytes, stem[0] != 0x2F, Self.componentViolation(stem) == nil else { return .some(nil) }
            return .some(EntryPath(validated: String(decoding: stem, as: UTF8.self)))
        }
        if let quick {
            guard let quick else { return nil }
            self = quick
            return
        }
        let bytes = Array(filePath.utf8), ext = Self.extensionBytes, stemCount = bytes.count - ext.count
        guard stemCount > 0, (0..<ext.count).allSatisfy({ bytes[stemCount + $0] == ext[$0] }) else { return nil }
        let stem = String(decoding: bytes[..<stemCount], as: UTF8.self)
        // Byte equality: a name that is only canonically equivalent (not NFC) names another file on disk.
        // (An ASCII name is kept as it is.)
        guard let p = try? EntryPath(stem), bytes[..<stemCount].allSatisfy({ $0 < 0x80 }) || Array(p.string.utf8) == Array(bytes[..<stemCount])
        else { return nil }
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
    public var collisionKey: String { string.lowercased().nfc }

    public var description: String { string }

    /// Whether `path` lies inside `folder` (a path below it, not the folder itself): its bytes start with the folder's
    /// and a `/` (Spec/FORMAT.md §4.2: by byte; `String.hasPrefix(folder + "/")` compares `Character`s, and a
    /// combining mark after the `/` makes it fail). Every "in this folder" question about vault paths asks this.
    package static func isInside(_ path: String, folder: String) -> Bool {
        let p = path.utf8, f = folder.utf8
        guard p.count > f.count, p.starts(with: f) else { return false }
        return p[p.index(p.startIndex, offsetBy: f.count)] == 0x2F
    }

    /// Splits at the byte `/` (splitting valid UTF-8 at an ASCII byte leaves valid UTF-8): how every vault path is
    /// split (Spec/FORMAT.md §4.2), never at `Character`s, where a combining mark after a `/` hides it.
    package static func split(_ s: String) -> [String] {
        s.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
    /// Byte order of the UTF-8. Paths are NFC, and Swift orders strings by the scalars of their NFC form,
    /// which is the order of their UTF-8 bytes; `<` on strings is a memcmp for ASCII ones.
    public static func < (a: EntryPath, b: EntryPath) -> Bool { precedes(a.string, b.string) }

    /// `a < b` as a memcmp of the UTF-8 bytes (the same order; the standard library's comparison first checks
    /// both strings' NFC flags and small-string forms, which sorting 10,000 paths paid ~130,000 times).
    package static func precedes(_ a: String, _ b: String) -> Bool {
        let order = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }
        return (order ?? nil) ?? (a < b)
    }
}
