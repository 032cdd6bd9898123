// Starting child processes with posix_spawn: editors in tresor's own process group, helpers detached in a session of their own.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// Child processes. Foundation's `Process` puts every child in a new process group that does not own the
/// terminal, so a terminal editor started with it is stopped by the kernel; these start children where
/// they belong instead.
enum Spawn {
    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later; the Swift overlay does not import it).
    private static let setSession: Int32 = 0x80

    /// The signals a terminal or a user sends that a child must receive with their default action.
    static let terminalSignals: [Int32] = [SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE, SIGCHLD]

    /// Starts `path` with `arguments` (argv[1…]). `detached`: in a new session, with no controlling terminal
    /// and out of reach of the terminal's signals and of a kill of tresor's process group; otherwise in
    /// tresor's own process group, so it shares the terminal when tresor is in the foreground.
    /// `stdin`/`stdout`/`stderr` are descriptors to give the child (nil: tresor's own).
    /// - Throws: `CLIError` naming the program when it cannot be started.
    static func start(_ path: String, _ arguments: [String], detached: Bool = false,
                      stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigemptyset(&empty)
        for s in terminalSignals { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (detached ? setSession : 0)))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(stdin, STDIN_FILENO), (stdout, STDOUT_FILENO), (stderr, STDERR_FILENO)] {
            if let fd { posix_spawn_file_actions_adddup2(&actions, fd, target) }
        }
        // A detached helper outlives tresor: it must hold none of the descriptors tresor inherited (the
        // end of a pipe a shell or a test waits on would never close).
        if detached {
            let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
            // (fcntl as a probe: -1 is a descriptor the listing itself had open, closed since.)
            for fd in open where fd > STDERR_FILENO && fcntl(fd, F_GETFD) != -1 { posix_spawn_file_actions_addclose(&actions, fd) }
        }

        let argv = ([PathName.last(path)] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        // No program tresor starts gets a session token, the passphrase file or the git token.
        let envp = ProcessHardening.environmentWithoutSecrets().map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw CLIError("cannot start \"\(path)\": \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Starts `path` in tresor's process group with `argv` and `envp` as given (both NULL-terminated; `tresor run`
    /// builds the environment in zeroing memory), the terminal's signals at their default action, and `stdout`/`stderr`
    /// (nil: tresor's own). Returns posix_spawn's result (0, or an errno value).
    static func spawn(_ path: String, argv: [UnsafeMutablePointer<CChar>?], envp: [UnsafeMutablePointer<CChar>?],
                      stdout: Int32?, stderr: Int32?, pid: inout pid_t) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigemptyset(&empty)
        for s in terminalSignals + [SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO) }
        return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    }

    /// Waits for `pid` to exit: its exit status, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 127 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// A pipe whose two ends are closed in every program tresor starts (`FD_CLOEXEC`), so that only
    /// the processes given an end on purpose hold one. - Throws: `CLIError`.
    static func privatePipe() throws -> (read: Int32, write: Int32) {
        do { return try FileSystem.pipe() } catch { throw CLIError("cannot create a pipe: \(String(cString: strerror(error.errno)))") }
    }

    /// `/dev/null` opened for reading and writing (close it after starting the child); -1 if it cannot be opened (the
    /// child is then not started: posix_spawn refuses the descriptor).
    static func devNull() -> Int32 { (try? FileSystem.open("/dev/null", O_RDWR | O_CLOEXEC)) ?? -1 }

    /// This program, to start its hidden helper commands: the file `/proc/self/exe` links to (so `ps`
    /// shows "tresor"), or the link itself if that file was replaced meanwhile.
    static var selfExecutable: String {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
           FileManager.default.isExecutableFile(atPath: target) { return target }
        return FileManager.default.isExecutableFile(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
    }
}

/// The terminal's settings, saved before a full-screen program runs and put back after it, whatever
/// state it left them in (an editor killed in raw mode).
struct TerminalState {
    private let fd: Int32
    private let saved: termios

    /// The settings of standard input, if it is a terminal whose foreground process group is tresor's.
    static func save() -> TerminalState? {
        let fd = STDIN_FILENO
        var t = termios()
        guard isatty(fd) == 1, tcgetpgrp(fd) == getpgrp(), tcgetattr(fd, &t) == 0 else { return nil }
        return TerminalState(fd: fd, saved: t)
    }

    /// Puts the settings back (only while tresor still owns the terminal, so it is never stopped for it).
    func restore() {
        guard tcgetpgrp(fd) == getpgrp() else { return }
        var t = saved
        tcsetattr(fd, TCSADRAIN, &t)
    }
}
