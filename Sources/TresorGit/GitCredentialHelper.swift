// git's credential helpers (`git credential fill/approve/reject`): the https passwords and tokens a user already keeps.
import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: git)
        process.arguments = ["credential", action]
        // git and its helpers get no tresor session, passphrase file or token.
        var environment = ProcessInfo.processInfo.environment.filter {
            !($0.key.hasPrefix("TRESOR_SESSION") || $0.key == "TRESOR_PASSPHRASE_FILE" || $0.key == "TRESOR_GIT_TOKEN")
        }
        environment["GIT_TERMINAL_PROMPT"] = "0"
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
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
