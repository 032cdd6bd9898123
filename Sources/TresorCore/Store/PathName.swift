// Path strings split, joined and standardised as Foundation's NSString does it, for the modules that import only
// FoundationEssentials (which has no NSString).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// NSString's path methods (`lastPathComponent`, `deletingLastPathComponent`, `appendingPathComponent`,
/// `expandingTildeInPath`, `standardizingPath`) with the same results, `/` the only separator: every `/` byte, as
/// the kernel reads a path.
package enum PathName {
    /// NSString's `lastPathComponent`: `"/a/b/"` → `"b"`, `"/"` → `"/"`, `"a"` → `"a"`, `""` → `""`.
    package static func last(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        guard fixed.utf8.count > 1 else { return fixed }
        let start = startOfLast(fixed)
        return start == 0 ? fixed : String(decoding: fixed.utf8.dropFirst(start), as: UTF8.self)
    }

    /// NSString's `deletingLastPathComponent`: `"/a/b"` → `"/a"`, `"/a"` → `"/"`, `"a"` → `""`, `"/"` → `"/"`.
    package static func deletingLast(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed == "/" || fixed.isEmpty { return fixed }
        let start = startOfLast(fixed)
        if start == 0 { return "" }
        if start == 1 { return "/" }
        return String(decoding: fixed.utf8.prefix(start - 1), as: UTF8.self)
    }

    /// NSString's `appendingPathComponent`: one `/` between the two unless either is empty or `path` ends in one.
    package static func appending(_ path: String, _ component: String) -> String {
        if component.isEmpty { return path }
        if path.isEmpty { return component }
        return path.hasSuffix("/") ? path + component : path + "/" + component
    }

    /// NSString's `expandingTildeInPath`: a leading `~` or `~user` becomes that user's home directory from the
    /// password database (not `HOME`, as Foundation); the path is unchanged when there is none.
    package static func expandingTilde(_ path: String) -> String {
        guard path.hasPrefix("~") else { return path }
        let end = path.firstIndex(of: "/") ?? path.endIndex
        let user = String(path[path.index(after: path.startIndex)..<end])
        guard let home = homeDirectory(user.isEmpty ? nil : user) else { return strippingTrailingSlash(path) }
        return strippingTrailingSlash(home + path[end...])
    }

    /// NSString's `standardizingPath`: the tilde expanded, then `resolvingSymlinks`.
    package static func standardized(_ path: String) -> String {
        removingPrefix("/var/automount", of: resolvingSymlinks(expandingTilde(path)))
    }

    /// NSString's `resolvingSymlinksInPath`: `.` and empty components dropped, `..` of an absolute path removing the
    /// component before it, and each component that is a symbolic link replaced by what it points to (followed to
    /// its end); a leading `/private` is dropped when the path without it exists.
    package static func resolvingSymlinks(_ path: String) -> String {
        var components = self.components(path)
        guard !components.isEmpty else { return path }
        if components.count > 1, components.last == "/" { components.removeLast() }
        let absolute = path.hasPrefix("/") || path.hasPrefix("~")
        var resolved = components.removeFirst()
        for component in components {
            switch component {
            case "", ".": continue
            case ".." where absolute: resolved = deletingLast(resolved)
            default:
                resolved = appending(resolved, component)
                if let target = symbolicLinkTarget(resolved) { resolved = target }
            }
        }
        return removingPrefix("/private", of: resolved)
    }

    /// `path` without `prefix` when that names something that exists (Foundation's clean-up of `/private` and
    /// `/var/automount`, which exist on macOS).
    static func removingPrefix(_ prefix: String, of path: String) -> String {
        guard path != prefix, path.hasPrefix(prefix) else { return path }
        let rest = String(path.dropFirst(prefix.count))
        // (A question: anything but an answer that it exists keeps the prefix.)
        return (try? FileSystem.status(rest, followingLinks: true)) != nil ? rest : path
    }

    /// NSString's `pathComponents`: `"/"` first for an absolute path, runs of `/` as one, a trailing `/` as a
    /// last component `"/"`.
    static func components(_ path: String) -> [String] {
        guard !path.isEmpty else { return [] }
        var out: [String] = []
        if path.hasPrefix("/") { out.append("/") }
        out += path.utf8.split(separator: 0x2F).map { String(decoding: $0, as: UTF8.self) }
        if path.utf8.count > 1, path.utf8.last == 0x2F { out.append("/") }
        return out
    }

    /// Where the symbolic link `path` leads, followed to its end (`realpath`); nil when `path` is not a symbolic
    /// link or leads nowhere. (Foundation resolves a relative link's target against the working directory instead
    /// of the link's own directory; the two agree for absolute targets.)
    static func symbolicLinkTarget(_ path: String) -> String? {
        // realpath(3), not a system call of its own.
        guard FileSystem.kind(path) == .symlink, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The current user's home directory as Foundation's `NSHomeDirectory()` finds it (see `homeDirectory`).
    package static func home() -> String { homeDirectory(nil) ?? "/" }

    /// The home directory of `user` (nil: the current user) from the password database, as Foundation finds it:
    /// for the current user `HOME` only when the database has no entry.
    static func homeDirectory(_ user: String?) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = user.map { getpwnam_r($0, &entry, &buffer, buffer.count, &found) } ?? getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found)
        if status == 0, found != nil, let dir = entry.pw_dir { return String(cString: dir) }
        guard user == nil, let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else { return nil }
        return home
    }

    /// Runs of `/` made one, and a trailing `/` removed (`"/"` stays). By byte, as NSString goes by UTF-16 unit: a
    /// `/` is a separator whatever follows it (a combining mark after it makes one `Character` of the two).
    static func fixingSlashes(_ path: String) -> String {
        if path == "/" { return path }
        let u = path.utf8
        // Most paths have neither a doubled nor a trailing slash: those are returned as they are.
        var previous: UInt8 = 0, doubled = false
        for b in u { if b == 0x2F && previous == 0x2F { doubled = true; break }; previous = b }
        if !doubled && u.last != 0x2F { return path }
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        for b in u where !(b == 0x2F && out.last == 0x2F) { out.append(b) }
        if out.last == 0x2F { out.removeLast() }
        // (Dropping ASCII bytes leaves UTF-8 valid.)
        return String(decoding: out, as: UTF8.self)
    }

    static func strippingTrailingSlash(_ path: String) -> String {
        path.utf8.count > 1 && path.utf8.last == 0x2F ? String(decoding: path.utf8.dropLast(), as: UTF8.self) : path
    }

    /// The UTF-8 offset after the last `/` of a path without a trailing one (0 when it has none).
    static func startOfLast(_ fixed: String) -> Int {
        let u = fixed.utf8
        guard let slash = u.lastIndex(of: 0x2F) else { return 0 }
        return u.distance(from: u.startIndex, to: slash) + 1
    }
}
