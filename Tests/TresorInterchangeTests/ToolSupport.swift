// Helpers for tests that drive real programs (gpg, pass, keepassxc-cli, python3 with pykeepass) in temp dirs.
import Foundation
@testable import TresorCore
import XCTest

struct ToolResult {
    let stdout: String
    let stderr: String
    let code: Int32
}

class ToolTestCase: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tresor-interchange-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if FileManager.default.fileExists(atPath: dir + "/gnupg") {
            _ = try? run("/usr/bin/gpgconf", ["--kill", "all"], env: ["GNUPGHOME": dir + "/gnupg"])
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The path of a program the Makefile installs; a missing one fails the test loudly (never a skip).
    func tool(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for d in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"]
        where FileManager.default.isExecutableFile(atPath: d + "/" + name) {
            return d + "/" + name
        }
        XCTFail("\(name) is not installed; 'make test-deps' installs it", file: file, line: line)
        throw NSError(domain: "missing tool \(name)", code: 1)
    }

    @discardableResult
    func run(_ exe: String, _ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ToolResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        e["QT_QPA_PLATFORM"] = "offscreen"
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = dir + "/.out-" + UUID().uuidString, err = dir + "/.err-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: err) }
        p.standardOutput = FileHandle(forWritingAtPath: out)
        p.standardError = FileHandle(forWritingAtPath: err)
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        return ToolResult(stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", code: p.terminationStatus)
    }

    /// Runs and fails the test unless the program exits 0.
    @discardableResult
    func ok(_ exe: String, _ args: [String], stdin: String? = nil, env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> ToolResult {
        let r = try run(exe, args, stdin: stdin, env: env)
        XCTAssertEqual(r.code, 0, "\(exe) \(args.joined(separator: " ")) failed: \(r.stderr)", file: file, line: line)
        return r
    }

    /// A new gpg key without a passphrase in `dir/gnupg`; returns (GNUPGHOME, key id / email).
    func makeGPGKey(email: String = "tresor-test@example.org") throws -> (home: String, id: String) {
        let home = dir + "/gnupg"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try ok(try tool("gpg"), ["--batch", "--passphrase", "", "--quick-gen-key", "Tresor Test <\(email)>", "future-default", "default", "never"],
               env: ["GNUPGHOME": home])
        return (home, email)
    }

    func write(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: false, encoding: .utf8) }

    /// The path of a file under Tests/Scripts.
    func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/" + name).path
    }
}

extension SecretBytes {
    /// The bytes as text, for assertions.
    var text: String? { utf8String() }
}
