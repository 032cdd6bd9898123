// `--json` on every command that reports something: one JSON document alone on stdout, shapes as README "JSON output".
import Foundation
import XCTest

final class JSONOutputTests: CLITestCase {
    /// Runs the command, which must succeed, and parses all of stdout as one JSON document.
    func json(_ args: String..., stdin: String? = nil, code: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let r = try tresor(args, stdin: stdin)
        XCTAssertEqual(r.code, code, "tresor \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        guard let object = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: [.fragmentsAllowed]) else {
            XCTFail("tresor \(args.joined(separator: " ")): stdout is not one JSON document:\n\(r.stdout)", file: file, line: line)
            return [:] as [String: Any]
        }
        return object
    }

    func object(_ args: String..., stdin: String? = nil, code: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try tresor(args, stdin: stdin)
        XCTAssertEqual(r.code, code, "tresor \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        let parsed = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        guard let o = parsed as? [String: Any] else {
            XCTFail("tresor \(args.joined(separator: " ")): stdout is not a JSON object:\n\(r.stdout)", file: file, line: line)
            return [:]
        }
        return o
    }

    func assertSame(_ actual: [String: Any], _ expected: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual as NSDictionary, expected as NSDictionary, file: file, line: line)
    }

    func testEntryCommands() throws {
        let initialized = try object("init", "--kdf", "minimum", "--json")
        XCTAssertEqual(initialized["kdf"] as? String, "minimum")
        XCTAssertEqual((initialized["vault"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }, "vault")

        assertSame(try object("add", "Email/gmail", "--username", "alice", "--password-stdin", "--json", stdin: "correct-horse-battery-staple-42\n"),
                   ["path": "Email/gmail", "fields": ["password", "username"], "generated": false, "entropyBits": NSNull()])
        // A generated password is described by its entropy; the password is never in the report.
        let generated = try tresor("add", "Web/site", "--generate", "--length", "20", "--classes", "lower", "--json")
        XCTAssertEqual(generated.code, 0, generated.stderr)
        let password = try ok("show", "Web/site", "--field", "password").stdout.trimmingCharacters(in: .newlines)
        XCTAssertFalse(generated.stdout.contains(password))
        XCTAssertFalse(generated.stderr.contains(password))
        let g = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(generated.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(g["generated"] as? Bool, true)
        XCTAssertEqual(g["entropyBits"] as? Double, 94.01)   // 20 × log2(26)

        assertSame(try object("edit", "Email/gmail", "--set", "username=bob", "--set", "pin=1234", "--json"),
                   ["path": "Email/gmail", "changedFields": ["pin", "username"], "entropyBits": NSNull(), "merged": false, "resolutions": []])
        assertSame(try object("edit", "Email/gmail", "--set", "username=bob", "--json"),
                   ["path": "Email/gmail", "changedFields": [], "entropyBits": NSNull(), "merged": false, "resolutions": []])
        let rotated = try tresor("rotate", "Web/site", "--json")
        XCTAssertEqual(rotated.code, 0, rotated.stderr)
        let newPassword = try ok("show", "Web/site", "--field", "password").stdout.trimmingCharacters(in: .newlines)
        XCTAssertNotEqual(newPassword, password)
        XCTAssertFalse(rotated.stdout.contains(newPassword) || rotated.stdout.contains(password))
        assertSame(try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: Any]),
                   ["path": "Web/site", "changedFields": ["password"], "entropyBits": 94.01, "merged": false, "resolutions": []])

        assertSame(try object("cp", "Email/gmail", "Email/copy", "--json"), ["from": "Email/gmail", "to": "Email/copy"])
        assertSame(try object("mv", "Email/copy", "Archive/", "--json"), ["from": "Email/copy", "to": "Archive/copy"])
        assertSame(try object("rm", "Archive/copy", "--json"), ["path": "Archive/copy"])
        let restored = try object("restore", "Archive/copy", "--json")
        XCTAssertEqual(restored["path"] as? String, "Archive/copy")
        XCTAssertEqual((restored["from"] as? String)?.count, 40)

        // show --field --json: the value as a string, a list as an array.
        try ok("edit", "Email/gmail", "--set", "urls=https://a.example", "--set", "urls=https://b.example")
        assertSame(try object("show", "Email/gmail", "--field", "username", "--json"), ["path": "Email/gmail", "field": "username", "value": "bob"])
        assertSame(try object("show", "Email/gmail", "--field", "urls", "--json"),
                   ["path": "Email/gmail", "field": "urls", "value": ["https://a.example", "https://b.example"]])
        let missing = try tresor("show", "Email/gmail", "--field", "nope", "--json")
        XCTAssertEqual(missing.code, 4)
        XCTAssertEqual(missing.stdout, "")
    }

    func testVaultCommands() throws {
        try sampleVault()
        assertSame(try object("fsck", "--json"), ["entriesChecked": 3, "problems": [], "notChecked": []])
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: entryFile("Email/work"))
        let problems = try object("fsck", "--json", code: 6)
        XCTAssertEqual(problems["entriesChecked"] as? Int, 3)
        let list = try XCTUnwrap(problems["problems"] as? [[String: String]])
        XCTAssertEqual(list.map { $0["file"] }, ["Email/work.json"])
        XCTAssertTrue(list[0]["message"]?.contains("permissions 0644") == true, "\(list)")
        try ok("fsck", "--fix-permissions")

        let unlocked = try object("unlock", "--env", "--json", "--timeout", "5")
        let variable = try XCTUnwrap(unlocked["variable"] as? String)
        XCTAssertTrue(variable.hasPrefix("TRESOR_SESSION_") && variable.count == "TRESOR_SESSION_".count + 12, variable)
        XCTAssertEqual(unlocked["timeoutMinutes"] as? Int, 5)
        XCTAssertFalse((unlocked["token"] as? String ?? "").isEmpty)
        assertSame(try object("lock", "--json"), ["agentKeysDropped": false, "sessionEnded": true, "variable": variable])
        assertSame(try object("lock", "--json"), ["agentKeysDropped": false, "sessionEnded": false, "variable": variable])
        let agent = try object("unlock", "--json", "--timeout", "30", "--idle", "5")
        assertSame(agent, ["agent": true, "socket": dir + "/run/tresor/agent.sock", "idleMinutes": 5, "timeoutMinutes": 30])
        assertSame(try object("lock", "--json"), ["agentKeysDropped": true, "sessionEnded": false, "variable": variable])
        assertSame(try object("lock", "--all", "--json"), ["agentVaults": 0, "sessionsEnded": 0])

        try write("a brand new passphrase for the vault\n", to: dir + "/new")
        assertSame(try object("passwd", "--new-passphrase-file", dir + "/new", "--kdf", "minimum", "--json"),
                   ["changed": true, "kdf": "minimum", "otherPassphrasesRemoved": 0])
        try write("a brand new passphrase for the vault\n", to: passphraseFile)
        assertSame(try object("upgrade", "--json"), ["upgraded": false, "version": 5])

        let bare = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", bare], stdin: nil, extraEnv: [:]).code, 0)
        assertSame(try object("remote", "add", "origin", bare, "--json"), ["name": "origin", "url": bare])
        XCTAssertEqual(try json("remote", "list", "--json") as? [[String: String]], [["name": "origin", "url": bare]])
        XCTAssertEqual(try ok("sync", "--json").code, 0)
        let cloned = try object("clone", bare, dir + "/replica", "--json")
        XCTAssertEqual(cloned["url"] as? String, bare)
        XCTAssertEqual(cloned["entries"] as? Int, 3)
        XCTAssertEqual((cloned["vault"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }, "replica")
        assertSame(try object("remote", "remove", "origin", "--json"), ["name": "origin"])
        XCTAssertEqual((try json("remote", "list", "--json") as? [Any])?.count, 0)
    }

    /// With --json, stdout holds the document only: the human sentences stay on stderr or are not printed.
    func testStdoutHoldsOnlyTheDocument() throws {
        try initVault()
        for args in [["add", "A/b", "--generate", "--json"], ["edit", "A/b", "--generate", "--json"], ["rotate", "A/b", "--json"],
                     ["cp", "A/b", "A/c", "--json"], ["rm", "A/c", "--json"], ["ls", "--json"], ["fsck", "--json"]] {
            let r = try tresor(args)
            XCTAssertEqual(r.code, 0, "\(args): \(r.stderr)")
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), "\(args): \(r.stdout)")
            XCTAssertFalse(r.stderr.contains("Generated a password"), "\(args): \(r.stderr)")
        }
        let both = try tresor("unlock", "--raw", "--json")
        XCTAssertEqual(both.code, 64)
        XCTAssertTrue(both.stderr.contains("--raw"), both.stderr)
    }
}
