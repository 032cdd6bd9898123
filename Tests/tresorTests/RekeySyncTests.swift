// Rekey across replicas: a replica still on the old key syncs with a rekeyed remote, keeps its own edits and
// re-encrypts them under the new key; a header someone else made to look like a rekey is refused.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class RekeySyncTests: SyncTestCase {
    func headerBytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: replica(name) + "/.tresor/vault.json")))
    }

    /// Every entry file of replica `name` opens with `key`, and none with `other`.
    func assertEveryEntry(_ name: String, opensWith key: SecretBytes, notWith other: SecretBytes,
                          file: StaticString = #filePath, line: UInt = #line) throws {
        let cipher = try EntryCipher(vaultKey: key), old = try EntryCipher(vaultKey: other)
        let files = try on(name, "ls").stdout.split(separator: "\n").map { replica(name) + "/" + $0 + ".json" }
        XCTAssertFalse(files.isEmpty, file: file, line: line)
        for f in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: f)))
            XCTAssertNoThrow(try cipher.open(bytes, expectedPath: nil), "\(f) does not open with the new key", file: file, line: line)
            XCTAssertThrowsError(try old.open(bytes, expectedPath: nil), "\(f) still opens with the old key", file: file, line: line)
        }
    }

    func testReplicaOnTheOldKeyMergesWithARekeyedRemoteAndReencryptsItsEdits() throws {
        try setUpReplicas("B", "C")
        let oldKey = try VaultHeader.parse(try headerBytes("A")).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        // B and C change things under the old key without syncing.
        try on("B", "edit", "Email/gmail", "--set", "password=changed-on-b")
        try on("B", "add", "Bank/visa", "--password-stdin", stdin: "visa-on-b\n")
        try on("C", "add", "Work/vpn", "--password-stdin", stdin: "vpn-on-c\n")
        try on("C", "rm", "Social/github")
        // A rekeys and pushes.
        let rekey = try on("A", "rekey")
        XCTAssertTrue(rekey.stderr.contains("2 entries re-encrypted"), rekey.stderr)
        try on("A", "add", "After/rekey", "--password-stdin", stdin: "after-rekey\n")
        try on("A", "sync")
        let newKey = try VaultHeader.parse(try headerBytes("A")).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        XCTAssertFalse(newKey.constantTimeEquals(oldKey))
        // B, still on the old key, syncs: its passphrase opens the new header; its edits are merged and re-encrypted.
        let b = try on("B", "sync")
        XCTAssertTrue(b.stdout.contains("rekeyed on another replica"), b.stdout)
        try assertEveryEntry("B", opensWith: newKey, notWith: oldKey)
        // C syncs after B, with a session: the session's key is the old one, the passphrase file opens the new one.
        let token = try on("C", "unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let c = try on("C", "sync", env: ["TRESOR_SESSION": token])
        XCTAssertTrue(c.stdout.contains("rekeyed on another replica"), c.stdout)
        try assertEveryEntry("C", opensWith: newKey, notWith: oldKey)
        try on("A", "sync")
        try on("B", "sync")
        // All three converge on the same entries, nothing lost, every value under the new key.
        let a = try contents("A")
        XCTAssertEqual(try contents("B"), a)
        XCTAssertEqual(try contents("C"), a)
        XCTAssertEqual(Set(a.keys), ["Email/gmail", "Bank/visa", "Work/vpn", "After/rekey"])
        XCTAssertTrue(a["Email/gmail"]!.contains("changed-on-b"))
        for name in ["A", "B", "C"] { try assertEveryEntry(name, opensWith: newKey, notWith: oldKey) }
        // The old header from history with the passphrase opens none of them.
        XCTAssertEqual(try VaultHeader.parse(try headerBytes("C")).generation, try VaultHeader.parse(try headerBytes("A")).generation)
    }

    func testSyncWithASessionAloneSaysTheVaultWasRekeyed() throws {
        try setUpReplicas("B")
        try on("A", "rekey")
        try on("A", "sync")
        let token = try on("B", "unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try attempt("B", "sync", env: ["TRESOR_SESSION": token, "TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.code, 3)
        XCTAssertTrue(r.stderr.contains("(a rekey)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("hint:"), r.stderr)
    }

    /// A member replica with an identity follows a rekey (and a removal of someone else) by its identity alone.
    func testMemberWithAnIdentityFollowsARekey() throws {
        try setUpReplicas()
        let key = try ok("identity", "new", dir + "/b-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try ok("identity", "new", dir + "/other-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "member", "add", "b", key)
        try on("A", "member", "add", "other", other)
        try on("A", "sync")
        let id = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/b-id"]
        // B clones with its identity: no passphrase on that device.
        let clone = try tresor(["clone", remote, replica("B")], extraEnv: id)
        XCTAssertEqual(clone.code, 0, clone.stderr)
        try on("B", "edit", "Email/gmail", "--set", "username=bob", env: id)
        try on("A", "member", "rm", "other")
        try on("A", "sync")
        let s = try on("B", "sync", env: id)
        XCTAssertTrue(s.stdout.contains("rekeyed"), s.stdout)
        try on("A", "sync")
        XCTAssertTrue(try on("A", "show", "Email/gmail").stdout.contains("bob"))
        XCTAssertEqual(try attempt("B", "show", "Email/gmail", env: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/other-id"]).code, 3)
    }

    /// Someone who can write the remote and knows a member's public key seals a key of their own to it and
    /// authenticates a whole fake vault with it. Without a rekey proof under the key the replica holds, refused.
    func testAFakeRekeySealedToAMembersPublicKeyIsRefused() throws {
        try setUpReplicas()
        let key = try ok("identity", "new", dir + "/b-id").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try on("A", "member", "add", "b", key)
        try on("A", "sync")
        let id = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/b-id"]
        XCTAssertEqual(try tresor(["clone", remote, replica("B")], extraEnv: id).code, 0)
        let before = try contents("B")
        let work = dir + "/attacker"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", remote, work], stdin: nil, extraEnv: [:]).code, 0)
        let fakeKey = SecretBytes.random(count: 32)
        let current = try VaultHeader.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: work + "/.tresor/vault.json"))))
        let slot = try KeySlot.wrap(fakeKey, passphrase: SecretBytes(utf8: "attacker"), level: .minimum, vaultID: current.vaultID)
        let fake = try VaultAuthenticator(vaultKey: fakeKey).authenticated(
            try current.rekeyed(newKey: fakeKey, passphraseSlot: slot, proof: Sodium.randomBytes(32)))
        try Data(fake.serialized()).write(to: URL(fileURLWithPath: work + "/.tresor/vault.json"))
        var e = Entry(path: try EntryPath("Email/gmail"), at: .now())
        try e.set("password", .text("attacker-chosen"), at: .now(), origin: "x")
        try Data(try EntryCipher(vaultKey: fakeKey).seal(e)).write(to: URL(fileURLWithPath: work + "/Email/gmail.json"))
        for args in [["add", "-A"], ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "rekey"]] {
            XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + args, stdin: nil, extraEnv: [:]).code, 0)
        }
        // Tag the commit with the fake key, as a key holder of that key would.
        let commit = try Attacker(bare: work, scratch: dir, test: self).authenticated("HEAD", key: fakeKey)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "-f", "origin", commit + ":refs/heads/main"], stdin: nil, extraEnv: [:]).code, 0)
        // B's identity opens the fake header, but the proof does not verify with B's key: refused, nothing changed.
        let r = try attempt("B", "sync", env: id)
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains("refusing"), r.stderr)
        XCTAssertEqual(try contents("B").count, before.count)
        XCTAssertFalse(try on("B", "show", "Email/gmail", env: id).stdout.contains("attacker-chosen"))
    }

    /// The other order: A rekeys but B pushes changes made under the old key first. A takes them in (checked with
    /// the old key, which its passphrase opens from B's header and its own rekey proof ties to its new key) and
    /// writes them under the new key; B then follows the rekey.
    func testRekeyedReplicaTakesInChangesPushedUnderTheOldKey() throws {
        try setUpReplicas("B")
        let oldKey = try VaultHeader.parse(try headerBytes("A")).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        try on("A", "rekey")
        try on("B", "edit", "Email/gmail", "--set", "password=from-b-old-key")
        try on("B", "add", "New/from-b", "--password-stdin", stdin: "b-secret\n")
        try on("B", "sync")
        let a = try on("A", "sync")
        XCTAssertTrue(a.stdout.contains("Merged origin"), a.stdout)
        let newKey = try VaultHeader.parse(try headerBytes("A")).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        try assertEveryEntry("A", opensWith: newKey, notWith: oldKey)
        try on("B", "sync")
        try assertEveryEntry("B", opensWith: newKey, notWith: oldKey)
        XCTAssertEqual(try contents("A"), try contents("B"))
        XCTAssertTrue(try on("A", "show", "Email/gmail").stdout.contains("from-b-old-key"))
        XCTAssertTrue(try on("A", "show", "New/from-b").stdout.contains("b-secret"))
    }

    /// The same with a session on the replica that rekeyed: it says a passphrase is needed; given one, it goes on.
    func testRekeyedReplicaWithASessionAsksForThePassphraseForChangesUnderTheOldKey() throws {
        try setUpReplicas("B")
        try on("A", "rekey")
        try on("B", "add", "New/from-b", "--password-stdin", stdin: "b-secret\n")
        try on("B", "sync")
        let token = try on("A", "unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let refused = try attempt("A", "sync", env: ["TRESOR_SESSION": token, "TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(refused.code, 3, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("rekey") && refused.stderr.contains("hint:"), refused.stderr)
        try on("A", "sync", env: ["TRESOR_SESSION": token])
        try on("B", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    /// Changes made under the old key on top of the rekey (only a holder of the old key, such as a removed
    /// member with write access to the remote, makes them) are refused.
    func testChangesUnderTheOldKeyOnTopOfTheRekeyAreRefused() throws {
        try setUpReplicas("B")
        try on("A", "rekey")
        try on("A", "sync")
        // B's replica stays on the old key: a copy of its header before the rekey is put back on top of the
        // rekey with a commit tagged by the old key.
        let work = dir + "/attacker"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", remote, work], stdin: nil, extraEnv: [:]).code, 0)
        let old = try run("/usr/bin/git", ["-C", work, "show", "HEAD~1:.tresor/vault.json"], stdin: nil, extraEnv: [:]).stdout
        try write(old, to: work + "/.tresor/vault.json")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "rm", "-q", "-r", "Email"], stdin: nil, extraEnv: [:]).code, 0)
        for args in [["add", "-A"], ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "back to the old key"]] {
            XCTAssertEqual(try run("/usr/bin/git", ["-C", work] + args, stdin: nil, extraEnv: [:]).code, 0)
        }
        try authenticateHeadWithOldKey(work, header: old)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "origin", "HEAD:main"], stdin: nil, extraEnv: [:]).code, 0)
        let r = try attempt("A", "sync")
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(r.stderr.contains("refusing"), r.stderr)
        XCTAssertTrue(try on("A", "ls").stdout.contains("Email/gmail"))
    }

    func authenticateHeadWithOldKey(_ work: String, header: String) throws {
        let key = try VaultHeader.parse(Array(header.utf8)).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        let id = try Attacker(bare: work, scratch: dir, test: self).authenticated("HEAD", key: key)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "update-ref", "HEAD", id], stdin: nil, extraEnv: [:]).code, 0)
    }
}
