// Helpers of the scope tests: the owner's vault key, an attacker on the remote, a closed scope held by a member with both keys.
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
}

// Reading what a commit holds, and what a refusal says (Spec/AUTH.md §5.2).
extension ScopeTests {
    /// The bytes of the file at `path` in commit `rev` of `repo` (not trimmed).
    func fileBytes(_ repo: String, _ rev: String, _ path: String) throws -> [UInt8] {
        let r = try run("/usr/bin/git", ["-C", repo, "cat-file", "blob", "\(rev):\(path)"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(r.code, 0, "\(rev):\(path): \(r.stderr)")
        return Array(r.stdout.utf8)
    }

    /// The id of the scope at `folder` in the vault header of `repo`'s HEAD (the owner's vault by default).
    func scopeID(_ folder: String, in repo: String? = nil) throws -> String {
        let header = try VaultHeader.parse(try fileBytes(repo ?? vaultDir, "HEAD", VaultHeader.relativePath))
        return try XCTUnwrap(header.scopes.first { $0.value == folder }?.key, "no scope \(folder)")
    }

    /// The state record of `domain` (`vault` or a scope id) in commit `rev` of `repo`.
    func stateRecord(_ repo: String, _ rev: String, domain: String) throws -> StateRecord {
        try StateRecord.parse(try fileBytes(repo, rev, StateRecord.relativePath(domain: domain)))
    }

    /// The paths of the files that differ between two commits of `repo`, sorted.
    func changedFiles(_ repo: String, _ from: String, _ to: String) throws -> [String] {
        try gitIn(repo, "diff", "--name-only", from, to).split(separator: "\n").map(String.init).sorted()
    }

    /// Whether the entry file at `path` of HEAD in `repo` opens with `key`.
    func opens(_ repo: String, _ path: String, with key: SecretBytes) throws -> Bool {
        (try? EntryCipher(vaultKey: key).open(try fileBytes(repo, "HEAD", path), expectedPath: nil)) != nil
    }

    /// A key no member holds: what someone with push access and no key can tag with.
    func strangersKey() -> SecretBytes { SecretBytes.random(count: 32) }

    /// `r` is a sync refused by the acceptance rule `rule`, naming `path`, with nothing taken (Spec/AUTH.md §5).
    func assertRefused(_ r: CLIResult, rule: String, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.code, 2, r.stdout + r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("refusing what \"origin\" holds: "), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("(\"\(path)\") [\(rule): "), "refused by \(rule) naming \(path): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("hint: nothing was taken"), r.stderr, file: file, line: line)
    }

    /// `r` is `tresor adopt` refusing a tip `git pull` brought from origin, by `rule`, naming `path` (Spec/MERGE.md §12).
    func assertPullRefused(_ r: CLIResult, rule: String, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.code, 2, r.stdout + r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("git brought in a state from \"origin/main\" that tresor refuses: "), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("(\"\(path)\") [\(rule): "), "refused by \(rule) naming \(path): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("hint: undo the pull with git"), r.stderr, file: file, line: line)
    }

    /// `r` is a sync stopped because the join needs a key this replica does not hold (Spec/MERGE.md §4.2, §4.4).
    func assertNeedsKey(_ r: CLIResult, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.code, 2, r.stdout + r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains(what + ", which you do not hold; nothing was changed"), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("hint: a holder of that key must sync first (or sync here with '--identity FILE' of one); then sync again"),
                      r.stderr, file: file, line: line)
    }
}
