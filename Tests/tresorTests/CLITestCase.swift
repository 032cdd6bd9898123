// Runs the built `tresor` binary in a private temp dir and captures stdout, stderr and the exit code.
import Foundation
import XCTest

struct CLIResult {
    let stdout: String
    let stderr: String
    let code: Int32
}

class CLITestCase: XCTestCase {
    var dir = ""
    var vaultDir: String { dir + "/vault" }
    var passphraseFile: String { dir + "/passphrase" }
    var env: [String: String] = [:]

    /// The binary next to the test bundle (same build directory).
    static let binary: String = {
        if let b = ProcessInfo.processInfo.environment["TRESOR_BIN"] { return b }
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let p = candidate.appendingPathComponent("tresor").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return products.appendingPathComponent("tresor").path
    }()

    /// Failpoints (`TRESOR_FAILPOINT`) exist only in debug builds; `make test` also runs these tests
    /// against the release binary, named by `TRESOR_BIN`.
    func requireFailpoints() throws {
        if ProcessInfo.processInfo.environment["TRESOR_BIN"] != nil {
            throw XCTSkip("failpoints are compiled into debug builds only; the release binary never honours them")
        }
    }

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tresor-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        // The login session's runtime directory: each test has its own, so each has its own agent (which ends when
        // the directory is removed with the test's).
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try "correct horse battery staple\n".write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        env = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": dir + "/home", "LANG": "C.UTF-8",
            "TRESOR_VAULT": vaultDir, "TRESOR_SESSION_DIR": dir + "/sessions",
            "TRESOR_PASSPHRASE_FILE": passphraseFile, "GIT_CONFIG_NOSYSTEM": "1", "XDG_RUNTIME_DIR": dir + "/run",
        ]
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Runs `tresor args…` with the test environment (plus `extraEnv`; a nil value removes a variable).
    @discardableResult
    func tresor(_ args: [String], stdin: String? = nil, extraEnv: [String: String?] = [:]) throws -> CLIResult {
        try run(CLITestCase.binary, args, stdin: stdin, extraEnv: extraEnv)
    }

    @discardableResult
    func tresor(_ args: String..., stdin: String? = nil) throws -> CLIResult { try tresor(args, stdin: stdin) }

    /// Runs `tresor` and fails the test unless it exits 0.
    @discardableResult
    func ok(_ args: String..., stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        try ok(args, stdin: stdin, file: file, line: line)
    }

    @discardableResult
    func ok(_ args: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        let r = try tresor(args, stdin: stdin)
        XCTAssertEqual(r.code, 0, "tresor \(args.joined(separator: " ")) failed: \(r.stderr)", file: file, line: line)
        return r
    }

    /// Runs `git -C vault args…` with the real git binary.
    @discardableResult
    func git(_ args: String...) throws -> CLIResult {
        try run("/usr/bin/git", ["-C", vaultDir] + args, stdin: nil, extraEnv: [:])
    }

    func run(_ exe: String, _ args: [String], stdin: String?, extraEnv: [String: String?]) throws -> CLIResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        var e = env
        for (k, v) in extraEnv { e[k] = v }
        p.environment = e
        let outFile = dir + "/.out-" + UUID().uuidString, errFile = dir + "/.err-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: outFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outFile); try? FileManager.default.removeItem(atPath: errFile) }
        p.standardOutput = FileHandle(forWritingAtPath: outFile)
        p.standardError = FileHandle(forWritingAtPath: errFile)
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        return CLIResult(stdout: try String(contentsOfFile: outFile, encoding: .utf8),
                         stderr: try String(contentsOfFile: errFile, encoding: .utf8), code: p.terminationStatus)
    }

    /// A fresh vault with the cheapest KDF (tests never use the default cost).
    func initVault() throws {
        try ok("init", "--kdf", "minimum")
    }

    /// A vault with three entries in folders.
    func sampleVault() throws {
        try initVault()
        try ok("add", "Email/gmail", "--username", "alice@gmail.com", "--url", "https://mail.google.com", "--password-stdin", stdin: "hunter2-gmail\n")
        try ok("add", "Email/work", "--username", "alice@corp.example", "--password-stdin", stdin: "work-pass-123\n")
        try ok("add", "Social/github", "--username", "alice", "--note", "2FA codes in the safe", "--field", "pin=4711", "--password-stdin", stdin: "gh-secret\n")
    }

    func entryFile(_ path: String) -> String { vaultDir + "/" + path + ".json" }

    func write(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: false, encoding: .utf8) }

    /// Changes one base64 character of an entry file's ciphertext (a tampered or damaged file).
    func flipCiphertextByte(_ path: String, at offset: Int = 10) throws {
        var s = try String(contentsOfFile: path, encoding: .utf8)
        let r = s.range(of: "\"ciphertext\":\"")!
        let i = s.index(r.upperBound, offsetBy: offset)
        s.replaceSubrange(i...i, with: s[i] == "A" ? "B" : "A")
        try s.write(toFile: path, atomically: false, encoding: .utf8)
    }
}
