// Sync against bad remotes and interrupted runs: a clear message naming the file, and the local vault untouched.
import Foundation
import XCTest

final class SyncSafetyTests: SyncTestCase {
    func headOf(_ name: String) throws -> String {
        try run("/usr/bin/git", ["-C", replica(name), "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout
    }

    func testHostileRemoteContentIsRefusedBeforeMerging() throws {
        // Spec/AUTH.md: the shape rules first, then files no domain governs, then a domain whose files its state record
        // does not name (any file changed without the domain's key).
        let cases: [(String, (String) throws -> Void, String)] = [
            ("symlink", { try FileManager.default.createSymbolicLink(atPath: $0 + "/Email/link.json", withDestinationPath: "/etc/passwd") }, "[tree-shape: a symbolic link"),
            ("oversize", { try String(repeating: "x", count: 1_100_000).write(toFile: $0 + "/Email/big.json", atomically: true, encoding: .utf8) }, "[tree-shape: a file larger than"),
            ("garbage", { try "not json".write(toFile: $0 + "/Email/bad.json", atomically: true, encoding: .utf8) }, "[state-files:"),
            ("moved by hand", { try FileManager.default.copyItem(atPath: $0 + "/Email/gmail.json", toPath: $0 + "/Email/copy.json") }, "[state-files:"),
            ("tampered", { [self] p in try self.flipCiphertextByte(p + "/Social/github.json", at: 5) }, "[state-files:"),
            ("hidden", { try "x".write(toFile: $0 + "/Email/.hook", atomically: true, encoding: .utf8) }, "[foreign-file:"),
            ("bad name", { try "{}".write(toFile: $0 + "/Email/a:b.json", atomically: true, encoding: .utf8) }, "[foreign-file:"),
        ]
        for (name, change, message) in cases {
            try tearDownWithError(); try setUpWithError()
            try setUpReplicas("B")
            try on("B", "edit", "Email/gmail", "--set", "notes=local work")
            let before = try headOf("B")
            try pushHostileCommit(change)
            let r = try attempt("B", "sync")
            XCTAssertEqual(r.code, 2, name)
            XCTAssertTrue(r.stderr.contains("refusing what \"origin\" holds") && r.stderr.contains(message) && r.stderr.contains("nothing was taken"), "\(name): \(r.stderr)")
            XCTAssertEqual(try headOf("B"), before, name)
            XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "local work\n", name)
            XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "status", "--porcelain"], stdin: nil, extraEnv: [:]).stdout, "", name)
        }
    }

    func testADifferentVaultIsRefused() throws {
        try setUpReplicas("B")
        try ok("init", "--kdf", "minimum", "--vault", replica("Other"))
        try ok("remote", "add", "origin", remote, "--vault", replica("Other"))
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("Other"), "push", "-q", "-f", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        let before = try headOf("B")
        let r = try attempt("B", "sync")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("it is another vault") && r.stderr.contains("[different-vault:"), r.stderr)
        XCTAssertEqual(try headOf("B"), before)
    }

    func testRemotesThatAreNotVaultsOrUnreachable() throws {
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "-b", "main", dir + "/plain"], stdin: nil, extraEnv: [:]).code, 0)
        try write("hello", to: dir + "/plain/README")
        _ = try run("/usr/bin/git", ["-C", dir + "/plain", "add", "README"], stdin: nil, extraEnv: [:])
        _ = try run("/usr/bin/git", ["-C", dir + "/plain", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "x"], stdin: nil, extraEnv: [:])
        let notVault = try tresor("clone", dir + "/plain", dir + "/cloned")
        XCTAssertEqual(notVault.code, 2)
        XCTAssertTrue(notVault.stderr.contains("is not a Tresor vault"), notVault.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cloned"), "a failed clone leaves nothing")
        let missing = try tresor("clone", dir + "/no-such-repo", dir + "/cloned2")
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.contains("no-such-repo"), missing.stderr)
        try setUpReplicas()
        try on("A", "remote", "add", "dead", "git://127.0.0.1:9/nothing.git")
        let before = try headOf("A")
        let r = try attempt("A", "sync", "dead")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("127.0.0.1:9"), r.stderr)
        XCTAssertEqual(try headOf("A"), before)
        let noRemote = try attempt("A", "sync", "nope")
        XCTAssertEqual(noRemote.code, 2)
        XCTAssertTrue(noRemote.stderr.contains("nope"), noRemote.stderr)
    }

    /// Sync never overwrites a file changed outside tresor; files it does not touch do not stop it (and
    /// are never pushed).
    /// The hooks that authenticate commits made with git are found by a relative path: they keep working
    /// after the vault folder moves.
    func testHooksStillRunAfterTheVaultFolderMoves() throws {
        try setUpReplicas()
        try FileManager.default.moveItem(atPath: replica("A"), toPath: replica("Moved"))
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("Moved"), "rm", "-q", "Email/gmail.json"], stdin: nil, extraEnv: [:]).code, 0)
        let commit = try run("/usr/bin/git", ["-C", replica("Moved"), "commit", "-q", "-m", "made with git"], stdin: nil,
                             extraEnv: ["GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x"])
        XCTAssertEqual(commit.code, 0, commit.stderr)
        // The post-commit hook took the commit in as this replica's change (Spec/MERGE.md §12).
        let head = try run("/usr/bin/git", ["-C", replica("Moved"), "log", "-1", "--format=%s"], stdin: nil, extraEnv: [:]).stdout
        XCTAssertEqual(head, "Take in a commit made with git\n")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("Moved"), "config", "core.hooksPath"], stdin: nil, extraEnv: [:]).stdout, ".git/hooks\n")
    }

    func testSyncRefusesToOverwriteUncommittedChanges() throws {
        try setUpReplicas("B")
        try write("stray", to: replica("A") + "/notes.txt")
        try on("B", "edit", "Email/gmail", "--set", "notes=from B")
        try on("B", "sync")
        let handEdited = try String(contentsOfFile: replica("A") + "/Email/gmail.json", encoding: .utf8) + " "
        try write(handEdited, to: replica("A") + "/Email/gmail.json")
        let before = try headOf("A")
        let refs = { try self.run("/usr/bin/git", ["-C", self.replica("A"), "for-each-ref"], stdin: nil, extraEnv: [:]).stdout }
        let refsBefore = try refs()
        let r = try attempt("A", "sync")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("Email/gmail.json") && r.stderr.contains("changed outside tresor"), r.stderr)
        XCTAssertEqual(try headOf("A"), before)
        XCTAssertEqual(try refs(), refsBefore, "a refused sync moved no ref (tracking, pre-sync)")
        XCTAssertEqual(try String(contentsOfFile: replica("A") + "/Email/gmail.json", encoding: .utf8), handEdited)
        try FileManager.default.removeItem(atPath: replica("A") + "/Email/gmail.json")
        _ = try run("/usr/bin/git", ["-C", replica("A"), "checkout", "--", "Email/gmail.json"], stdin: nil, extraEnv: [:])
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "from B\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: replica("A") + "/notes.txt"))
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "ls-remote", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
    }

    /// Killing sync at each stage and running it again loses nothing and converges.
    func testInterruptedSyncFinishesOnRerun() throws {
        try requireFailpoints()
        for point in ["after-fetch", "before-fast-forward", "before-merge-commit", "before-push"] {
            try tearDownWithError(); try setUpWithError()
            try setUpReplicas("B")
            try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "A-pass\n")
            try on("A", "sync")
            if point != "before-fast-forward" { try on("B", "edit", "Email/gmail", "--set", "notes=B-note") }
            let killed = try attempt("B", "sync", env: ["TRESOR_FAILPOINT": point])
            XCTAssertEqual(killed.code, 137, "\(point): \(killed.stderr)")
            XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "password").code, 0, "\(point): the vault stays usable")
            try on("B", "sync")
            try on("A", "sync")
            XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "password").stdout, "A-pass\n", point)
            if point != "before-fast-forward" {
                XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "B-note\n", point)
            }
            XCTAssertEqual(try contents("A"), try contents("B"), point)
            XCTAssertEqual(try on("B", "fsck").code, 0, point)
        }
    }
}

final class PlainGitTests: SyncTestCase {
    /// `git pull` with the real git binary merges entries through `tresor merge-driver`, and `git log -p`
    /// shows decrypted diffs through textconv.
    func testRealGitPullMergesEntriesAndDiffsAreDecrypted() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "from-A\n")
        try on("A", "sync")
        try on("B", "edit", "Email/gmail", "--set", "username=bob")
        let pull = try run("/usr/bin/git", ["-C", replica("B"), "-c", "user.name=B", "-c", "user.email=b@b", "pull", "--no-rebase", "--no-edit", "origin", "main"],
                           stdin: nil, extraEnv: ["TRESOR_VAULT": nil])
        XCTAssertEqual(pull.code, 0, pull.stdout + pull.stderr)
        let e = try entryJSON("B", "Email/gmail")
        XCTAssertEqual(e["password"] as? String, "from-A")
        XCTAssertEqual(e["username"] as? String, "bob")
        let log = try run("/usr/bin/git", ["-C", replica("B"), "log", "-p", "--", "Email/gmail.json"], stdin: nil, extraEnv: [:]).stdout
        XCTAssertTrue(log.contains("-password: first-secret\n+password: from-A") && log.contains("+username: bob"), log)
        let locked = try run("/usr/bin/git", ["-C", replica("B"), "log", "-p", "--no-merges", "-1", "--", "Email/gmail.json"], stdin: nil,
                             extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertTrue(locked.stdout.contains("unlock tresor to see decrypted diffs"), locked.stdout)
        // The git CLI checks files out with the umask; tresor's hook makes them private again, and fsck
        // says so when something else did it.
        XCTAssertEqual(try on("B", "fsck").code, 0)
        chmod(replica("B") + "/Email/gmail.json", 0o644)
        let fsck = try attempt("B", "fsck")
        XCTAssertEqual(fsck.code, 6)
        XCTAssertTrue(fsck.stdout.contains("Email/gmail.json: permissions 0644"), fsck.stdout)
        try on("B", "fsck", "--fix-permissions")
        XCTAssertEqual(try on("B", "fsck").code, 0)
    }

    /// Spec/MERGE.md §12: `git revert` of a published change is a change of this replica: it is taken in (the hook), and
    /// sync publishes it instead of moving forward to the reverted state again.
    func testAGitRevertIsTakenInAsAChangeAndSyncPublishesIt() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "notes=one")
        try on("A", "edit", "Email/gmail", "--set", "notes=two")
        try on("A", "sync")
        let revert = try run("/usr/bin/git", ["-C", replica("A"), "-c", "user.name=A", "-c", "user.email=a@a", "revert", "--no-edit", "HEAD"],
                             stdin: nil, extraEnv: ["TRESOR_VAULT": nil])
        XCTAssertEqual(revert.code, 0, revert.stderr)
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "one\n")
        let sync = try on("A", "sync")
        XCTAssertFalse(sync.stdout.contains("fast-forward"), sync.stdout)
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "one\n")
        try on("B", "sync")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "one\n")
        // The reverted value is in the history, not lost.
        XCTAssertTrue(try on("B", "show", "Email/gmail", "--json").stdout.contains("\"two\""))
    }

    /// Spec/MERGE.md §12: a merge `git pull` made that its hook could not take in (no keys at hand) and that was pushed
    /// with `git push` is still this replica's: the next tresor command that writes joins it (its first parent is the state this
    /// replica last accepted; the other is judged as any fetched tip), and sync publishes the join.
    func testAMergeMadeWithGitAndPushedBeforeItWasTakenInIsJoinedByTheNextCommand() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "notes=from-A")
        try on("A", "sync")
        try on("B", "edit", "Email/gmail", "--set", "username=from-B")
        let noKeys: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_AGENT": "off", "TRESOR_PINENTRY": "none"]
        let git = ["-C", replica("B"), "-c", "user.name=B", "-c", "user.email=b@b"]
        // Without keys the merge driver leaves the entry to its person, who keeps the file there and commits.
        let pull = try run("/usr/bin/git", git + ["pull", "--no-rebase", "--no-edit", "origin", "main"], stdin: nil, extraEnv: noKeys)
        XCTAssertNotEqual(pull.code, 0, pull.stdout + pull.stderr)
        XCTAssertEqual(try run("/usr/bin/git", git + ["add", "Email/gmail.json"], stdin: nil, extraEnv: noKeys).code, 0)
        let commit = try run("/usr/bin/git", git + ["commit", "-q", "--no-edit"], stdin: nil, extraEnv: noKeys)
        XCTAssertEqual(commit.code, 0, commit.stderr)
        XCTAssertTrue(commit.stderr.contains("checked and authenticated by the next tresor command"), commit.stderr)
        let push = try run("/usr/bin/git", git + ["push", "-q", "origin", "main"], stdin: nil, extraEnv: noKeys)
        XCTAssertEqual(push.code, 0, push.stderr)
        let sync = try on("B", "sync")
        XCTAssertTrue((sync.stdout + sync.stderr).contains("merged again by tresor's rules"), sync.stdout + sync.stderr)
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "from-B\n")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "from-A\n")
    }

    /// The output of a git command, trimmed.
    func gitOut(_ args: [String]) throws -> String {
        try run("/usr/bin/git", args, stdin: nil, extraEnv: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The attacker's commit, in a clone of the remote: Email/gmail put back as it was one commit before (authentic
    /// bytes, not what the state records name). Returns the clone's git arguments and the commit.
    func forgeOlderGmail() throws -> (git: [String], commit: String) {
        let scratch = dir + "/forge"
        _ = try run("/usr/bin/git", ["clone", "-q", remote, scratch], stdin: nil, extraEnv: [:])
        let old = try run("/usr/bin/git", ["-C", scratch, "show", "HEAD~1:Email/gmail.json"], stdin: nil, extraEnv: [:]).stdout
        try old.write(toFile: scratch + "/Email/gmail.json", atomically: true, encoding: .utf8)
        let fg = ["-C", scratch, "-c", "user.name=M", "-c", "user.email=m@m"]
        XCTAssertEqual(try run("/usr/bin/git", fg + ["commit", "-qam", "forged"], stdin: nil, extraEnv: [:]).code, 0)
        return (fg, try gitOut(fg + ["rev-parse", "HEAD"]))
    }

    /// The same rule does not let a merge fetched with git bring in what sync refuses: a merge whose one parent is the
    /// state this replica accepted and whose other is written without the keys is refused whole.
    func testAFetchedMergeWithAForgedParentIsRefused() throws {
        try setUpReplicas("B")
        let git = ["-C", replica("B"), "-c", "user.name=M", "-c", "user.email=m@m"]
        try on("B", "edit", "Email/gmail", "--set", "notes=newer")
        try on("B", "sync")
        // The attacker: a commit on top of B's state that puts back the entry as it was before (authentic, but not what
        // the state records name), and a merge of it with B's state, pushed to the remote.
        let head = try gitOut(git + ["rev-parse", "HEAD"])
        let (fg, forged) = try forgeOlderGmail()
        let merge = try gitOut(fg + ["commit-tree", try gitOut(fg + ["rev-parse", "HEAD^{tree}"]), "-p", head, "-p", forged, "-m", "Merge"])
        XCTAssertEqual(try run("/usr/bin/git", fg + ["push", "-qf", "origin", merge + ":refs/heads/main"], stdin: nil, extraEnv: [:]).code, 0)
        // B takes it with plain git (a fast-forward): its hook refuses it, and so does every command that changes the
        // vault until the pull is undone (docs/sync.md).
        let pull = try run("/usr/bin/git", git + ["pull", "-q", "--ff-only", "origin", "main"], stdin: nil, extraEnv: [:])
        XCTAssertTrue(pull.stderr.contains("git brought in a state from \"origin/main\" that tresor refuses"), pull.stderr)
        let edit = try attempt("B", "edit", "Email/gmail", "--set", "notes=after")
        XCTAssertNotEqual(edit.code, 0, edit.stdout)
        XCTAssertTrue(edit.stderr.contains("git brought in a state from \"origin/main\" that tresor refuses")
                      && edit.stderr.contains("state-files"), edit.stderr)
        XCTAssertEqual(try gitOut(git + ["rev-parse", "HEAD"]), merge)
        XCTAssertEqual(try run("/usr/bin/git", git + ["reset", "-q", "--hard", "ORIG_HEAD"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "newer\n")
    }

    /// What git did is taken in only on top of the state this replica last accepted: a commit made with git over a pull
    /// tresor refused (`git commit` after it, or `git pull --rebase` replaying local commits over it) does not carry the
    /// refused state in as this replica's change.
    func testCommitsMadeWithGitOverARefusedStateAreRefusedToo() throws {
        try setUpReplicas("B")
        try on("B", "edit", "Email/gmail", "--set", "notes=newer")
        try on("B", "sync")
        // The attacker: the entry as it was before, pushed over the remote.
        let (fg, _) = try forgeOlderGmail()
        XCTAssertEqual(try run("/usr/bin/git", fg + ["push", "-q", "origin", "HEAD:main"], stdin: nil, extraEnv: [:]).code, 0)
        let git = ["-C", replica("B"), "-c", "user.name=B", "-c", "user.email=b@b"]
        let pull = try run("/usr/bin/git", git + ["pull", "-q", "--ff-only", "origin", "main"], stdin: nil, extraEnv: [:])
        XCTAssertTrue(pull.stderr.contains("that tresor refuses"), pull.stderr)
        // A commit made with git on top of it: refused as well, nothing taken in.
        let commit = try run("/usr/bin/git", git + ["commit", "-q", "--allow-empty", "-m", "on top"], stdin: nil, extraEnv: [:])
        XCTAssertTrue(commit.stderr.contains("commits made with git on top of a state tresor did not accept"), commit.stderr)
        let edit = try attempt("B", "edit", "Email/gmail", "--set", "notes=after")
        XCTAssertNotEqual(edit.code, 0, edit.stdout)
        XCTAssertTrue(edit.stderr.contains("commits made with git on top of a state tresor did not accept"), edit.stderr)
        // Back to the state tresor accepted: everything as it was.
        XCTAssertEqual(try run("/usr/bin/git", git + ["reset", "-q", "--hard", "refs/tresor/verified"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "newer\n")
        try on("B", "edit", "Email/gmail", "--set", "notes=after")
    }

    /// A remote rolled back to an older authentic state, taken with `git pull` (a fast-forward whose tree is that older
    /// state): not taken as it is — joined with the state this replica accepted, as sync would, so nothing goes back.
    func testAPullOfAnOlderAuthenticStateIsJoinedNotTaken() throws {
        try setUpReplicas("B")
        try on("B", "edit", "Email/gmail", "--set", "notes=v1")
        try on("B", "sync")
        try on("B", "edit", "Email/gmail", "--set", "notes=v2")
        try on("B", "sync")
        // The attacker: a commit on top of the remote whose tree is the state before (authentic, older).
        let scratch = dir + "/forge"
        _ = try run("/usr/bin/git", ["clone", "-q", remote, scratch], stdin: nil, extraEnv: [:])
        let fg = ["-C", scratch, "-c", "user.name=M", "-c", "user.email=m@m"]
        let oldTree = try run("/usr/bin/git", fg + ["rev-parse", "HEAD~1^{tree}"], stdin: nil, extraEnv: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let forged = try run("/usr/bin/git", fg + ["commit-tree", oldTree, "-p", "HEAD", "-m", "Edit Email/gmail: notes"], stdin: nil, extraEnv: [:])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try run("/usr/bin/git", fg + ["push", "-q", "origin", forged + ":refs/heads/main"], stdin: nil, extraEnv: [:]).code, 0)
        let git = ["-C", replica("B"), "-c", "user.name=B", "-c", "user.email=b@b"]
        let pull = try run("/usr/bin/git", git + ["pull", "-q", "--ff-only", "origin", "main"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(pull.code, 0, pull.stderr)
        // git's hook took it in and said so, as sync says it (Spec/AUTH.md §8).
        XCTAssertTrue(pull.stderr.contains("warning: the remote \"origin\" went back: the vault is older there than what this replica last took from it"),
                      pull.stderr)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "v2\n")
        try on("B", "sync")
        try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "notes").stdout, "v2\n")
    }

    func testRealGitMergeOfTheSameFieldKeepsBothValues() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "from-A\n")
        try on("A", "sync")
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "from-B\n")
        let pull = try run("/usr/bin/git", ["-C", replica("B"), "-c", "user.name=B", "-c", "user.email=b@b", "pull", "--no-rebase", "--no-edit", "origin", "main"],
                           stdin: nil, extraEnv: [:])
        XCTAssertEqual(pull.code, 0, pull.stdout + pull.stderr)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "password").stdout, "from-B\n")
        XCTAssertTrue(try history("B", "Email/gmail").contains { $0["value"] == "from-A" && $0["reason"] == "merge" })
    }
}
