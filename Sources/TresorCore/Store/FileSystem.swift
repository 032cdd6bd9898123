// File primitives for the store: atomic writes, reads and walks that never follow symbolic links.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// The kind of a path as `lstat` sees it.
package enum FileKind: Equatable, Sendable { case missing, file, directory, symlink, other }

/// POSIX file operations with the vault's rules: files 0600, directories 0700, writes atomic.
package enum FileSystem {
    static func errnoText(_ what: String, _ path: String, _ code: Int32 = errno) -> CoreError {
        .io("\(what) \"\(path)\": \(String(cString: strerror(code)))")
    }

    /// `lstat` kind of `path`.
    package static func kind(_ path: String) -> FileKind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    /// Permission bits of `path` (without following links), nil if missing.
    package static func mode(_ path: String) -> UInt32? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return UInt32(st.st_mode & 0o7777)
    }

    /// What a file that is not a regular file is, for messages ("a FIFO").
    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    /// Reads a regular file, refusing links (`O_NOFOLLOW`), anything that is not a regular file (a FIFO,
    /// socket, device or directory: refused before and after opening, which never blocks thanks to
    /// `O_NONBLOCK`) and files larger than `limit`.
    package static func read(_ path: String, limit: Int) throws -> [UInt8] {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG, st.st_mode & S_IFMT != S_IFLNK {
            throw CoreError.io("\"\(path)\" is \(describe(st.st_mode)), not a regular file")
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP { throw CoreError.symlink(path) }
            throw errnoText("cannot read", path)
        }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else { throw errnoText("cannot read", path) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw CoreError.io("\"\(path)\" is \(describe(st.st_mode)), not a regular file") }
        guard Int(st.st_size) <= limit else { throw CoreError.malformed("\"\(path)\" is larger than \(limit) bytes") }
        // One read of the stat size plus one byte to notice a file that grew meanwhile.
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var total = 0
        while total < bytes.count {
            let n = bytes[total...].withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw errnoText("cannot read", path) }
            if n == 0 { break }
            total += n
        }
        guard total <= limit else { throw CoreError.malformed("\"\(path)\" is larger than \(limit) bytes") }
        bytes.removeLast(bytes.count - total)
        return bytes
    }

    /// Writes `bytes` to `path` atomically: a 0600 temporary file in the same directory, fsync, rename,
    /// fsync of the directory. A reader sees the old file or the new one, never a part. `durable: false`
    /// leaves out both fsyncs, for a caller that makes many writes durable at once (`syncFileSystem`) and
    /// can redo them after a crash.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, durable: Bool = true) throws {
        let tmp = try writeTemporary(bytes, beside: path, durable: durable)
        try replace(path, withTemporary: tmp, durable: durable)
    }

    /// The first half of `writeAtomically`: `bytes` in a new 0600 temporary file in the folder of `path`
    /// (fsynced if `durable`); returns the temporary file's path.
    package static func writeTemporary(_ bytes: [UInt8], beside path: String, durable: Bool) throws -> String {
        let (dir, name) = folderAndName(path)
        let tmp = dir + "/." + name + ".tmp-" + Base64.encode(Sodium.randomBytes(6)).replacingAll("/", with: "_")
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw errnoText("cannot create", tmp) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                unlink(tmp)
                throw errnoText("cannot write", path, e)
            }
            written += n
        }
        if durable, fsync(fd) != 0 {
            let e = errno
            close(fd)
            unlink(tmp)
            throw errnoText("cannot write", path, e)
        }
        close(fd)
        return tmp
    }

    /// The second half of `writeAtomically`: the temporary file `tmp` takes the place of `path` by a rename
    /// (and an fsync of the folder if `durable`); `path` must not be a link or a folder. On failure `tmp` is
    /// removed.
    package static func replace(_ path: String, withTemporary tmp: String, durable: Bool) throws {
        let existing = kind(path)
        if existing == .symlink || existing == .directory {
            unlink(tmp)
            throw existing == .symlink ? CoreError.symlink(path) : CoreError.io("\"\(path)\" is a directory")
        }
        guard rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            throw errnoText("cannot replace", path, e)
        }
        if durable { syncDirectory(folderAndName(path).folder) }
    }

    /// `path` as NSString's `deletingLastPathComponent` and `lastPathComponent` split it, without its slash
    /// clean-up pass when there is nothing to clean (no "//", no trailing "/": every path tresor builds), which a
    /// rekey of 10,000 entries paid for 10,000 times.
    static func folderAndName(_ path: String) -> (folder: String, name: String) {
        var bytes = path
        let fast: (String, String)? = bytes.withUTF8 { u in
            guard let slash = u.lastIndex(of: 0x2F) else { return ("", path) }  // (NSString's own way traps here)
            guard slash != u.count - 1, slash > 0 else { return nil }
            for i in 1..<u.count where u[i] == 0x2F && u[i - 1] == 0x2F { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: u[..<slash]), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(rebasing: u[(slash + 1)...]), as: UTF8.self))
        }
        if let fast { return fast }
        return (PathName.deletingLast(path), PathName.last(path))
    }

    /// Makes every earlier non-durable write durable (`sync`: one call instead of two fsyncs per file; `syncfs`
    /// is not available to Swift on Glibc).
    package static func syncFileSystem(of path: String) {
        sync()
    }

    /// fsync of a directory so a rename or unlink in it is durable.
    package static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Creates `dir` and missing parents below `root` with mode 0700, refusing links on the way.
    package static func makeDirectories(_ relative: String, under root: String) throws {
        var current = root
        for part in relative.split(separator: "/") {
            current += "/" + part
            switch kind(current) {
            case .directory: continue
            case .missing:
                guard mkdir(current, 0o700) == 0 || errno == EEXIST else { throw errnoText("cannot create directory", current) }
            case .symlink: throw CoreError.symlink(current)
            default: throw CoreError.io("\"\(current)\" exists and is not a directory")
            }
        }
    }

    /// Removes a file (not a link target) and then every parent directory below `root` left empty.
    package static func removeFile(_ relative: String, under root: String) throws {
        let path = root + "/" + relative
        guard unlink(path) == 0 else { throw errnoText("cannot remove", path) }
        var parts = relative.split(separator: "/").dropLast()
        while !parts.isEmpty {
            let dir = root + "/" + parts.joined(separator: "/")
            if rmdir(dir) != 0 { break }
            parts = parts.dropLast()
        }
        syncDirectory(PathName.deletingLast(path))
    }

    /// Sorted names in a directory (no `.`/`..`), empty if it cannot be read.
    package static func list(_ dir: String) -> [String] {
        entries(dir).map(\.name).sorted()
    }

    /// The names in a directory with their `lstat` kinds, unsorted (no `.`/`..`), empty if it cannot be
    /// read. One `readdir` pass: the kind comes from the directory entry, and `lstat` is asked only when
    /// the file system does not say (`DT_UNKNOWN`). Listing 10,000 entries this way is a few milliseconds.
    package static func entries(_ dir: String) -> [(name: String, kind: FileKind)] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [(name: String, kind: FileKind)] = []
        while let e = readdir(d) {
            let (name, type) = withUnsafePointer(to: &e.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { (String(cString: $0), e.pointee.d_type) }
            }
            if name == "." || name == ".." { continue }
            let kind: FileKind
            switch Int32(type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symlink
            case Int32(DT_UNKNOWN): kind = FileSystem.kind(dir + "/" + name)
            default: kind = .other
            }
            out.append((name, kind))
        }
        return out
    }
}
