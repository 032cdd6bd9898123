// The rough edges a new user met, each as it was met: the binary run as a person types it, the messages read back.
import Foundation
import XCTest

final class RoughEdgeTests: CLITestCase {
    func testVaultOptionsMayComeBeforeTheCommand() throws {
        try sampleVault()
        let noDefault: [String: String?] = ["TRESOR_VAULT": nil]
        let show = try tresor(["--vault", vaultDir, "show", "Email/gmail", "--field", "password"], extraEnv: noDefault)
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertEqual(show.stdout, "hunter2-gmail\n")
        let ls = try tresor(["--vault=" + vaultDir, "--passphrase-file", passphraseFile, "remote", "list"], extraEnv: noDefault)
        XCTAssertEqual(ls.code, 0, ls.stderr)
        let typo = try tresor(["--vault", vaultDir, "shwo", "Email/gmail"], extraEnv: noDefault)
        XCTAssertEqual(typo.code, 64)
        XCTAssertTrue(typo.stderr.contains("unknown command \"shwo\"") && typo.stderr.contains("did you mean 'show'?"), typo.stderr)
        XCTAssertTrue(try ok("--help").stdout.replacingOccurrences(of: "\n", with: " ").contains("tresor --vault DIR show Email/gmail"))
    }

    /// A commit can say any 64-bit time (its metadata is not authenticated); `log` shows such a commit, as text and as
    /// JSON, at the last time it can (it stopped on a trap before).
    func testLogShowsACommitWhoseTimeIsOutOfRange() throws {
        try sampleVault()
        let tree = try git("rev-parse", "HEAD^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let head = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let object = "tree \(tree)\nparent \(head)\nauthor Far <far@example.org> 100000000000000000 +0000\n"
            + "committer Far <far@example.org> 100000000000000000 +0000\n\nFar away\n"
        try write(object, to: dir + "/commit.txt")
        let id = try git("hash-object", "-t", "commit", "-w", "--literally", dir + "/commit.txt").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try git("update-ref", "HEAD", id).code, 0)
        let text = try ok(["log", "-n", "1"])
        XCTAssertTrue(text.stdout.contains("Far away"), text.stdout)
        let json = try ok(["log", "-n", "1", "--json"])
        XCTAssertTrue(json.stdout.contains("9999-12-31T23:59:59"), json.stdout)
    }

    func testLsDrawsARootEntryBesideTheFolderOfItsName() throws {
        try initVault()
        for path in ["Email", "Email/gmail", "Work/Email/x", "Work/Alpha", "Aaa/b"] { try ok("add", path, "--no-password") }
        let r = try run("/usr/bin/script", ["-qec", "\(CLITestCase.binary) ls", "/dev/null"], stdin: nil, extraEnv: [:])
        let lines = r.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["Aaa/", " └── b", "Email", "Email/", " └── gmail", "Work/", " ├── Alpha", " └── Email/", "     └── x"])
    }

    func testAMissingVaultDirectoryIsNamedAsMissing() throws {
        let r = try tresor(["ls", "--vault", dir + "/nowhere"])
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("the vault directory \"\(dir)/nowhere\" does not exist"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tresor init") && r.stderr.contains("tresor clone"), r.stderr)
        // A folder that is there but holds no vault is still "not a Tresor vault".
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        XCTAssertTrue(try tresor(["ls", "--vault", dir + "/empty"]).stderr.contains("is not a Tresor vault"))
    }

    func testAReadOnlyVaultSaysSoInsteadOfARawLockError() throws {
        try sampleVault()
        // Root writes anywhere: the vault then belongs to another user, who runs tresor.
        var command = [CLITestCase.binary]
        if getuid() == 0 {
            XCTAssertEqual(try run("/bin/chown", ["-R", "65534:65534", vaultDir, passphraseFile], stdin: nil, extraEnv: [:]).code, 0)
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
        }
        XCTAssertEqual(try run("/bin/chmod", ["-R", "a-w", vaultDir], stdin: nil, extraEnv: [:]).code, 0)
        defer { _ = try? run("/bin/chmod", ["-R", "u+w", vaultDir], stdin: nil, extraEnv: [:]) }
        let add = try run(command[0], Array(command.dropFirst()) + ["add", "Web/new", "--no-password"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(add.code, 2, add.stderr)
        XCTAssertTrue(add.stderr.contains("the vault \"\(vaultDir)\" can be read but not changed by you"), add.stderr)
        XCTAssertTrue(add.stderr.contains("reading commands such as 'tresor show' still work"), add.stderr)
        XCTAssertFalse(add.stderr.contains("lock\": Permission denied"), add.stderr)
        let show = try run(command[0], Array(command.dropFirst()) + ["show", "Email/gmail", "--field", "password"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(show.stdout, "hunter2-gmail\n", show.stderr)
    }

    func testFsckCountsOneEntryAsOneEntry() throws {
        try initVault()
        try ok("add", "Only/one", "--no-password")
        XCTAssertTrue(try ok("fsck").stderr.contains("checked 1 entry: no problems"))
        try ok("add", "Only/two", "--no-password")
        XCTAssertTrue(try ok("fsck").stderr.contains("checked 2 entries: no problems"))
    }

    func testShowingARemovedOrMovedEntrySaysWhatHappenedToIt() throws {
        try sampleVault()
        try ok("rm", "-f", "Social/github")
        let removed = try tresor("show", "Social/github")
        XCTAssertEqual(removed.code, 4)
        XCTAssertTrue(removed.stderr.contains("no entry \"Social/github\": it was removed in "), removed.stderr)
        XCTAssertTrue(removed.stderr.contains("\"Remove Social/github\"") && removed.stderr.contains("'tresor restore Social/github' brings it back"), removed.stderr)
        try ok("restore", "Social/github")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "pin").stdout, "4711\n")
        try ok("mv", "Email/work", "Work/mail")
        let moved = try tresor("edit", "Email/work", "--set", "username=x")
        XCTAssertEqual(moved.code, 4)
        XCTAssertTrue(moved.stderr.contains("it was moved to \"Work/mail\"") && moved.stderr.contains("'tresor show Work/mail'"), moved.stderr)
        // Never there: the close names, as before.
        XCTAssertTrue(try tresor("show", "Email/gmial").stderr.contains("did you mean \"Email/gmail\""))
    }

    func testEditAddsOrRemovesOneURLAndHintsAtUrlsForUrl() throws {
        try sampleVault()
        let url = try tresor("edit", "Email/gmail", "--set", "url=https://accounts.google.com")
        XCTAssertEqual(url.code, 64)
        XCTAssertTrue(url.stderr.contains("there is no field \"url\": urls is the list of urls"), url.stderr)
        XCTAssertTrue(url.stderr.contains("--add urls=VALUE adds one"), url.stderr)
        try ok("edit", "Email/gmail", "--add", "urls=https://accounts.google.com")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "urls").stdout, "https://mail.google.com\nhttps://accounts.google.com\n")
        try ok("edit", "Email/gmail", "--remove", "urls=https://mail.google.com", "--add", "tags=mail")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "urls").stdout, "https://accounts.google.com\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "tags").stdout, "mail\n")
        let again = try ok("edit", "Email/gmail", "--add", "urls=https://accounts.google.com")
        XCTAssertTrue(again.stderr.contains("has urls \"https://accounts.google.com\" already") && again.stderr.contains("No changes."), again.stderr)
        let notAList = try tresor("edit", "Email/gmail", "--add", "pin=1")
        XCTAssertEqual(notAList.code, 64)
        XCTAssertTrue(notAList.stderr.contains("\"pin\" is not a list field"), notAList.stderr)
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Edit Email/gmail: urls, tags\n")
    }

    func testPassHabitsGetTheTresorCommand() throws {
        try sampleVault()
        let cases: [([String], String)] = [
            (["insert", "Web/x"], "'insert' is pass's; in tresor: tresor add PATH"),
            (["delete", "Web/x"], "'delete' is pass's; in tresor: tresor rm PATH"),
            (["search", "mail"], "tresor find TEXT (entry names) or tresor grep TEXT"),
            (["cat", "Email/gmail"], "'cat' is pass's; in tresor: tresor show PATH"),
            (["generate", "Web/new", "20"], "hint: to store one: tresor add Web/new --generate --length 20"),
            (["generate", "-n"], "hint: tresor generate --classes lower,upper,digits"),
            (["generate", "Web/new", "16", "-n"], "tresor add Web/new --generate --length 16 --classes lower,upper,digits"),
        ]
        for (args, hint) in cases {
            let r = try tresor(args)
            XCTAssertEqual(r.code, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try tresor("show", "Web/new").code, 4, "nothing was stored")
        XCTAssertEqual(try ok("generate", "--length", "20").stdout.count, 21)
    }

    func testTheDefaultIdentityUnlocksWhenItIsAMemberAndMemberLsMarksThisDevice() throws {
        try sampleVault()
        let noPassphrase: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": "none"]
        // Not a member yet: the passphrase is needed, and the message names --identity as a way.
        try ok("identity", "new")
        let key = try ok("identity", "show").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try tresor(["show", "Email/gmail"], extraEnv: noPassphrase)
        XCTAssertEqual(before.code, 3)
        XCTAssertTrue(before.stderr.contains("--identity FILE"), before.stderr)
        try ok("member", "add", "laptop", key)
        // ~/.config/tresor/identity is a member: used without --identity or TRESOR_IDENTITY.
        let show = try tresor(["show", "Email/gmail", "--field", "password"], extraEnv: noPassphrase)
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertEqual(show.stdout, "hunter2-gmail\n")
        let members = try tresor(["member", "ls"], extraEnv: noPassphrase)
        XCTAssertTrue(members.stdout.contains("laptop\t") && members.stdout.contains("\t(this device)"), members.stdout)
        // Another identity named explicitly is this device instead.
        try ok(["identity", "new", dir + "/phone"])
        let phone = try ok(["identity", "show", dir + "/phone"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("member", "add", "phone", phone)
        let named = try tresor(["member", "ls", "--identity", dir + "/phone"], extraEnv: noPassphrase).stdout
        XCTAssertTrue(named.split(separator: "\n").contains { $0.hasPrefix("phone\t") && $0.hasSuffix("(this device)") }, named)
        XCTAssertFalse(named.split(separator: "\n").contains { $0.hasPrefix("laptop\t") && $0.hasSuffix("(this device)") }, named)
        // A vault the default identity is not a member of still asks for its passphrase.
        try ok(["init", "--kdf", "minimum", "--vault", dir + "/other"])
        XCTAssertEqual(try tresor(["show", "X", "--vault", dir + "/other"], extraEnv: noPassphrase).code, 3)
    }

    func testClipInsideTmuxUsesTmuxsBufferAndClearsIt() throws {
        try sampleVault()
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        let sh = try TmuxSession(directory: dir, env: e)
        // What tmux sets in its panes (the isolated test shell started without it).
        sh.run("export TMUX=\"$(tmux -S '\(sh.socket)' display-message -p '#{socket_path},#{pid},#{session_id}' | tr -d '$')\"")
        sh.run("tresor clip Email/gmail --clear-after 1; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("to the clipboard (tmux); it will be cleared in 1 second"), sh.screen)
        XCTAssertEqual(SpawnHelper.run("/usr/bin/tmux", ["-S", sh.socket, "show-buffer", "-b", "tresor"]).output, "hunter2-gmail")
        let deadline = Date().addingTimeInterval(10)
        while SpawnHelper.run("/usr/bin/tmux", ["-S", sh.socket, "show-buffer", "-b", "tresor"]).status == 0, Date() < deadline { usleep(100_000) }
        XCTAssertNotEqual(SpawnHelper.run("/usr/bin/tmux", ["-S", sh.socket, "show-buffer", "-b", "tresor"]).status, 0, "the buffer was cleared")
    }
}

/// The rough edges of sharing a vault: plain git after `remote add`, what a sync and a clone say.
final class RoughEdgeSyncTests: SyncTestCase {
    func testPlainGitPullWorksAfterRemoteAdd() throws {
        try setUpReplicas("B")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("A"), "config", "branch.main.remote"], stdin: nil, extraEnv: [:]).stdout, "origin\n")
        try on("B", "edit", "Email/gmail", "--set", "username=from-b")
        try on("B", "sync")
        try on("A", "edit", "Email/gmail", "--set", "password=from-a")
        // A has a local commit and the remote another: git pulls, merges through tresor's driver, and asks nothing.
        let person: [String: String?] = ["GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org"]
        let pull = try run("/usr/bin/git", ["-C", replica("A"), "pull"], stdin: nil, extraEnv: person)
        XCTAssertEqual(pull.code, 0, pull.stdout + pull.stderr)
        XCTAssertFalse((pull.stdout + pull.stderr).contains("no tracking information"), pull.stderr)
        XCTAssertFalse((pull.stdout + pull.stderr).contains("divergent"), pull.stderr)
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "from-b\n")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "password").stdout, "from-a\n")
        XCTAssertEqual(try on("A", "sync").code, 0)
    }

    func testOnlyAMergeNamesThePreSyncRef() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "username=a1")
        try on("A", "sync")
        let fastForward = try on("B", "sync")
        XCTAssertTrue(fastForward.stdout.contains("Pulled from origin (fast-forward)."), fastForward.stdout)
        XCTAssertFalse(fastForward.stderr.contains("kept at"), fastForward.stderr)
        try on("A", "edit", "Email/gmail", "--set", "username=a2")
        try on("A", "sync")
        try on("B", "edit", "Social/github", "--set", "username=b2")
        let merge = try on("B", "sync")
        XCTAssertTrue(merge.stdout.contains("Merged origin"), merge.stdout)
        XCTAssertTrue(merge.stderr.contains("The state before this merge is kept at refs/tresor/pre-sync/"), merge.stderr)
    }

    func testAScopeOnlyMembersCloneSaysHowManyEntriesSheCanOpen() throws {
        try setUpReplicas()
        try ok(["identity", "new", dir + "/carol"])
        let carol = try ok(["identity", "show", dir + "/carol"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "add", "Team/wiki", "--password-stdin", stdin: "team-secret\n")
        try on("A", "scope", "create", "Team", "--member", "carol", carol)
        try on("A", "sync")
        let clone = try tresor(["clone", remote, dir + "/carol-vault", "--identity", dir + "/carol"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(clone.code, 0, clone.stderr)
        XCTAssertTrue(clone.stderr.contains(": 3 entries; the one you can open was decrypted and verified, the other 2 are under keys you do not hold"), clone.stderr + clone.stdout)
        let json = try tresor(["clone", remote, dir + "/carol-json", "--identity", dir + "/carol", "--json"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(o["entries"] as? Int, 3)
        XCTAssertEqual(o["readable"] as? Int, 1)
        // The owner's clone opens all.
        XCTAssertTrue(try ok("clone", remote, dir + "/owner").stderr.contains("3 entries, all verified."))
    }
}
