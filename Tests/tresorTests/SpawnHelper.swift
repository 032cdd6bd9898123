// Starting test helpers (tmux, Xvfb, xclip) with posix_spawn and nothing inherited but stdio: servers
// they leave behind must not hold the descriptors Foundation's `Process` waits on.
import Foundation

enum SpawnHelper {
    /// Starts `path args…`; `stdin`/`stdout` are descriptors to give it (nil: /dev/null), `extra` maps
    /// descriptors of ours to descriptor numbers in the child (as `-displayfd 3` needs). Every other
    /// descriptor above 2 is closed in the child. Returns the pid, or nil.
    static func start(_ path: String, _ args: [String], stdin: Int32? = nil, stdout: Int32? = nil, extra: [(Int32, Int32)] = []) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for (ours, theirs) in extra { posix_spawn_file_actions_adddup2(&actions, ours, theirs) }
        let keep = Set(extra.map(\.1))
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        for fd in open where fd > 2 && !keep.contains(fd) && fcntl(fd, F_GETFD) != -1 { posix_spawn_file_actions_addclose(&actions, fd) }
        let all: [String] = [path] + args
        let argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 ? pid : nil
    }

    /// Runs `path args…` to its end with `input` on stdin; returns its exit status and what it printed.
    static func run(_ path: String, _ args: [String], input: String? = nil) -> (status: Int32, output: String) {
        let out = NSTemporaryDirectory() + "spawn-" + UUID().uuidString
        let outFD = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(outFD); unlink(out) }
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        guard let pid = start(path, args, stdin: fds[0], stdout: outFD) else { close(fds[0]); close(fds[1]); return (127, "") }
        close(fds[0])
        if let input { _ = input.utf8CString.withUnsafeBufferPointer { write(fds[1], $0.baseAddress, $0.count - 1) } }
        close(fds[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }
}
