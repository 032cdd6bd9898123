// Scopes end to end with the binary (Spec/FORMAT.md §11.2, Spec/AUTH.md): a folder with its own key and members, who
// opens what, moving across the boundary, removing a scope member, and states that change a domain without its key.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class ScopeTests: CLITestCase {
    func newIdentity(_ name: String) throws -> String {
        try ok(["identity", "new", dir + "/" + name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `tresor ARGS` with the identity and no passphrase at all.
    func withIdentity(_ name: String, _ args: String...) throws -> CLIResult {
        try tresor(args + ["--identity", dir + "/" + name], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
    }

    func blob(_ rev: String, _ path: String) throws -> String {
        try git("rev-parse", "\(rev):\(path)").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A vault with Email/gmail (vault key) and Team/wiki, then the scope Team with carol as its member.
    @discardableResult
    func teamVault(closed: Bool = false, members: [String] = ["carol"]) throws -> [String: String] {
        try initVault()
        try ok("add", "Email/gmail", "--password-stdin", stdin: "root-secret\n")
        try ok("add", "Team/wiki", "--password-stdin", stdin: "team-secret\n")
        var keys: [String: String] = [:]
        var args = ["scope", "create", "Team"]
        for m in members {
            keys[m] = try newIdentity(m)
            args += ["--member", m, keys[m]!]
        }
        if closed { args.append("--closed") }
        let r = try ok(args)
        XCTAssertTrue(r.stderr.contains("1 entry re-encrypted"), r.stderr)
        return keys
    }

    /// The key of the scope at `folder`, as its member `name` opens it (what a member's replica holds).
    func scopeKey(_ folder: String, member name: String) throws -> (id: String, key: SecretBytes) {
        let header = try VaultHeader.parse(Array(try String(contentsOfFile: vaultDir + "/.tresor/vault.json", encoding: .utf8).utf8))
        let id = header.scopes.first { $0.value == folder }!.key
        let scope = try ScopeHeader.parse(Array(try String(contentsOfFile: vaultDir + "/" + ScopeHeader.relativePath(scopeID: id), encoding: .utf8).utf8))
        let identity = try Identity.parse(Array(try String(contentsOfFile: dir + "/" + name, encoding: .utf8).utf8))
        return (id, try scope.unlock(identity: identity))
    }

    func testScopeOnlyMemberReadsAndEditsItsScopeAndNothingElse() throws {
        try teamVault()
        XCTAssertTrue(try ok("scope", "ls").stdout.hasPrefix("Team\topen\tcarol"))
        XCTAssertTrue(try withIdentity("carol", "show", "Team/wiki").stdout.contains("team-secret"))
        let root = try withIdentity("carol", "show", "Email/gmail")
        XCTAssertEqual(root.code, 3)
        XCTAssertTrue(root.stderr.contains("cannot open \"Email/gmail\": it is outside the scopes you hold"), root.stderr)
        XCTAssertFalse(root.stdout.contains("root-secret"))
        // Names are not encrypted: ls lists every entry.
        XCTAssertEqual(try withIdentity("carol", "ls").stdout, "Email/gmail\nTeam/wiki\n")
        let edit = try withIdentity("carol", "edit", "Team/wiki", "--set", "username=carol")
        XCTAssertEqual(edit.code, 0, edit.stderr)
        // Her commit changes Team's domain alone: the entry and Team's state record, one event newer, tagged under Team's
        // key (Spec/AUTH.md §2); the owner reads her change.
        let teamID = try scopeID("Team")
        XCTAssertEqual(try changedFiles(vaultDir, "HEAD~1", "HEAD"), [StateRecord.relativePath(domain: teamID), "Team/wiki.json"])
        let record = try stateRecord(vaultDir, "HEAD", domain: teamID)
        XCTAssertTrue(record.isAuthentic(under: try VaultAuthenticator(vaultKey: try scopeKey("Team", member: "carol").key)))
        XCTAssertEqual(record.clock.relation(to: try stateRecord(vaultDir, "HEAD~1", domain: teamID).clock), .newer)
        XCTAssertTrue(try ok("show", "Team/wiki").stdout.contains("carol"))
        // Nothing outside her scope: not edited, not removed, not moved out.
        XCTAssertEqual(try withIdentity("carol", "edit", "Email/gmail", "--set", "username=x").code, 3)
        XCTAssertEqual(try withIdentity("carol", "rm", "Email/gmail").code, 3)
        XCTAssertEqual(try withIdentity("carol", "mv", "Team/wiki", "Out/wiki").code, 3)
        XCTAssertEqual(try withIdentity("carol", "member", "add", "mallory", try newIdentity("mallory")).code, 3)
        let create = try withIdentity("carol", "scope", "create", "Email")
        XCTAssertEqual(create.code, 3)
        XCTAssertTrue(create.stderr.contains("this needs the vault key, and you hold only the keys of scopes"), create.stderr)
        // Adding an entry outside her scope is refused before anything is generated or asked.
        let add = try withIdentity("carol", "add", "Bank/x", "--generate")
        XCTAssertEqual(add.code, 3)
        XCTAssertFalse(add.stderr.contains("Generated"), add.stderr)
        // grep and audit skip what she cannot open and say so.
        let grep = try withIdentity("carol", "grep", "secret")
        XCTAssertTrue(grep.stdout.contains("Team/wiki") && !grep.stdout.contains("Email/gmail"), grep.stdout)
        XCTAssertTrue(grep.stderr.contains("1 entry"), grep.stderr)
        let audit = try withIdentity("carol", "audit")
        XCTAssertTrue(audit.stdout.contains("1 skipped (sealed under keys you do not hold)"), audit.stdout + audit.stderr)
        XCTAssertNotEqual(audit.code, 1, audit.stderr)
        try ok("fsck")
    }

    func testMovingAcrossTheBoundaryReEncrypts() throws {
        try teamVault()
        try ok("mv", "Team/wiki", "Notes/wiki")
        let out = try blob("HEAD", "Notes/wiki.json")
        XCTAssertEqual(try withIdentity("carol", "show", "Notes/wiki").code, 3)
        // The file under the vault key does not open with Team's key, moved back by git alone.
        let (_, teamKey) = try scopeKey("Team", member: "carol")
        let bytes = Array(try git("cat-file", "blob", out).stdout.utf8)
        XCTAssertThrowsError(try EntryCipher(vaultKey: teamKey).open(bytes, expectedPath: nil))
        try ok("mv", "Notes/wiki", "Team/wiki2")
        XCTAssertTrue(try withIdentity("carol", "show", "Team/wiki2").stdout.contains("team-secret"))
        let inside = Array(try git("cat-file", "blob", try blob("HEAD", "Team/wiki2.json")).stdout.utf8)
        XCTAssertNoThrow(try EntryCipher(vaultKey: teamKey).open(inside, expectedPath: nil))
        XCTAssertTrue(try ok("show", "Team/wiki2").stdout.contains("team-secret"))
        // An entry added in the folder is sealed under the scope's key.
        try ok("add", "Team/ci", "--password-stdin", stdin: "ci-secret\n")
        XCTAssertTrue(try withIdentity("carol", "show", "Team/ci").stdout.contains("ci-secret"))
        try ok("fsck")
    }

    func testRemovingAScopeMemberRekeysOnlyThatScope() throws {
        try teamVault(members: ["carol", "dave"])
        XCTAssertEqual(try withIdentity("dave", "show", "Team/wiki").code, 0)
        // Team is open: its new key is wrapped for the holders of the vault key, which carol does not hold.
        let carolRemoves = try withIdentity("carol", "member", "rm", "--scope", "Team", "dave")
        XCTAssertEqual(carolRemoves.code, 3, carolRemoves.stderr)
        XCTAssertTrue(carolRemoves.stderr.contains("needs the vault key"), carolRemoves.stderr)
        let before = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rm = try ok("member", "rm", "--scope", "Team", "dave")
        XCTAssertTrue(rm.stderr.contains("1 entry re-encrypted"), rm.stderr)
        // Only the scope's domain changed: its header, its state record and its entry; the vault's domain (key, header,
        // root entries, state record) stays. Team's record is of the next epoch (Spec/AUTH.md §9).
        let teamID = try scopeID("Team")
        XCTAssertEqual(try changedFiles(vaultDir, before, "HEAD"),
                       [ScopeHeader.relativePath(scopeID: teamID), StateRecord.relativePath(domain: teamID), "Team/wiki.json"])
        XCTAssertEqual(try blob(before, "Email/gmail.json"), try blob("HEAD", "Email/gmail.json"))
        XCTAssertEqual(try blob(before, ".tresor/vault.json"), try blob("HEAD", ".tresor/vault.json"))
        XCTAssertEqual(try blob(before, StateRecord.relativePath(domain: Domain.vault)), try blob("HEAD", StateRecord.relativePath(domain: Domain.vault)))
        XCTAssertEqual(try stateRecord(vaultDir, "HEAD", domain: teamID).epoch, try stateRecord(vaultDir, before, domain: teamID).epoch + 1)
        XCTAssertEqual(try withIdentity("dave", "show", "Team/wiki").code, 3)
        XCTAssertTrue(try withIdentity("carol", "show", "Team/wiki").stdout.contains("team-secret"))
        XCTAssertTrue(try ok("show", "Team/wiki").stdout.contains("team-secret"))
        XCTAssertEqual(try ok("member", "ls", "--scope", "Team").stdout.split(separator: "\t").first, "carol")
        XCTAssertEqual(try tresor("member", "rm", "--scope", "Team", "dave").code, 2)
        // A rekey of the vault key keeps the scope: its vault slot is wrapped again, its entries stay.
        try ok("rekey")
        XCTAssertTrue(try ok("show", "Team/wiki").stdout.contains("team-secret"))
        XCTAssertTrue(try withIdentity("carol", "show", "Team/wiki").stdout.contains("team-secret"))
        try ok("fsck")
    }

    /// A bare copy of the vault as its remote `origin`, for commits that arrive by plain git.
    func bareRemote() throws -> Attacker {
        let bare = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", "--bare", vaultDir, bare], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try git("remote", "add", "origin", bare).code, 0)
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        return Attacker(bare: bare, scratch: dir + "/scratch", test: self)
    }

    /// The fetched tip fast-forwarded into the vault with git alone, as `git pull` does.
    func pull() throws {
        XCTAssertEqual(try git("fetch", "-q", "origin").code, 0)
        _ = try git("merge", "-q", "--ff-only", "origin/main")
    }

    func testScopeOnlyMembersCommitChangingARootFileIsRefusedByTheOwner() throws {
        try teamVault()
        let a = try bareRemote()
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let verified = try git("rev-parse", "refs/tresor/verified").stdout
        // Carol deletes a root entry with git plumbing and writes again the one state record she can: Team's, under its key.
        var files = try a.files(try a.tip)
        files["Email/gmail.json"] = nil
        let deleting = try a.push(files: try a.retagged(files, keys: [id: teamKey]))
        try pull()
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines), deleting)
        // Taking in what git brought (a hook, or any command that changes the vault) refuses it: the vault's state record
        // does not name the vault's files any more (Spec/AUTH.md §5.2); nothing is taken in.
        assertPullRefused(try tresor("adopt"), rule: "state-files", naming: StateRecord.relativePath(domain: Domain.vault))
        XCTAssertEqual(try git("rev-parse", "refs/tresor/verified").stdout, verified)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines), deleting, "no commit of tresor's on top")
        let add = try tresor("add", "Notes/x", "--password-stdin", stdin: "x\n")
        assertPullRefused(add, rule: "state-files", naming: StateRecord.relativePath(domain: Domain.vault))
        // As the hint says: undo the pull with git; the vault is as it was.
        XCTAssertEqual(try git("reset", "-q", "--hard", "ORIG_HEAD").code, 0)
        XCTAssertEqual(try tresor("adopt").code, 0)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
        XCTAssertEqual(try ok("ls").stdout, "Email/gmail\nTeam/wiki\n")
    }

    func testAScopeChangeByAHolderOfItsKeyIsTakenAndAForgedOneIsRefused() throws {
        try teamVault()
        let v1 = try blob("HEAD", "Team/wiki.json")
        try ok("edit", "Team/wiki", "--set", "username=v2")
        let a = try bareRemote()
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let teamRecord = StateRecord.relativePath(domain: id)
        let tip = try a.tip
        var rollback = try a.files(tip)
        rollback["Team/wiki.json"] = v1
        func pulledAndAdopted(_ files: [String: String]) throws -> CLIResult {
            try a.push(files: files, parents: [tip])
            try pull()
            return try tresor("adopt")
        }
        // Someone without a key rolls Team/wiki back: the owner, who holds Team through its vault slot, refuses it.
        assertPullRefused(try pulledAndAdopted(rollback), rule: "state-files", naming: teamRecord)
        _ = try git("reset", "-q", "--hard", tip)
        // Team's state record written again for those files under the vault key, which is not Team's: refused.
        let vaultKey = try ownerVaultKey
        assertPullRefused(try pulledAndAdopted(try a.retagged(rollback, keys: [id: vaultKey])), rule: "state-authentic", naming: teamRecord)
        _ = try git("reset", "-q", "--hard", tip)
        // The vault's record re-tagged with the vault key vouches for nothing under Team's key.
        assertPullRefused(try pulledAndAdopted(try a.retagged(rollback, keys: [Domain.vault: vaultKey])), rule: "state-files", naming: teamRecord)
        _ = try git("reset", "-q", "--hard", tip)
        // Hidden below an authentic tip, the rollback is nothing: history is not read (Spec/AUTH.md §8).
        let hidden = try a.commit(try a.tree(files: rollback), parents: [tip])
        try a.push(try a.commit(try a.tree(of: tip), parents: [hidden]))
        try pull()
        XCTAssertEqual(try tresor("adopt").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "v2\n")
        _ = try git("reset", "-q", "--hard", tip)
        // Written under Team's key (carol's own rollback: a holder of the key is trusted for what it governs), it is taken.
        let adopt = try pulledAndAdopted(try a.retagged(rollback, keys: [id: teamKey]))
        XCTAssertEqual(adopt.code, 0, adopt.stderr)
        XCTAssertEqual(try git("rev-parse", "refs/tresor/verified").stdout, try git("rev-parse", "HEAD").stdout)
        let show = try tresor("show", "Team/wiki")
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("team-secret") && !show.stdout.contains("v2"), show.stdout)
    }

    func testAVaultOnlyHolderCannotForgeAClosedScopeForItsMembersAndPassesOnWhatItCannotVerify() throws {
        try teamVault(closed: true)
        XCTAssertTrue(try ok("scope", "ls").stdout.hasPrefix("Team\tclosed\tcarol"))
        // The passphrase opens the vault key, not the closed scope.
        let show = try tresor("show", "Team/wiki")
        XCTAssertEqual(show.code, 3)
        XCTAssertTrue(show.stderr.contains("whose key you do not hold"), show.stderr)
        XCTAssertEqual(try tresor("mv", "Team/wiki", "Notes/wiki").code, 3)
        XCTAssertEqual(try tresor("rm", "Team/wiki").code, 3)
        try ok("add", "Notes/x", "--password-stdin", stdin: "x\n")
        let v1 = try blob("HEAD", "Team/wiki.json")
        XCTAssertEqual(try withIdentity("carol", "edit", "Team/wiki", "--set", "username=v2").code, 0)
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        let clone = try cloneAs("carol", remote: remote)
        let a = try attacker(remote)
        let tip = try a.tip
        let id = try scopeID("Team")
        let teamRecord = StateRecord.relativePath(domain: id)
        var rollback = try a.files(tip)
        rollback["Team/wiki.json"] = v1
        // Team/wiki rolled back alone: even without Team's key, the owner sees that Team's record does not name the files.
        let ownerBefore = try state(vaultDir)
        try a.push(files: rollback, parents: [tip])
        assertRefused(try tresor("sync"), rule: "state-files", naming: teamRecord)
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        // A holder of the vault key alone writes Team's record for the rolled-back files, tagged with the only key it has.
        let forged = try a.push(files: try a.retagged(rollback, keys: [id: try ownerVaultKey]), parents: [tip])
        // The owner cannot verify Team (Spec/AUTH.md §7.1): its shape is right, so it is taken unread, as it is.
        let passed = try tresor("sync")
        XCTAssertEqual(passed.code, 0, passed.stderr)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines), forged)
        // Carol, who holds Team, refuses it by Team's record, and nothing of hers changes.
        let before = try state(clone)
        assertRefused(try carol(clone, "sync"), rule: "state-authentic", naming: teamRecord)
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "v2\n")
    }

    // MARK: Sync

    /// The owner's vault pushed to a new bare remote, and carol's clone of it (with her identity only).
    func syncedClone(members: [String] = ["carol"]) throws -> (remote: String, clone: String) {
        try teamVault(members: members)
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try ok("remote", "add", "origin", remote)
        try ok("sync")
        let clone = dir + "/carol-vault"
        let r = try tresor(["clone", remote, clone, "--identity", dir + "/carol"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.code, 0, r.stderr)
        return (remote, clone)
    }

    func carol(_ clone: String, _ args: String...) throws -> CLIResult {
        try tresor(args + ["--vault", clone, "--identity", dir + "/carol"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
    }

    func testScopeOnlyMemberClonesReadsEditsAndSyncs() throws {
        let (_, clone) = try syncedClone()
        XCTAssertTrue(try carol(clone, "show", "Team/wiki").stdout.contains("team-secret"))
        XCTAssertEqual(try carol(clone, "show", "Email/gmail").code, 3)
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let push = try carol(clone, "sync")
        XCTAssertEqual(push.code, 0, push.stderr)
        // The owner fast-forwards to her commit; her change and the owner's next ones travel both ways.
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertTrue(try ok("show", "Team/wiki").stdout.contains("carol"))
        try ok("edit", "Team/wiki", "--set", "notes=from the owner")
        try ok("edit", "Email/gmail", "--set", "notes=root only")
        try ok("sync")
        let pull = try carol(clone, "sync")
        XCTAssertEqual(pull.code, 0, pull.stderr)
        XCTAssertTrue(try carol(clone, "show", "Team/wiki").stdout.contains("from the owner"))
        // The root entry she cannot read came along unread, byte for byte.
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "rev-parse", "HEAD:Email/gmail.json"], stdin: nil, extraEnv: [:]).stdout,
                       try git("rev-parse", "HEAD:Email/gmail.json").stdout)
        // Both changed since the last sync: she merges the entry she holds field by field (Spec/MERGE.md §5).
        try ok("edit", "Team/wiki", "--set", "notes=owner again")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol2").code, 0)
        let merged = try carol(clone, "sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("Merged origin: 1 entry changed: Team/wiki"), merged.stdout)
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol2\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "owner again\n")
    }

    func testRewritingTeamFilesOnTheRemoteIsRefusedByAMemberOnSync() throws {
        let (remote, clone) = try syncedClone()
        let v1 = try blob("HEAD", "Team/wiki.json")
        try ok("edit", "Team/wiki", "--set", "username=v2")
        try ok("sync")
        let a = try attacker(remote)
        let tip = try a.tip
        let id = try scopeID("Team")
        let teamRecord = StateRecord.relativePath(domain: id)
        // Someone without a key rolls Team/wiki back with git plumbing.
        var files = try a.files(tip)
        files["Team/wiki.json"] = v1
        let forged = try a.push(files: files, parents: [tip])
        let before = try state(clone)
        assertRefused(try carol(clone, "sync"), rule: "state-files", naming: teamRecord)
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try gitIn(clone, "cat-file", "-t", forged), "", "no object of a refused sync is kept")
        // The owner refuses it too.
        let ownerBefore = try state(vaultDir)
        assertRefused(try tresor("sync"), rule: "state-files", naming: teamRecord)
        XCTAssertEqual(try state(vaultDir), ownerBefore)
        // Team rolled back whole, its record of before with it: authentic, so not refused; but an older state brings
        // nothing back, the owner says the remote went back and puts its own state over it (Spec/AUTH.md §8).
        files[teamRecord] = try a.blob(at: teamRecord, in: tip + "~1")
        XCTAssertEqual(try a.blob(at: ScopeHeader.relativePath(scopeID: id), in: tip + "~1"), files[ScopeHeader.relativePath(scopeID: id)])
        try a.push(files: files, parents: [tip])
        let healed = try tresor("sync")
        XCTAssertEqual(healed.code, 0, healed.stderr)
        XCTAssertTrue(healed.stderr.contains("went back"), healed.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "v2\n")
        XCTAssertEqual(try a.tree(of: try a.tip), try git("rev-parse", "HEAD^{tree}").stdout.trimmingCharacters(in: .newlines))
        let pulled = try carol(clone, "sync")
        XCTAssertEqual(pulled.code, 0, pulled.stderr)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "v2\n")
    }

    func testScopeOnlyMembersRootChangeIsRefusedByTheOwnerOnSync() throws {
        let (remote, _) = try syncedClone()
        let a = try attacker(remote)
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let vaultRecord = StateRecord.relativePath(domain: Domain.vault)
        let tip = try a.tip
        // Carol deletes a root entry with git plumbing; she writes again the record she can, Team's, under Team's key.
        var files = try a.files(tip)
        files["Email/gmail.json"] = nil
        try a.push(files: try a.retagged(files, keys: [id: teamKey]), parents: [tip])
        let before = try state(vaultDir)
        assertRefused(try tresor("sync"), rule: "state-files", naming: vaultRecord)
        XCTAssertEqual(try state(vaultDir), before)
        // She writes the vault's record for those files as well, tagged with the only key she holds.
        try a.push(files: try a.retagged(files, keys: [id: teamKey, Domain.vault: teamKey]), parents: [tip])
        assertRefused(try tresor("sync"), rule: "state-authentic", naming: vaultRecord)
        XCTAssertEqual(try state(vaultDir), before)
        XCTAssertTrue(try ok("show", "Email/gmail").stdout.contains("root-secret"))
    }

    func testAScopeRekeyElsewhereIsFollowedByItsMembers() throws {
        let (_, clone) = try syncedClone(members: ["carol", "dave"])
        try ok("member", "rm", "--scope", "Team", "dave")
        try ok("sync")
        // Carol holds Team's old key: the new one is sealed to her, and its rekey proof verifies under the old one.
        let pull = try carol(clone, "sync")
        XCTAssertEqual(pull.code, 0, pull.stderr)
        XCTAssertTrue(try carol(clone, "show", "Team/wiki").stdout.contains("team-secret"))
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=after").code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertTrue(try ok("show", "Team/wiki").stdout.contains("after"))
    }
}
