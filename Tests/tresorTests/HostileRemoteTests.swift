// An attacker who can write the bare repository with git plumbing: every trick is refused with the path or
// commit named, the victim's repository, index and files stay byte for byte as they were, and the vault works.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class HostileRemoteTests: SyncTestCase {
    var attacker: Attacker!
    var original = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        try setUpReplicas("B")
        try on("A", "add", "Bank/ing", "--username", "alice", "--password-stdin", stdin: "bank-v1\n")
        try on("A", "edit", "Bank/ing", "--password-stdin", stdin: "bank-v2\n")
        try on("A", "sync")
        try on("B", "sync")
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        attacker = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
        original = try attacker.tip
    }

    var vaultKey: SecretBytes {
        get throws {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: replica("A") + "/.tresor/vault.json")))
            return try VaultHeader.parse(bytes).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        }
    }

    /// Everything of replica `name` a refused sync must leave alone: refs, HEAD, index, config, tresor's own
    /// files under .git (but the lock file's pid), and every file of the work tree.
    func state(_ name: String) throws -> [String: String] {
        let root = replica(name)
        var s: [String: String] = [:]
        s["refs"] = try run("/usr/bin/git", ["-C", root, "for-each-ref", "--format=%(refname) %(objectname)"], stdin: nil, extraEnv: [:]).stdout
        s["HEAD"] = try run("/usr/bin/git", ["-C", root, "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout
        let walker = FileManager.default.enumerator(atPath: root)!
        while let rel = walker.nextObject() as? String {
            if rel.hasPrefix(".git/objects") || rel.hasPrefix(".git/logs") || rel == ".git/tresor/lock" || rel == ".git/FETCH_HEAD" { continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue else { continue }
            s[rel] = (FileManager.default.contents(atPath: root + "/" + rel) ?? Data()).base64EncodedString()
        }
        return s
    }

    /// Pushes `tip` as the remote's main, syncs B, and checks the refusal; then puts the remote back.
    func assertRefused(_ label: String, _ tip: String, naming: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try state("B")
        try attacker.push(tip)
        let r = try attempt("B", "sync")
        XCTAssertEqual(r.code, 2, "\(label): \(r.stdout)\(r.stderr)", file: file, line: line)
        for part in naming { XCTAssertTrue(r.stderr.contains(part), "\(label): the message names \(part): \(r.stderr)", file: file, line: line) }
        XCTAssertTrue(r.stderr.contains("nothing was merged") || r.stderr.contains("different vault"), "\(label): \(r.stderr)", file: file, line: line)
        let after = try state("B")
        for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
            XCTFail("\(label): \(key) changed", file: file, line: line)
        }
        XCTAssertFalse(r.stderr.contains("\u{1B}"), "\(label): no raw escape reaches the terminal", file: file, line: line)
        try attacker.push(original)
    }

    /// The vault still works after all the refusals: a change, a sync, a clean fsck and `git fsck --strict`.
    func assertStillWorks() throws {
        try on("B", "add", "After/attacks", "--password-stdin", stdin: "still works\n")
        try on("B", "sync")
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "After/attacks", "--field", "password").stdout, "still works\n")
        XCTAssertEqual(try attempt("B", "fsck").code, 0)
        for name in ["A", "B"] {
            XCTAssertEqual(try run("/usr/bin/git", ["-C", replica(name), "fsck", "--strict"], stdin: nil, extraEnv: [:]).code, 0, name)
        }
    }

    /// The attacker's tree as an unauthenticated commit on top of the remote's main.
    func forged(_ tree: String) throws -> String { try attacker.commit(tree, parents: [original]) }

    // MARK: Commits without the key: whatever they change, they are refused, naming the commit and paths.

    func testChangesWithoutTheVaultKeyAreRefusedNamingCommitAndPath() throws {
        let a = attacker!
        let root = try a.tree(of: original)
        let gmail = try a.blob(at: "Email/gmail.json", in: original)
        let github = try a.blob(at: "Social/github.json", in: original)
        let oldBank = try a.blob(at: "Bank/ing.json", in: original + "~1")
        let headerBlob = try a.blob(at: ".tresor/vault.json", in: original)
        let headerJSON = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(a.bytes(ofBlob: headerBlob))) as? [String: Any])
        func header(_ change: (inout [String: Any]) -> Void) throws -> String {
            var h = headerJSON
            change(&h)
            return try a.blob(Array(try JSONSerialization.data(withJSONObject: h, options: [.sortedKeys])) + [0x0A])
        }
        // A slot of the attacker's own, wrapping a key of the attacker's.
        let attackerHeader = try VaultHeader.create(passphrase: SecretBytes(utf8: "mallory"), level: .minimum).0
        let attackerSlot = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(VaultHeader(version: 1, vaultID: headerJSON["vault"] as! String,
            keySlots: attackerHeader.keySlots, otherSlots: [], unknownMembers: [:]).serialized())) as? [String: Any])["keySlots"] as! [Any]
        let cases: [(String, String, [String])] = [
            ("delete the vault header", try a.editing(root, [".tresor", "vault.json"], nil), [".tresor/vault.json"]),
            ("replace the victim's key slot by the attacker's", try a.editing(root, [".tresor", "vault.json"],
                RawEntry("100644", "vault.json", try header { $0["keySlots"] = attackerSlot })), [".tresor/vault.json"]),
            ("add a key slot", try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try header {
                $0["keySlots"] = ($0["keySlots"] as! [Any]) + attackerSlot })), [".tresor/vault.json"]),
            // The test vault is at the lowest cost already: the attacker's change is a different cost (a lowered one
            // on a real vault). Setting the same values gave the same bytes whenever no base64 value held a "/".
            ("change the KDF cost of the victim's slot", try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try header {
                var slots = $0["keySlots"] as! [[String: Any]]
                var kdf = slots[0]["kdf"] as! [String: Any]
                kdf["ops"] = ((kdf["ops"] as? Int) ?? 0) == 1 ? 2 : 1
                slots[0]["kdf"] = kdf
                $0["keySlots"] = slots })), [".tresor/vault.json"]),
            ("lower the header's generation", try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try header {
                $0["generation"] = 0 })), [".tresor/vault.json"]),
            ("delete an entry", try a.editing(root, ["Email", "gmail.json"], nil), ["Email/gmail.json"]),
            ("roll an entry back", try a.editing(root, ["Bank", "ing.json"], RawEntry("100644", "ing.json", oldBank)), ["Bank/ing.json"]),
            ("swap two entries", try a.editing(try a.editing(root, ["Email", "gmail.json"], RawEntry("100644", "gmail.json", github)),
                                               ["Social", "github.json"], RawEntry("100644", "github.json", gmail)), ["Email/gmail.json", "Social/github.json"]),
            ("rename an entry", try a.editing(try a.editing(root, ["Email", "gmail.json"], nil), ["Email", "google.json"],
                                              RawEntry("100644", "google.json", gmail)), ["Email/google.json"]),
            ("add a foreign file", try a.editing(root, ["README.txt"], RawEntry("100644", "README.txt", try a.blob(Array("hi".utf8)))), ["README.txt"]),
            ("change .gitattributes to merge=union", try a.editing(root, [".gitattributes"], RawEntry("100644", ".gitattributes",
                try a.blob(Array("*.json merge=union\n".utf8)))), [".gitattributes"]),
            ("an empty commit on top", try a.tree(of: original), ["update"]),
        ]
        for (label, tree, naming) in cases {
            try assertRefused(label, try forged(tree), naming: ["no holder of the vault key"] + naming)
        }
        // Tags that are not made with the key: garbage, and one copied from another commit.
        let content = try run("/usr/bin/git", ["-C", remote, "cat-file", "commit", try forged(try a.editing(root, ["Email", "gmail.json"], nil))],
                              stdin: nil, extraEnv: [:]).stdout
        try assertRefused("a made-up tag", try a.withField(content, value: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), naming: ["no holder of the vault key"])
        let realTag = try XCTUnwrap(try run("/usr/bin/git", ["-C", remote, "cat-file", "commit", original], stdin: nil, extraEnv: [:]).stdout
            .components(separatedBy: "\n").first { $0.hasPrefix("tresor-auth ") }).dropFirst("tresor-auth ".count)
        try assertRefused("a tag copied from another commit", try a.withField(content, value: String(realTag)), naming: ["no holder of the vault key"])
        // An old authentic commit published again under a new id: its tag line moved into the message, or
        // written twice. The signed bytes are the same, but a tag counts only once, in the header.
        let older = try run("/usr/bin/git", ["-C", remote, "cat-file", "commit", original + "~1"], stdin: nil, extraEnv: [:]).stdout
        let tagLine = try XCTUnwrap(older.components(separatedBy: "\n").first { $0.hasPrefix("tresor-auth ") })
        let parts = older.replacingOccurrences(of: tagLine + "\n", with: "").components(separatedBy: "\n\n")
        func written(_ text: String) throws -> String {
            try write(text, to: dir + "/replayed")
            return try a.git(["hash-object", "-t", "commit", "-w", "--literally", dir + "/replayed"])
        }
        try assertRefused("an old commit with its tag moved into the message",
                          try written(parts[0] + "\n\n" + tagLine + "\n" + parts.dropFirst().joined(separator: "\n\n")),
                          naming: ["no holder of the vault key"])
        try assertRefused("an old commit with its tag twice", try written(older.replacingOccurrences(of: tagLine, with: tagLine + "\n" + tagLine)),
                          naming: ["no holder of the vault key"])
        // A merge commit whose new side no key holder made.
        let sneaky = try forged(try a.editing(root, ["Email", "gmail.json"], nil))
        try assertRefused("an unauthenticated side of a merge", try a.commit(root, parents: [original, sneaky]), naming: ["no holder of the vault key"])
        try assertStillWorks()
        // The attacker's own passphrase never opens anything of the vault, old or new.
        try write("mallory\n", to: dir + "/mallory")
        let withAttackerPassphrase = try attempt("B", "show", "After/attacks", env: ["TRESOR_PASSPHRASE_FILE": dir + "/mallory", "TRESOR_SESSION": nil])
        XCTAssertEqual(withAttackerPassphrase.code, 3, withAttackerPassphrase.stderr)
    }

    // MARK: Content only a faulty or malicious key holder could push: the tree checks catch it.

    func testTreeTricksAreRefusedBeforeAnythingIsTouched() throws {
        let a = attacker!
        let key = try vaultKey
        let root = try a.tree(of: original)
        let gmail = try a.blob(at: "Email/gmail.json", in: original)
        let oldGmail = try a.blob(at: "Bank/ing.json", in: original + "~1")
        let emailTree = try a.git(["rev-parse", original + ":Email"])
        let big = try a.blob(Array(repeating: 0x41, count: 1 << 20))
        let deep = try a.nestedTrees(depth: 3000, name: "d", around: try a.rawTree([RawEntry("100644", "x.json", gmail)]))
        let otherVault = try VaultHeader.create(passphrase: SecretBytes(utf8: "correct horse battery staple"), level: .minimum)
        let otherCipher = try EntryCipher(vaultKey: otherVault.1)
        var foreignEntry = Entry(path: try EntryPath("Email/other"), at: .now())
        try foreignEntry.set("password", .text("theirs"), at: .now(), origin: "x")
        let rootEntries = try a.entries(root)
        let cases: [(String, String, [String])] = [
            ("a second name containing a slash", try a.rawTree(a.sorted(rootEntries + [RawEntry("100644", "Email/gmail.json", oldGmail)])), ["Email/gmail.json"]),
            ("a file named with a slash", try a.rawTree(a.sorted(rootEntries + [RawEntry("100644", "notes/readme.txt", gmail)])), ["notes/readme.txt"]),
            ("an empty tree named ..", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", "..", try a.emptyTree())])), [".."]),
            ("an entry with an empty name", try a.rawTree([RawEntry("100644", "", gmail)] + rootEntries), ["damaged tree"]),
            ("a folder named .git", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", ".git", emailTree)])), [".git"]),
            ("a folder named .GiT", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", ".GiT", emailTree)])), [".GiT"]),
            ("the same name twice", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", "Email", emailTree)])), ["Email"]),
            ("names out of order", try a.rawTree(rootEntries.reversed()), ["out of order"]),
            ("a zero-padded folder mode", try a.rawTree(rootEntries.map { e in
                var e = e
                if e.mode == "40000" && e.name == Array("Email".utf8) { e.mode = "040000" }
                return e }), ["zero-padded"]),
            ("64 names for one 1 MiB blob", try a.rawTree(a.sorted(rootEntries + (0..<64).map { RawEntry("100644", "big\($0).json", big) })), ["big"]),
            ("3,000 nested folders", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", "d", deep)])), ["deeper than"]),
            ("a symbolic link", try a.editing(root, ["Email", "link.json"], RawEntry("120000", "link.json", try a.blob(Array("/etc/passwd".utf8)))), ["Email/link.json", "symbolic link"]),
            ("a submodule", try a.editing(root, ["Email", "sub"], RawEntry("160000", "sub", original)), ["Email/sub", "submodule"]),
            ("an executable", try a.editing(root, ["run.json"], RawEntry("100755", "run.json", gmail)), ["run.json", "executable"]),
            ("an odd file mode", try a.editing(root, ["Email", "odd.json"], RawEntry("100664", "odd.json", gmail)), ["Email/odd.json"]),
            ("a blob over 1 MiB", try a.editing(root, ["Email", "huge.json"], RawEntry("100644", "huge.json", try a.blob(Array(repeating: 0x41, count: (1 << 20) + 1)))), ["larger than"]),
            ("a hidden file", try a.editing(root, ["Email", ".hook"], RawEntry("100644", ".hook", gmail)), ["Email/.hook"]),
            ("a .gitmodules file", try a.editing(root, [".gitmodules"], RawEntry("100644", ".gitmodules", try a.blob(Array("[submodule \"x\"]\n".utf8)))), [".gitmodules"]),
            ("a filter in .gitattributes", try a.editing(root, [".gitattributes"], RawEntry("100644", ".gitattributes", try a.blob(Array("*.json filter=evil\n".utf8)))), [".gitattributes"]),
            ("a folder named x.json", try a.editing(root, ["Email", "x.json"], RawEntry("40000", "x.json", emailTree)), ["Email/x.json"]),
            ("a name that is not NFC", try a.editing(root, ["Email", "Cafe\u{301}.json"], RawEntry("100644", "Cafe\u{301}.json", gmail)), ["Email/Caf"]),
            ("an entry moved by hand", try a.editing(try a.editing(root, ["Email", "gmail.json"], nil), ["Email", "moved.json"], RawEntry("100644", "moved.json", gmail)), ["Email/moved.json"]),
            ("an entry rolled back to another entry's old file", try a.editing(root, ["Email", "gmail.json"], RawEntry("100644", "gmail.json", oldGmail)), ["Email/gmail.json"]),
            ("another vault's entry", try a.editing(root, ["Email", "other.json"], RawEntry("100644", "other.json", try a.blob(try otherCipher.seal(foreignEntry)))), ["Email/other.json"]),
            ("a header of another vault", try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try a.blob(try VaultAuthenticator(vaultKey: otherVault.1).authenticated(otherVault.0).serialized()))), ["different vault"]),
            ("a tag object where a file belongs", try a.editing(root, ["Email", "tag.json"], RawEntry("100644", "tag.json", original)), ["Email/tag.json"]),
            ("a header of format version 1", try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try a.blob({
                var h = try VaultHeader.parse(try a.bytes(ofBlob: try a.blob(at: ".tresor/vault.json", in: original)))
                h.version = 1; h.auth = nil
                return h.serialized() }()))), [".tresor/vault.json", "older than this vault"]),
        ]
        for (label, tree, naming) in cases {
            try assertRefused(label, try a.authenticated(try forged(tree), key: key), naming: naming)
        }
        try assertStillWorks()
    }

    // MARK: Plain git on a replica: what git pulls in is checked like what sync fetches.

    func plainGit(_ name: String, _ args: String...) throws -> CLIResult {
        try run("/usr/bin/git", ["-C", replica(name)] + args, stdin: nil,
                extraEnv: ["GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": "b@example", "GIT_COMMITTER_NAME": "bob",
                           "GIT_COMMITTER_EMAIL": "b@example", "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"])
    }

    func testCommitsAGitPullBroughtInAreNeverAuthenticated() throws {
        let a = attacker!
        let root = try a.tree(of: original)
        let oldBank = try a.blob(at: "Bank/ing.json", in: original + "~1")
        let rollback = try forged(try a.editing(root, ["Bank", "ing.json"], RawEntry("100644", "ing.json", oldBank)))
        try a.push(rollback)
        // B pulls with plain git: git fast-forwards (the files are ciphertext git cannot judge), and the hook's
        // `tresor adopt` refuses to vouch for what came from the remote.
        XCTAssertEqual(try plainGit("B", "pull", "-q", "--no-rebase", "origin", "main").code, 0)
        for args in [["adopt"], ["add", "New/one", "--password-stdin"], ["sync"]] {
            let r = try tresor(args + ["--vault", replica("B")], stdin: "x\n")
            XCTAssertNotEqual(r.code, 0, "\(args): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("git brought in commits from \"origin/main\"") && r.stderr.contains(String(rollback.prefix(12)))
                          && r.stderr.contains("Bank/ing"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(isAuthenticTip("B"), "B authenticated the attacker's commit")
        // Undone as the hint says, B works again; the remote's commit stays refused; A never took it.
        XCTAssertEqual(try plainGit("B", "reset", "-q", "--hard", "ORIG_HEAD").code, 0)
        try on("B", "add", "New/one", "--password-stdin", stdin: "x\n")
        XCTAssertEqual(try attempt("B", "sync").code, 2)
        XCTAssertEqual(try attempt("A", "sync").code, 2)
        XCTAssertEqual(try on("A", "show", "Bank/ing", "--field", "password").stdout, "bank-v2\n")
        XCTAssertEqual(try on("B", "show", "Bank/ing", "--field", "password").stdout, "bank-v2\n")
    }

    func isAuthenticTip(_ name: String) -> Bool {
        let head = (try? plainGit(name, "cat-file", "commit", "HEAD").stdout) ?? ""
        return head.components(separatedBy: "\n\n").first?.contains("tresor-auth ") == true
    }

    func testAHeaderStrippedToFormatOneIsADowngradeForPullSyncAndClone() throws {
        let a = attacker!
        let root = try a.tree(of: original)
        var stripped = try VaultHeader.parse(try a.bytes(ofBlob: try a.blob(at: ".tresor/vault.json", in: original)))
        stripped.version = 1; stripped.auth = nil
        let downgrade = try forged(try a.editing(root, [".tresor", "vault.json"], RawEntry("100644", "vault.json", try a.blob(stripped.serialized()))))
        let deletion = try a.commit(try a.editing(try a.tree(of: downgrade), ["Email", "gmail.json"], nil), parents: [downgrade])
        try a.push(deletion)
        // sync refuses: the commits are not authentic, whatever version their header claims.
        try assertRefused("a header stripped to version 1", deletion, naming: ["no holder of the vault key"])
        try a.push(deletion)
        // A fresh clone refuses a version 1 tip over history that held version 2.
        let clone = try tresor(["clone", remote, replica("C")])
        XCTAssertEqual(clone.code, 2, clone.stdout)
        XCTAssertTrue(clone.stderr.contains("older than this vault"), clone.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("C") + "/.git"), "the refused clone was kept")
        // Plain git pull: every command that changes the vault refuses the downgraded HEAD.
        XCTAssertEqual(try plainGit("B", "pull", "-q", "--no-rebase", "origin", "main").code, 0)
        for args in [["adopt"], ["add", "New/one", "--password-stdin"], ["sync"]] {
            let r = try tresor(args + ["--vault", replica("B")], stdin: "x\n")
            XCTAssertNotEqual(r.code, 0, "\(args): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("older than this vault"), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try plainGit("B", "reset", "-q", "--hard", "ORIG_HEAD").code, 0)
        try on("B", "add", "New/one", "--password-stdin", stdin: "x\n")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "username").code, 0)
    }

    func testAForcePushOfAnOldStateIsReportedAndUndone() throws {
        try on("A", "edit", "Email/gmail", "--set", "notes=newer")
        try on("A", "sync")
        try on("B", "sync")
        let newest = try attacker.tip
        try attacker.push(original)
        let r = try on("B", "sync")
        XCTAssertTrue(r.stderr.contains("went back") && r.stderr.contains(String(newest.prefix(12))), r.stderr)
        XCTAssertEqual(try attacker.tip, newest, "the push put the remote back")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "newer\n")
    }

    func testACloneOfATamperedRemoteIsRefusedAndRemoved() throws {
        let a = attacker!
        try a.push(try forged(try a.editing(try a.tree(of: original), ["Email", "gmail.json"], nil)))
        let r = try tresor(["clone", remote, replica("C")])
        XCTAssertEqual(r.code, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("no holder of the vault key") && r.stderr.contains("Email/gmail.json"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("C")))
        let key = try vaultKey
        try a.push(try a.authenticated(try forged(try a.editing(try a.tree(of: original), ["Email", "x.json"], RawEntry("120000", "x.json", original))), key: key))
        let link = try tresor(["clone", remote, replica("C")])
        XCTAssertEqual(link.code, 2, link.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("C")))
    }

    func testEscapesInRefusedNamesNeverReachTheTerminal() throws {
        let a = attacker!
        let name = "evil\u{1B}]0;pwned\u{07}\u{1B}[2J.json"
        let tree = try a.editing(try a.tree(of: original), ["Email", name], RawEntry("100644", name, try a.blob(at: "Email/gmail.json", in: original)))
        try assertRefused("terminal escapes in a name", try a.authenticated(try forged(tree), key: try vaultKey), naming: ["\\x1b]0;pwned\\x07"])
    }
}
