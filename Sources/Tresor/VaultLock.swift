// The vault-wide lock: an advisory flock on .git/tresor/lock held for a whole read-modify-commit (Spec/TRANSACTIONS.md §2).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// The process holding the vault lock, as far as a waiting process can tell.
public struct LockHolder: Sendable, Equatable {
    /// Its process id, or nil if it had not written it yet.
    public var pid: Int32?
    /// Its program and subcommand (`tresor sync`), read from `/proc`; never its other arguments.
    public var command: String?
}

/// An exclusive `flock` on the lock file; released when this object goes away or the process dies
/// (the kernel drops the lock of a dead process, so a lock is never stale).
final class VaultLock {
    static let relativePath = ".git/tresor/lock"
    private var fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { release() }

    /// Gives the lock up; the object is spent afterwards.
    func release() {
        guard fd >= 0 else { return }
        FileSystem.unlock(fd)
        FileSystem.close(fd)
        fd = -1
    }

    /// Takes the lock of the vault at `root`, waiting at most `timeout` seconds. `waiting` is called once,
    /// with the holder, if the lock is still busy after a second (shorter waits are not worth a word).
    /// - Throws: `VaultError.lockTimeout` naming the holder, `.io` if the lock file cannot be opened.
    static func acquire(root: String, timeout: TimeInterval, waiting: ((LockHolder) -> Void)?) throws -> VaultLock {
        let fd = try openLockFile(root: root)
        let start = Date()
        let deadline = start.addingTimeInterval(timeout)
        var told = false
        while true {
            do { if try FileSystem.tryLock(fd, path: root + "/" + relativePath) { break } } catch {
                FileSystem.close(fd)
                throw VaultError.io(path: error.path, errno: error.errno)
            }
            if !told, Date().timeIntervalSince(start) >= 1 { told = true; waiting?(holder(fd)) }
            if Date() >= deadline {
                let who = holder(fd)
                FileSystem.close(fd)
                throw VaultError.lockTimeout(holder: who, seconds: timeout)
            }
            usleep(20_000)
        }
        // Record who holds it, for the messages of processes that wait. (Only for those messages: a lock whose pid could
        // not be written locks all the same, and a waiting process then names no holder.)
        try? FileSystem.rewrite(fd, with: Array("\(getpid())\n".utf8), path: root + "/" + relativePath)
        return VaultLock(fd: fd)
    }

    /// Takes the lock only if it is free right now.
    static func tryAcquire(root: String) -> VaultLock? {
        // (A lock that cannot be taken, for whatever reason, is not free right now: the caller does without.)
        guard let fd = try? openLockFile(root: root) else { return nil }
        guard (try? FileSystem.tryLock(fd, path: root + "/" + relativePath)) == true else { FileSystem.close(fd); return nil }
        return VaultLock(fd: fd)
    }

    private static func openLockFile(root: String) throws -> Int32 {
        /// Permission or a read-only file system: the vault is there to read, not to change.
        func failure(_ path: String, _ code: Int32) -> VaultError {
            [EACCES, EPERM, EROFS].contains(code) ? .readOnly(directory: root, path: path, errno: code) : .io(path: path, errno: code)
        }
        do { try FileSystem.makeDirectories(".git/tresor", under: root) } catch {
            // errno of the failed mkdir may be gone by now: ask the folder it was made in (access(2): a question, not a change).
            if access(root + "/.git", W_OK) != 0 { throw failure(root + "/.git", errno) }
            throw VaultError.io(path: root + "/.git/tresor", errno: errno)
        }
        do { return try FileSystem.open(root + "/" + relativePath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: 0o600) }
        catch { throw failure(error.path, error.errno) }
    }

    /// Reads the holder's pid from the lock file and its command from `/proc`.
    private static func holder(_ fd: Int32) -> LockHolder {
        var buffer = [UInt8](repeating: 0, count: 32)
        // (No pid to read: the holder had not written it yet, or it cannot be read; the message then names no holder.)
        let n = (try? buffer.withUnsafeMutableBytes { b in try FileSystem.readFromStart(fd, into: b, path: relativePath) }) ?? 0
        guard n > 0, let pid = Int32(String(decoding: buffer[..<n], as: UTF8.self).trimming(.whitespacesAndNewlines)) else {
            return LockHolder(pid: nil, command: nil)
        }
        return LockHolder(pid: pid, command: processCommand(pid))
    }

    /// `program subcommand` of a running process, from `/proc/PID/cmdline` (only the first two words:
    /// later arguments may hold anything).
    static func processCommand(_ pid: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
        let words = data.split(separator: 0, omittingEmptySubsequences: true).prefix(2).map { String(decoding: $0, as: UTF8.self) }
        guard let program = words.first else { return nil }
        return ([PathName.last(program)] + words.dropFirst().filter { !$0.hasPrefix("-") }).joined(separator: " ")
    }
}
