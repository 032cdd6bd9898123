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
