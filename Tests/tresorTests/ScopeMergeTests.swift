// Sync of diverged histories in a vault with scopes (Spec/MERGE.md §14): entries merged under the key of their place,
// files under keys not held taken from the side that changed them, conflicts on them refused, scope members united.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    func gitIn(_ repo: String, _ args: String...) throws -> String {
        try run("/usr/bin/git", ["-C", repo] + args, stdin: nil, extraEnv: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A clone of `remote` opened with the identity `name` only.
    func cloneAs(_ name: String, remote: String) throws -> String {
        let clone = dir + "/" + name + "-vault"
        let r = try tresor(["clone", remote, clone, "--identity", dir + "/" + name], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.code, 0, r.stderr)
        return clone
    }

    func member(_ name: String, _ clone: String, _ args: String..., stdin: String? = nil) throws -> CLIResult {
        try tresor(args + ["--vault", clone, "--identity", dir + "/" + name], stdin: stdin, extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
    }

    /// Everything a refused sync must leave as it was: HEAD, every ref, the work tree's status and files. (Not the
    /// local mark of the last commit checked, `refs/tresor/verified/…`, which every command's check moves to HEAD.)
    func state(_ repo: String) throws -> [String] {
        let refs = try gitIn(repo, "for-each-ref").split(separator: "\n").filter { !$0.contains("refs/tresor/verified/") }.joined(separator: "\n")
        return [try gitIn(repo, "rev-parse", "HEAD"), refs, try gitIn(repo, "status", "--porcelain", "--ignored"),
         try gitIn(repo, "ls-files", "-s"), try String(contentsOfFile: repo + "/Team/wiki.json", encoding: .utf8)]
    }

    func testMembersEditingOneScopedEntryOnBothSidesMergeFieldByFieldUnderTheScopeKey() throws {
        let (remote, clone) = try syncedClone(members: ["carol", "dave"])
        // The owner (Team through its vault slot) and carol (Team only) change the password of Team/wiki differently.
        try ok("edit", "Team/wiki", "--password-stdin", stdin: "from-owner\n")
        try ok("edit", "Team/wiki", "--set", "notes=owner note")
        try ok("sync")
        XCTAssertEqual(try member("carol", clone, "edit", "Team/wiki", "--password-stdin", stdin: "from-carol\n").code, 0)
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let merge = try carol(clone, "sync")
        XCTAssertEqual(merge.code, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("Merged origin: 1 entry changed: Team/wiki"), merge.stdout)
        XCTAssertTrue(merge.stdout.contains("resolved: field \"password\" of \"Team/wiki\" was changed on both sides"), merge.stdout)
        XCTAssertFalse(merge.stdout.contains("from-owner") || merge.stdout.contains("from-carol"), "reports never show values")
        // A two-parent commit, tagged with Team's key alone (carol holds nothing else), the entry sealed under Team's key.
        XCTAssertEqual(try gitIn(clone, "log", "-1", "--format=%P").split(separator: " ").count, 2)
        let commit = try gitIn(clone, "cat-file", "commit", "HEAD")
        XCTAssertTrue(commit.contains("\ntresor-auth-") && !commit.contains("\ntresor-auth "), commit)
        let (_, teamKey) = try scopeKey("Team", member: "carol")
        let sealed = Array(try gitIn(clone, "cat-file", "blob", "HEAD:Team/wiki.json").utf8)
        let merged = try EntryCipher(vaultKey: teamKey).open(sealed, expectedPath: nil)
        XCTAssertEqual(merged.fields["password"]?.value.displayText, "from-carol")
        XCTAssertEqual(merged.fields["username"]?.value.displayText, "carol")
        XCTAssertEqual(merged.fields["notes"]?.value.displayText, "owner note")
        XCTAssertTrue(merged.history.contains { $0.field == "password" && $0.value.displayText == "from-owner" && $0.reason == "merge" })
        // The root entry carol cannot read stayed the owner's, byte for byte.
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD:Email/gmail.json"), try git("rev-parse", "HEAD:Email/gmail.json").stdout.trimmingCharacters(in: .newlines))
        // The owner fast-forwards to carol's merge (the per-key rule holds for it) and reads the result.
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "from-carol\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "owner note\n")
        // A third replica, dave's new clone, takes the whole history.
        let daves = try cloneAs("dave", remote: remote)
        XCTAssertEqual(try member("dave", daves, "show", "Team/wiki", "--field", "username").stdout, "carol\n")
        try ok("fsck")
    }

    func testAVaultOnlyHolderAndAScopeMemberEditingApartConverge() throws {
        // Team is closed: the owner holds the vault key and not Team; carol holds Team and not the vault key.
        try teamVault(closed: true)
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        let clone = try cloneAs("carol", remote: remote)
        // Carol pushes first; the owner merges what it cannot read, unread.
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        try ok("edit", "Email/gmail", "--set", "username=owner")
        let ownerMerge = try tresor("sync")
        XCTAssertEqual(ownerMerge.code, 0, ownerMerge.stderr)
        XCTAssertTrue(ownerMerge.stdout.contains("Merged origin"), ownerMerge.stdout)
        let pulled = try carol(clone, "sync")
        XCTAssertEqual(pulled.code, 0, pulled.stderr)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        // The other way round: the owner pushes first; carol merges what she cannot read, unread.
        try ok("edit", "Email/gmail", "--set", "notes=owner again")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=carol again").code, 0)
        let carolMerge = try carol(clone, "sync")
        XCTAssertEqual(carolMerge.code, 0, carolMerge.stderr)
        XCTAssertTrue(carolMerge.stdout.contains("Merged origin"), carolMerge.stdout)
        let ownerPull = try tresor("sync")
        XCTAssertEqual(ownerPull.code, 0, ownerPull.stderr)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "owner again\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "owner\n")
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "notes").stdout, "carol again\n")
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "carol\n")

    }

    func testBothSidesChangingAScopedEntryIsRefusedByAReplicaWithoutItsKey() throws {
        try teamVault(closed: true, members: ["carol", "dave"])
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        let carols = try cloneAs("carol", remote: remote)
        let daves = try cloneAs("dave", remote: remote)
        // Carol's change reaches the owner (vault key only) by git from her replica; dave's reaches the remote.
        XCTAssertEqual(try member("carol", carols, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try git("fetch", "-q", carols, "main").code, 0)
        XCTAssertEqual(try git("merge", "-q", "--ff-only", "FETCH_HEAD").code, 0)
        XCTAssertEqual(try tresor("adopt").code, 0)
        XCTAssertEqual(try member("dave", daves, "edit", "Team/wiki", "--set", "notes=dave").code, 0)
        XCTAssertEqual(try member("dave", daves, "sync").code, 0)
        try ok("edit", "Email/gmail", "--set", "notes=owner")
        let before = try state(vaultDir)
        let refused = try tresor("sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("both this replica and the remote changed \"Team/wiki\", which is in the scope \"Team\", whose key you do not hold"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("hint: a member of \"Team\" must sync first"), refused.stderr)
        XCTAssertEqual(try state(vaultDir), before, "a refused sync changes nothing: HEAD, refs, index, work tree")
        // A member merges both changes field by field; then the owner's sync goes through.
        XCTAssertEqual(try git("push", "-q", remote, "HEAD:refs/heads/carol-side").code, 0)
        XCTAssertEqual(try gitIn(carols, "fetch", "-q", remote, "carol-side"), "")
        XCTAssertEqual(try gitIn(carols, "merge", "-q", "--ff-only", "FETCH_HEAD"), "")
        let carolMerge = try member("carol", carols, "sync")
        XCTAssertEqual(carolMerge.code, 0, carolMerge.stderr)
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertEqual(try member("carol", carols, "sync").code, 0)
        XCTAssertEqual(try member("carol", carols, "show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try member("carol", carols, "show", "Team/wiki", "--field", "notes").stdout, "dave\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "owner\n")
        XCTAssertEqual(try gitIn(carols, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
    }

    func testScopeMembersAddedOnBothSidesAreUnited() throws {
        let (_, clone) = try syncedClone()
        let erin = try newIdentity("erin"), frank = try newIdentity("frank")
        try ok("member", "add", "--scope", "Team", "erin", erin)
        try ok("sync")
        XCTAssertEqual(try carol(clone, "member", "add", "--scope", "Team", "frank", frank).code, 0)
        let merge = try carol(clone, "sync")
        XCTAssertEqual(merge.code, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("the members of both were kept"), merge.stdout)
        XCTAssertEqual(try tresor("sync").code, 0)
        let names = try ok("member", "ls", "--scope", "Team").stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        XCTAssertEqual(names.sorted(), ["carol", "erin", "frank"])
        // Each new member opens the scope with the merged header, on the owner's replica and on carol's.
        XCTAssertEqual(try withIdentity("erin", "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertEqual(try member("frank", clone, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        try ok("fsck")
    }

    func testAScopeRekeyedOnOneSideWhileTheOtherEditedItIsRefusedAndTheHintWorks() throws {
        let (_, clone) = try syncedClone(members: ["carol", "dave"])
        try ok("member", "rm", "--scope", "Team", "dave")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let before = try state(clone)
        let refused = try carol(clone, "sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("the scope \"Team\" was rekeyed on \"origin\" while this replica changed files under the key before"), refused.stderr)
        XCTAssertEqual(try state(clone), before)
        // As the hint says: drop the change, follow the rekey, make it again.
        _ = try gitIn(clone, "reset", "-q", "--hard", "refs/remotes/origin/main")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        // The rekeying side is told too: the owner removes carol here while she edits and pushes.
        try ok("member", "rm", "--scope", "Team", "carol")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=late").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let head = try git("rev-parse", "HEAD").stdout
        let here = try tresor("sync")
        XCTAssertEqual(here.code, 2, here.stdout)
        XCTAssertTrue(here.stderr.contains("the scope \"Team\" was rekeyed here while \"origin\" changed files under the key before"), here.stderr)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, head)
    }

    func testAScopeRekeyedHereMergesWithChangesElsewhereOutsideTheScope() throws {
        let (remote, clone) = try syncedClone(members: ["carol", "dave"])
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        // The laptop changes a root entry and pushes; meanwhile the owner removes dave from Team (a rekey of its key).
        XCTAssertEqual(try tresor("edit", "Email/gmail", "--set", "notes=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("add", "Email/new", "--password-stdin", "--vault", laptop, stdin: "new-secret\n").code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("member", "rm", "--scope", "Team", "dave")
        let headerPath = try git("ls-tree", "-r", "--name-only", "HEAD", ".tresor/scopes/").stdout.trimmingCharacters(in: .newlines)
        let teamHeader = try blob("HEAD", headerPath)
        let merged = try tresor("sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "laptop\n")
        XCTAssertEqual(try ok("show", "Email/new", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        // The rekeyed scope header is the one kept; dave's identity opens nothing of Team any more.
        XCTAssertEqual(try blob("HEAD", headerPath), teamHeader)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "password", "--vault", laptop).stdout, "team-secret\n")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertNotEqual(try member("dave", clone, "show", "Team/wiki").code, 0)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        try ok("fsck")
        XCTAssertEqual(try tresor("fsck", "--vault", laptop).code, 0)
    }

    func testTheVaultKeyRekeyedHereMergesWithChangesElsewhereInAScope() throws {
        let (_, clone) = try syncedClone()
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let oldKey = try vaultKey(in: vaultDir)
        try ok("rekey")
        let merged = try tresor("sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertFalse(try vaultKey(in: vaultDir).constantTimeEquals(oldKey))
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        try ok("fsck")
    }

    func testAnEntryAddedHereInAFolderTheRemoteMadeAClosedScopeIsRefusedWithTheWayOut() throws {
        let (remote, _) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The laptop makes Ops a scope closed to the holders of the vault key and pushes; the owner adds an entry there.
        XCTAssertEqual(try tresor("scope", "create", "Ops", "--member", "carol", carolKey, "--closed", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("add", "Ops/new", "--password-stdin", stdin: "new-secret\n")
        let before = try state(vaultDir)
        let refused = try tresor("sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("\"Ops/new\" would be merged into the scope \"Ops\", whose key you do not hold"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("'tresor mv Ops/new NEW-PATH'"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("both this replica and the remote changed"), refused.stderr)
        XCTAssertEqual(try state(vaultDir), before)
        // As the hint says: moved out of the folder, it merges.
        try ok("mv", "Ops/new", "Misc/new")
        let merged = try tresor("sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertEqual(try ok("show", "Misc/new", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("show", "Misc/new", "--field", "password", "--vault", laptop).stdout, "new-secret\n")

        // An entry that was there before the scope, changed here: moving it would not help; the hint says to drop it.
        try ok("add", "Ops2/db", "--password-stdin", stdin: "db-secret\n")
        try ok("sync")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("scope", "create", "Ops2", "--member", "carol", carolKey, "--closed", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("edit", "Ops2/db", "--set", "username=owner")
        let edited = try state(vaultDir)
        let again = try tresor("sync")
        XCTAssertEqual(again.code, 2, again.stdout)
        XCTAssertTrue(again.stderr.contains("\"Ops2/db\" would be merged into the scope \"Ops2\", whose key you do not hold"), again.stderr)
        XCTAssertTrue(again.stderr.contains("drop them ('git reset --hard refs/remotes/origin/main'"), again.stderr)
        XCTAssertFalse(again.stderr.contains("tresor mv"), again.stderr)
        XCTAssertEqual(try state(vaultDir), edited)
        _ = try git("reset", "-q", "--hard", "refs/remotes/origin/main")
        XCTAssertEqual(try tresor("sync").code, 0)
    }

    func testAClosedScopeMadeHereWhileTheRemoteChangedItsFolderIsRefusedAndTheHintWorks() throws {
        let (remote, clone) = try syncedClone()
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        try ok("sync")
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        // The laptop (the vault key) changes Ops/db and pushes; meanwhile the owner makes Ops a scope closed to it.
        XCTAssertEqual(try tresor("edit", "Ops/db", "--set", "username=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey, "--closed")
        let before = try state(vaultDir)
        let refused = try tresor("sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("the closed scope \"Ops\" was made here while \"origin\" changed entries in its folder under the vault key"), refused.stderr)
        XCTAssertEqual(try state(vaultDir), before)
        // As the hint says: undo, sync, make it again (the laptop's change is then sealed by the scope's maker).
        _ = try git("reset", "-q", "--hard", "HEAD~1")
        XCTAssertEqual(try tresor("sync").code, 0)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey, "--closed")
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "scope", "accept", "Ops").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "username").stdout, "laptop\n")
    }

    func testAForgedRemoteCommitIsRefusedWhenHistoriesDiverged() throws {
        let (remote, clone) = try syncedClone()
        try ok("edit", "Team/wiki", "--set", "username=v2")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=carol").code, 0)
        // Someone without Team's key rolls Team/wiki back on the remote; carol's replica has diverged meanwhile.
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        let a = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
        let tip = try a.tip
        let old = try a.blob(at: "Team/wiki.json", in: tip + "~1")
        let forged = try a.commit(try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], RawEntry("100644", "wiki.json", old)), parents: [tip])
        try a.push(forged)
        let before = try state(clone)
        let r = try carol(clone, "sync")
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains(String(forged.prefix(12))) && r.stderr.contains("Team/wiki.json"), r.stderr)
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try gitIn(clone, "cat-file", "-t", forged), "", "no object of a refused sync is kept")
    }

    func testAnEntryEditedUnderTheVaultKeyWhileTheOtherSideMadeAScopeAroundItEndsUnderTheScopeKey() throws {
        try initVault()
        try ok("add", "Team/wiki", "--password-stdin", stdin: "team-secret\n")
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        // A second replica of the owner (passphrase) edits Team/wiki under the vault key, while the first makes Team a scope.
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "username=laptop", "--vault", laptop).code, 0)
        let carol = try newIdentity("carol")
        try ok("scope", "create", "Team", "--member", "carol", carol)
        try ok("sync")
        let merge = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(merge.code, 0, merge.stderr)
        // The merged entry is sealed under Team's key (carol opens it from the merge commit) and keeps the laptop's edit.
        XCTAssertEqual(try ok("sync").code, 0)
        let (_, teamKey) = try scopeKey("Team", member: "carol")
        let sealed = Array(try gitIn(laptop, "cat-file", "blob", "HEAD:Team/wiki.json").utf8)
        XCTAssertEqual(try EntryCipher(vaultKey: teamKey).open(sealed, expectedPath: nil).fields["username"]?.value.displayText, "laptop")
        XCTAssertEqual(try withIdentity("carol", "show", "Team/wiki", "--field", "username").stdout, "laptop\n")
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        try ok("fsck")
    }

    func testAScopeOnlyMemberCannotMergeARootEntryChangedOnBothSides() throws {
        let (remote, clone) = try syncedClone()
        // The root entry changes on the remote (owner) and, through the owner's second replica, in carol's history.
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        XCTAssertEqual(try tresor("edit", "Email/gmail", "--set", "username=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try gitIn(clone, "fetch", "-q", laptop, "main"), "")
        XCTAssertEqual(try gitIn(clone, "merge", "-q", "--ff-only", "FETCH_HEAD"), "")
        try ok("edit", "Email/gmail", "--set", "username=owner")
        try ok("sync")
        let before = try state(clone)
        let refused = try carol(clone, "sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("changed \"Email/gmail\", which is under the vault key, which you do not hold"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("hint: a member of the vault must sync first"), refused.stderr)
        XCTAssertEqual(try state(clone), before)
    }

    /// The loose objects and the pack files under a repository's or quarantine's `objects` folder.
    func objectFiles(_ objects: String) -> (loose: [String], packs: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? []
        let loose = names.filter { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }.flatMap { d in
            ((try? FileManager.default.contentsOfDirectory(atPath: objects + "/" + d)) ?? []).map { d + $0 }
        }
        let packs = ((try? FileManager.default.contentsOfDirectory(atPath: objects + "/pack")) ?? []).filter { $0.hasSuffix(".pack") }
        return (loose, packs)
    }

    func testAScopedMergeWritesItsObjectsAsOnePackAndAKillBeforeItsCommitLosesNothing() throws {
        try requireFailpoints()
        let (_, clone) = try syncedClone()
        try ok("edit", "Team/wiki", "--set", "notes=owner")
        try ok("edit", "Email/gmail", "--set", "notes=owner")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let before = try state(clone)
        // Killed after the merge was decided in the quarantine, before the branch moves: the quarantine is left behind.
        let killed = try tresor(["sync", "--vault", clone, "--identity", dir + "/carol"],
                                extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_FAILPOINT": "before-merge-commit"])
        XCTAssertEqual(killed.code, 137, killed.stderr)
        let quarantines = try FileManager.default.contentsOfDirectory(atPath: clone + "/.git/tresor").filter { $0.hasPrefix("incoming-") }
        XCTAssertEqual(quarantines.count, 1, "\(quarantines)")
        // The merge's blob, trees and commit went to the quarantine as one pack, beside the fetched one: no loose object.
        let written = objectFiles(clone + "/.git/tresor/" + quarantines[0] + "/objects")
        XCTAssertEqual(written.loose, [], "the merge wrote loose objects")
        XCTAssertEqual(written.packs.count, 2, "\(written.packs)")
        let after = try state(clone)
        XCTAssertEqual([after[0]] + after[2...], [before[0]] + before[2...], "HEAD, index and work tree stay")
        // The next sync removes the abandoned quarantine, merges again and pushes; the owner reads both changes.
        let merged = try carol(clone, "sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("Merged origin: 2 entries changed") && merged.stdout.contains("Team/wiki"), merged.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: clone + "/.git/tresor").filter { $0.hasPrefix("incoming-") }, [])
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "owner\n")
        try ok("fsck")
    }

    func testAnUntaggedMergeBringingAForgedBranchFromBeforeTheScopeIsRefused() throws {
        let (remote, clone) = try syncedClone()
        try ok("edit", "Email/gmail", "--set", "notes=v2")
        try ok("sync")
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        let a = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
        let tip = try a.tip
        // A commit of the version 3 era (before the scope), untagged, deleting Email/gmail; then a merge without any tag
        // that takes that deletion: against the branch it changes nothing, so no tag is asked of it.
        let old = try a.git(["rev-parse", tip + "~2"])
        XCTAssertFalse(try a.git(["cat-file", "blob", old + ":.tresor/vault.json"]).contains("\"scopes\""))
        let forged = try a.commit(try a.editing(try a.tree(of: old), ["Email", "gmail.json"], nil), parents: [old])
        let merge = try a.commit(try a.editing(try a.tree(of: tip), ["Email", "gmail.json"], nil), parents: [tip, forged])
        try a.push(merge)
        let head = try git("rev-parse", "HEAD").stdout
        let r = try tresor("sync")
        XCTAssertNotEqual(r.code, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains(String(forged.prefix(12))), r.stderr)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, head)
        XCTAssertTrue(try ok("show", "Email/gmail").stdout.contains("root-secret"))
        // A clone by a holder of the vault key refuses it too.
        let cloned = try tresor("clone", remote, dir + "/owner-clone")
        XCTAssertNotEqual(cloned.code, 0, cloned.stdout)
        XCTAssertTrue(cloned.stderr.contains(String(forged.prefix(12))), cloned.stderr)
        // A scope-only member cannot check what is under the vault key (Spec/FORMAT.md §3.12.6): carol passes it on.
        XCTAssertEqual(try carol(clone, "sync").code, 0)
    }
}

