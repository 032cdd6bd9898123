// Runs the user's own gpg (agent and pinentry as usual) to decrypt and encrypt pass store files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// The user's `gpg`, found on `PATH`, called with pass's own options (`--batch --use-agent`), so the
/// agent asks for a passphrase through pinentry exactly as `pass show` would.
public struct GPG: Sendable {
    /// The gpg executable.
    public let executable: String
    /// pass's options: quiet, never ask gpg itself for input, leave passphrases to the agent.
    static let options = ["--quiet", "--yes", "--compress-algo=none", "--no-encrypt-to", "--batch", "--use-agent"]

    /// Finds `gpg2`, else `gpg`, on `PATH` (as pass does). - Throws: `InterchangeError.toolFailed` if neither is there.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let dirs = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["gpg2", "gpg"] {
            if let dir = dirs.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/" + name) }) {
                executable = dir + "/" + name
                return
            }
        }
        throw InterchangeError.toolFailed(program: "gpg", path: "", status: 127, message: "")
    }

    /// The decrypted contents of `file`. - Throws: `InterchangeError.toolFailed` with gpg's message.
    public func decrypt(_ file: String) throws -> SecretBytes {
        try run(["-d"] + GPG.options + ["--", file], input: nil, file: file)
    }

    /// Encrypts `plaintext` to `recipients` into `file` (which must not exist).
    public func encrypt(_ plaintext: SecretBytes, recipients: [String], to file: String) throws {
        let args = ["-e"] + recipients.flatMap { ["-r", $0] } + ["-o", file] + GPG.options
        _ = try run(args, input: plaintext, file: file)
    }

    private func run(_ args: [String], input: SecretBytes?, file: String) throws -> SecretBytes {
        var env = ProcessHardening.environmentWithoutSecrets()
        // pinentry-curses needs the terminal's name, as pass sets it.
        if env["GPG_TTY"] == nil, isatty(STDIN_FILENO) == 1, let tty = ttyname(STDIN_FILENO) { env["GPG_TTY"] = String(cString: tty) }
        let result: ChildProgram
        do { result = try ChildProgram.run(executable, args, environment: env, input: input) } catch {
            let reason = (error as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "\(error)"
            throw InterchangeError.toolFailed(program: executable, path: file, status: 127, message: reason)
        }
        guard result.status == 0 else {
            let message = String(decoding: result.errorOutput, as: UTF8.self).trimming(.whitespacesAndNewlines)
            throw InterchangeError.toolFailed(program: executable, path: file, status: result.status, message: message)
        }
        return result.output
    }
}

