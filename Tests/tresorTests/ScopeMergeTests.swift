// Sync of diverged states in a vault with scopes (Spec/MERGE.md §4): entries joined under the key of their place,
// domains whose key is not held taken whole from the newer side, joins that need a missing key stopped, members united.
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

    /// Everything a refused sync must leave as it was (Spec/MERGE.md §11): HEAD, every ref (the remote-tracking one and
    /// `refs/tresor/verified` too), the index, the work tree's status and files.
    func state(_ repo: String) throws -> [String] {
        let refs = try gitIn(repo, "for-each-ref")
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
        // A two-parent commit that changes, against the owner's tip, Team's domain alone (carol holds no other key): the
        // entry, sealed under Team's key, and Team's state record, tagged under it, whose clock is the join of both
        // sides' (a merge is not an event, Spec/MERGE.md §4.5).
        let parents = try gitIn(clone, "log", "-1", "--format=%P").split(separator: " ").map(String.init)
        XCTAssertEqual(parents.count, 2)
        let (teamID, teamKey) = try scopeKey("Team", member: "carol")
        XCTAssertEqual(try changedFiles(clone, parents[1], "HEAD"), [StateRecord.relativePath(domain: teamID), "Team/wiki.json"])
        let record = try stateRecord(clone, "HEAD", domain: teamID)
        XCTAssertTrue(record.isAuthentic(under: try VaultAuthenticator(vaultKey: teamKey)))
        XCTAssertEqual(record.clock, try stateRecord(clone, parents[0], domain: teamID).clock.joined(try stateRecord(clone, parents[1], domain: teamID).clock))
        let sealed = Array(try gitIn(clone, "cat-file", "blob", "HEAD:Team/wiki.json").utf8)
        let merged = try EntryCipher(vaultKey: teamKey).open(sealed, expectedPath: nil)
        XCTAssertEqual(merged.fields["password"]?.value.displayText, "from-carol")
        XCTAssertEqual(merged.fields["username"]?.value.displayText, "carol")
        XCTAssertEqual(merged.fields["notes"]?.value.displayText, "owner note")
        XCTAssertTrue(merged.history.contains { $0.field == "password" && $0.value.displayText == "from-owner" && $0.reason == "merge" })
        // The root entry carol cannot read stayed the owner's, byte for byte.
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD:Email/gmail.json"), try git("rev-parse", "HEAD:Email/gmail.json").stdout.trimmingCharacters(in: .newlines))
        // The owner fast-forwards to carol's merge (every domain of it newer or equal) and reads the result.
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
        // Team's clocks are concurrent and the owner cannot read Team: it cannot join them (Spec/MERGE.md §4.4).
        assertNeedsKey(refused, "this replica and \"origin\" both changed what is under the key of the scope \"Team\"")
        XCTAssertEqual(try state(vaultDir), before, "a refused sync changes nothing: HEAD, refs, index, work tree")
        // As the hint says, a member joins both changes field by field (given the owner's side); then the owner's sync goes through.
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

    /// Spec/AUTH.md §9: a rekey of a scope (a member removed) concurrent with edits of a remaining member converges on
    /// both sides, every value kept, under the new key; the removed member's later writes are refused.
    func testAScopeRekeyedOnOneSideWhileTheOtherEditedItConvergesAndTheRemovedMembersLaterWritesAreRefused() throws {
        let (remote, clone) = try syncedClone(members: ["carol", "dave"])
        let teamID = try scopeID("Team")
        let (_, oldKey) = try scopeKey("Team", member: "carol")
        try ok("member", "rm", "--scope", "Team", "dave")
        try ok("edit", "Team/wiki", "--set", "notes=owner")
        try ok("sync")
        let (_, newKey) = try scopeKey("Team", member: "carol")
        // Carol edits Team/wiki under the key before; her sync follows the rekey with her identity and joins.
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let merged = try carol(clone, "sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "notes").stdout, "owner\n")
        XCTAssertTrue(try opens(clone, "Team/wiki.json", with: newKey))
        XCTAssertFalse(try opens(clone, "Team/wiki.json", with: oldKey), "written under the new key only")
        XCTAssertEqual(try stateRecord(clone, "HEAD", domain: teamID).epoch, 2)
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "owner\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertNotEqual(try member("dave", clone, "show", "Team/wiki").code, 0, "dave opens nothing written since")

        // The rekeying side joins too: the owner removes carol here, unpublished, while she edits and pushes under the
        // key she holds; the owner still holds that key, joins her change and writes the result under the new one.
        try ok("member", "rm", "--scope", "Team", "carol")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=late").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let here = try tresor("sync")
        XCTAssertEqual(here.code, 0, here.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "late\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try stateRecord(vaultDir, "HEAD", domain: teamID).epoch, 3)
        XCTAssertEqual(try gitIn(remote, "rev-parse", "main"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertFalse(try opens(vaultDir, "Team/wiki.json", with: newKey), "the key carol holds opens nothing written since")
        // Carol's replica, now removed: her identity opens no slot of Team's new key, so nothing vouches for it to her
        // replica (rule rekey-proof); it takes nothing.
        let removedBefore = try state(clone)
        let removed = try carol(clone, "sync")
        assertRefused(removed, rule: "rekey-proof", naming: ScopeHeader.relativePath(scopeID: teamID))
        XCTAssertTrue(removed.stderr.contains("you were removed from it: ask a member to add you again"), removed.stderr)
        XCTAssertEqual(try state(clone), removedBefore)
        // Her stale write, force-pushed with git after the removal was published, is refused by its old epoch.
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=stale").code, 0)
        XCTAssertEqual(try gitIn(clone, "push", "-q", "-f", "origin", "main"), "")
        let ownerBefore = try state(vaultDir)
        assertRefused(try tresor("sync"), rule: "epoch-replaced", naming: ScopeHeader.relativePath(scopeID: teamID))
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "late\n")
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

    /// Spec/MERGE.md §4.2: an entry of this replica's that the join would put in a scope whose key it does not hold stops
    /// the sync with nothing changed; moved out of the folder it merges, and a holder of both keys joins it here.
    func testChangesHereInAFolderTheRemoteMadeAClosedScopeStopUntilJoinedWithItsKey() throws {
        let (remote, _) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The laptop makes Ops a scope closed to the holders of the vault key and pushes; the owner adds an entry there.
        XCTAssertEqual(try tresor("scope", "create", "Ops", "--member", "carol", carolKey, "--closed", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("add", "Ops/new", "--password-stdin", stdin: "new-secret\n")
        let before = try state(vaultDir)
        assertNeedsKey(try tresor("sync"), "\"Ops/new\" cannot be joined without the key of the scope \"Ops\"")
        XCTAssertEqual(try state(vaultDir), before)
        // Moved out of the folder, it merges.
        try ok("mv", "Ops/new", "Misc/new")
        let merged = try tresor("sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertEqual(try ok("show", "Misc/new", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("show", "Misc/new", "--field", "password", "--vault", laptop).stdout, "new-secret\n")

        // An entry that was there before the scope, changed here: moving it would not help (the remote holds it in the
        // scope). Carol, made a member of the vault as well, holds both keys: synced here with her identity, it joins.
        try ok("add", "Ops2/db", "--password-stdin", stdin: "db-secret\n")
        try ok("member", "add", "carol", carolKey)
        try ok("sync")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("scope", "create", "Ops2", "--member", "carol", carolKey, "--closed", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("edit", "Ops2/db", "--set", "username=owner")
        let edited = try state(vaultDir)
        assertNeedsKey(try tresor("sync"), "\"Ops2/db\" cannot be joined without the key of the scope \"Ops2\"")
        XCTAssertEqual(try state(vaultDir), edited)
        let joined = try withIdentity("carol", "sync")
        XCTAssertEqual(joined.code, 0, joined.stderr)
        XCTAssertEqual(try withIdentity("carol", "show", "Ops2/db", "--field", "username").stdout, "owner\n")
        XCTAssertEqual(try withIdentity("carol", "show", "Ops2/db", "--field", "password").stdout, "db-secret\n")
        XCTAssertEqual(try tresor("show", "Ops2/db").code, 3, "sealed under the closed scope's key")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertEqual(try ok("sync").stdout, "Already up to date with origin.\n")
    }

    /// A closed scope made here around an entry the remote changed under the vault key: the join needs both keys; the
    /// passphrase (the vault key) stops with nothing changed, the identity of a holder of both joins it (Spec/MERGE.md §4.2).
    func testAClosedScopeMadeHereWhileTheRemoteChangedItsFolderJoinsWithAHolderOfBothKeys() throws {
        let (remote, clone) = try syncedClone()
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("member", "add", "carol", carolKey)
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        try ok("sync")
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        // The laptop (the vault key) changes Ops/db and pushes; meanwhile the owner makes Ops a scope closed to it.
        XCTAssertEqual(try tresor("edit", "Ops/db", "--set", "username=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey, "--closed")
        let before = try state(vaultDir)
        assertNeedsKey(try tresor("sync"), "\"Ops/db\" cannot be joined without the key of the scope \"Ops\"")
        XCTAssertEqual(try state(vaultDir), before)
        // As the hint says: synced here with the identity of a holder of the key (carol holds both), it joins; the
        // laptop's change ends sealed under the scope's key.
        let joined = try withIdentity("carol", "sync")
        XCTAssertEqual(joined.code, 0, joined.stderr)
        XCTAssertEqual(try withIdentity("carol", "show", "Ops/db", "--field", "username").stdout, "laptop\n")
        XCTAssertEqual(try withIdentity("carol", "show", "Ops/db", "--field", "password").stdout, "ops-secret\n")
        XCTAssertEqual(try tresor("show", "Ops/db").code, 3)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("show", "Ops/db", "--vault", laptop).code, 3)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "username").stdout, "laptop\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
    }

    func testAForgedRemoteStateIsRefusedWhenBothSidesChanged() throws {
        let (remote, clone) = try syncedClone()
        let v1 = try blob("HEAD", "Team/wiki.json")
        try ok("edit", "Team/wiki", "--set", "username=v2")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "notes=carol").code, 0)
        // Someone without Team's key rolls Team/wiki back on the remote; carol's replica has changed it meanwhile.
        let a = try attacker(remote)
        var files = try a.files(try a.tip)
        files["Team/wiki.json"] = v1
        let forged = try a.push(files: files)
        let before = try state(clone)
        assertRefused(try carol(clone, "sync"), rule: "state-files", naming: StateRecord.relativePath(domain: try scopeID("Team")))
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try gitIn(clone, "cat-file", "-t", forged), "", "no object of a refused sync is kept")
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "notes").stdout, "carol\n")
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

    func testAScopeOnlyMemberCannotJoinARootEntryChangedOnBothSidesUntilAHolderOfTheVaultKeySyncs() throws {
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
        // The vault domain's clocks are concurrent and carol cannot read it (Spec/MERGE.md §4.4).
        assertNeedsKey(try carol(clone, "sync"), "this replica and \"origin\" both changed what is under the vault key")
        XCTAssertEqual(try state(clone), before)
        // As the hint says: a holder of the vault key (the laptop, whose change carol has) syncs first; then carol's
        // replica finds the remote's vault domain newer than its own and takes it.
        let laptopMerge = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(laptopMerge.code, 0, laptopMerge.stderr)
        let pulled = try carol(clone, "sync")
        XCTAssertEqual(pulled.code, 0, pulled.stderr)
        XCTAssertEqual(try ok("sync").code, 0)
        let head = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), head)
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), head)
        // Both values kept: one current, the other in the history.
        let gmail = try EntryCipher(vaultKey: try ownerVaultKey).open(try fileBytes(vaultDir, "HEAD", "Email/gmail.json"), expectedPath: nil)
        let values = Set([gmail.fields["username"]?.value.displayText] + gmail.history.filter { $0.field == "username" }.map { $0.value.displayText })
        XCTAssertTrue(values.isSuperset(of: ["laptop", "owner"]), "\(values)")
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
        let objectsBefore = objectFiles(clone + "/.git/objects")
        // Killed after the merge was decided in the quarantine and its objects taken in, before the branch moves: the
        // quarantine is left behind, empty.
        let killed = try tresor(["sync", "--vault", clone, "--identity", dir + "/carol"],
                                extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_FAILPOINT": "before-merge-commit"])
        XCTAssertEqual(killed.code, 137, killed.stderr)
        let quarantines = try FileManager.default.contentsOfDirectory(atPath: clone + "/.git/tresor").filter { $0.hasPrefix("incoming-") }
        XCTAssertEqual(quarantines.count, 1, "\(quarantines)")
        let left = objectFiles(clone + "/.git/tresor/" + quarantines[0] + "/objects")
        XCTAssertEqual(left.loose + left.packs, [], "the quarantine's objects were taken in")
        // The merge's blob, trees and commit went to the quarantine as one pack, beside the fetched one, and both packs
        // moved in as they were: no loose object.
        let objectsAfter = objectFiles(clone + "/.git/objects")
        XCTAssertEqual(objectsAfter.loose, objectsBefore.loose, "the merge wrote loose objects")
        XCTAssertEqual(Set(objectsAfter.packs).subtracting(objectsBefore.packs).count, 2, "\(objectsAfter.packs)")
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

    /// A merge commit is judged by its tree alone, whatever it merges: a root entry deleted with git plumbing is refused by
    /// the vault's state record, by a holder of the vault key and by a scope-only member alike (Spec/AUTH.md §7.1); with
    /// the record written again under a key no member holds, carol (who cannot verify the vault domain) takes it, and
    /// the owner refuses it.
    func testAForgedMergeIsJudgedByItsTreeAndAScopeOnlyMemberChecksOnlyTheShapeOfTheVaultDomain() throws {
        let (remote, clone) = try syncedClone()
        try ok("edit", "Email/gmail", "--set", "notes=v2")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "refs/tresor/verified"), try gitIn(clone, "rev-parse", "HEAD"),
                       "a sync that took the remote's state keeps refs/tresor/verified on HEAD")
        let a = try attacker(remote)
        let tip = try a.tip
        let vaultRecord = StateRecord.relativePath(domain: Domain.vault)
        // A branch from the vault's first commit (before the scope) deleting Email/gmail, merged by a commit whose tree is
        // the tip's without that file.
        let first = try a.git(["rev-list", "--max-parents=0", tip])
        var old = try a.files(first)
        old["Email/gmail.json"] = nil
        let branch = try a.commit(try a.tree(files: old), parents: [first])
        var files = try a.files(tip)
        files["Email/gmail.json"] = nil
        try a.push(files: files, parents: [tip, branch], message: "Merge")
        let before = try state(vaultDir)
        let refused = try tresor("sync")
        assertRefused(refused, rule: "state-files", naming: vaultRecord)
        XCTAssertFalse(refused.stderr.contains(String(branch.prefix(12))), "the history below the tip decides nothing")
        XCTAssertEqual(try state(vaultDir), before)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
        // A clone by a holder of the vault key refuses it too, and leaves nothing behind.
        let cloned = try tresor("clone", remote, dir + "/owner-clone")
        XCTAssertNotEqual(cloned.code, 0, cloned.stdout)
        XCTAssertTrue(cloned.stderr.contains("[state-files: "), cloned.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/owner-clone/.tresor/vault.json"))
        // Carol cannot verify the vault domain, but its files must still be the ones its record names.
        let carolBefore = try state(clone)
        assertRefused(try carol(clone, "sync"), rule: "state-files", naming: vaultRecord)
        XCTAssertEqual(try state(clone), carolBefore)
        // The vault's record written again for those files, tagged with a key no member holds: carol takes it unread
        // (what only the key could tell, she cannot); the owner, who holds the key, refuses it.
        let forged = try a.push(files: try a.retagged(files, keys: [Domain.vault: strangersKey()]), parents: [tip, branch], message: "Merge")
        let taken = try carol(clone, "sync")
        XCTAssertEqual(taken.code, 0, taken.stderr)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), forged)
        assertRefused(try tresor("sync"), rule: "state-authentic", naming: vaultRecord)
        XCTAssertEqual(try state(vaultDir), before)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
    }
}

