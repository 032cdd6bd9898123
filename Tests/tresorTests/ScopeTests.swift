// Scopes end to end with the binary (Spec/FORMAT.md §3.12): a folder with its own key and members, who opens what,
// moving across the boundary, removing a scope member, and commits that break the per-key rule.
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
        // Her commit carries the Team tag only; the owner reads her change.
        let commit = try git("cat-file", "commit", "HEAD").stdout
        XCTAssertTrue(commit.contains("\ntresor-auth-") && !commit.contains("\ntresor-auth "), commit)
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
        // Only the scope's files changed: its header and its entry; the vault key, header and root entries stay.
        let changed = try git("diff", "--name-only", before, "HEAD").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(changed.count, 2, "\(changed)")
        XCTAssertTrue(changed.contains("Team/wiki.json") && changed.allSatisfy { $0.hasPrefix("Team/") || $0.hasPrefix(".tresor/scopes/") }, "\(changed)")
        XCTAssertEqual(try blob(before, "Email/gmail.json"), try blob("HEAD", "Email/gmail.json"))
        XCTAssertEqual(try blob(before, ".tresor/vault.json"), try blob("HEAD", ".tresor/vault.json"))
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

    /// `commit` carrying the tags of `keys` (field name → key), each covering the names of all (Spec/FORMAT.md §3.12.6).
    func tagged(_ a: Attacker, _ commit: String, _ keys: [(String, SecretBytes)]) throws -> String {
        let content = try run("/usr/bin/git", ["-C", a.bare, "cat-file", "commit", commit], stdin: nil, extraEnv: [:]).stdout
        let names = keys.map(\.0)
        var lines = content.components(separatedBy: "\n")
        let committer = lines.firstIndex { $0.hasPrefix("committer ") }!
        for (i, (field, key)) in keys.sorted(by: { $0.0 < $1.0 }).enumerated() {
            lines.insert("\(field) \(try VaultAuthenticator(vaultKey: key).commitTag(Array(content.utf8), fields: names))", at: committer + 1 + i)
        }
        let file = a.scratch + "/commit-" + UUID().uuidString
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return try a.git(["hash-object", "-t", "commit", "-w", "--literally", file])
    }

    func testScopeOnlyMembersCommitChangingARootFileIsRefusedByTheOwner() throws {
        try teamVault()
        let a = try bareRemote()
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let field = CommitTags.field(scopeID: id)
        // Carol deletes a root entry with git plumbing and tags the commit with the only key she holds.
        let tip = try a.tip
        let deleting = try tagged(a, try a.commit(try a.editing(try a.tree(of: tip), ["Email", "gmail.json"], nil), parents: [tip]), [(field, teamKey)])
        try a.push(deleting)
        try pull()
        // Taking in commits made with git (a hook, or any command that changes the vault) refuses it.
        let r = try tresor("adopt")
        XCTAssertNotEqual(r.code, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains(String(deleting.prefix(12))) && r.stderr.contains("Email/gmail.json"), r.stderr)
        XCTAssertFalse(try git("log", "-1", "--format=%s", "HEAD").stdout.contains("Authenticate"))
    }

    func testScopeChangeTaggedWithTheScopeKeyIsTakenAndAForgedOneIsRefused() throws {
        try teamVault()
        try ok("edit", "Team/wiki", "--set", "username=v2")
        let a = try bareRemote()
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let tip = try a.tip
        let old = try a.blob(at: "Team/wiki.json", in: tip + "~1")
        let rollback = try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], RawEntry("100644", "wiki.json", old))
        // An attacker (no key) rolls Team/wiki back: the owner, who holds Team through its vault slot, refuses it.
        try a.push(try a.commit(rollback, parents: [tip]))
        try pull()
        XCTAssertNotEqual(try tresor("adopt").code, 0)
        _ = try git("reset", "-q", "--hard", tip)
        // The same change tagged with the vault key alone, without Team's tag, is refused too.
        let vaultKey = try VaultHeader.parse(Array(try String(contentsOfFile: vaultDir + "/.tresor/vault.json", encoding: .utf8).utf8))
            .unlock(passphrase: SecretBytes(utf8: try String(contentsOfFile: passphraseFile, encoding: .utf8).trimmingCharacters(in: .newlines)))
        try a.push(try tagged(a, try a.commit(rollback, parents: [tip]), [(CommitTags.vaultField, vaultKey)]))
        try pull()
        XCTAssertNotEqual(try tresor("adopt").code, 0)
        _ = try git("reset", "-q", "--hard", tip)
        // Hidden below a commit with a valid vault tag (which vouches for nothing under Team's key): refused, naming it.
        let hidden = try a.commit(rollback, parents: [tip])
        try a.push(try tagged(a, try a.commit(rollback, parents: [hidden]), [(CommitTags.vaultField, vaultKey)]))
        try pull()
        let refused = try tresor("adopt")
        XCTAssertNotEqual(refused.code, 0)
        XCTAssertTrue(refused.stderr.contains(String(hidden.prefix(12))) && refused.stderr.contains("Team/wiki.json"), refused.stderr)
        _ = try git("reset", "-q", "--hard", tip)
        // Tagged with Team's key (carol's own rollback), it is taken.
        try a.push(try tagged(a, try a.commit(rollback, parents: [tip]), [(CommitTags.field(scopeID: id), teamKey)]))
        try pull()
        let adopt = try tresor("adopt")
        XCTAssertEqual(adopt.code, 0, adopt.stderr)
        let show = try tresor("show", "Team/wiki")
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertFalse(show.stdout.contains("v2"))
    }

    func testAVaultOnlyHolderCannotForgeAClosedScopeAndPassesItsChangesOn() throws {
        try teamVault(closed: true)
        XCTAssertTrue(try ok("scope", "ls").stdout.hasPrefix("Team\tclosed\tcarol"))
        // The passphrase opens the vault key, not the closed scope.
        let show = try tresor("show", "Team/wiki")
        XCTAssertEqual(show.code, 3)
        XCTAssertTrue(show.stderr.contains("whose key you do not hold"), show.stderr)
        XCTAssertEqual(try tresor("mv", "Team/wiki", "Notes/wiki").code, 3)
        XCTAssertEqual(try tresor("rm", "Team/wiki").code, 3)
        try ok("add", "Notes/x", "--password-stdin", stdin: "x\n")
        try withIdentity("carol", "edit", "Team/wiki", "--set", "username=v2")
        let a = try bareRemote()
        let tip = try a.tip
        let old = try a.blob(at: "Team/wiki.json", in: tip + "~1")
        let rollback = try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], RawEntry("100644", "wiki.json", old))
        let vaultKey = try VaultHeader.parse(Array(try String(contentsOfFile: vaultDir + "/.tresor/vault.json", encoding: .utf8).utf8))
            .unlock(passphrase: SecretBytes(utf8: try String(contentsOfFile: passphraseFile, encoding: .utf8).trimmingCharacters(in: .newlines)))
        // A holder of the vault key alone rolls Team/wiki back and tags it with the only key it holds.
        let forged = try tagged(a, try a.commit(rollback, parents: [tip]), [(CommitTags.vaultField, vaultKey)])
        try a.push(forged)
        try pull()
        // The owner (vault key only) cannot check it and passes it on; carol, who holds Team, refuses it.
        let passed = try tresor("adopt")
        XCTAssertEqual(passed.code, 0, passed.stderr)
        let refused = try withIdentity("carol", "adopt")
        XCTAssertNotEqual(refused.code, 0)
        XCTAssertTrue(refused.stderr.contains(String(forged.prefix(12))) && refused.stderr.contains("Team/wiki.json"), refused.stderr)
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
        // Both changed since the last sync: she merges the entry she holds field by field (Spec/MERGE.md §14).
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
        try ok("edit", "Team/wiki", "--set", "username=v2")
        try ok("sync")
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        let a = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
        let tip = try a.tip
        let old = try a.blob(at: "Team/wiki.json", in: tip + "~1")
        let rollback = try a.editing(try a.tree(of: tip), ["Team", "wiki.json"], RawEntry("100644", "wiki.json", old))
        let forged = try a.commit(rollback, parents: [tip])
        try a.push(forged)
        let before = try run("/usr/bin/git", ["-C", clone, "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout
        let r = try carol(clone, "sync")
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains(String(forged.prefix(12))) && r.stderr.contains("Team/wiki.json"), r.stderr)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout, before)
        // The owner refuses it too.
        XCTAssertNotEqual(try tresor("sync").code, 0)
    }

    func testScopeOnlyMembersRootChangeIsRefusedByTheOwnerOnSync() throws {
        let (remote, _) = try syncedClone()
        try FileManager.default.createDirectory(atPath: dir + "/scratch", withIntermediateDirectories: true)
        let a = Attacker(bare: remote, scratch: dir + "/scratch", test: self)
        let (id, teamKey) = try scopeKey("Team", member: "carol")
        let tip = try a.tip
        let deleting = try tagged(a, try a.commit(try a.editing(try a.tree(of: tip), ["Email", "gmail.json"], nil), parents: [tip]),
                                  [(CommitTags.field(scopeID: id), teamKey)])
        try a.push(deleting)
        let r = try tresor("sync")
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains(String(deleting.prefix(12))) && r.stderr.contains("Email/gmail.json"), r.stderr)
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
