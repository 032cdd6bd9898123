// Spec/AUTH.md end to end: an attacker on the git host with git plumbing, a removed member with a stale replica, a
// remote rolled back or vandalised, sequences that once stranded a vault. Each refusal leaves the replica as it was.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class AuthenticatedStateTests: SyncTestCase {
    var attacker: Attacker!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        attacker = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
    }

    /// The vault key of replica `name`, as the test passphrase opens it from its header.
    func vaultKey(_ name: String = "A") throws -> SecretBytes {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: replica(name) + "/.tresor/vault.json")))
        return try VaultHeader.parse(bytes).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
    }

    /// Everything of replica `name` a refused sync must leave alone: refs, HEAD, tresor's files under .git (but the lock),
    /// and every file of the work tree.
    func state(_ name: String) throws -> [String: String] {
        let root = replica(name)
        var s: [String: String] = [:]
        s["refs"] = try run("/usr/bin/git", ["-C", root, "for-each-ref", "--format=%(refname) %(objectname)"], stdin: nil, extraEnv: [:]).stdout
        let walker = FileManager.default.enumerator(atPath: root)!
        while let rel = walker.nextObject() as? String {
            if rel.hasPrefix(".git/objects") || rel.hasPrefix(".git/logs") || rel == ".git/tresor/lock" || rel == ".git/FETCH_HEAD" { continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue else { continue }
            s[rel] = (FileManager.default.contents(atPath: root + "/" + rel) ?? Data()).base64EncodedString()
        }
        return s
    }

    /// Syncs `name` against what the remote holds now and checks it is refused by `rule`, naming `naming`, with nothing
    /// changed here.
    func assertRefused(_ name: String, rule: String, naming: [String] = [], env: [String: String?] = [:],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try state(name)
        let r = try tresor(["sync", "--vault", replica(name)], extraEnv: env)
        XCTAssertNotEqual(r.code, 0, "\(r.stdout)\(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("[\(rule):"), "refused by \(rule): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("nothing was taken"), r.stderr, file: file, line: line)
        for part in naming { XCTAssertTrue(r.stderr.contains(part), "names \(part): \(r.stderr)", file: file, line: line) }
        XCTAssertFalse(r.stderr.contains("\u{1B}"), "no raw escape reaches the terminal", file: file, line: line)
        let after = try state(name)
        for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
            XCTFail("\(key) changed by a refused sync", file: file, line: line)
        }
    }

    // MARK: Replays: an old authentic state under a new commit id changes nothing and is healed.

    func testAnOldStateReplayedUnderANewCommitBringsNothingBackAndIsReportedAndHealed() throws {
        try setUpReplicas("B")
        try on("A", "add", "Email/old", "--password-stdin", stdin: "old-secret\n")
        try on("A", "sync")
        let withOld = try attacker.tip
        try on("A", "rm", "Email/old")
        try on("A", "edit", "Email/gmail", "--set", "notes=after")
        try on("A", "sync")
        try on("B", "sync")
        // The old state's tree under a new commit whose parent is the current tip: git calls it a fast-forward.
        let replay = try attacker.commit(try attacker.tree(of: withOld), parents: [try attacker.tip], message: "looks new")
        try attacker.push(replay)
        let r = try on("B", "sync")
        XCTAssertTrue(r.stderr.contains("went back"), r.stderr)
        XCTAssertEqual(try on("B", "ls").stdout, "Email/gmail\nSocial/github\n", "the removed entry stays removed")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "after\n")
        // The remote was put right: A's next sync finds what B has.
        try on("A", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    func testAReplayedScopeCreationDoesNotBringTheScopeBack() throws {
        try setUpReplicas()
        let d = try ok("identity", "new", dir + "/d-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "add", "Team/wiki", "--password-stdin", stdin: "team-secret\n")
        try on("A", "scope", "create", "Team", "--member", "d", d)
        try on("A", "sync")
        let withScope = try attacker.tip
        try on("A", "scope", "rm", "Team")
        try on("A", "sync")
        try attacker.push(try attacker.commit(try attacker.tree(of: withScope), parents: [try attacker.tip]))
        let r = try on("A", "sync")
        XCTAssertTrue(r.stderr.contains("went back"), r.stderr)
        XCTAssertEqual(try on("A", "scope", "ls").stdout.contains("Team"), false, "the scope stays removed")
        // What A writes in Team now is under the vault key: d, removed with the scope, opens nothing of it.
        try on("A", "add", "Team/new", "--password-stdin", stdin: "after-removal\n")
        try on("A", "sync")
        let clone = try tresor(["clone", remote, replica("D")], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/d-id"])
        XCTAssertNotEqual(clone.code, 0, "d is no member of anything now: \(clone.stdout)")
        let dShow = try tresor(["show", "Team/new", "--vault", replica("D")], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/d-id"])
        XCTAssertNotEqual(dShow.code, 0)
        XCTAssertFalse(dShow.stdout.contains("after-removal"))
    }

    func testAReplayedPassphraseChangeDoesNotOpenTheVaultAgain() throws {
        try setUpReplicas()
        try write("second passphrase\n", to: dir + "/p2")
        try write("third passphrase\n", to: dir + "/p3")
        try on("A", "passwd", "--new-passphrase-file", dir + "/p2")
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p2"])
        let withP2 = try attacker.tip
        try on("A", "passwd", "--new-passphrase-file", dir + "/p3", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p2"])
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p3"])
        try attacker.push(try attacker.commit(try attacker.tree(of: withP2), parents: [try attacker.tip]))
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p3"])
        let old = try attempt("A", "show", "Email/gmail", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p2"])
        XCTAssertNotEqual(old.code, 0, "the replaced passphrase opens the current header again: \(old.stdout)")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "password", env: ["TRESOR_PASSPHRASE_FILE": dir + "/p3"]).stdout, "first-secret\n")
    }

    func testARolledBackRemoteIsReportedAndHealed() throws {
        try setUpReplicas("B")
        for i in 0..<3 {
            try on("A", "edit", "Email/gmail", "--set", "notes=v\(i)")
            try on("A", "sync")
        }
        try on("B", "sync")
        try attacker.git(["update-ref", "refs/heads/main", "refs/heads/main~3"])
        let r = try on("B", "sync", "--json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((json["rolledBack"] as? [[String: Any]])?.first?["domain"] as? String, "vault", r.stdout)
        XCTAssertEqual(json["pushed"] as? Bool, true)
        XCTAssertEqual(try attacker.tip, try run("/usr/bin/git", ["-C", replica("B"), "rev-parse", "HEAD"], stdin: nil, extraEnv: [:])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: Removal means removal.

    /// bob, a member with an identity, is removed and the removal published; from his old replica he adds a member of
    /// his own and edits an entry, and force-pushes with git. Every replica that has seen the removal refuses it; the
    /// owner puts the remote right with --repair-remote; bob's new member then opens nothing written after the removal.
    func testARemovedMembersStaleForkIsRefusedAndRepaired() throws {
        try setUpReplicas()
        let bob = try ok("identity", "new", dir + "/bob-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bob2 = try ok("identity", "new", dir + "/bob2-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "member", "add", "bob", bob)
        try on("A", "sync")
        let asBob: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/bob-id"]
        XCTAssertEqual(try tresor(["clone", remote, replica("B")], extraEnv: asBob).code, 0)
        try on("A", "member", "rm", "bob")
        try on("A", "add", "Email/after", "--password-stdin", stdin: "written-after-removal\n")
        try on("A", "sync")
        // bob's stale replica: a member of his own and an edit, under the key he still holds, force-pushed with git.
        try on("B", "member", "add", "bob2", bob2, env: asBob)
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "bobs-password\n", env: asBob)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "push", "-q", "-f", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try assertRefused("A", rule: "epoch-replaced", naming: [".tresor/vault.json"])
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "password").stdout, "first-secret\n")
        // Repair: A's state goes back over the remote, naming what was discarded.
        let repaired = try on("A", "sync", "--repair-remote")
        XCTAssertTrue(repaired.stderr.contains("discarded"), repaired.stderr)
        XCTAssertEqual(try attempt("A", "sync").stdout, "Already up to date with origin.\n")
        // bob2 (and bob) open nothing of what the remote holds now.
        let asBob2: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/bob2-id"]
        let clone = try tresor(["clone", remote, replica("C")], extraEnv: asBob2)
        XCTAssertNotEqual(clone.code, 0, clone.stdout)
        // bob's sync says he was removed.
        let bobSync = try attempt("B", "sync", env: asBob)
        XCTAssertNotEqual(bobSync.code, 0)
        XCTAssertTrue(bobSync.stderr.contains("you were removed"), bobSync.stderr)
    }

    /// A vault rekey (removing a member) rekeys every open scope with it: bob, removed from the vault, opens nothing
    /// written in an open scope afterwards, and his stale edit there is refused.
    func testMemberRemovalRekeysOpenScopes() throws {
        try setUpReplicas()
        let bob = try ok("identity", "new", dir + "/bob-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "add", "Team/wiki", "--password-stdin", stdin: "team-secret\n")
        try on("A", "scope", "create", "Team")
        try on("A", "member", "add", "bob", bob)
        try on("A", "sync")
        let asBob: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/bob-id"]
        XCTAssertEqual(try tresor(["clone", remote, replica("B")], extraEnv: asBob).code, 0)
        XCTAssertEqual(try on("B", "show", "Team/wiki", "--field", "password", env: asBob).stdout, "team-secret\n")
        let teamKeyBefore = try scopeHeader("A", "Team")
        try on("A", "member", "rm", "bob")
        XCTAssertEqual(try scopeHeader("A", "Team")["epoch"] as? Int, 2, "the open scope has a key of its next epoch")
        XCTAssertNotEqual(try scopeHeader("A", "Team")["keySlots"] as? NSArray, teamKeyBefore["keySlots"] as? NSArray)
        try on("A", "add", "Team/after", "--password-stdin", stdin: "team-after-removal\n")
        try on("A", "sync")
        // bob's stale replica edits Team/wiki under the old scope key and force-pushes: refused.
        try on("B", "edit", "Team/wiki", "--password-stdin", stdin: "bobs-team-edit\n", env: asBob)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "push", "-q", "-f", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try assertRefused("A", rule: "epoch-replaced")
        try on("A", "sync", "--repair-remote")
        // Fetched by git, the new Team entry does not open with anything bob holds.
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "fetch", "-q", "origin"], stdin: nil, extraEnv: [:]).code, 0)
        let bobSync = try attempt("B", "sync", env: asBob)
        XCTAssertTrue(bobSync.stderr.contains("you were removed"), bobSync.stderr)
        XCTAssertFalse(try on("A", "show", "Team/wiki", "--field", "password").stdout.contains("bobs-team-edit"))
    }

    /// Spec/AUTH.md §9: a remaining member who changed things offline under the old key converges after a removal.
    func testAMemberWhoEditedOfflineUnderTheOldKeyConverges() throws {
        try setUpReplicas("B")
        let bob = try ok("identity", "new", dir + "/bob-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "member", "add", "bob", bob)
        try on("A", "sync")
        try on("B", "sync")
        try on("B", "edit", "Email/gmail", "--set", "notes=edited offline on B")
        try on("B", "add", "Offline/new", "--password-stdin", stdin: "offline-secret\n")
        try on("A", "member", "rm", "bob")
        try on("A", "edit", "Social/github", "--set", "notes=edited on A")
        try on("A", "sync")
        let r = try on("B", "sync")
        XCTAssertTrue(r.stdout.contains("rekeyed"), r.stdout)
        try on("A", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
        XCTAssertEqual(try on("A", "show", "Offline/new", "--field", "password").stdout, "offline-secret\n")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "edited offline on B\n")
        XCTAssertEqual(try vaultHeader("A")["epoch"] as? Int, 2)
    }

    // MARK: Vandalised remote.

    func testAVandalisedRemoteIsRefusedThenAcceptedOnceRevertedAndRepairedInOneCommand() throws {
        try setUpReplicas("B")
        // Junk with plain git: an entry file removed, no key.
        let work = dir + "/vandal"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", remote, work], stdin: nil, extraEnv: [:]).code, 0)
        try FileManager.default.removeItem(atPath: work + "/Email/gmail.json")
        let gitEnv = ["-c", "user.name=v", "-c", "user.email=v@x"]
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + gitEnv + ["commit", "-qam", "junk"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try assertRefused("B", rule: "state-files", naming: [".tresor/state/vault.json"])
        // Reverted with plain git: the tip is an authentic state again, whatever the history holds.
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + gitEnv + ["revert", "--no-edit", "HEAD"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try on("B", "edit", "Email/gmail", "--set", "notes=after the junk")
        try on("B", "sync")
        // Junk again; this time the owner puts the remote right in one command.
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + gitEnv + ["pull", "-q", "--no-rebase", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try FileManager.default.removeItem(atPath: work + "/Social/github.json")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + gitEnv + ["commit", "-qam", "junk 2"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try assertRefused("A", rule: "state-files")
        let repaired = try on("A", "sync", "--repair-remote")
        XCTAssertTrue(repaired.stderr.contains("discarded"), repaired.stderr)
        // The junk's tip was discarded whole, B's edit under it too; B still has it and brings it back.
        try on("B", "sync")
        try on("A", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "after the junk\n")
        XCTAssertEqual(try on("A", "ls").stdout, "Email/gmail\nSocial/github\n")
    }

    /// A faulty replica of a key holder (its state records re-tagged with the key) is caught by the content checks.
    func testAStateAKeyHolderTaggedButWhoseEntryDoesNotOpenIsRefused() throws {
        try setUpReplicas("B")
        let a = attacker!
        var files = try a.files(try a.tip)
        // Email/gmail.json with one character of its ciphertext changed: it does not decrypt.
        var text = String(decoding: try a.bytes(ofBlob: try XCTUnwrap(files["Email/gmail.json"])), as: UTF8.self)
        let at = text.index(text.range(of: "\"ciphertext\":\"")!.upperBound, offsetBy: 10)
        text.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
        files["Email/gmail.json"] = try a.blob(Array(text.utf8))
        let forged = try a.retagged(files, keys: [Domain.vault: try vaultKey()])
        try a.push(try a.commit(try a.tree(files: forged), parents: [try a.tip], message: "faulty"))
        let before = try state("B")
        let r = try attempt("B", "sync")
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains("Email/gmail.json") && r.stderr.contains("does not open"), r.stderr)
        XCTAssertEqual(try state("B"), before)
    }

    // MARK: Tree tricks: refused by the shape rules before anything else (a copied file changes its domain: state-files).

    func testTreeTricksAreRefusedByTheShapeRulesBeforeAnythingIsTouched() throws {
        try setUpReplicas("B")
        let a = attacker!
        let original = try a.tip
        let root = try a.tree(of: original)
        let gmail = try a.blob(at: "Email/gmail.json", in: original)
        let emailTree = try a.git(["rev-parse", original + ":Email"])
        let rootEntries = try a.entries(root)
        let cases: [(String, String, String, String)] = [
            ("a folder named .git", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", ".git", emailTree)])), "tree-shape", ".git"),
            ("a folder named .GiT", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", ".GiT", emailTree)])), "tree-shape", ".GiT"),
            ("the same name twice", try a.rawTree(a.sorted(rootEntries + [RawEntry("40000", "Email", emailTree)])), "tree-shape", "Email"),
            ("names out of order", try a.rawTree(rootEntries.reversed()), "tree-shape", "out of git's order"),
            ("a symbolic link", try a.editing(root, ["Email", "link.json"], RawEntry("120000", "link.json", try a.blob(Array("/etc/passwd".utf8)))), "tree-shape", "Email/link.json"),
            ("a submodule", try a.editing(root, ["Email", "sub"], RawEntry("160000", "sub", original)), "tree-shape", "Email/sub"),
            ("an executable", try a.editing(root, ["run.json"], RawEntry("100755", "run.json", gmail)), "tree-shape", "run.json"),
            ("a blob over 1 MiB", try a.editing(root, ["Email", "huge.json"], RawEntry("100644", "huge.json", try a.blob(Array(repeating: 0x41, count: (1 << 20) + 1)))), "tree-shape", "Email/huge.json"),
            ("one blob at two paths", try a.editing(root, ["Email", "copy.json"], RawEntry("100644", "copy.json", gmail)), "state-files", ".tresor/state/vault.json"),
            ("a hidden file", try a.editing(root, ["Email", ".hook"], RawEntry("100644", ".hook", try a.blob(Array("x".utf8)))), "foreign-file", "Email/.hook"),
            ("a .gitmodules file", try a.editing(root, [".gitmodules"], RawEntry("100644", ".gitmodules", try a.blob(Array("[submodule \"x\"]\n".utf8)))), "foreign-file", ".gitmodules"),
            ("a file under .tresor", try a.editing(root, [".tresor", "hooks.json"], RawEntry("100644", "hooks.json", try a.blob(Array("{}".utf8)))), "foreign-file", ".tresor/hooks.json"),
            ("a folder named x.json", try a.editing(root, ["Email", "x.json"], RawEntry("40000", "x.json", emailTree)), "foreign-file", "Email/x.json"),
            ("a name that is not NFC", try a.editing(root, ["Email", "Cafe\u{301}.json"], RawEntry("100644", "Cafe\u{301}.json", try a.blob(Array("x".utf8)))), "foreign-file", "Email/Caf"),
            ("the vault header removed", try a.editing(root, [".tresor", "vault.json"], nil), "vault-header", ".tresor/vault.json"),
        ]
        for (label, tree, rule, path) in cases {
            try a.push(try a.commit(tree, parents: [original], message: label))
            try assertRefused("B", rule: rule, naming: [path])
        }
        try a.push(original)
        try on("B", "add", "After/attacks", "--password-stdin", stdin: "still works\n")
        try on("B", "sync")
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "After/attacks", "--field", "password").stdout, "still works\n")
    }

    // MARK: Sequences that once left a vault unable to sync.

    func testAVaultThatRekeysAndRemovesAScopeStillSyncsWithItsRemote() throws {
        try setUpReplicas()
        try on("A", "add", "Team/y", "--password-stdin", stdin: "y\n")
        try on("A", "scope", "create", "Team")
        try on("A", "sync")
        try on("A", "rekey")
        try on("A", "scope", "rm", "Team")
        try on("A", "sync")
        try on("A", "edit", "Team/y", "--set", "notes=still syncs")
        try on("A", "sync")
        try ok("clone", remote, replica("B"))
        XCTAssertEqual(try on("B", "show", "Team/y", "--field", "notes").stdout, "still syncs\n")
    }

    /// A combining mark right after a `/` makes one `Character` of the two: folders compared or split by `Character`
    /// put such entries in the wrong domain, and a scope whose folder had one could not be cloned or synced by
    /// another replica ("state-files"). Paths go by byte (Spec/FORMAT.md §4.2).
    func testScopesWhosePathsHaveACombiningMarkAfterASlashSync() throws {
        try setUpReplicas()
        let marked = "Zz/\u{301}b"                         // a scope's folder with the mark in it
        try on("A", "add", marked + "/e", "--password-stdin", stdin: "e\n")
        try on("A", "add", "Yy/\u{301}c/f", "--password-stdin", stdin: "f\n")  // inside the scope "Yy"
        try on("A", "add", "Yy/g", "--password-stdin", stdin: "g\n")
        try on("A", "scope", "create", marked)
        let yy = try on("A", "scope", "create", "Yy").stderr
        XCTAssertTrue(yy.contains("2 entries re-encrypted"), yy)
        try on("A", "sync")
        try ok("clone", remote, replica("B"))
        try on("B", "edit", marked + "/e", "--set", "notes=from B")
        try on("B", "edit", "Yy/\u{301}c/f", "--set", "notes=from B")
        try on("B", "sync")
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", marked + "/e", "--field", "notes").stdout, "from B\n")
        XCTAssertEqual(try on("A", "show", "Yy/\u{301}c/f", "--field", "notes").stdout, "from B\n")
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    func testAScopeMemberRemovedAndTheScopeRemovedReachAnotherReplica() throws {
        try setUpReplicas()
        let c = try ok("identity", "new", dir + "/c-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let d = try ok("identity", "new", dir + "/d-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "add", "Team/wiki", "--password-stdin", stdin: "w\n")
        try on("A", "scope", "create", "Team", "--member", "c", c, "--member", "d", d)
        try on("A", "sync")
        try ok("clone", remote, replica("B"))
        try on("A", "member", "rm", "--scope", "Team", "d")
        try on("A", "scope", "rm", "Team")
        try on("A", "sync")
        try on("B", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
        XCTAssertEqual(try on("B", "scope", "ls").stdout.contains("Team"), false)
    }

    func testAVaultRekeyedAfterMakingAScopeClones() throws {
        try setUpReplicas()
        try on("A", "add", "Team/y", "--password-stdin", stdin: "y\n")
        try on("A", "scope", "create", "Team")
        try on("A", "rekey")
        try on("A", "sync")
        try ok("clone", remote, replica("B"))
        XCTAssertEqual(try on("B", "show", "Team/y", "--field", "password").stdout, "y\n")
    }

    // MARK: History length decides nothing.

    /// 2,000 commits no key holder made, under an authentic tip: the tip is judged by itself and taken.
    func testJunkHistoryBelowAnAuthenticTipIsIrrelevant() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "notes=tip")
        try on("A", "sync")
        let a = attacker!
        let tip = try a.tip
        var parent = try a.git(["rev-parse", "HEAD~1"])
        let junkTree = try a.editing(try a.tree(of: parent), ["Email", "gmail.json"], nil)
        var input = ""
        for i in 0..<2000 { input += "\(i)\n" }
        for i in 0..<2000 { parent = try a.commit(junkTree, parents: [parent], message: "junk \(i)") ; if i > 20 { break } }
        try a.push(try a.commit(try a.tree(of: tip), parents: [parent, tip], message: "authentic tip over junk"))
        _ = input
        try on("B", "sync")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "tip\n")
    }

    /// Objects are not hashed again when read (as git reads them): a remote whose object holds other bytes than its name
    /// says is still refused, because what arrives is named by its own hash here and the state then lacks the object.
    func testAnObjectWhoseBytesAreNotWhatItsNameSaysIsRefusedBySyncAndClone() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "username=a-new")
        try on("A", "sync")
        let a = attacker!
        let blob = try a.blob(at: "Email/gmail.json", in: try a.tip)
        let forged = #"{"not":"the entry"}"#
        // Every object of the remote loose, then the blob's file holding other bytes under the same name.
        let script = """
            set -e; cd "$1"; mkdir ../packs; mv objects/pack/pack-* ../packs/
            for p in ../packs/*.pack; do git unpack-objects -q < "$p"; done
            f=objects/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-); chmod u+w "$f"
            python3 -c 'import sys, zlib; d = sys.argv[2].encode(); open(sys.argv[1], "wb").write(zlib.compress(b"blob %d\\0" % len(d) + d))' "$f" "$3"
            test "$(git cat-file blob "$2")" = "$3"
            """
        let forge = try run("/bin/sh", ["-c", script, "forge", remote, blob, forged], stdin: nil, extraEnv: [:])
        XCTAssertEqual(forge.code, 0, forge.stderr)
        let before = try state("B")
        let sync = try attempt("B", "sync")
        XCTAssertNotEqual(sync.code, 0, sync.stdout)
        XCTAssertTrue(sync.stderr.contains("reading object \(blob): object not found"), sync.stderr)
        XCTAssertEqual(try state("B"), before)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "username").stdout, "alice\n")
        let clone = try tresor(["clone", remote, dir + "/C"])
        XCTAssertNotEqual(clone.code, 0, clone.stdout)
        XCTAssertTrue(clone.stderr.contains("reading object \(blob): object not found"), clone.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/C"))
    }

    // MARK: Helpers

    func vaultHeader(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: replica(name) + "/.tresor/vault.json"))) as? [String: Any])
    }

    func scopeHeader(_ name: String, _ folder: String) throws -> [String: Any] {
        let scopes = try XCTUnwrap(vaultHeader(name)["scopes"] as? [String: [String: Any]])
        let id = try XCTUnwrap(scopes.first { $0.value["folder"] as? String == folder }?.key)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: replica(name) + "/.tresor/scopes/\(id).json"))) as? [String: Any])
    }
}
