// Passphrase files under the one passphrase rule, and files that are not regular where one is expected: refused at once, never a hang.
import Foundation
import XCTest

final class InputRulesTests: CLITestCase {
    /// Runs tresor under `timeout 10`, so a hang fails the test (exit 124) instead of stopping the suite.
    func bounded(_ args: [String], extraEnv: [String: String?] = [:]) throws -> CLIResult {
        try run("/usr/bin/timeout", ["10", CLITestCase.binary] + args, stdin: nil, extraEnv: extraEnv)
    }

    func testPassphraseFilesThatBreakTheRuleAreRefusedWithWhatWasFound() throws {
        try sampleVault()
        let long = String(repeating: "correct horse battery staple ", count: 40_000)   // about 1 MB on one line
        let cases: [(String, [UInt8], String)] = [
            ("bom", Array("\u{FEFF}correct horse battery staple\n".utf8), "starts with a byte order mark (EF BB BF)"),
            ("nul", Array("correct horse\0battery staple\n".utf8), "contains a NUL byte (at byte 14)"),
            ("latin1", [0x63, 0x61, 0x66, 0xE9, 0x0A], "is not UTF-8 text: byte 4 is 0xE9"),
            ("long", Array((long + "\n").utf8), "is longer than 1024 bytes"),
            ("long-no-newline", Array(long.utf8), "is longer than 1024 bytes"),
        ]
        for (name, bytes, message) in cases {
            let file = dir + "/" + name
            _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
            let r = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": file])
            XCTAssertEqual(r.code, 3, name)
            XCTAssertTrue(r.stderr.contains("passphrase file \"\(file)\" \(message)"), "\(name): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", name)
        }
    }

    func testTheLongestPassphraseIsExactly1024Bytes() throws {
        let longest = String(repeating: "é", count: 512)   // 1024 bytes of UTF-8
        try write(longest + "\n", to: passphraseFile)
        try initVault()
        try ok(["add", "A/b", "--password-stdin"], stdin: "pw\n")
        try write(longest + "x\n", to: dir + "/longer")
        let r = try tresor(["ls"], extraEnv: [:])
        XCTAssertEqual(r.code, 0)
        let refused = try tresor(["show", "A/b"], extraEnv: ["TRESOR_PASSPHRASE_FILE": dir + "/longer"])
        XCTAssertEqual(refused.code, 3)
        XCTAssertTrue(refused.stderr.contains("longer than 1024 bytes"), refused.stderr)
        XCTAssertEqual(try ok("show", "A/b", "--field", "password").stdout, "pw\n")
    }

    func testInitAndPasswdRefuseBlankPassphrases() throws {
        for (name, text) in [("empty", "\n"), ("spaces", " \t \n"), ("bom only", "\u{FEFF}\n"),
                             ("space and bom", " \u{FEFF}\n"), ("no-break space", "\u{00A0}\u{200B}\n")] {
            let file = dir + "/blank"
            try write(text, to: file)
            let i = try tresor(["init", "--kdf", "minimum"], extraEnv: ["TRESOR_PASSPHRASE_FILE": file])
            XCTAssertEqual(i.code, 3, name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: vaultDir), name)
            XCTAssertTrue(i.stderr.contains("passphrase file \"\(file)\""), "\(name): \(i.stderr)")
        }
        try initVault()
        try write(" \u{FEFF}\n", to: dir + "/blank")
        let p = try tresor("passwd", "--new-passphrase-file", dir + "/blank")
        XCTAssertEqual(p.code, 3)
        XCTAssertTrue(p.stderr.contains("is empty or only white space"), p.stderr)
        try ok("ls")
    }

    func testAPassphraseFileMayBeAPipe() throws {
        try sampleVault()
        let r = try run("/bin/bash", ["-c", "\"$0\" show Email/gmail --field password --passphrase-file <(printf 'correct horse battery staple\\n')",
                                      CLITestCase.binary], stdin: nil, extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.stdout, "hunter2-gmail\n", r.stderr)
    }

    /// A FIFO, a socket or a directory as the vault header or an entry file: refused at once, naming the file.
    func testNonRegularFilesAreRefusedAtOnce() throws {
        let makers: [(String, (String) -> Void, String)] = [
            ("FIFO", { _ = mkfifo($0, 0o600) }, "a FIFO"),
            ("socket", { path in
                let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                var addr = sockaddr_un()
                addr.sun_family = sa_family_t(AF_UNIX)
                withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                    for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
                }
                _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
                close(s)
            }, "a socket"),
            ("directory", { _ = mkdir($0, 0o700) }, "a directory"),
        ]
        for (kind, make, words) in makers {
            try tearDownWithError(); try setUpWithError()
            dir = "/tmp/tr-" + String(UUID().uuidString.prefix(8))   // short: a socket path has 108 bytes at most
            try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
            try write("correct horse battery staple\n", to: passphraseFile)
            env["TRESOR_VAULT"] = vaultDir
            env["TRESOR_PASSPHRASE_FILE"] = passphraseFile
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let header = vaultDir + "/.tresor/vault.json"
            let entry = vaultDir + "/Email/gmail.json"
            try sampleVault()
            try FileManager.default.moveItem(atPath: header, toPath: dir + "/header")
            make(header)
            for args in [["ls"], ["show", "Email/gmail"], ["fsck"]] {
                let r = try bounded(args)
                XCTAssertEqual(r.code, 2, "\(kind) header, \(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\"\(header)\" is \(words), not a regular file"), "\(kind) header, \(args): \(r.stderr)")
            }
            try FileManager.default.removeItem(atPath: header)
            try FileManager.default.moveItem(atPath: dir + "/header", toPath: header)
            try FileManager.default.removeItem(atPath: entry)
            make(entry)
            let show = try bounded(["show", "Email/gmail"])
            XCTAssertEqual(show.code, 2, "\(kind) entry: \(show.stderr)")
            XCTAssertTrue(show.stderr.contains("Email/gmail.json"), "\(kind) entry: \(show.stderr)")
            let grep = try bounded(["grep", "alice"])
            XCTAssertNotEqual(grep.code, 124, "\(kind) entry: grep hung")
            XCTAssertTrue(grep.stdout.contains("Email/work"), "\(kind) entry: other entries still readable: \(grep.stdout)")
            XCTAssertEqual(try bounded(["fsck"]).code, 6, kind)
        }
    }
}
