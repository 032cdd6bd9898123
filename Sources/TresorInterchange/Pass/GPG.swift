// Runs the user's own gpg (agent and pinentry as usual) to decrypt and encrypt pass store files.
import Foundation
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        var env = ProcessHardening.environmentWithoutSecrets()
        // pinentry-curses needs the terminal's name, as pass sets it.
        if env["GPG_TTY"] == nil, isatty(STDIN_FILENO) == 1, let tty = ttyname(STDIN_FILENO) { env["GPG_TTY"] = String(cString: tty) }
        p.environment = env
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        do { try p.run() } catch {
            throw InterchangeError.toolFailed(program: executable, path: file, status: 127, message: "\(error.localizedDescription)")
        }
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errBox.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async {
            if let input {
                input.withBytes { b in
                    if let base = b.baseAddress, b.count > 0 {
                        try? inp.fileHandleForWriting.write(contentsOf: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: b.count, deallocator: .none))
                    }
                }
            }
            try? inp.fileHandleForWriting.close()
            group.leave()
        }
        var data = out.fileHandleForReading.readDataToEndOfFile()
        defer { Sodium.wipe(&data) }
        group.wait()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let message = String(decoding: errBox.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw InterchangeError.toolFailed(program: executable, path: file, status: p.terminationStatus, message: message)
        }
        return SecretBytes(copying: data)
    }
}

/// gpg's stderr, filled by the thread that reads it and read after that thread has finished.
private final class DataBox: @unchecked Sendable { var data = Data() }
