// The per-key acceptance rule against merges that bring in a scoped file from a branch where another key governed it
// (Spec/FORMAT.md §3.12.6: a file is changed against a parent whose header puts it under another key).
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    /// The vault key, as the owner's passphrase opens it from this vault's header.
    var ownerVaultKey: SecretBytes {
        get throws {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: vaultDir + "/.tresor/vault.json")))
            return try VaultHeader.parse(bytes).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        }
    }

    func attacker(_ remote: String) throws -> Attacker {
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        return Attacker(bare: remote, scratch: dir + "/scratch", test: self)
    }

    /// A vault whose closed scope Team has carol as its member, carol also a member of the vault (she holds both keys),
    /// pushed and cloned by her; she then changes Team/wiki's password to "team-v2". The owner holds the vault key alone.
    func closedTeamHeldByCarolWithTheVaultKey() throws -> (remote: String, clone: String) {
        let keys = try teamVault(closed: true)
        try ok("member", "add", "carol", keys["carol"]!)
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        let clone = try cloneAs("carol", remote: remote)
        XCTAssertEqual(try member("carol", clone, "edit", "Team/wiki", "--password-stdin", stdin: "team-v2\n").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Email/gmail", "--field", "password").stdout, "root-secret\n", "carol holds the vault key")
        return (remote, clone)
    }

    /// Scenario A: an attacker without any key, against carol who holds Team's key alone. A version 3 commit on a
    /// branch from before the scope carries Team/wiki's older ciphertext under Team's key (or no Team/wiki), and an
    /// untagged merge takes it: against that branch the merge changes no blob, but there the vault key governed it.
    func testAnUntaggedMergeBringingAScopedEntryBackFromBeforeTheScopeIsRefusedByAScopeOnlyMember() throws {
        let (remote, clone) = try syncedClone()
        try ok("edit", "Team/wiki", "--password-stdin", stdin: "team-v2\n")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let a = try attacker(remote)
        let tip = try a.tip
        // tip~1 made the scope (Team/wiki under Team's key, the old password); tip~2 added Team/wiki, before the scope.
        let old = try a.git(["rev-parse", tip + "~2"])
        XCTAssertFalse(try a.git(["cat-file", "blob", old + ":.tresor/vault.json"]).contains("\"scopes\""))
        let stale = RawEntry("100644", "wiki.json", try a.blob(at: "Team/wiki.json", in: tip + "~1"))
        for (label, entry) in [("rolled back", stale), ("deleted", nil)] as [(String, RawEntry?)] {
            let forged = try a.commit(try a.editing(try a.tree(of: old), ["Team", "wiki.json"], entry), parents: [old])
            let merge = try a.commit(try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], entry), parents: [tip, forged])
            try a.push(merge)
            let before = try state(clone)
            let r = try carol(clone, "sync")
            XCTAssertNotEqual(r.code, 0, label + ": " + r.stdout)
            XCTAssertTrue(r.stderr.contains(String(merge.prefix(12))) && r.stderr.contains("Team/wiki.json"), label + ": " + r.stderr)
            XCTAssertEqual(try state(clone), before, label)
            XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-v2\n", label)
            try a.push(tip)
        }
        // The honest history still syncs.
        XCTAssertEqual(try carol(clone, "sync").code, 0)
    }

    /// Scenario B: the holder of the vault key alone (the owner, Team being closed) against carol, who holds the vault
    /// key and Team's: the branch from before the scope and the merge carry valid vault tags, and no Team tag.
    func testAMergeTaggedWithTheVaultKeyAloneBringingAScopedEntryBackFromBeforeTheScopeIsRefused() throws {
        let (remote, clone) = try closedTeamHeldByCarolWithTheVaultKey()
        let key = try ownerVaultKey
        let a = try attacker(remote)
        let tip = try a.tip
        // tip~1 added carol to the vault, tip~2 made the scope; tip~3 added Team/wiki, before the scope.
        let old = try a.git(["rev-parse", tip + "~3"])
        XCTAssertFalse(try a.git(["cat-file", "blob", old + ":.tresor/vault.json"]).contains("\"scopes\""))
        let stale = RawEntry("100644", "wiki.json", try a.blob(at: "Team/wiki.json", in: tip + "~1"))
        for (label, entry) in [("rolled back", stale), ("deleted", nil)] as [(String, RawEntry?)] {
            let forged = try a.authenticated(try a.commit(try a.editing(try a.tree(of: old), ["Team", "wiki.json"], entry), parents: [old]), key: key)
            let merge = try a.authenticated(try a.commit(try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], entry), parents: [tip, forged]), key: key)
            try a.push(merge)
            let before = try state(clone)
            let r = try carol(clone, "sync")
            XCTAssertNotEqual(r.code, 0, label + ": " + r.stdout)
            XCTAssertTrue(r.stderr.contains(String(merge.prefix(12))) && r.stderr.contains("Team/wiki.json"), label + ": " + r.stderr)
            XCTAssertEqual(try state(clone), before, label)
            XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-v2\n", label)
            try a.push(tip)
        }
        XCTAssertEqual(try carol(clone, "sync").code, 0)
    }

    /// The same with version 4 commits only: a branch whose first commit drops Team from the vault header (the vault
    /// key governs that file), whose second puts Team/wiki's older ciphertext back (no header there lists Team, so the
    /// vault key governs it), and a merge taking it; all tagged with the vault key alone.
    func testAMergeBringingAScopedEntryBackFromABranchWhoseHeaderDroppedTheScopeIsRefused() throws {
        let (remote, clone) = try closedTeamHeldByCarolWithTheVaultKey()
        let key = try ownerVaultKey
        let a = try attacker(remote)
        let tip = try a.tip
        var header = try VaultHeader.parse(try a.bytes(ofBlob: try a.blob(at: ".tresor/vault.json", in: tip)))
        XCTAssertEqual(header.scopes.count, 1)
        header.scopes = [:]
        let dropped = try a.blob(try VaultAuthenticator(vaultKey: key).authenticated(header.changed()).serialized())
        let stale = RawEntry("100644", "wiki.json", try a.blob(at: "Team/wiki.json", in: tip + "~1"))
        let base = try a.git(["rev-parse", tip + "~1"])
        let x1 = try a.authenticated(try a.commit(try a.editing(try a.tree(of: base), [".tresor", "vault.json"], RawEntry("100644", "vault.json", dropped)),
                                                  parents: [base]), key: key)
        let x2 = try a.authenticated(try a.commit(try a.editing(try a.tree(of: x1), ["Team", "wiki.json"], stale), parents: [x1]), key: key)
        let merge = try a.authenticated(try a.commit(try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], stale), parents: [tip, x2]), key: key)
        try a.push(merge)
        let before = try state(clone)
        let r = try carol(clone, "sync")
        XCTAssertNotEqual(r.code, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains(String(merge.prefix(12))) && r.stderr.contains("Team/wiki.json"), r.stderr)
        // The commit that takes the scope out of the header without a Team tag is refused too: it moved Team/wiki.
        XCTAssertTrue(r.stderr.contains(String(x1.prefix(12))), r.stderr)
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-v2\n")
    }
}

extension ScopeTests {
    /// A closed scope made on the remote with a slot for carol, then a commit by the holder of the vault key alone that
    /// deletes its entry (a valid vault tag, no tag of the scope): carol's first sync opens the scope, and checks every
    /// fetched commit with its key from the scope's creation onward, so she refuses the deletion.
    func testAScopeOpenedBySyncIsCheckedFromItsCreationOnward() throws {
        let (remote, clone) = try syncedClone()
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey, "--closed")
        try ok("sync")
        let a = try attacker(remote)
        let tip = try a.tip
        let deletion = try a.authenticated(try a.commit(try a.editing(try a.tree(of: tip), ["Ops", "db.json"], nil), parents: [tip]), key: try ownerVaultKey)
        try a.push(deletion)
        let before = try state(clone)
        let r = try carol(clone, "sync")
        XCTAssertNotEqual(r.code, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains(String(deletion.prefix(12))) && r.stderr.contains("Ops/db.json"), r.stderr)
        XCTAssertEqual(try state(clone), before)
        // Without the forged commit the sync goes through; she accepts Ops and reads its entry.
        try a.push(tip)
        let synced = try carol(clone, "sync")
        XCTAssertEqual(synced.code, 0, synced.stderr)
        XCTAssertEqual(try carol(clone, "scope", "accept", "Ops").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "password").stdout, "ops-secret\n")
    }

    /// The honest case the check from creation onward must let through: Ops made on the remote (tagged under its first
    /// key), rekeyed there (dave removed), then carol added; carol's first sync opens the newest key only, and the
    /// commits under the first key are vouched for by the later ones tagged under the new key.
    func testAScopeMadeAndRekeyedOnTheRemoteOpensForAMemberAddedAfterTheRekey() throws {
        let (remote, clone) = try syncedClone()
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        let dave = try newIdentity("dave")
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "dave", dave)
        try ok("edit", "Ops/db", "--set", "username=ops")
        try ok("member", "rm", "--scope", "Ops", "dave")
        try ok("member", "add", "--scope", "Ops", "carol", carolKey)
        try ok("sync")
        let synced = try carol(clone, "sync")
        XCTAssertEqual(synced.code, 0, synced.stderr)
        let accept = try carol(clone, "scope", "accept", "Ops")
        XCTAssertEqual(accept.code, 0, accept.stderr)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "username").stdout, "ops\n")
        // So does a clone of the whole history by carol, checked with the newest key alone.
        let fresh = dir + "/carol-fresh"
        let cloned = try tresor(["clone", remote, fresh, "--identity", dir + "/carol"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(cloned.code, 0, cloned.stderr)
        XCTAssertEqual(try carol(fresh, "show", "Ops/db", "--field", "username").stdout, "ops\n")
    }

    /// Without the vault key a replica cannot tell a scope a holder of the vault key made from one anyone who can push
    /// made (Spec/FORMAT.md §3.12.6): a scope new to it is checked but not taken on a sync; the user accepts it.
    func testAScopeNewToAMemberWithoutTheVaultKeyIsOfferedByASyncNotTaken() throws {
        let (_, clone) = try syncedClone()
        let teamID = try scopeKey("Team", member: "carol").id
        // The clone recorded the scopes it took (it trusts its source as for everything else).
        let record = clone + "/.git/tresor/scopes-accepted"
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), teamID + "\n")
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey, "--closed")
        try ok("sync")
        let synced = try carol(clone, "sync")
        XCTAssertEqual(synced.code, 0, synced.stderr)
        XCTAssertTrue(synced.stderr.contains("the scope \"Ops\" has a slot for your identity but was not accepted"), synced.stderr)
        XCTAssertTrue(synced.stderr.contains("'tresor scope accept Ops'"), synced.stderr)
        let json = try JSONValue.parse(Array(try carol(clone, "sync", "--json").stdout.utf8)).objectValue!
        XCTAssertEqual(json["offeredScopes"], .array([.string("Ops")]))
        // Its entries stay closed to her, on every command, until she accepts it.
        let closed = try carol(clone, "show", "Ops/db")
        XCTAssertEqual(closed.code, 3, closed.stderr)
        XCTAssertFalse(closed.stdout.contains("ops-secret"))
        XCTAssertTrue(try carol(clone, "scope", "ls").stdout.contains("Ops\tclosed\tcarol\t(offered: not accepted)"))
        XCTAssertNotEqual(try carol(clone, "edit", "Ops/db", "--set", "notes=x").code, 0)
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), teamID + "\n")
        // Accepted: held from then on, and recorded.
        let accepted = try carol(clone, "scope", "accept", "Ops")
        XCTAssertEqual(accepted.code, 0, accepted.stderr)
        XCTAssertTrue(accepted.stderr.contains("Accepted the scope \"Ops\""), accepted.stderr)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "password").stdout, "ops-secret\n")
        XCTAssertTrue(try carol(clone, "scope", "ls").stdout.contains("Ops\tclosed\tcarol\t(held)"))
        XCTAssertTrue(try String(contentsOfFile: record, encoding: .utf8).contains(try scopeKey("Ops", member: "carol").id))
        XCTAssertEqual(try carol(clone, "edit", "Ops/db", "--set", "notes=carol").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        // The owner (the vault key; Ops is closed to it) takes her change unread.
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        // A holder of the vault key has nothing to accept; a folder that is no scope is named.
        XCTAssertTrue(try ok("scope", "accept", "Ops").stderr.contains("nothing to accept"))
        XCTAssertNotEqual(try carol(clone, "scope", "accept", "Nope").code, 0)
    }

    /// A holder of the vault key alone forks from before the closed scope was made (its vault header left as it was
    /// there, version 3) and deletes Team/wiki under the vault key: the header equals the merge base's, and it is still
    /// a downgrade, refused before any merge (which would seal the change under Team's key and tag it).
    func testABranchForkedFromBeforeTheScopeIsADowngradeWithItsHeaderUnchanged() throws {
        let (remote, clone) = try closedTeamHeldByCarolWithTheVaultKey()
        let a = try attacker(remote)
        let tip = try a.tip
        let create = try a.git(["log", "--format=%H", "--grep=Create scope", tip]).trimmingCharacters(in: .whitespacesAndNewlines)
        let old = try a.git(["rev-parse", create + "~1"]).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(try a.git(["cat-file", "blob", old + ":.tresor/vault.json"]).contains("\"scopes\""))
        for edit in [nil, RawEntry("100644", "new.json", try a.blob(at: "Email/gmail.json", in: old))] as [RawEntry?] {
            let path = edit == nil ? ["Team", "wiki.json"] : ["Team", "new.json"]
            let forged = try a.authenticated(try a.commit(try a.editing(try a.tree(of: old), path, edit), parents: [old]), key: try ownerVaultKey)
            try a.push(forged)
            let before = try state(clone)
            let r = try carol(clone, "sync")
            XCTAssertNotEqual(r.code, 0, r.stdout)
            XCTAssertEqual(try state(clone), before)
            XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-v2\n")
        }
        // The owner's replica (it made the scope) refuses the same branch changing a root entry: a downgrade.
        let forged = try a.authenticated(try a.commit(try a.editing(try a.tree(of: old), ["Email", "gmail.json"], nil), parents: [old]), key: try ownerVaultKey)
        try a.push(forged)
        let head = try git("rev-parse", "HEAD").stdout
        let r = try tresor("sync")
        XCTAssertNotEqual(r.code, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains("older than this vault's"), r.stderr)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, head)
        XCTAssertTrue(try ok("show", "Email/gmail").stdout.contains("root-secret"))
    }

    /// The record of accepted scopes forgets a scope the vault header no longer lists: a forger who puts the same id
    /// back later (with a key of its own and a slot for the member) makes an offered scope, not a held one.
    func testARemovedScopeIsForgottenSoItsIDComingBackIsOffered() throws {
        let (_, clone) = try syncedClone()
        let record = clone + "/.git/tresor/scopes-accepted"
        let teamID = try scopeKey("Team", member: "carol").id
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), teamID + "\n")
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey)
        try ok("sync")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try carol(clone, "scope", "accept", "Ops").code, 0)
        try ok("scope", "rm", "Team")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), try scopeKey("Ops", member: "carol").id + "\n")
        // Team made again (a new id) is offered like any scope new to her.
        try ok("scope", "create", "Team", "--member", "carol", carolKey)
        try ok("sync")
        let synced = try carol(clone, "sync")
        XCTAssertEqual(synced.code, 0, synced.stderr)
        XCTAssertTrue(synced.stderr.contains("the scope \"Team\" has a slot for your identity but was not accepted"), synced.stderr)
        XCTAssertNotEqual(try carol(clone, "show", "Team/wiki").code, 0)
        // Accepting needs the identity itself, not a session.
        let unlocked = try carol(clone, "unlock", "--env")
        XCTAssertEqual(unlocked.code, 0, unlocked.stderr)
        let assignment = try XCTUnwrap(unlocked.stdout.split(separator: "\n").first.map(String.init))
        let parts = assignment.dropFirst("export ".count).split(separator: "=", maxSplits: 1).map(String.init)
        let bySession = try tresor(["scope", "accept", "Team", "--vault", clone], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, parts[0]: parts[1]])
        XCTAssertNotEqual(bySession.code, 0)
        XCTAssertTrue(bySession.stderr.contains("run it with --identity FILE"), bySession.stderr)
        XCTAssertEqual(try carol(clone, "scope", "accept", "Team").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
    }

    /// A member without the vault key who changed an entry of a scope another replica removed meanwhile: refused with
    /// nothing changed, and told how to go on (the merged entry would need the vault key).
    func testAMemberWithoutTheVaultKeyWhoEditedARemovedScopeIsToldTheWayOut() throws {
        let (_, clone) = try syncedClone()
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        try ok("scope", "rm", "Team")
        try ok("sync")
        let before = try state(clone)
        let refused = try carol(clone, "sync")
        XCTAssertEqual(refused.code, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("\"Team/wiki\" would be merged under the vault key, which you do not hold"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("git reset --hard refs/remotes/origin/main"), refused.stderr)
        XCTAssertEqual(try state(clone), before)
    }

    /// A member whose only accepted scope is removed while another was offered to her: every command says which scope
    /// waits to be accepted and how; `scope accept` works with the identity alone.
    func testAMemberHoldingOnlyAnOfferedScopeIsToldToAcceptIt() throws {
        let (_, clone) = try syncedClone()
        try ok("add", "Ops/db", "--password-stdin", stdin: "ops-secret\n")
        let carolKey = try ok("identity", "show", dir + "/carol").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("scope", "create", "Ops", "--member", "carol", carolKey)
        try ok("scope", "rm", "Team")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let told = try carol(clone, "show", "Ops/db")
        XCTAssertEqual(told.code, 3, told.stderr)
        XCTAssertTrue(told.stderr.contains("only the scope \"Ops\", which a sync brought and you have not accepted"), told.stderr)
        XCTAssertTrue(told.stderr.contains("'tresor scope accept Ops --identity FILE'"), told.stderr)
        XCTAssertEqual(try carol(clone, "scope", "accept", "Ops").code, 0)
        XCTAssertEqual(try carol(clone, "show", "Ops/db", "--field", "password").stdout, "ops-secret\n")
    }
}
