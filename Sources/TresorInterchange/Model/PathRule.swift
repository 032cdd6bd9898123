// The one stated rule that turns names from other managers into valid entry paths (README "Import: entry paths").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// How an imported name was changed to become a valid entry path or field name.
public enum RenameNote: Equatable, Sendable {
    /// Characters not allowed in entry paths were percent-encoded; `original` is the source's name.
    case escaped(original: String)
    /// A name longer than an entry path allows was shortened.
    case truncated(original: String)
    /// Another imported entry (or field) already had the name: a suffix ` (N)` was added.
    case suffixed(original: String)
    /// A custom field was renamed (a standard field's name, a duplicate, or an invalid name).
    case fieldRenamed(from: String, to: String)
    /// A folder name differing only by case from one already in the vault or the import was spelled
    /// like that one (such names collide on macOS and Windows).
    case folderCase(original: String, used: String)
}

/// The path rule, applied to each folder and title separately:
/// 1. the name is normalised to NFC;
/// 2. each of these is replaced by `%` and two upper-case hex digits per UTF-8 byte: control characters,
///    line and paragraph separators, `/ \ : * ? " < > |`, a `%` followed by two hex digits (so decoding is
///    unambiguous), a leading `.` or space, a trailing `.` or space, and the `.` of a folder name ending in
///    `.json`;
/// 3. an empty name becomes `untitled`;
/// 4. a name over 100 bytes is cut at a character boundary (reported), folders deeper than 16 levels are
///    joined into the 16th with `%2F`.
/// Percent-decoding an escaped name gives back the source's name. Two entries that end at the same path
/// (compared as entry paths collide: ignoring case) get ` (2)`, ` (3)`… after the later one's name.
public enum PathRule {
    /// Why no entry path could be made for an item.
    public enum Failure: Equatable, Sendable {
        /// The prefix leaves no room for entries (it is as deep as an entry path can be).
        case noRoomBelowPrefix
        /// The folder names alone are longer than an entry path may be (`maxBytes`).
        case foldersTooLong(maxBytes: Int)
        /// The path breaks this rule of Spec/FORMAT.md §4.2.
        case rule(EntryPath.Rule)
        /// Every suffixed name is taken.
        case noFreeName
        /// The path is refused for another reason.
        case invalid

        /// The failure `EntryPath(_:)` threw.
        init(_ error: Error) {
            if case CoreError.invalidPath(_, let rule) = error { self = .rule(rule) } else { self = .invalid }
        }
    }

    static let encodedAnywhere: Set<Unicode.Scalar> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]

    /// The escaped form of one name; `folder` adds the `.json` rule.
    public static func escape(_ raw: String, folder: Bool) -> String {
        let name = raw.nfc
        if name.isEmpty { return "untitled" }
        let scalars = Array(name.unicodeScalars)
        var out = ""
        func encode(_ s: Unicode.Scalar) { for b in String(s).utf8 { out += "%" + Hex.upper([b]) } }
        // Trailing "." or " " characters are encoded from the end inwards, so "a. " ends as "a%2E%20".
        var trailing = scalars.count
        while trailing > 0, scalars[trailing - 1] == "." || scalars[trailing - 1] == " " { trailing -= 1 }
        let jsonDot = folder && name.utf8.count >= 5 && name.hasSuffix(".json") ? scalars.count - 5 : -1
        for (i, s) in scalars.enumerated() {
            let isHexPercent = s == "%" && i + 2 < scalars.count && isHex(scalars[i + 1]) && isHex(scalars[i + 2])
            if s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
                || encodedAnywhere.contains(s) || isHexPercent || (i == 0 && (s == "." || s == " ")) || i >= trailing || i == jsonDot {
                encode(s)
            } else {
                out.unicodeScalars.append(s)
            }
        }
        return out
    }

    /// Percent-decoding: the inverse of `escape` for any name that was not empty or cut.
    /// A `%` not followed by two hex digits stands for itself.
    public static func decode(_ escaped: String) -> String {
        let b = Array(escaped.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            if b[i] == 0x25, i + 2 < b.count, let h = Hex.digit(b[i + 1]), let l = Hex.digit(b[i + 2]) { out.append(h << 4 | l); i += 3 }
            else { out.append(b[i]); i += 1 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isHex(_ s: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(s) || ("a"..."f").contains(s) || ("A"..."F").contains(s)
    }

    /// Cuts `s` to at most `limit` UTF-8 bytes at a character boundary and never inside a `%XX`, then
    /// drops trailing spaces and dots so the result stays valid.
    static func cut(_ s: String, to limit: Int) -> String {
        guard s.utf8.count > limit else { return s }
        var out = ""
        var bytes = 0
        var chars = Array(s)
        var i = 0
        while i < chars.count {
            var piece = String(chars[i])
            if chars[i] == "%", i + 2 < chars.count { piece = String(chars[i...i + 2]) }
            guard bytes + piece.utf8.count <= limit else { break }
            out += piece; bytes += piece.utf8.count; i += piece.count
        }
        chars = Array(out)
        while let last = chars.last, last == "." || last == " " { chars.removeLast() }
        return chars.isEmpty ? "untitled" : String(chars)
    }

    /// The entry path for `folder`/`title` below `prefix` (already valid components), with what was changed.
    /// - Returns: the path string, or the reason no valid path could be made.
    public static func path(prefix: [String], folder: [String], title: String) -> (path: String?, notes: [RenameNote], failure: Failure?) {
        var notes: [RenameNote] = []
        let original = (folder + [title]).joined(separator: "/")
        var escaped = folder.map { escape($0, folder: true) } + [escape(title, folder: false)]
        if escaped != folder + [title] { notes.append(.escaped(original: original)) }
        let room = EntryPath.maxDepth - prefix.count
        guard room >= 1 else { return (nil, notes, .noRoomBelowPrefix) }
        if escaped.count > room {
            let joined = escaped[(room - 1)...].joined(separator: "%2F")
            escaped = Array(escaped[..<(room - 1)]) + [joined]
            if !notes.contains(.escaped(original: original)) { notes.append(.escaped(original: original)) }
        }
        var cutAny = false
        for i in escaped.indices where escaped[i].utf8.count > EntryPath.maxComponentBytes {
            let isFolder = i < escaped.count - 1
            var c = cut(escaped[i], to: EntryPath.maxComponentBytes - (isFolder ? 2 : 0))
            if isFolder && c.hasSuffix(".json") { c = String(c.dropLast(5)) + "%2Ejson" }
            escaped[i] = c
            cutAny = true
        }
        var components = prefix + escaped
        let total = components.joined(separator: "/").utf8.count
        if total > EntryPath.maxBytes {
            let over = total - EntryPath.maxBytes
            let last = components[components.count - 1]
            guard last.utf8.count - over >= 1 else { return (nil, notes, .foldersTooLong(maxBytes: EntryPath.maxBytes)) }
            components[components.count - 1] = cut(last, to: last.utf8.count - over)
            cutAny = true
        }
        if cutAny { notes.append(.truncated(original: original)) }
        let path = components.joined(separator: "/")
        do { _ = try EntryPath(path) } catch { return (nil, notes, Failure(error)) }
        return (path, notes, nil)
    }

    /// `path` with ` (n)` after its last component, cut so the whole stays within the limits.
    public static func suffixed(_ path: String, _ n: Int) -> String? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let suffix = " (\(n))"
        let folderBytes = parts.dropLast().joined(separator: "/").utf8.count + (parts.count > 1 ? 1 : 0)
        let limit = min(EntryPath.maxComponentBytes, EntryPath.maxBytes - folderBytes) - suffix.utf8.count
        guard limit >= 1 else { return nil }
        parts[parts.count - 1] = cut(parts[parts.count - 1], to: limit) + suffix
        let p = parts.joined(separator: "/")
        return (try? EntryPath(p)) != nil ? p : nil
    }
}
