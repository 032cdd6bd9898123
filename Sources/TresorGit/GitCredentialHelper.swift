// git's credential helpers (`git credential fill/approve/reject`): the https passwords and tokens a user already keeps.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
internal import CProcess

/// Asks the user's git for https credentials, the way `git fetch` does: whatever `credential.helper` is
/// configured (store, cache, libsecret, osxkeychain…). Git never prompts (`GIT_TERMINAL_PROMPT=0`); without git
/// on `PATH` every call does nothing.
enum GitCredentialHelper {
    struct Credential: Equatable {
        var username: String
        var password: String
    }

    /// The credential git's helpers hold for `url`, if any.
    static func fill(url: String, username: String?) -> Credential? {
        guard var input = describe(url: url) else { return nil }
        if let username { input += "username=\(username)\n" }
        guard let output = run("fill", input: input + "\n") else { return nil }
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        guard let user = fields["username"], let password = fields["password"], !password.isEmpty else { return nil }
        return Credential(username: user, password: password)
    }

    /// Tells the helpers the credential worked (they may store it).
    static func approve(_ credential: Credential, url: String) { report("approve", credential, url) }

    /// Tells the helpers the server refused the credential (they forget it).
    static func reject(_ credential: Credential, url: String) { report("reject", credential, url) }

    private static func report(_ action: String, _ credential: Credential, _ url: String) {
        guard let description = describe(url: url) else { return }
        _ = run(action, input: description + "username=\(credential.username)\npassword=\(credential.password)\n\n")
    }

    /// The URL without user or password, as git's `url=` attribute; nil when it cannot be told to git safely.
    private static func describe(url: String) -> String? {
        var components = URLComponents(string: url)
        components?.user = nil
        components?.password = nil
        let plain = components?.string ?? url
        guard !plain.contains("\n"), !plain.contains("\u{0}") else { return nil }
        return "url=\(plain)\n"
    }

    /// Runs `git credential <action>` with `input`; its standard output, or nil when git is missing or fails.
    private static func run(_ action: String, input: String) -> String? {
        guard let git = executable() else { return nil }
        // git and its helpers get no tresor session, passphrase file or token.
        var environment = ProcessInfo.processInfo.environment.filter {
            !($0.key.hasPrefix("TRESOR_SESSION") || $0.key == "TRESOR_PASSPHRASE_FILE" || $0.key == "TRESOR_GIT_TOKEN")
        }
        environment["GIT_TERMINAL_PROMPT"] = "0"
        guard let (status, output) = spawnAndWait(git, ["credential", action], environment: environment, input: Array(input.utf8)),
              status == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }

    /// Starts `path` as Foundation's `Process` did (a process group of its own, signals at their default action, no
    /// descriptor but its standard streams, standard error to /dev/null), writes `input` to it, reads its standard
    /// output to the end and waits: its exit status (or the signal that ended it) and output; nil if it cannot start.
    private static func spawnAndWait(_ path: String, _ arguments: [String], environment: [String: String], input: [UInt8]) -> (Int32, [UInt8])? {
        // pipe(2), read(2), write(2) and close(2) themselves (TresorGit does not see TresorCore's FileSystem): a helper that
        // cannot be run, fed or read gives no credential (nil, or what it wrote before), as git treats a failing helper.
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { return nil }
        defer { for fd in toChild + fromChild where fd >= 0 { close(fd) } }
        guard pipe(&fromChild) == 0 else { return nil }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let argv = ([String(path.split(separator: "/").last ?? "git")] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        var pid: pid_t = 0
        // (Started as ChildProgram starts gpg: Foundation's Process settings, its standard error to /dev/null.)
        guard tresor_spawn(&pid, path, argv, envp, toChild[0], fromChild[1], -1) == 0 else { return nil }
        close(toChild[0]); toChild[0] = -1
        close(fromChild[1]); fromChild[1] = -1

        // A helper that ends without reading its input must not end tresor with SIGPIPE.
        let previous = signal(SIGPIPE, SIG_IGN)
        var written = 0
        while written < input.count {
            let n = input.withUnsafeBytes { write(toChild[1], $0.baseAddress! + written, input.count - written) }
            if n < 0 { if errno == EINTR { continue }; break }
            written += n
        }
        signal(SIGPIPE, previous)
        close(toChild[1]); toChild[1] = -1
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fromChild[0], &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            output += chunk[..<n]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { if errno != EINTR { return nil } }
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : signal, output)
    }

    /// `git` on `PATH`.
    static func executable(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for dir in (path ?? "/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            let candidate = String(dir) + "/git"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
