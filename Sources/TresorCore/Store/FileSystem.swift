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
private let systemClose = Glibc.close
private func systemPipe(_ fds: inout [Int32]) -> Int32 { ProcessHardening.pipeClosedOnExec(&fds) }
private let systemLink = Glibc.link
private let systemSync = Glibc.sync
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { Glibc.open(path, flags) }
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
private let systemClose = Darwin.close
private let systemPipe = Darwin.pipe
private let systemLink = Darwin.link
private let systemSync = Darwin.sync
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Darwin.open(path, flags, mode) }
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { Darwin.open(path, flags) }
#endif
/// errno where a member of that name hides it.
private var lastErrno: Int32 { errno }

/// The kind of a path as `lstat` sees it.
package enum FileKind: Equatable, Sendable { case missing, file, directory, symlink, other }

/// POSIX file operations with the vault's rules: files 0600, directories 0700, writes atomic. Every file and descriptor
/// system call of the project goes through here (swift-system's `Syscalls.swift`): again after EINTR, the whole buffer
/// written, and a failure thrown with its errno (`Failure`), never ignored.
package enum FileSystem {
    static func failure(_ operation: CoreError.Operation, _ path: String, _ code: Int32 = errno) -> CoreError {
        .io(.failed(operation, path: path, errno: code))
    }

    /// A system call that failed: which, the file it was about (or what the descriptor is, "standard input"), and errno.
    /// The layers above turn it into their own errors (the vault's `VaultError.io`, the CLI's message).
    package struct Failure: Error, Equatable, Sendable {
        package enum Call: String, Sendable { case open, read, write, fsync, close, unlink, mkdir, chmod, lstat, stat, link, rename, truncate, pipe, fcntl, dup, fstat, flock }
        package var call: Call
        package var path: String
        package var errno: Int32

        package init(_ call: Call, _ path: String, errno code: Int32 = lastErrno) { self.call = call; self.path = path; self.errno = code }
    }

    // MARK: Descriptors

    /// `open(2)`, again after EINTR. - Throws: `Failure` (`.open`).
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Failure) -> Int32 {
        while true {
            let fd = systemOpen(path, flags, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Failure(.open, path) }
        }
    }

    /// `close(2)`. Its result says nothing a caller can act on (Linux frees the descriptor even on EINTR, and a write
    /// error it reports is found by the `fsync` that comes first wherever data matters).
    package static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// All of `bytes` written to `fd` (`path` names it in the error), again after EINTR and after a short write.
    /// - Throws: `Failure` (`.write`): EPIPE when the reader went away, ENOSPC, EIO.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let n = systemWrite(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(.write, path)
            }
            written += n
        }
    }

    /// One `read(2)` into `buffer`, again after EINTR: the number of bytes read, 0 at the end of the input.
    /// - Throws: `Failure` (`.read`; EAGAIN from a descriptor that does not block and has nothing yet).
    package static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(Failure) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = systemRead(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw Failure(.read, path) }
        }
    }

    /// Reads until `buffer` is full or the input ends: the number of bytes read. - Throws: `Failure` (`.read`).
    package static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(Failure) -> Int {
        var total = 0
        while total < buffer.count {
            let n = try readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]), path: path)
            if n == 0 { break }
            total += n
        }
        return total
    }

    /// `fsync(2)`: what was written to `fd` is on the disk. - Throws: `Failure` (`.fsync`).
    package static func sync(_ fd: Int32, path: String) throws(Failure) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw Failure(.fsync, path) }
        }
    }

    /// A new file at `path` (never an existing one, never through a link), mode `mode`, holding `bytes`, made durable; on
    /// a failure after it was made, removed, so no part of it stays. - Throws: the failing call's `Failure` (EEXIST
    /// from `open` when something is there).
    package static func createNew(_ path: String, mode: mode_t, bytes: UnsafeRawBufferPointer) throws(Failure) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: mode)
        defer { close(fd) }
        do {
            try writeAll(fd, bytes, path: path)
            try sync(fd, path: path)
        } catch {
            _ = try? removeIfPresent(path)   // (a part must not stay; the error to report is the write's)
            throw error
        }
    }

    /// A pipe whose two ends are closed on exec: at once on Linux (`pipe2`), so that a program another thread starts
    /// meanwhile never gets a copy. - Throws: `Failure` (`.pipe`, `.fcntl`).
    package static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard systemPipe(&fds) == 0 else { throw Failure(.pipe, "a pipe") }
        do { for fd in fds { try setCloseOnExec(fd, path: "a pipe") } } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        return (fds[0], fds[1])
    }

    /// Makes `fd` close when a program is started (`FD_CLOEXEC`). - Throws: `Failure` (`.fcntl`).
    package static func setCloseOnExec(_ fd: Int32, path: String) throws(Failure) {
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw Failure(.fcntl, path) }
    }

    /// Makes reads and writes of `fd` return EAGAIN instead of waiting. - Throws: `Failure` (`.fcntl`).
    package static func setNonBlocking(_ fd: Int32, path: String) throws(Failure) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw Failure(.fcntl, path) }
    }

    /// Takes the exclusive `flock(2)` of `fd` if it is free: false when another process holds it.
    /// - Throws: `Failure` (`.flock`).
    package static func tryLock(_ fd: Int32, path: String) throws(Failure) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw Failure(.flock, path)
        }
        return true
    }

    /// Gives up the `flock(2)` of `fd` (closing it does too; this says so before the close). Nothing to report: a
    /// descriptor that held no lock holds none after.
    package static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    /// Replaces the whole content of the open file `fd` by `bytes` (`ftruncate(2)`, then `pwrite(2)` from its start).
    /// - Throws: `Failure` (`.truncate`, `.write`).
    package static func rewrite(_ fd: Int32, with bytes: [UInt8], path: String) throws(Failure) {
        while ftruncate(fd, 0) != 0 {
            if errno != EINTR { throw Failure(.truncate, path) }
        }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(written)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(.write, path)
            }
            written += n
        }
    }

    /// One `pread(2)` into `buffer` from the start of the open file `fd`, again after EINTR: the number of bytes read.
    /// - Throws: `Failure` (`.read`).
    package static func readFromStart(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(Failure) -> Int {
        try readSome(fd, into: buffer, at: 0, path: path)
    }

    /// One `pread(2)` into `buffer` from `offset` in the open file `fd`, again after EINTR: the number of bytes read,
    /// 0 at the end of the file. - Throws: `Failure` (`.read`).
    package static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, path: String) throws(Failure) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw Failure(.read, path) }
        }
    }

    /// `dup2(2)`: `target` becomes a copy of `fd` (`/dev/null` over standard output). - Throws: `Failure` (`.dup`).
    package static func duplicate(_ fd: Int32, onto target: Int32) throws(Failure) {
        while dup2(fd, target) < 0 {
            if errno != EINTR { throw Failure(.dup, "descriptor \(target)") }
        }
    }

    // MARK: Paths

    /// `lstat(2)` of `path` (`stat(2)` with `followingLinks`), nil when it does not exist (ENOENT, ENOTDIR).
    /// - Throws: `Failure` (`.lstat`, `.stat`): EACCES, EIO, ELOOP.
    package static func status(_ path: String, followingLinks: Bool = false) throws(Failure) -> stat? {
        var st = stat()
        if (followingLinks ? stat(path, &st) : lstat(path, &st)) == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw Failure(followingLinks ? .stat : .lstat, path)
    }

    /// `fstat(2)` of the open descriptor `fd` (`path` names it in the error). - Throws: `Failure` (`.fstat`).
    package static func status(of fd: Int32, path: String) throws(Failure) -> stat {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(.fstat, path) }
        return st
    }

    /// Whether `path` is a regular file this process may execute (following links, as `execve` does).
    package static func isExecutableFile(_ path: String) -> Bool {
        guard let st = try? status(path, followingLinks: true) else { return false }  // (unreadable: not a candidate)
        return st.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// Removes the file (or link) `path`. - Throws: `Failure` (`.unlink`), ENOENT included.
    package static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 else { throw Failure(.unlink, path) }
    }

    /// Removes the file (or link) `path` if it is there: false when there was none. - Throws: `Failure` (`.unlink`)
    /// for any other failure (EACCES, EISDIR, EROFS).
    @discardableResult
    package static func removeIfPresent(_ path: String) throws(Failure) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw Failure(.unlink, path)
    }

    /// `chmod(2)`. - Throws: `Failure` (`.chmod`).
    package static func setMode(_ path: String, _ mode: mode_t) throws(Failure) {
        guard chmod(path, mode) == 0 else { throw Failure(.chmod, path) }
    }

    /// Creates the directory `path` (mode 0700 by default); one that exists already is fine when `existingIsFine`.
    /// - Throws: `Failure` (`.mkdir`).
    package static func makeDirectory(_ path: String, mode: mode_t = 0o700, existingIsFine: Bool = false) throws(Failure) {
        guard mkdir(path, mode) == 0 || (existingIsFine && errno == EEXIST) else { throw Failure(.mkdir, path) }
    }

    /// A new directory of mode 0700 named by `template`, whose last six characters (`XXXXXX`) `mkdtemp(3)` replaces:
    /// its path. - Throws: `Failure` (`.mkdir`).
    package static func makeTemporaryDirectory(_ template: String) throws(Failure) -> String {
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw Failure(.mkdir, template) }
        return String(cString: bytes)
    }

    /// A hard link `to` for the file `from`; fails if `to` exists (the way to create a file that must be new without a
    /// window where it is partly written). - Throws: `Failure` (`.link`, naming `to`).
    package static func link(_ from: String, to: String) throws(Failure) {
        guard systemLink(from, to) == 0 else { throw Failure(.link, to) }
    }

    /// `lstat` kind of `path`.
    package static func kind(_ path: String) -> FileKind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        return kind(mode: st.st_mode)
    }

    /// The kind a `stat` mode says.
    static func kind(mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
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

    /// What a file that is not a regular file is (a FIFO, …), for errors.
    static func type(_ mode: mode_t) -> CoreError.FileType {
        switch mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFSOCK: return .socket
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Reads a regular file, refusing links (`O_NOFOLLOW`), anything that is not a regular file (a FIFO,
    /// socket, device or directory: refused before and after opening, which never blocks thanks to
    /// `O_NONBLOCK`) and files larger than `limit`.
    package static func read(_ path: String, limit: Int) throws -> [UInt8] {
        guard let bytes = try readIfPresent(path, limit: limit) else { throw failure(.read, path, ENOENT) }
        return bytes
    }

    /// `read`, but nil when `path` does not exist (ENOENT, or ENOTDIR: a folder on the way missing); every other
    /// failure is thrown as `read` throws it. The way to read a file whose absence means something (a record not
    /// written yet) while an unreadable one stops the caller.
    package static func readIfPresent(_ path: String, limit: Int) throws -> [UInt8]? {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG, st.st_mode & S_IFMT != S_IFLNK {
            throw CoreError.io(.notRegularFile(path: path, type: type(st.st_mode)))
        }
        let fd: Int32
        do { fd = try open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
            if error.errno == ELOOP { throw CoreError.symlink(path) }
            throw failure(.read, path, error.errno)
        }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else { throw failure(.read, path) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw CoreError.io(.notRegularFile(path: path, type: type(st.st_mode))) }
        guard Int(st.st_size) <= limit else { throw CoreError.malformed(.fileTooLarge(path: path, limit: limit)) }
        // One read of the stat size plus one byte to notice a file that grew meanwhile.
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        let total: Int
        do { total = try bytes.withUnsafeMutableBytes { b in Result { () throws(Failure) in try readFully(fd, into: b, path: path) } }.get() }
        catch { throw failure(.read, path, error.errno) }
        guard total <= limit else { throw CoreError.malformed(.fileTooLarge(path: path, limit: limit)) }
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
        let fd: Int32
        do { fd = try open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600) }
        catch { throw failure(.create, tmp, error.errno) }
        do {
            try bytes.withUnsafeBytes { b in Result { () throws(Failure) in try writeAll(fd, b, path: path) } }.get()
            if durable { try sync(fd, path: path) }
        } catch {
            close(fd)
            unlink(tmp)
            throw failure(.write, path, error.errno)
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
            throw existing == .symlink ? CoreError.symlink(path) : CoreError.io(.notRegularFile(path: path, type: .directory))
        }
        guard rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            throw failure(.replace, path, e)
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

    /// Makes every earlier non-durable write to the file system holding `path` durable: `syncfs` (one call instead of
    /// two fsyncs per file), which unlike `sync` does not also wait for every other file system's writes; `sync` when
    /// `path` cannot be opened or `syncfs` fails.
    package static func syncFileSystem(of path: String) {
        guard let fd = try? open(path, O_RDONLY | O_CLOEXEC) else { return systemSync() }
        if syncFileSystemHolding(fd) != 0 { systemSync() }
        close(fd)
    }

    /// fsync of a directory so a rename or unlink in it is durable.
    package static func syncDirectory(_ dir: String) {
        // (Best effort, as git does: a folder that cannot be opened or synced leaves the rename made, only less durable.)
        guard let fd = try? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) else { return }
        try? sync(fd, path: dir)
        close(fd)
    }

    /// Creates `dir` and missing parents below `root` with mode 0700, refusing links on the way.
    package static func makeDirectories(_ relative: String, under root: String) throws {
        var current = root
        for part in relative.utf8.split(separator: 0x2F) {
            current += "/" + String(decoding: part, as: UTF8.self)
            switch kind(current) {
            case .directory: continue
            case .missing:
                guard mkdir(current, 0o700) == 0 || errno == EEXIST else { throw failure(.createDirectory, current) }
            case .symlink: throw CoreError.symlink(current)
            default: throw CoreError.io(.notADirectory(path: current))
            }
        }
    }

    /// Removes a file (not a link target) and then every parent directory below `root` left empty.
    package static func removeFile(_ relative: String, under root: String) throws {
        let path = root + "/" + relative
        guard unlink(path) == 0 else { throw failure(.remove, path) }
        var parts = EntryPath.split(relative).dropLast()
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

    /// The names in a directory with their `lstat` kinds, unsorted (no `.`/`..`), empty if it cannot be read.
    package static func entries(_ dir: String) -> [(name: String, kind: FileKind)] {
        var out: [(name: String, kind: FileKind)] = []
        _ = readDirectory(dir) { name, kind in out.append((String(decoding: name, as: UTF8.self), kind)) }
        return out
    }

    /// Calls `each` with every name in the directory `path` (its bytes, valid only during the call; no `.`/`..`) and
    /// its `lstat` kind, in the directory's order; false if it cannot be read (after the names read before the error).
    /// The kind comes from the directory's record, and `lstat` is asked only when the file system does not say
    /// (`DT_UNKNOWN`). `followingLink: false` refuses a directory that is a symbolic link (one that replaced a folder
    /// being walked). On Linux the records come from getdents64 into a buffer on the stack: `opendir` added an
    /// `fstat` and a 32 KB allocation to each folder.
    package static func readDirectory(_ path: String, followingLink: Bool = true,
                                      _ each: (UnsafeBufferPointer<UInt8>, FileKind) -> Void) -> Bool {
        readDirectory(bytes: Array(path.utf8) + [0], followingLink: followingLink, each)
    }

    /// `readDirectory` of a path given as its bytes, ending in a zero byte (a path that need not be UTF-8).
    package static func readDirectory(bytes path: [UInt8], followingLink: Bool = true,
                                      _ each: (UnsafeBufferPointer<UInt8>, FileKind) -> Void) -> Bool {
        precondition(path.last == 0, "a path ends in a zero byte")
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        var fd: Int32 = -1
        repeat {
            fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { systemOpen($0.baseAddress!, flags) } }
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return false }
        #if os(Linux)
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 8) { buffer -> Bool in
            let base = buffer.baseAddress!
            while true {
                let count = directoryRecords(fd, into: buffer)
                if count == 0 { return true }
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                // Each record: inode (8 bytes), offset (8), its length (2), the type (1), the name ending in a zero byte.
                var offset = 0
                while offset < count {
                    let record = base + offset
                    offset += Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                    let name = (record + 19).assumingMemoryBound(to: CChar.self)
                    report(name, type: record.load(fromByteOffset: 18, as: UInt8.self), in: fd, each)
                }
            }
        }
        #else
        guard let d = fdopendir(fd) else { close(fd); return false }
        defer { closedir(d) }
        while let e = readdir(d) {
            withUnsafePointer(to: &e.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { report($0, type: e.pointee.d_type, in: dirfd(d), each) }
            }
        }
        return true
        #endif
    }

    /// Hands `each` one directory record, unless it is "." or "..".
    private static func report(_ name: UnsafePointer<CChar>, type: UInt8, in dir: Int32,
                               _ each: (UnsafeBufferPointer<UInt8>, FileKind) -> Void) {
        let count = strlen(name)
        if name[0] == 0x2E && (count == 1 || (count == 2 && name[1] == 0x2E)) { return }
        let kind: FileKind
        switch Int32(type) {
        case Int32(DT_REG): kind = .file
        case Int32(DT_DIR): kind = .directory
        case Int32(DT_LNK): kind = .symlink
        case Int32(DT_UNKNOWN): kind = Self.kind(at: dir, name)
        default: kind = .other
        }
        UnsafeRawPointer(name).withMemoryRebound(to: UInt8.self, capacity: count) { each(UnsafeBufferPointer(start: $0, count: count), kind) }
    }

    /// What `name` in the open directory `dir` is, without following a link.
    private static func kind(at dir: Int32, _ name: UnsafePointer<CChar>) -> FileKind {
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        return kind(mode: st.st_mode)
    }
}
