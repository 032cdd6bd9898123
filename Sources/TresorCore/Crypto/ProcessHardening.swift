// Keeping secrets out of core files and away from other processes of the same user; and the one file of TresorCore
// that sees the CProcess shim (calls glibc declares only under _GNU_SOURCE, or that Swift cannot make itself).
internal import CProcess
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Process-wide settings for a program that holds secrets in memory.
package enum ProcessHardening {
    /// Sets `RLIMIT_CORE` to 0 and `PR_SET_DUMPABLE` to 0: a crash writes no core file, and other processes
    /// of the user can neither attach a debugger nor read this process's memory through /proc. Returns
    /// whether both took effect. Programs started later (an editor) are not affected.
    @discardableResult
    package static func disableCoreDumps() -> Bool { tresor_disable_core_dumps() == 0 }

    #if os(Linux)
    /// `pipe2(fds, O_CLOEXEC)` (FileSystem.pipe's system call on Linux): 0, or -1 with errno.
    static func pipeClosedOnExec(_ fds: inout [Int32]) -> Int32 { tresor_pipe_cloexec(&fds) }
    #endif

    /// Whether `name` is an environment variable that carries a secret or the way to one: a session token
    /// (`TRESOR_SESSION`, `TRESOR_SESSION_<id>`), the passphrase file, the git token.
    package static func isSecretVariable(_ name: String) -> Bool {
        name.hasPrefix("TRESOR_SESSION") || name == "TRESOR_PASSPHRASE_FILE" || name == "TRESOR_GIT_TOKEN"
    }

    /// This process's environment without those variables: what a program tresor starts (an editor, a
    /// clipboard tool, gpg) gets, so none of them can open the vault.
    package static func environmentWithoutSecrets() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !isSecretVariable($0.key) }
    }

    /// Whether the process may still dump core.
    static var isDumpable: Bool { tresor_is_dumpable() != 0 }

    /// The user id of the process at the other end of the connected Unix socket `fd` (`SO_PEERCRED`, set by the kernel
    /// at connect time), or nil with `errno` set: how the agent refuses every other user.
    static func peerUserID(socket fd: Int32) -> UInt32? {
        var uid: UInt32 = 0
        return tresor_peer_uid(fd, &uid) == 0 ? uid : nil
    }
}

/// `syncfs(2)` of the file system holding `fd`: 0 on success (`FileSystem.syncFileSystem`).
func syncFileSystemHolding(_ fd: Int32) -> Int32 { tresor_syncfs(fd) }

/// `getdents64(2)`: the records of the open directory `fd` into `buffer`; the bytes written, 0 at its end, -1 with errno
/// (`FileSystem.readDirectory`).
func directoryRecords(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    tresor_getdents64(fd, buffer.baseAddress, UInt(buffer.count))
}

/// `posix_spawn` of `path` with Foundation's `Process` settings (`tresor_spawn` in the shim): `argv` and `envp` as
/// NULL-terminated C arrays, the three descriptors as the child's standard streams. Returns `posix_spawn`'s result
/// (0 or an errno value); the child's id in `pid` (`ChildProgram`).
func spawnProcess(_ pid: inout pid_t, _ path: String, _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?],
                  _ stdin: Int32, _ stdout: Int32, _ stderr: Int32) -> Int32 {
    tresor_spawn(&pid, path, argv, envp, stdin, stdout, stderr)
}
