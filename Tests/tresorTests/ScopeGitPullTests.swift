// Keys of a member of scopes only, when git brought in what tresor has not judged: the state git pulled is judged with
// the keys of the state last accepted, as sync judges a fetched one (Spec/AUTH.md §7.3, Spec/MERGE.md §12).
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    /// Someone with push access and no key replaces Team's header by one under a key of their own, with a slot sealed
    /// to carol (her public key is public), and writes Team's files and state record under it. Sync refuses it: no key
    /// carol holds vouches for that key. Pulled with git, it is refused the same way: carol's keys are those of the
    /// state she last accepted, not ones the pulled header gives her.
    func testAScopeHeaderForgedForAScopeOnlyMemberIsRefusedThroughGitAsThroughSync() throws {
        let (remote, clone) = try syncedClone()
        let a = try attacker(remote)
        let tip = try a.tip
        let id = try scopeID("Team", in: clone)
        let path = ScopeHeader.relativePath(scopeID: id)
        let (_, teamKey) = try scopeKey("Team", member: "carol")
        var files = try a.files(tip)
        let real = try ScopeHeader.parse(try a.bytes(ofBlob: try XCTUnwrap(files[path])))
        let strangers = strangersKey()
        var forged = real
        forged.recipientSlots = try real.recipientSlots.map { try real.resealing($0, to: strangers) }
        forged.auth = nil
        files[path] = try a.blob(try VaultAuthenticator(vaultKey: strangers).authenticated(forged).serialized())
        let wiki = try EntryCipher(vaultKey: teamKey).open(try a.bytes(ofBlob: try XCTUnwrap(files["Team/wiki.json"])), expectedPath: try EntryPath("Team/wiki"))
        files["Team/wiki.json"] = try a.blob(try EntryCipher(vaultKey: strangers).seal(wiki))
        try a.push(files: try a.retagged(files, keys: [id: strangers]), parents: [tip])
        let accepted = try run("/usr/bin/git", ["-C", clone, "rev-parse", "refs/tresor/verified"], stdin: nil, extraEnv: [:]).stdout

        assertRefused(try carol(clone, "sync"), rule: "rekey-proof", naming: path)

        let noKeys: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil]
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "fetch", "-q", "origin"], stdin: nil, extraEnv: noKeys).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "merge", "-q", "--ff-only", "origin/main"], stdin: nil, extraEnv: noKeys).code, 0)
        assertPullRefused(try carol(clone, "adopt"), rule: "rekey-proof", naming: path)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "rev-parse", "refs/tresor/verified"], stdin: nil, extraEnv: [:]).stdout, accepted)
        // Nothing of the stranger's is taken by a command that writes either.
        XCTAssertNotEqual(try carol(clone, "edit", "Team/wiki", "--set", "username=carol").code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", clone, "rev-parse", "refs/tresor/verified"], stdin: nil, extraEnv: [:]).stdout, accepted)
    }
}
