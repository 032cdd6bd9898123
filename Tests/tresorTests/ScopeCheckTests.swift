// fsck, audit and grep on a vault with scopes, for a holder of some of its keys: what it cannot open is not damage.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    func testFsckOfAHolderOfTheVaultKeyOnlyReportsAClosedScopeAsNotCheckedNotAsDamage() throws {
        try teamVault(closed: true)
        let fsck = try tresor("fsck")
        XCTAssertEqual(fsck.code, 0, fsck.stdout + fsck.stderr)
        XCTAssertEqual(fsck.stdout, "", "no problem listed")
        XCTAssertTrue(fsck.stderr.contains("1 entry not checked (no key for scope \"Team\")"), fsck.stderr)
        XCTAssertTrue(fsck.stderr.contains("checked 1 entry: no problems"), fsck.stderr)
        let json = try JSONValue.parse(Array(try tresor("fsck", "--json").stdout.utf8)).objectValue!
        XCTAssertEqual(json["entriesChecked"], .integer(1))
        XCTAssertEqual(json["problems"], .array([]))
        XCTAssertEqual(json["notChecked"], .array([.object(["file": .string("Team/wiki.json"), "scope": .string("Team")])]))
        // A scope-only member: the root entry is under the vault key, which she does not hold.
        let carols = try withIdentity("carol", "fsck")
        XCTAssertEqual(carols.code, 0, carols.stdout + carols.stderr)
        XCTAssertTrue(carols.stderr.contains("1 entry not checked (the vault key is not held)"), carols.stderr)
        // What can be checked still is: a damaged envelope, and a copy of the file (same id) made outside tresor.
        let wiki = entryFile("Team/wiki")
        let sealed = try String(contentsOfFile: wiki, encoding: .utf8)
        XCTAssertTrue(sealed.contains("\"version\":"), sealed)
        try write(sealed.replacingOccurrences(of: "\"version\":", with: "\"extra\":1,\"version\":"), to: wiki)
        let damaged = try tresor("fsck")
        XCTAssertEqual(damaged.code, 6, damaged.stderr)
        XCTAssertTrue(damaged.stdout.contains("Team/wiki.json: ") && damaged.stdout.contains("unknown envelope member \"extra\""), damaged.stdout)
        XCTAssertFalse(damaged.stderr.contains("not checked"), damaged.stderr)
        try write(sealed, to: wiki)
        try write(sealed, to: entryFile("Team/copy"))
        let copied = try tresor("fsck")
        XCTAssertEqual(copied.code, 6, copied.stderr)
        XCTAssertTrue(copied.stdout.contains("Team/copy.json: same entry id") || copied.stdout.contains("Team/wiki.json: same entry id"), copied.stdout)
        XCTAssertTrue(copied.stderr.contains("2 entries not checked (no key for scope \"Team\")"), copied.stderr)
        try FileManager.default.removeItem(atPath: entryFile("Team/copy"))
        XCTAssertEqual(try tresor("fsck").code, 0)
        // audit and grep skip what they cannot open and say so; neither calls it damage.
        let audit = try tresor("audit")
        XCTAssertTrue(audit.stdout.contains("1 skipped (sealed under keys you do not hold)"), audit.stdout)
        XCTAssertFalse(audit.stdout.contains("Team/wiki"), audit.stdout)
        let grep = try tresor("grep", "secret")
        XCTAssertEqual(grep.code, 0, grep.stderr)
        XCTAssertTrue(grep.stdout.contains("Email/gmail") && !grep.stdout.contains("Team/wiki"), grep.stdout)
        XCTAssertTrue(grep.stderr.contains("skipped 1 entry sealed under keys you do not hold"), grep.stderr)
    }
}

extension ScopeTests {
    /// The vault key of the header in `vault`'s work tree, as the passphrase opens it.
    func vaultKey(in vault: String) throws -> SecretBytes {
        try VaultHeader.parse(Array(try String(contentsOfFile: vault + "/.tresor/vault.json", encoding: .utf8).utf8))
            .unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
    }

    func testAVaultRekeyElsewhereIsFollowedBySyncOfAVaultWithScopes() throws {
        let (remote, carols) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let oldKey = try vaultKey(in: vaultDir)
        // The owner rekeys the vault key (Team's key stays; its vault slot is wrapped again) and pushes.
        XCTAssertEqual(try ok("rekey").code, 0)
        try ok("sync")
        let newKey = try vaultKey(in: vaultDir)
        XCTAssertFalse(newKey.constantTimeEquals(oldKey))
        // The laptop, on the old key, fast-forwards with its passphrase.
        let pull = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(pull.code, 0, pull.stderr)
        XCTAssertTrue(pull.stdout.contains("rekeyed on another replica"), pull.stdout)
        XCTAssertTrue(try vaultKey(in: laptop).constantTimeEquals(newKey))
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password", "--vault", laptop).stdout, "root-secret\n")
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "password", "--vault", laptop).stdout, "team-secret\n")
        // It writes under the new key: a root entry and a scoped one; the owner takes both, and so does carol.
        XCTAssertEqual(try tresor("edit", "Email/gmail", "--set", "notes=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "notes=laptop", "--vault", laptop).code, 0)
        XCTAssertNoThrow(try EntryCipher(vaultKey: newKey).open(Array(try gitIn(laptop, "cat-file", "blob", "HEAD:Email/gmail.json").utf8), expectedPath: nil))
        let push = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(push.code, 0, push.stderr)
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "laptop\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "laptop\n")
        let carol = try self.carol(carols, "sync")
        XCTAssertEqual(carol.code, 0, carol.stderr)
        XCTAssertEqual(try self.carol(carols, "show", "Team/wiki", "--field", "notes").stdout, "laptop\n")
        try ok("fsck")
        XCTAssertEqual(try tresor("fsck", "--vault", laptop).code, 0)
    }

    func testAVaultRekeyElsewhereIsMergedWithEditsUnderTheOldKeyInAVaultWithScopes() throws {
        let (remote, _) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let dave = try newIdentity("dave")
        try ok("member", "add", "dave", dave)
        try ok("sync")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        // The owner removes the vault member dave (a rekey) while the laptop edits a scoped entry under Team's key.
        try ok("member", "rm", "dave")
        try ok("sync")
        let newKey = try vaultKey(in: vaultDir)
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "username=laptop", "--vault", laptop).code, 0)
        let merged = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertTrue(try vaultKey(in: laptop).constantTimeEquals(newKey))
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "username", "--vault", laptop).stdout, "laptop\n")
        XCTAssertEqual(try ok("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "laptop\n")
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        // Dave's identity opens nothing of the new header.
        XCTAssertNotEqual(try member("dave", laptop, "show", "Email/gmail").code, 0)
    }

    /// Someone who kept the vault key of before a rekey: a state it writes on top of the rekey is refused by a replica
    /// following the rekey (the new header's key does not verify it); a state of the old epoch, by a replica that has
    /// seen the rekey published (Spec/AUTH.md §5.2, §9).
    func testAHolderOfTheVaultKeyOfBeforeARekeyIsRefusedOnTopOfItAndUnderTheOldEpoch() throws {
        let (remote, _) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let oldKey = try vaultKey(in: vaultDir)
        let a = try attacker(remote)
        let beforeRekey = try a.tip
        try ok("rekey")
        try ok("sync")
        let vaultRecord = StateRecord.relativePath(domain: Domain.vault)
        // On top of the rekey: a root entry deleted, the vault's record written for it under the old key.
        var files = try a.files(try a.tip)
        files["Email/gmail.json"] = nil
        try a.push(files: try a.retagged(files, keys: [Domain.vault: oldKey]))
        let before = try state(laptop)
        assertRefused(try tresor("sync", "--vault", laptop), rule: "state-authentic", naming: vaultRecord)
        XCTAssertEqual(try state(laptop), before)
        XCTAssertTrue(try vaultKey(in: laptop).constantTimeEquals(oldKey), "the laptop stays on its key")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password", "--vault", laptop).stdout, "root-secret\n")
        let ownerBefore = try state(vaultDir)
        assertRefused(try tresor("sync"), rule: "state-authentic", naming: vaultRecord)
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        // Under the old epoch (the header of before the rekey, all authentic under the old key): the owner, who
        // published the rekey, refuses it by its epoch.
        var stale = try a.files(beforeRekey)
        stale["Email/gmail.json"] = nil
        try a.push(files: try a.retagged(stale, keys: [Domain.vault: oldKey]))
        assertRefused(try tresor("sync"), rule: "epoch-replaced", naming: VaultHeader.relativePath)
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
    }

    /// Spec/AUTH.md §9: a vault rekey elsewhere concurrent with changes here under the key before converges: the
    /// replica follows the rekey with its passphrase, joins, and writes its changes under the new key.
    func testAVaultRekeyElsewhereWhileThisReplicaChangedFilesUnderTheVaultKeyConverges() throws {
        let (remote, carols) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let oldKey = try vaultKey(in: vaultDir)
        try ok("rekey")
        try ok("edit", "Email/gmail", "--set", "username=owner")
        try ok("sync")
        let newKey = try vaultKey(in: vaultDir)
        // The laptop changed a root entry and added one under the key before; carol (Team only) changed an entry of Team.
        XCTAssertEqual(try tresor("edit", "Email/gmail", "--set", "notes=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("add", "Email/new", "--password-stdin", "--vault", laptop, stdin: "new-secret\n").code, 0)
        XCTAssertEqual(try carol(carols, "edit", "Team/wiki", "--set", "notes=carol").code, 0)
        let merged = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertTrue(try vaultKey(in: laptop).constantTimeEquals(newKey))
        for path in ["Email/gmail.json", "Email/new.json"] {
            XCTAssertTrue(try opens(laptop, path, with: newKey), path)
            XCTAssertFalse(try opens(laptop, path, with: oldKey), "\(path) is written under the new key only")
        }
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "notes", "--vault", laptop).stdout, "laptop\n")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "username", "--vault", laptop).stdout, "owner\n")
        // Carol's change is under Team's key, which a vault rekey keeps: joined, whoever comes first.
        let carolMerge = try carol(carols, "sync")
        XCTAssertEqual(carolMerge.code, 0, carolMerge.stderr)
        XCTAssertEqual(try ok("sync").code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try carol(carols, "sync").code, 0)
        let head = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines)
        XCTAssertEqual(try gitIn(laptop, "rev-parse", "HEAD"), head)
        XCTAssertEqual(try gitIn(carols, "rev-parse", "HEAD"), head)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "laptop\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "owner\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
        XCTAssertEqual(try ok("show", "Email/new", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "carol\n")
        XCTAssertEqual(try carol(carols, "show", "Team/wiki", "--field", "notes").stdout, "carol\n")
        try ok("fsck")
        XCTAssertEqual(try tresor("fsck", "--vault", laptop).code, 0)
    }
}

extension ScopeTests {
    func testAScopeOnlyMemberUnlocksASessionHoldingItsScopeKeys() throws {
        let keys = try teamVault(closed: true)
        let unlock = try withIdentity("carol", "unlock", "--raw")
        XCTAssertEqual(unlock.code, 0, unlock.stderr)
        let token = unlock.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session: [String: String?] = ["TRESOR_SESSION": token, "TRESOR_PASSPHRASE_FILE": nil]
        // Without --identity: the session opens Team, and nothing else.
        let show = try tresor(["show", "Team/wiki", "--field", "password"], extraEnv: session)
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertEqual(show.stdout, "team-secret\n")
        let root = try tresor(["show", "Email/gmail"], extraEnv: session)
        XCTAssertEqual(root.code, 3)
        XCTAssertTrue(root.stderr.contains("outside the scopes you hold"), root.stderr)
        XCTAssertEqual(try tresor(["edit", "Team/wiki", "--set", "username=carol"], extraEnv: session).code, 0)
        // Her change touches Team's domain alone: the entry and Team's state record, tagged under Team's key.
        let (teamID, teamKey) = try scopeKey("Team", member: "carol")
        XCTAssertEqual(try changedFiles(vaultDir, "HEAD~1", "HEAD"), [StateRecord.relativePath(domain: teamID), "Team/wiki.json"])
        XCTAssertTrue(try stateRecord(vaultDir, "HEAD", domain: teamID).isAuthentic(under: try VaultAuthenticator(vaultKey: teamKey)))
        XCTAssertEqual(try withIdentity("carol", "show", "Team/wiki", "--field", "username").stdout, "carol\n")
        // The session file holds Team's key sealed under the token, never in the clear.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/sessions")
        XCTAssertEqual(files.count, 1)
        let file = try Data(contentsOf: URL(fileURLWithPath: dir + "/sessions/" + files[0]))
        let raw = teamKey.withBytes { Data($0) }
        XCTAssertNil(file.range(of: raw))
        XCTAssertFalse(String(decoding: file, as: UTF8.self).contains(raw.base64EncodedString()))
        XCTAssertNil(String(decoding: file, as: UTF8.self).range(of: "\"key\""), "no vault key in a scope-only member's session")
        // A session of the owner (vault key, and Team through an identity that is a member of the closed scope) holds both.
        try ok("member", "add", "carol", keys["carol"]!)
        let both = try withIdentity("carol", "unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let owner: [String: String?] = ["TRESOR_SESSION": both, "TRESOR_PASSPHRASE_FILE": nil]
        XCTAssertEqual(try tresor(["show", "Email/gmail", "--field", "password"], extraEnv: owner).stdout, "root-secret\n")
        XCTAssertEqual(try tresor(["show", "Team/wiki", "--field", "password"], extraEnv: owner).stdout, "team-secret\n")
        XCTAssertEqual(try tresor(["fsck"], extraEnv: owner).code, 0)
        // After Team is rekeyed (a member removed), the session's key of Team opens nothing: asked for again.
        try ok("lock")
        let erin = try newIdentity("erin")
        XCTAssertEqual(try withIdentity("carol", "member", "add", "--scope", "Team", "erin", erin).code, 0)
        XCTAssertEqual(try withIdentity("carol", "member", "rm", "--scope", "Team", "erin").code, 0)
        let stale = try tresor(["show", "Team/wiki"], extraEnv: session)
        XCTAssertEqual(stale.code, 3, stale.stdout)
        XCTAssertFalse(stale.stdout.contains("team-secret"))
    }
}

extension ScopeTests {
    func testASessionOfAScopeOnlyMemberSyncsAndAScopeRekeyElsewhereAsksForTheIdentity() throws {
        let (_, clone) = try syncedClone(members: ["carol", "dave"])
        let token = try carol(clone, "unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session: [String: String?] = ["TRESOR_SESSION": token, "TRESOR_PASSPHRASE_FILE": nil]
        func withSession(_ args: String...) throws -> CLIResult { try tresor(args + ["--vault", clone], extraEnv: session) }
        // Edits and syncs both ways with the session alone.
        try ok("edit", "Team/wiki", "--set", "notes=owner")
        try ok("sync")
        let pulled = try withSession("sync")
        XCTAssertEqual(pulled.code, 0, pulled.stderr)
        XCTAssertEqual(try withSession("show", "Team/wiki", "--field", "notes").stdout, "owner\n")
        XCTAssertEqual(try withSession("edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try withSession("sync").code, 0)
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        // Team rekeyed elsewhere: the session's key cannot open the new one; the message says to use the identity.
        try ok("member", "rm", "--scope", "Team", "dave")
        try ok("sync")
        let refused = try withSession("sync")
        XCTAssertEqual(refused.code, 3, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("(a rekey)") && refused.stderr.contains("--identity"), refused.stderr)
        let followed = try carol(clone, "sync")
        XCTAssertEqual(followed.code, 0, followed.stderr)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "notes").stdout, "owner\n")
    }
}

extension ScopeTests {
    /// Dave, removed from Team, kept Team's key of before: what he writes on top of the rekey is refused by a member
    /// following it; a Team state of the old epoch, by a replica that has seen the rekey published (Spec/AUTH.md §9).
    /// The owner puts the remote right; carol follows the rekey and dave opens nothing written since.
    func testARemovedScopeMembersWritesWithTheOldKeyAreRefusedOnTopOfTheRekeyAndUnderTheOldEpoch() throws {
        let (remote, clone) = try syncedClone(members: ["carol", "dave"])
        let (id, oldKey) = try scopeKey("Team", member: "dave")
        let teamRecord = StateRecord.relativePath(domain: id)
        let a = try attacker(remote)
        let beforeRekey = try a.tip
        try ok("member", "rm", "--scope", "Team", "dave")
        try ok("sync")
        // On top of the rekey: Team/wiki deleted, Team's record written for it under the old key.
        var files = try a.files(try a.tip)
        files["Team/wiki.json"] = nil
        try a.push(files: try a.retagged(files, keys: [id: oldKey]))
        let before = try state(clone)
        assertRefused(try carol(clone, "sync"), rule: "state-authentic", naming: teamRecord)
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        // Under the old epoch (Team's header of before, all authentic under dave's key): refused by the owner, who
        // published the rekey.
        var stale = try a.files(beforeRekey)
        stale["Team/wiki.json"] = nil
        try a.push(files: try a.retagged(stale, keys: [id: oldKey]))
        let ownerBefore = try state(vaultDir)
        assertRefused(try tresor("sync"), rule: "epoch-replaced", naming: ScopeHeader.relativePath(scopeID: id))
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        // The owner puts the remote right; carol then follows the rekey, and dave's identity opens nothing of it.
        let repaired = try tresor("sync", "--repair-remote")
        XCTAssertEqual(repaired.code, 0, repaired.stderr)
        XCTAssertEqual(try a.tip, try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        let followed = try carol(clone, "sync")
        XCTAssertEqual(followed.code, 0, followed.stderr)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        XCTAssertFalse(try opens(clone, "Team/wiki.json", with: oldKey))
        XCTAssertNotEqual(try member("dave", clone, "show", "Team/wiki").code, 0)
    }
}

