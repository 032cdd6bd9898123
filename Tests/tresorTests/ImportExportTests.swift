// `tresor import` and `tresor export` end to end: real keepassxc-cli, gpg and pass files, round trips, bad input.
import Foundation
import XCTest

final class ImportExportTests: CLITestCase {
    var scripts: String { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts").path }

    func tool(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for d in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: d + "/" + name) { return d + "/" + name }
        XCTFail("\(name) is not installed; 'make test-deps' installs it", file: file, line: line)
        throw NSError(domain: "missing tool \(name)", code: 1)
    }

    /// A `.kdbx` made by keepassxc-cli from Tests/Scripts/keepass-fixture.xml, and a file with its password.
    func keePassDatabase() throws -> String {
        let r = try run(try tool("keepassxc-cli"), ["import", "-p", scripts + "/keepass-fixture.xml", dir + "/db.kdbx"], stdin: "pw\npw\n",
                        extraEnv: ["QT_QPA_PLATFORM": "offscreen"])
        XCTAssertEqual(r.code, 0, r.stderr)
        try write("pw\n", to: dir + "/kdbx-password")
        return dir + "/db.kdbx"
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func commitCount() throws -> Int { Int(try git("rev-list", "--count", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }

    func testImportKeePassDatabaseOneCommitDryRunReimportAndForce() throws {
        try initVault()
        let db = try keePassDatabase()
        let before = try commitCount()
        let dry = try ok("import", "kdbx", db, "--source-passphrase-file", dir + "/kdbx-password", "--dry-run")
        XCTAssertTrue(dry.stdout.contains("Would import 3 new and 0 updated entries from kdbx; 1 renamed, 1 skipped."), dry.stdout)
        XCTAssertEqual(try commitCount(), before)
        XCTAssertEqual(try ok("ls", "--flat").stdout, "")

        let r = try ok("import", "kdbx", db, "--source-passphrase-file", dir + "/kdbx-password", "--prefix", "KeePass")
        XCTAssertTrue(r.stdout.contains("renamed  KeePass/Email/a%2Fb%3A c (from \"Email/a/b: c\": characters not allowed in entry paths were percent-encoded)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("skipped  Recycle Bin/gone: in the recycle bin or trash"), r.stdout)
        XCTAssertEqual(try commitCount(), before + 1, "one commit for the whole import")
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Import 3 entries from kdbx\n")
        XCTAssertEqual(try ok("ls", "--flat").stdout, "KeePass/Email/Sub/native\nKeePass/Email/a%2Fb%3A c\nKeePass/Top\n")
        let top = try json(try ok("show", "KeePass/Top", "--json").stdout)
        XCTAssertEqual(top["password"] as? String, "new-pass")
        XCTAssertEqual(top["username"] as? String, "alice")
        XCTAssertEqual(top["urls"] as? [String], ["https://top.example", "https://second.example"])
        XCTAssertEqual(top["notes"] as? String, "line1\nline2")
        XCTAssertEqual(Set(top["tags"] as? [String] ?? []), ["mail", "work"])
        XCTAssertEqual(top["fields"] as? [String: String], ["PIN": "4711", "Mother's maiden name": "Smith",
                                                            "otp": "otpauth://totp/Top:alice?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=Top"])
        let history = (top["history"] as? [[String: Any]] ?? []).map { "\($0["field"]!)=\($0["value"]!) \($0["replaced"]!)" }.sorted()
        XCTAssertEqual(history, ["password=old-pass 2022-03-04T05:06:07.000Z", "password=oldest-pass 2021-01-01T00:00:00.000Z",
                                 "username=al 2021-01-01T00:00:00.000Z"])
        XCTAssertEqual(top["created"] as? String, "2020-01-01T00:00:00.000Z")

        // Again: everything is already there.
        let again = try json(try ok("import", "kdbx", db, "--source-passphrase-file", dir + "/kdbx-password", "--prefix", "KeePass", "--json").stdout)
        XCTAssertEqual(again["added"] as? Int, 0)
        XCTAssertEqual(again["skipped"] as? Int, 4)
        XCTAssertEqual(((again["items"] as? [[String: Any]]) ?? []).compactMap { $0["reason"] as? String }.sorted(),
                       ["deleted", "identical", "identical", "identical"])
        XCTAssertEqual(try commitCount(), before + 1)

        // A changed source: kept without --force, an edit with it (the old password goes to history).
        try write("""
            [{"path": "KeePass/Top", "password": "changed-pass", "username": "alice", "urls": ["https://top.example"], "notes": null,
              "fields": {}, "tags": [], "created": "2020-01-01T00:00:00.000Z", "modified": "2024-01-01T00:00:00.000Z", "history": []}]
            """, to: dir + "/change.json")
        let kept = try ok("import", "json", dir + "/change.json")
        XCTAssertTrue(kept.stdout.contains("skipped  KeePass/Top: an entry \"KeePass/Top\" is already there (--force gives it the imported values)"), kept.stdout)
        XCTAssertEqual(try ok("show", "KeePass/Top", "--field", "password").stdout, "new-pass\n")
        let forced = try ok("import", "json", dir + "/change.json", "--force")
        XCTAssertTrue(forced.stdout.contains("updated  KeePass/Top: "), forced.stdout)
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Import 0 entries from json, update 1\n")
        let after = try json(try ok("show", "KeePass/Top", "--json").stdout)
        XCTAssertEqual(after["password"] as? String, "changed-pass")
        XCTAssertNil(after["notes"] as? String)
        let values = (after["history"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
        XCTAssertTrue(values.contains("new-pass") && values.contains("line1\nline2") && values.contains("4711"), "\(values)")
    }

    /// A vault with every kind of value: export and import into an empty vault keeps them all.
    func richVault() throws {
        try sampleVault()
        try ok("add", "Dev/server", "--username", "root", "--url", "https://a.example", "--url", "https://b.example", "--tag", "work",
               "--tag", "two words", "--note", "first line\n\nthird: line", "--field", "otp=otpauth://totp/Dev:root?secret=JBSWY3DPEHPK3PXP",
               "--field", "100% sure=yes", "--password-stdin", stdin: "p4ss w0rd\n")
        try ok("add", "Dev/generated", "--generate", "--length", "16", "--classes", "lower+digits")
        try ok("edit", "Dev/server", "--set", "address=line 1\nline 2")
        try ok("edit", "Email/gmail", "--password-stdin", stdin: "second-gmail\n")
    }

    func showAll(_ extra: [String: String?] = [:]) throws -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for p in try tresor(["ls", "--flat"], extraEnv: extra).stdout.split(separator: "\n").map(String.init) {
            var o = try json(try tresor(["show", p, "--json"], extraEnv: extra).stdout)
            o["id"] = nil
            out[p] = o
        }
        return out
    }

    func testJSONRoundTripKeepsEverything() throws {
        try richVault()
        let original = try showAll()
        let file = dir + "/export.json"
        try ok("export", "json", "--output", file)
        XCTAssertEqual(FileManager.default.fileExists(atPath: file), true)
        var st = stat(); stat(file, &st)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        let policy = try ok("show", "Dev/generated", "--field", "policy").stdout
        // The export is one array in the `show --json` shape (both name `policy` where there is one).
        let exported = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [[String: Any]])
        XCTAssertEqual(exported.count, original.count)
        for o in exported {
            let path = o["path"] as? String ?? ""
            XCTAssertEqual(o["policy"] as? String, path == "Dev/generated" ? policy.trimmingCharacters(in: .newlines) : nil)
            let shown = try json(try ok("show", path, "--json").stdout)
            XCTAssertEqual(NSDictionary(dictionary: o), NSDictionary(dictionary: shown), path)
        }

        let second = ["TRESOR_VAULT": dir + "/vault2"]
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: second).code, 0)
        let r = try tresor(["import", "json", file], extraEnv: second)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Imported 5 new and 0 updated entries from json; 0 renamed, 0 skipped."), r.stdout)
        let copy = try showAll(second)
        XCTAssertEqual(copy.keys.sorted(), original.keys.sorted())
        for (path, o) in original { XCTAssertEqual(NSDictionary(dictionary: copy[path] ?? [:]), NSDictionary(dictionary: o), path) }
        XCTAssertEqual(try tresor(["show", "Dev/generated", "--field", "policy"], extraEnv: second).stdout, policy)

        // Never over an existing file: the second export is refused and the file is unchanged.
        let content = try String(contentsOfFile: file, encoding: .utf8)
        let again = try tresor("export", "json", "--output", file)
        XCTAssertEqual(again.code, 5)
        XCTAssertTrue(again.stderr.contains("already exists; an export never replaces a file"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), content)
    }

    func testPassRoundTripThroughGPG() throws {
        try richVault()
        let gpg = try tool("gpg"), passTool = try tool("pass")
        let home = dir + "/gnupg"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        env["GNUPGHOME"] = home
        defer { _ = try? run("/usr/bin/gpgconf", ["--kill", "all"], stdin: nil, extraEnv: [:]) }
        let key = try run(gpg, ["--batch", "--passphrase", "", "--quick-gen-key", "Tresor Export <export@example.org>", "future-default", "default", "never"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(key.code, 0, key.stderr)
        let original = try showAll()
        try ok("export", "pass", "--output", dir + "/store", "--gpg-id", "export@example.org")
        let shown = try run(passTool, ["show", "Dev/server"], stdin: nil, extraEnv: ["PASSWORD_STORE_DIR": dir + "/store"])
        XCTAssertEqual(shown.code, 0, shown.stderr)
        XCTAssertEqual(shown.stdout.split(separator: "\n").first, "p4ss w0rd")

        let third = ["TRESOR_VAULT": dir + "/vault3"]
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: third).code, 0)
        let r = try tresor(["import", "pass", dir + "/store"], extraEnv: third)
        XCTAssertEqual(r.code, 0, r.stderr + r.stdout)
        let copy = try showAll(third)
        XCTAssertEqual(copy.keys.sorted(), original.keys.sorted())
        for (path, o) in original {
            for key in ["password", "username", "urls", "notes", "fields", "tags"] {
                XCTAssertEqual(copy[path]?[key] as? NSObject, o[key] as? NSObject, "\(path) \(key)")
            }
        }
        XCTAssertEqual(try tresor(["show", "Dev/generated", "--field", "policy"], extraEnv: third).stdout, try ok("show", "Dev/generated", "--field", "policy").stdout)
    }

    func testCSVExportToAPipeOnlyAndImportBack() throws {
        try richVault()
        let refused = try tresor("export", "csv")
        XCTAssertEqual(refused.code, 2)
        XCTAssertTrue(refused.stderr.contains("refusing to write plaintext passwords to a file through standard output"), refused.stderr)
        let piped = try run("/bin/sh", ["-c", "\"$0\" export csv Dev | cat", CLITestCase.binary], stdin: nil, extraEnv: [:])
        XCTAssertEqual(piped.code, 0, piped.stderr)
        let lines = piped.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.first, "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\",\"TOTP\",\"Icon\",\"Last Modified\",\"Created\"")
        try write(piped.stdout, to: dir + "/export.csv")
        let second = ["TRESOR_VAULT": dir + "/vault2"]
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: second).code, 0)
        XCTAssertEqual(try tresor(["import", "keepassxc-csv", dir + "/export.csv"], extraEnv: second).code, 0)
        let server = try json(try tresor(["show", "Dev/server", "--json"], extraEnv: second).stdout)
        XCTAssertEqual(server["password"] as? String, "p4ss w0rd")
        XCTAssertEqual(server["username"] as? String, "root")
        XCTAssertEqual(server["urls"] as? [String], ["https://a.example"], "KeePassXC's CSV has one URL column")
        XCTAssertEqual(server["notes"] as? String, "first line\n\nthird: line")
        XCTAssertEqual((server["fields"] as? [String: String])?["otp"], "otpauth://totp/Dev:root?secret=JBSWY3DPEHPK3PXP")
    }

    func testPlaintextExportAsksAtATerminal() throws {
        try sampleVault()
        let file = dir + "/asked.json"
        let no = try TerminalSession(["export", "json", "--output", file], env: env)
        no.expect("Write 3 entries with their passwords in plaintext to \"\(file)\"? [y/N]")
        no.type("n\n")
        XCTAssertEqual(no.wait(), 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        let yes = try TerminalSession(["export", "json", "--output", file], env: env)
        yes.expect("[y/N]")
        yes.type("y\n")
        XCTAssertEqual(yes.wait(), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        let screen = try TerminalSession(["export", "json"], env: env)
        XCTAssertEqual(screen.wait(), 2)
        XCTAssertTrue(screen.screen.contains("refusing to print every password to the terminal"), screen.screen)
    }

    func testBadInputAndEscapedNames() throws {
        try initVault()
        try write("{\"items\": [", to: dir + "/bad.json")
        try write("not a zip", to: dir + "/bad.1pux")
        try write("a,b\n1,2\n", to: dir + "/bad.csv")
        let db = try keePassDatabase()
        try write("wrong\n", to: dir + "/wrong")
        let cases: [([String], Int32, String)] = [
            (["import", "lastpass", dir + "/x"], 64, "unknown format \"lastpass\""),
            (["import", "bitwarden", dir + "/missing.json"], 2, "cannot read \"\(dir)/missing.json\""),
            (["import", "bitwarden", dir + "/bad.json"], 2, "cannot import \"\(dir)/bad.json\": not JSON"),
            (["import", "1pux", dir + "/bad.1pux"], 2, "cannot import \"\(dir)/bad.1pux\": not a zip archive"),
            (["import", "chrome", dir + "/bad.csv"], 2, "no column \"name\""),
            (["import", "kdbx", db, "--source-passphrase-file", dir + "/wrong"], 3, "wrong password or key file for \"\(db)\""),
            (["import", "kdbx", dir + "/bad.json", "--source-passphrase-file", dir + "/wrong"], 2, "not a KeePass database"),
            (["import", "pass", dir + "/nowhere"], 2, "cannot read \"\(dir)/nowhere\": no such directory"),
            (["export", "pass", "--output", dir + "/s"], 64, "a pass export needs --output DIR and --gpg-id ID"),
            (["export", "xml"], 64, "unknown format \"xml\""),
        ]
        for (args, code, message) in cases {
            let r = try tresor(args)
            XCTAssertEqual(r.code, code, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try commitCount(), 1, "nothing was committed")

        // A name with an escape sequence is printed escaped, and stored percent-encoded.
        try write("""
            {"encrypted": false, "folders": [], "items": [{"id": "1", "type": 1, "name": "evil\\u001b[31mred", "login": {"username": "u", "password": "p"}}]}
            """, to: dir + "/evil.json")
        let evil = try String(contentsOfFile: dir + "/evil.json", encoding: .utf8)
        let dry = try ok("import", "bitwarden", "-", "--dry-run", stdin: evil)
        XCTAssertTrue(dry.stdout.contains("Would import 1 new"), "a source on standard input: \(dry.stdout)")
        let r = try ok("import", "bitwarden", dir + "/evil.json")
        XCTAssertFalse(r.stdout.contains("\u{1b}"), r.stdout)
        XCTAssertTrue(r.stdout.contains("renamed  evil%1B[31mred (from \"evil\\u{1b}[31mred\""), r.stdout)
        XCTAssertEqual(try ok("show", "evil%1B[31mred", "--field", "password").stdout, "p\n")
    }
}
