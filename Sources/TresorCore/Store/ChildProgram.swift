// Running a helper program (gpg) to completion with pipes on its standard streams, as Foundation's Process did.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A program run to its end: what it wrote, and how it ended.
package struct ChildProgram {
    /// Its exit status, or the number of the signal that ended it (as Foundation's `terminationStatus`).
    package var status: Int32
    /// Its standard output, in a zeroing buffer (gpg writes decrypted secrets there).
    package var output: SecretBytes
    package var errorOutput: [UInt8]

    /// Starts `path` with `arguments` (argv[1…]) and `environment` in a process group of its own, every signal at
    /// its default action (as Foundation's `Process`); writes `input` to its standard input and closes it, reads
    /// its standard output and error while it runs, and waits for it.
    /// - Throws: the `errno` value (`POSIXError`) when it cannot be started or its output cannot be read.
    package static func run(_ path: String, _ arguments: [String], environment: [String: String], input: SecretBytes?) throws -> ChildProgram {
        var pipes: [Int32] = [-1, -1, -1, -1, -1, -1]
        defer { for fd in pipes where fd >= 0 { FileSystem.close(fd) } }
        for i in stride(from: 0, to: 6, by: 2) {
            do { (pipes[i], pipes[i + 1]) = try FileSystem.pipe() } catch { throw posixError(error.errno) }  // (closed on exec)
        }
        let (inRead, inWrite, outRead, outWrite, errRead, errWrite) = (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5])

        let (rc, pid) = spawn(path, arguments, environment: environment, streams: (inRead, outWrite, errWrite))
        guard rc == 0 else { throw posixError(rc) }
        for i in [0, 3, 5] { FileSystem.close(pipes[i]); pipes[i] = -1 }

        // Writing to a program that has already ended must fail with EPIPE, not end tresor: SIGPIPE is blocked for
        // this thread alone (setting the process's action raced with other threads running programs at once).
        let pipeSignalMask = blockSIGPIPE()
        defer { unblockSIGPIPE(pipeSignalMask) }
        var output = SecretByteBuilder(capacity: 4096)
        var errorOutput: [UInt8] = []
        var written = 0
        var toWrite = input == nil ? -1 : inWrite
        if input == nil || input!.count == 0 { FileSystem.close(inWrite); pipes[1] = -1; toWrite = -1 } else {
            // Never blocked on a full pipe while the program waits for its output to be read (a blocking write of
            // more than the pipe holds would wait for all of it).
            do { try FileSystem.setNonBlocking(inWrite, path: PathName.last(path)) } catch { throw posixError(error.errno) }
        }
        var readers = [outRead, errRead]
        var readFailure: FileSystem.Failure?
        let chunk = SecretBytes(count: 65_536)
        while !readers.isEmpty || toWrite >= 0 {
            var fds = readers.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if toWrite >= 0 { fds.append(pollfd(fd: toWrite, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else { if errno == EINTR { continue }; break }
            for p in fds where p.revents != 0 {
                if p.fd == toWrite {
                    // write(2) itself, not FileSystem.writeAll: a partial write when poll says there is room, so that the
                    // program's output is read while it waits for the rest of its input. A program that stopped reading
                    // (EPIPE) gets no more; how it ended says what happened.
                    let n = input!.withBytes { b in write(toWrite, b.baseAddress! + written, b.count - written) }
                    if n > 0 { written += n }
                    if n < 0, errno == EINTR || errno == EAGAIN { continue }
                    if n < 0 || written == input!.count { FileSystem.close(toWrite); pipes[1] = -1; toWrite = -1 }
                    continue
                }
                let got = chunk.withMutableBytes { b in
                    Result { () throws(FileSystem.Failure) in try FileSystem.readSome(p.fd, into: b, path: PathName.last(path)) }
                }
                switch got {
                case .success(let n) where n > 0:
                    chunk.withBytes { b in
                        if p.fd == outRead { output.append(UnsafeRawBufferPointer(rebasing: b[..<n])) } else { errorOutput += b[..<n] }
                    }
                case .success: readers.removeAll { $0 == p.fd }
                case .failure(let e): readFailure = readFailure ?? e; readers.removeAll { $0 == p.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { if errno != EINTR { status = 127 << 8; break } }
        let signal = status & 0x7f
        if let readFailure { throw posixError(readFailure.errno) }
        return ChildProgram(status: signal == 0 ? (status >> 8) & 0xff : signal, output: output.finish(), errorOutput: errorOutput)
    }

    /// `path` started with Foundation's `Process` settings (`tresor_spawn`): `posix_spawn`'s result (0 or an errno
    /// value) and the new process's id.
    private static func spawn(_ path: String, _ arguments: [String], environment: [String: String],
                              streams: (stdin: Int32, stdout: Int32, stderr: Int32)) -> (Int32, pid_t) {
        let argv = ([PathName.last(path)] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        var pid: pid_t = 0
        let rc = spawnProcess(&pid, path, argv, envp, streams.stdin, streams.stdout, streams.stderr)
        return (rc, pid)
    }

    /// Blocks SIGPIPE for the calling thread; returns the mask before.
    private static func blockSIGPIPE() -> sigset_t {
        var block = sigset_t(), old = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &block, &old)
        return old
    }

    /// Takes a SIGPIPE the writes raised off this thread (unless it was blocked before) and restores `old`.
    private static func unblockSIGPIPE(_ old: sigset_t) {
        var old = old, block = sigset_t(), pending = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        if sigismember(&old, SIGPIPE) == 0, sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&block, nil, &now) == SIGPIPE {}
        }
        pthread_sigmask(SIG_SETMASK, &old, nil)
    }

    private static func posixError(_ code: Int32) -> POSIXError { POSIXErrorCode(rawValue: code).map { POSIXError($0) } ?? POSIXError(.EIO) }
}
