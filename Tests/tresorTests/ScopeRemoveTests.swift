// `tresor scope rm`: a scope's entries back under the vault key, its header gone; members and merges follow.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    /// Whether the blob at `path` of HEAD in `repo` opens with the vault key of `vault`'s header.
    func opensWithVaultKey(_ repo: String, _ path: String, vault: String) throws -> Bool {
        let bytes = Array(try gitIn(repo, "cat-file", "blob", "HEAD:" + path).utf8)
        return (try? EntryCipher(vaultKey: try vaultKey(in: vault)).open(bytes, expectedPath: nil)) != nil
    }

    func testRemovingAScopeReencryptsItsEntriesUnderTheVaultKeyAndItsMembersFollow() throws {
        let (remote, clone) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        let headerPath = try git("ls-tree", "-r", "--name-only", "HEAD", ".tresor/scopes/").stdout.trimmingCharacters(in: .newlines)
        XCTAssertFalse(try opensWithVaultKey(vaultDir, "Team/wiki.json", vault: vaultDir))
        // Neither a scope-only member nor a wrong folder removes anything.
        let before = try state(vaultDir)
        let byCarol = try carol(clone, "scope", "rm", "Team")
        XCTAssertNotEqual(byCarol.code, 0)
        XCTAssertTrue(byCarol.stderr.contains("vault key"), byCarol.stderr)
        let missing = try tresor("scope", "rm", "Tema")
        XCTAssertNotEqual(missing.code, 0)
        XCTAssertTrue(missing.stderr.contains("no scope \"Tema\""), missing.stderr)
        XCTAssertEqual(try state(vaultDir), before)

        let removed = try tresor("scope", "rm", "Team/")
        XCTAssertEqual(removed.code, 0, removed.stderr)
        XCTAssertTrue(removed.stderr.contains("Removed the scope \"Team/\": 1 entry re-encrypted under the vault key."), removed.stderr)
        XCTAssertTrue(try ok("scope", "ls").stderr.contains("No scopes"))
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", ".tresor/scopes/").stdout, "")
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Remove scope Team: 1 entry re-encrypted under the vault key\n")
        // The scope's header and state record go; its entry and the vault's header and record are written anew.
        let teamRecord = try git("ls-tree", "-r", "--name-only", "HEAD~1", ".tresor/state/").stdout.split(separator: "\n").map(String.init)
            .filter { $0 != StateRecord.relativePath(domain: Domain.vault) }
        XCTAssertEqual(teamRecord.count, 1, "\(teamRecord)")
        XCTAssertEqual(try changedFiles(vaultDir, "HEAD~1", "HEAD"),
                       ([headerPath, VaultHeader.relativePath, StateRecord.relativePath(domain: Domain.vault), "Team/wiki.json"] + teamRecord).sorted())
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vaultDir + "/" + headerPath))
        XCTAssertTrue(try opensWithVaultKey(vaultDir, "Team/wiki.json", vault: vaultDir))
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "root-secret\n")
        XCTAssertEqual(try ok("log", "Team/wiki").code, 0)
        try ok("fsck")
        try ok("sync")

        // A holder of the vault key fast-forwards and reads the entry under the vault key.
        let pull = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(pull.code, 0, pull.stderr)
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "password", "--vault", laptop).stdout, "team-secret\n")
        XCTAssertEqual(try tresor("fsck", "--vault", laptop).code, 0)
        // The scope-only member takes the removal (it saw all of Team she has, Spec/MERGE.md §11 step 4) and can open
        // nothing from then on.
        let follow = try carol(clone, "sync")
        XCTAssertEqual(follow.code, 0, follow.stderr)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        let shut = try carol(clone, "show", "Team/wiki")
        XCTAssertNotEqual(shut.code, 0)
        XCTAssertFalse(shut.stdout.contains("team-secret"), shut.stdout)
        // Writing on top of the removal works for everyone who holds the vault key.
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "notes=after", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "after\n")
    }

    func testAClosedScopeIsRemovedOnlyByAHolderOfBothKeys() throws {
        let keys = try teamVault(closed: true)
        let before = try state(vaultDir)
        let vaultOnly = try tresor("scope", "rm", "Team")
        XCTAssertEqual(vaultOnly.code, 3, vaultOnly.stderr)
        XCTAssertTrue(vaultOnly.stderr.contains("Team"), vaultOnly.stderr)
        XCTAssertEqual(try state(vaultDir), before)
        // Carol's identity opens Team; made a vault member too, she holds both keys and removes it.
        try ok("member", "add", "carol", keys["carol"]!)
        let both = try withIdentity("carol", "scope", "rm", "Team")
        XCTAssertEqual(both.code, 0, both.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        try ok("fsck")
    }

    func testAScopeRemovedOnOneSideWhileTheOtherEditedItMergesUnderTheVaultKey() throws {
        let (remote, clone) = try syncedClone()
        let laptop = dir + "/laptop"
        XCTAssertEqual(try tresor("clone", remote, laptop).code, 0)
        // The laptop (the vault key, and Team's through its vault slot) edits the scoped entry and pushes first.
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "username=laptop", "--vault", laptop).code, 0)
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("scope", "rm", "Team")
        try ok("edit", "Team/wiki", "--set", "notes=owner")
        let merged = try tresor("sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "laptop\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "notes").stdout, "owner\n")
        XCTAssertTrue(try opensWithVaultKey(vaultDir, "Team/wiki.json", vault: vaultDir))
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", ".tresor/scopes/").stdout, "")
        try ok("fsck")
        // The laptop and the scope-only member accept the merge commit.
        let pull = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(pull.code, 0, pull.stderr)
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "notes", "--vault", laptop).stdout, "owner\n")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))

        // The other way round: the removal arrives at a replica that edited the scoped entry.
        try ok("scope", "create", "Team")
        try ok("sync")
        XCTAssertEqual(try tresor("sync", "--vault", laptop).code, 0)
        try ok("scope", "rm", "Team")
        try ok("sync")
        XCTAssertEqual(try tresor("edit", "Team/wiki", "--set", "username=second", "--vault", laptop).code, 0)
        let other = try tresor("sync", "--vault", laptop)
        XCTAssertEqual(other.code, 0, other.stderr)
        XCTAssertEqual(try tresor("show", "Team/wiki", "--field", "username", "--vault", laptop).stdout, "second\n")
        XCTAssertTrue(try opensWithVaultKey(laptop, "Team/wiki.json", vault: laptop))
        XCTAssertEqual(try tresor("sync").code, 0)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "second\n")
        try ok("fsck")
    }

    /// Spec/MERGE.md §11 step 4: a scope removed on the remote while a member who reads only that scope edited in it is
    /// concurrent there; she cannot write the joined entry under the vault key, so her sync stops with nothing changed,
    /// and a holder of the vault key syncing on her replica joins it: her edit ends under the vault key.
    func testAScopeOnlyMembersEditMeetingTheScopesRemovalStopsUntilAHolderOfTheVaultKeyJoinsIt() throws {
        let (_, clone) = try syncedClone()
        try ok("scope", "rm", "Team")
        try ok("edit", "Email/gmail", "--set", "notes=owner")
        try ok("sync")
        XCTAssertEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        let before = try state(clone)
        assertNeedsKey(try carol(clone, "sync"), "\"Team/wiki\" cannot be joined without the vault key")
        XCTAssertEqual(try state(clone), before)
        XCTAssertEqual(try carol(clone, "show", "Team/wiki", "--field", "username").stdout, "carol\n", "her edit is kept")
        // The owner's passphrase on carol's replica holds the vault key (and Team's, through its vault slot).
        let joined = try tresor("sync", "--vault", clone)
        XCTAssertEqual(joined.code, 0, joined.stderr)
        XCTAssertTrue(try opensWithVaultKey(clone, "Team/wiki.json", vault: clone))
        XCTAssertEqual(try gitIn(clone, "ls-tree", "-r", "--name-only", "HEAD", ".tresor/scopes/"), "")
        let owner = try tresor("sync")
        XCTAssertEqual(owner.code, 0, owner.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "owner\n")
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        // Carol's identity opens nothing of it any more.
        let shut = try carol(clone, "show", "Team/wiki")
        XCTAssertNotEqual(shut.code, 0)
        XCTAssertFalse(shut.stdout.contains("team-secret"), shut.stdout)
        try ok("fsck")
    }

    /// A closed scope removed here by a holder of both keys (carol's identity on the owner's replica) while carol, on
    /// her clone, made `change` in it and pushed; then the owner syncs with the passphrase (the vault key alone): refused
    /// with nothing changed, rather than an entry put where no key opens it. The same sync with the identity that opens
    /// the scope merges it under the vault key. Returns the refusal.
    func syncRemovalWithoutTheScopesKey(after change: String...) throws -> CLIResult {
        let (_, clone) = try closedTeamHeldByCarolWithTheVaultKey()
        XCTAssertEqual(try tresor(change + ["--vault", clone, "--identity", dir + "/carol"], stdin: "new-secret\n", extraEnv: ["TRESOR_PASSPHRASE_FILE": nil]).code, 0)
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try withIdentity("carol", "scope", "rm", "Team").code, 0)
        let before = try state(vaultDir)
        let refused = try tresor("sync")
        assertNeedsKey(refused, "cannot be joined without the key of the scope \"Team\"")
        XCTAssertFalse(refused.stderr.contains("vault key, which you do not hold"), refused.stderr)
        XCTAssertEqual(try state(vaultDir), before)
        let merged = try withIdentity("carol", "sync")
        XCTAssertEqual(merged.code, 0, merged.stderr)
        try ok("fsck")
        XCTAssertEqual(try carol(clone, "sync").code, 0)
        XCTAssertEqual(try gitIn(clone, "rev-parse", "HEAD"), try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines))
        return refused
    }

    func testARemovalMergedWithoutTheScopesKeyAgainstAnAddedEntryIsRefusedAndWithItMerges() throws {
        let refused = try syncRemovalWithoutTheScopesKey(after: "add", "Team/new", "--password-stdin")
        // Both entries of Team are on the remote only under Team's key: the first by entry id is named (Spec/MERGE.md §4.2).
        XCTAssertTrue(["Team/new", "Team/wiki"].contains { refused.stderr.contains("\"\($0)\" cannot be joined without the key of the scope \"Team\"") }, refused.stderr)
        XCTAssertEqual(try ok("show", "Team/new", "--field", "password").stdout, "new-secret\n")
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "password").stdout, "team-v2\n")
    }

    /// An entry that was there before: the refusal names the scope whose key is missing, not the vault key.
    func testARemovalMergedWithoutTheScopesKeyAgainstAnEditNamesTheScopesKey() throws {
        let refused = try syncRemovalWithoutTheScopesKey(after: "edit", "Team/wiki", "--set", "username=carol")
        XCTAssertTrue(refused.stderr.contains("\"Team/wiki\" cannot be joined without the key of the scope \"Team\""), refused.stderr)
        XCTAssertEqual(try ok("show", "Team/wiki", "--field", "username").stdout, "carol\n")
    }
}
