// Each tresor command end to end through the binary: output, exit code, and the git history it leaves.
import Foundation
import XCTest

final class CommandTests: CLITestCase {
    func testInitCreatesPrivateVaultWithOneCommit() throws {
        try initVault()
        XCTAssertEqual(try String(contentsOfFile: vaultDir + "/.tresor/vault.json", encoding: .utf8).contains("\"argon2id13\""), true)
        let mode = try FileManager.default.attributesOfItem(atPath: vaultDir)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
        let log = try git("log", "--format=%s")
        XCTAssertEqual(log.stdout, "Initialize vault\n")
        XCTAssertEqual(try tresor("init", "--kdf", "minimum").code, 5, "a second init must refuse")
    }

    func testAddShowFieldAndJSON() throws {
        try sampleVault()
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "pin").stdout, "4711\n")
        let json = try ok("show", "Email/gmail", "--json").stdout
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(o["path"] as? String, "Email/gmail")
        XCTAssertEqual(o["password"] as? String, "hunter2-gmail")
        XCTAssertEqual(o["username"] as? String, "alice@gmail.com")
        XCTAssertEqual(o["urls"] as? [String], ["https://mail.google.com"])
        for key in ["notes", "fields", "tags", "created", "modified", "history"] { XCTAssertNotNil(o[key], key) }
        let text = try ok("show", "Social/github").stdout
        XCTAssertTrue(text.contains("password: gh-secret") && text.contains("pin: 4711") && text.contains("notes: 2FA codes in the safe"), text)
        let missing = try tresor("show", "Email/gmail", "--field", "pin")
        XCTAssertEqual(missing.code, 4)
        XCTAssertTrue(missing.stderr.contains("has no field \"pin\""), missing.stderr)
    }

    func testListFindAndGrep() throws {
        try sampleVault()
        XCTAssertEqual(try ok("ls").stdout, "Email/gmail\nEmail/work\nSocial/github\n")
        XCTAssertEqual(try ok("ls", "Email").stdout, "Email/gmail\nEmail/work\n")
        let json = try ok("ls", "--json").stdout
        let arr = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]])
        XCTAssertEqual(arr.map { $0["path"]! }, ["Email/gmail", "Email/work", "Social/github"])
        XCTAssertEqual(try ok("find", "GIT").stdout, "Social/github\n")
        // Listing and finding need no passphrase.
        let noPass = try tresor(["ls"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(noPass.code, 0)
        XCTAssertEqual(try tresor("find", "nothing-like-this").code, 1)
        XCTAssertEqual(try ok("grep", "corp.example").stdout, "Email/work: username: alice@corp.example\n")
        XCTAssertEqual(try ok("grep", "SAFE").stdout, "Social/github: notes: 2FA codes in the safe\n")
        XCTAssertEqual(try ok("grep", "hunter2").stdout, "Email/gmail: password: hunter2-gmail\n")
        let gj = try ok("grep", "alice", "--json").stdout
        let hits = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(gj.utf8)) as? [[String: Any]])
        XCTAssertEqual(hits.count, 3)
        XCTAssertEqual(try tresor("grep", "zzz-no-match").code, 1)

        // The searches left a sealed cache inside .git (Spec/FORMAT.md §10): private, never in the tree,
        // holding no value in the clear; an edit is found by the next search; a damaged cache is rebuilt.
        let cache = vaultDir + "/.git/tresor/search-cache"
        let mode = (try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")
        XCTAssertNil(String(decoding: try Data(contentsOf: URL(fileURLWithPath: cache)), as: UTF8.self).range(of: "hunter2"))
        try ok("edit", "Email/gmail", "--set", "username=alice@renamed.example")
        XCTAssertEqual(try ok("grep", "renamed.example").stdout, "Email/gmail: username: alice@renamed.example\n")
        try Data("not a cache".utf8).write(to: URL(fileURLWithPath: cache))
        XCTAssertEqual(try ok("grep", "hunter2").stdout, "Email/gmail: password: hunter2-gmail\n")
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: cache)).count > 100)
    }

    func testTreeAtATerminal() throws {
        try sampleVault()
        // script(1) gives tresor a real terminal on stdout.
        let r = try run("/usr/bin/script", ["-qec", "\(CLITestCase.binary) ls", "/dev/null"], stdin: nil, extraEnv: [:])
        let lines = r.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["Email/", " ├── gmail", " └── work", "Social/", " └── github"])
    }

    func testEditSetUnsetMovesOldPasswordToHistory() throws {
        try sampleVault()
        try ok("edit", "Social/github", "--set", "password=new-secret", "--unset", "pin", "--set", "urls=https://a", "--set", "urls=https://b")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "urls").stdout, "https://a\nhttps://b\n")
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ok("show", "Social/github", "--json").stdout.utf8)) as? [String: Any])
        let history = try XCTUnwrap(o["history"] as? [[String: String]])
        XCTAssertTrue(history.contains { $0["field"] == "password" && $0["value"] == "gh-secret" && $0["reason"] == "edit" })
        XCTAssertTrue(history.contains { $0["field"] == "pin" && $0["value"] == "4711" && $0["reason"] == "delete" })
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Edit Social/github: password, urls, 1 custom field\n")
        let nothing = try tresor("edit", "Social/github", "--set", "password=new-secret")
        XCTAssertEqual(nothing.code, 0)
        XCTAssertTrue(nothing.stderr.contains("No changes"))
    }

    func testEditInEditorUsesPrivateTempFileAndRemovesIt() throws {
        try sampleVault()
        let script = dir + "/editor.sh"
        // The editor records where the file lives and its mode, then changes the password and adds a field.
        try write("""
            #!/bin/sh
            echo "$1" > \(dir)/edited-path
            stat -c %a "$(dirname "$1")" > \(dir)/edited-dirmode
            env > \(dir)/edited-env
            sed -i 's/^password: .*/password: edited-secret/' "$1"
            printf 'recovery: |\\n  line one\\n  line two\\n' >> "$1"
            """, to: script)
        chmod(script, 0o755)
        let r = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": script, "VISUAL": nil, "TRESOR_GIT_TOKEN": "tok",
                                                            "TRESOR_SESSION_0123456789ab": "x", "TRESOR_CLIP_TIME": "7"])
        XCTAssertEqual(r.code, 0, r.stderr)
        // The editor gets no way to the vault or the remote: no session token, passphrase file or git token.
        let editorEnv = try String(contentsOfFile: dir + "/edited-env", encoding: .utf8)
        for name in ["TRESOR_PASSPHRASE_FILE=", "TRESOR_SESSION", "TRESOR_GIT_TOKEN="] { XCTAssertFalse(editorEnv.contains(name), name) }
        XCTAssertTrue(editorEnv.contains("TRESOR_CLIP_TIME=7"), "other variables are passed on")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "edited-secret\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "recovery").stdout, "line one\nline two\n")
        let tempPath = try String(contentsOfFile: dir + "/edited-path", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(tempPath.hasPrefix("/dev/shm/"), tempPath)
        XCTAssertEqual(try String(contentsOfFile: dir + "/edited-dirmode", encoding: .utf8), "700\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: tempPath), "temp file must be removed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (tempPath as NSString).deletingLastPathComponent))
    }

    func testEditorErrorsChangeNothingAndRemoveTempFile() throws {
        try sampleVault()
        let before = try git("rev-parse", "HEAD").stdout
        let bad = dir + "/bad.sh"
        try write("#!/bin/sh\necho \"$1\" > \(dir)/p\necho 'this line has no colon' >> \"$1\"\n", to: bad)
        chmod(bad, 0o755)
        let r = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": bad, "VISUAL": nil])
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("line ") && r.stderr.contains("nothing was changed"), r.stderr)
        let failing = dir + "/fail.sh"
        try write("#!/bin/sh\nexit 3\n", to: failing)
        chmod(failing, 0o755)
        XCTAssertEqual(try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": failing, "VISUAL": nil]).code, 2)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, before)
        let temp = try String(contentsOfFile: dir + "/p", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp))
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
    }

    func testRemoveMoveCopy() throws {
        try sampleVault()
        let idBefore = try ok("show", "Email/work", "--json").stdout.components(separatedBy: "\"id\": \"")[1].prefix(36)
        try ok("mv", "Email/work", "Work/")
        XCTAssertEqual(try ok("ls").stdout, "Email/gmail\nSocial/github\nWork/work\n")
        let idAfter = try ok("show", "Work/work", "--json").stdout.components(separatedBy: "\"id\": \"")[1].prefix(36)
        XCTAssertEqual(idBefore, idAfter, "a move keeps the id")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vaultDir + "/Email/work.json"))
        try ok("cp", "Work/work", "Work/copy")
        let idCopy = try ok("show", "Work/copy", "--json").stdout.components(separatedBy: "\"id\": \"")[1].prefix(36)
        XCTAssertNotEqual(idCopy, idAfter, "a copy gets a new id")
        XCTAssertEqual(try ok("show", "Work/copy", "--field", "password").stdout, "work-pass-123\n")
        try ok("rm", "Work/work")
        try ok("rm", "Work/copy")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vaultDir + "/Work"), "empty folders are removed")
        XCTAssertEqual(try git("log", "--format=%s", "-4").stdout,
                       "Remove Work/copy\nRemove Work/work\nCopy Work/work to Work/copy\nMove Email/work to Work/work\n")
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")
        XCTAssertEqual(try git("fsck", "--strict").code, 0)
    }

    func testPasswdRewrapsOnlyTheHeader() throws {
        try sampleVault()
        let entryBefore = try String(contentsOfFile: entryFile("Email/gmail"), encoding: .utf8)
        try write("a new passphrase\n", to: dir + "/new")
        try ok("passwd", "--new-passphrase-file", dir + "/new")
        XCTAssertEqual(try git("show", "--name-only", "--format=%s", "HEAD").stdout, "Change passphrase\n\n.tresor/state/vault.json\n.tresor/vault.json\n")
        XCTAssertEqual(try String(contentsOfFile: entryFile("Email/gmail"), encoding: .utf8), entryBefore)
        XCTAssertEqual(try tresor("show", "Email/gmail").code, 3, "the old passphrase no longer opens the vault")
        let r = try tresor(["show", "Email/gmail", "--field", "password"], extraEnv: ["TRESOR_PASSPHRASE_FILE": dir + "/new"])
        XCTAssertEqual(r.stdout, "hunter2-gmail\n")
    }

    func testSessionSkipsPassphraseUntilLock() throws {
        try sampleVault()
        let token = try ok("unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(token.count, 64)
        let sessionFile = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: dir + "/sessions").first)
        let sessionText = try String(contentsOfFile: dir + "/sessions/" + sessionFile, encoding: .utf8)
        XCTAssertFalse(sessionText.contains(token), "the token is never in the session file")
        let withToken: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_SESSION": token]
        XCTAssertEqual(try tresor(["show", "Email/gmail", "--field", "password"], extraEnv: withToken).stdout, "hunter2-gmail\n")
        let wrongToken = String(repeating: "ab", count: 32)
        let bad = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_SESSION": wrongToken])
        XCTAssertEqual(bad.code, 3)
        XCTAssertTrue(bad.stderr.contains("does not open"), bad.stderr)
        try ok("lock")
        let locked = try tresor(["show", "Email/gmail"], extraEnv: withToken)
        XCTAssertEqual(locked.code, 3)
        XCTAssertTrue(locked.stderr.contains("tresor unlock"), locked.stderr)
    }

    func testExpiredSessionIsRefusedAndRemoved() throws {
        try sampleVault()
        // 0.0001 minutes = 6 ms: expired before the next process starts.
        let token = try ok("unlock", "--raw", "--timeout", "0.0001").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try tresor(["ls", "--json"], extraEnv: [:])
        XCTAssertEqual(r.code, 0)
        let expired = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_SESSION": token])
        XCTAssertEqual(expired.code, 3)
        XCTAssertTrue(expired.stderr.contains("expired"), expired.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/sessions"), [])
    }

    func testFsckAndLogOnAHealthyVault() throws {
        try sampleVault()
        let r = try ok("fsck")
        XCTAssertTrue(r.stderr.contains("checked 3 entries: no problems"), r.stderr)
        let log = try ok("log", "Email/gmail").stdout
        XCTAssertTrue(log.contains("Add Email/gmail") && !log.contains("Social"), log)
        XCTAssertEqual(try git("fsck", "--strict").code, 0)
    }

    func testAuthorComesFromGitConfig() throws {
        try write("[user]\n\tname = Alice Example\n\temail = alice@example.org\n", to: dir + "/home/.gitconfig")
        try sampleVault()
        XCTAssertEqual(try git("log", "-1", "--format=%an <%ae>").stdout, "Alice Example <alice@example.org>\n")
    }
}

final class SampleVaultTests: CLITestCase {
    /// Samples/demo-vault, copied to a temp dir: readable without its .git, refuses changes clearly.
    func testDemoVaultReadsWithItsDocumentedPassphrase() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples/demo-vault").path
        try FileManager.default.copyItem(atPath: source, toPath: vaultDir)
        try write("demo passphrase\n", to: passphraseFile)
        XCTAssertEqual(try ok("ls").stdout.split(separator: "\n").count, 10)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "gmail-Correct-Horse-8\n")
        XCTAssertTrue(try ok("show", "Email/gmail", "--json").stdout.contains("gmail-Correct-Horse-7"), "old password in history")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "pin").stdout, "4711\n")
        XCTAssertEqual(try ok("grep", "TOTP").stdout, "Social/github: notes: 2FA: TOTP app on phone\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vaultDir + "/.git"), "grep made no .git in a plain copy")
        let rm = try tresor("rm", "Email/gmail")
        XCTAssertEqual(rm.code, 2)
        XCTAssertTrue(rm.stderr.contains("without its git repository"), rm.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: entryFile("Email/gmail")))
    }
}
