// Running a program for `tresor run`: in tresor's place, or as a child whose output is filtered, with signals passed on.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// How a child ended.
struct ChildStatus {
    var code: Int32 = 0
    var signal: Int32 = 0

    init(waitStatus s: Int32) {
        signal = s & 0x7f
        code = (s >> 8) & 0xff
    }

    /// Ends tresor with the same exit status, or by the same signal (with its default action; a shell sees
    /// 128 + N), so that the caller cannot tell tresor from the program.
    func exitTheSameWay() -> Never {
        fflush(nil)
        if signal != 0 {
            Glibc.signal(signal, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, signal)
            sigprocmask(SIG_UNBLOCK, &set, nil)
            raise(signal)
            Glibc.exit(128 + signal)
        }
        Glibc.exit(code)
    }
}

/// The self-pipe the signal handler writes to: a signal number and whether another process sent it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Async-signal-safe: one write(2) of two bytes. `si_code` ≤ 0 means kill(2)/sigqueue(2) by a process; the kernel
/// (a terminal's Ctrl-C, SIGCHLD) uses positive codes.
private let relaySignal: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signo, info, _ in
    let saved = errno
    // A raw write(2), not FileSystem's: only async-signal-safe calls may run in a signal handler.
    var message: UInt16 = UInt16(UInt8(truncatingIfNeeded: signo)) | ((info.map { $0.pointee.si_code <= 0 } ?? true) ? 0x100 : 0)
    _ = write(signalPipeWriteEnd, &message, 2)
    errno = saved
}

enum ChildProcess {
    /// The signals passed on to the child when another process sends them to tresor.
    static let relayed: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM]

    /// `name` as the shell would find it: a path when it holds a `/`, else the first executable file of that name
    /// in `path`'s folders. - Throws: `CLIError` (exit 127) when there is none.
    static func locate(_ name: String, path: String) throws -> String {
        if name.contains("/") { return name }
        for dir in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + name
            if FileSystem.isExecutableFile(candidate) { return candidate }
        }
        throw CLIError("command not found: \(Output.quoted(name))", code: 127)
    }

    /// Replaces tresor by `program`. Returns only on failure, with the errno of execve(2).
    static func exec(_ program: String, arguments: [String], environment: ChildEnvironment) -> Int32 {
        fflush(nil)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        return environment.withEnvp { envp in
            execve(program, argv, envp)
            return errno
        }
    }

    /// Runs `program` as a child in tresor's process group (it shares the terminal and its standard input), its
    /// standard output and error through pipes and a `SecretMasker` each to tresor's own; passes on signals other
    /// processes send to tresor. Returns when the child has ended and its output is written (output that a
    /// process it left running writes later is not waited for).
    static func runMasked(_ program: String, arguments: [String], environment: ChildEnvironment, secrets: [SecretBytes]) throws -> ChildStatus {
        let out = try Spawn.privatePipe(), err = try Spawn.privatePipe(), sig = try Spawn.privatePipe()
        do { for fd in [out.read, err.read, sig.read, sig.write] { try FileSystem.setNonBlocking(fd, path: "a pipe") } }
        catch { throw CLIError("cannot set up the pipes to \(Output.quoted(program)): \(String(cString: strerror(error.errno)))") }
        signalPipeWriteEnd = sig.write
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = relaySignal
        action.sa_flags = SA_SIGINFO | SA_RESTART
        sigemptyset(&action.sa_mask)
        for s in relayed + [SIGCHLD] { sigaction(s, &action, nil) }
        // A reader that goes away (`| head`) must not kill tresor: the child learns it from its own pipe.
        signal(SIGPIPE, SIG_IGN)

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = environment.withEnvp { envp in Spawn.spawn(program, argv: argv, envp: envp, stdout: out.write, stderr: err.write, pid: &pid) }
        FileSystem.close(out.write)
        FileSystem.close(err.write)
        guard rc == 0 else {
            FileSystem.close(out.read); FileSystem.close(err.read)
            throw CLIError("cannot start \(Output.quoted(program)): \(String(cString: strerror(rc)))", code: rc == ENOENT ? 127 : 126)
        }

        var streams = [Stream(from: out.read, to: STDOUT_FILENO, masker: SecretMasker(secrets: secrets)),
                       Stream(from: err.read, to: STDERR_FILENO, masker: SecretMasker(secrets: secrets))]
        var status: ChildStatus?
        let buffer = SecretBytes(count: 65536)
        while status == nil || streams.contains(where: \.isOpen) {
            if status != nil {
                // The child is gone: take what is in the pipes now, not what a process it left behind writes later.
                for i in streams.indices where streams[i].isOpen { streams[i].drain(buffer) ; streams[i].close() }
                break
            }
            var fds = [pollfd(fd: sig.read, events: Int16(POLLIN), revents: 0)]
            for s in streams where s.isOpen { fds.append(pollfd(fd: s.from, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 { if errno == EINTR { continue }; break }
            if fds[0].revents != 0 {
                var message: UInt16 = 0
                // (The handler writes two bytes at once: anything else, EAGAIN at the end, stops the loop.)
                while (try? withUnsafeMutableBytes(of: &message, { b in try FileSystem.readSome(sig.read, into: b, path: "the signal pipe") })) == 2 {
                    let signo = Int32(message & 0xff)
                    if signo == SIGCHLD {
                        var s: Int32 = 0
                        if waitpid(pid, &s, WNOHANG) == pid { status = ChildStatus(waitStatus: s) }
                    } else if message & 0x100 != 0 {
                        kill(pid, signo)
                    }
                }
            }
            for i in streams.indices where streams[i].isOpen {
                guard let p = fds.first(where: { $0.fd == streams[i].from }), p.revents != 0 else { continue }
                if !streams[i].readOnce(buffer) { streams[i].close() }
            }
        }
        if status == nil {
            var s: Int32 = 0
            while waitpid(pid, &s, 0) < 0 && errno == EINTR {}
            status = ChildStatus(waitStatus: s)
        }
        for s in relayed + [SIGCHLD] { signal(s, SIG_DFL) }
        FileSystem.close(sig.read); FileSystem.close(sig.write)
        return status!
    }

    /// One output stream of the child: its pipe, tresor's descriptor, and the filter between.
    struct Stream {
        let from: Int32
        let to: Int32
        var masker: SecretMasker
        var isOpen = true
        /// The reader of `to` went away: the rest is read and dropped.
        var broken = false

        init(from: Int32, to: Int32, masker: SecretMasker) { self.from = from; self.to = to; self.masker = masker }

        /// One read; false at the end of the stream (or an error other than "try again").
        mutating func readOnce(_ buffer: SecretBytes) -> Bool {
            let from = self.from
            let read = buffer.withBytes { b in
                Result { () throws(FileSystem.Failure) in
                    try FileSystem.readSome(from, into: UnsafeMutableRawBufferPointer(mutating: b), path: "the program's output")
                }
            }
            let n: Int
            switch read {
            case .success(let count): n = count
            case .failure(let e): return e.errno == EAGAIN
            }
            if n == 0 { return false }
            let to = self.to
            var broken = self.broken
            buffer.withBytes { b in
                masker.feed(UnsafeRawBufferPointer(rebasing: b[0..<n])) { chunk in
                    if !broken, !Stream.writeAll(to, chunk) { broken = true }
                }
            }
            self.broken = broken
            if broken { return false }
            return true
        }

        /// Reads what the pipe holds now.
        mutating func drain(_ buffer: SecretBytes) {
            while isOpen, readOnce(buffer) {
                var p = pollfd(fd: from, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 0) <= 0 { break }
            }
        }

        /// Gives out what the masker held back and closes the pipe (a child still writing gets SIGPIPE).
        mutating func close() {
            guard isOpen else { return }
            let to = self.to
            var broken = self.broken
            masker.finish { chunk in if !broken, !Stream.writeAll(to, chunk) { broken = true } }
            FileSystem.close(from)
            isOpen = false
        }

        /// Whether all of `b` reached `fd` (false: its reader went away).
        static func writeAll(_ fd: Int32, _ b: UnsafeRawBufferPointer) -> Bool {
            (try? FileSystem.writeAll(fd, b, path: "the output")) != nil
        }
    }
}
