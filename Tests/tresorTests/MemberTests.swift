// Members, identities and rekey end to end with the binary: who can open what, before and after a revocation.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class MemberTests: CLITestCase {
    /// A new identity file in the test directory; returns its public key as printed.
    func newIdentity(_ name: String, _ extra: String...) throws -> String {
        let r = try ok(["identity", "new", dir + "/" + name] + extra)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `tresor ARGS` with the identity and no passphrase at all.
    func withIdentity(_ name: String, _ args: String...) throws -> CLIResult {
        try tresor(args + ["--identity", dir + "/" + name], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
    }

    /// The vault as a copy holding the header of commit `rev` from git history and the current entry files,
    /// as anyone with a clone and an old passphrase could put together.
    func copyWithHeader(from rev: String) throws -> String {
        let copy = dir + "/copy"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: vaultDir, toPath: copy)
        try FileManager.default.removeItem(atPath: copy + "/.git")
        let old = try git("show", "\(rev):.tresor/vault.json")
        XCTAssertEqual(old.code, 0, old.stderr)
        try write(old.stdout, to: copy + "/.tresor/vault.json")
        return copy
    }

    func testIdentityNewWritesAPrivateFileAndPrintsAChecksummedKey() throws {
        let key = try newIdentity("id")
        XCTAssertTrue(key.hasPrefix("tresor1"))
        XCTAssertEqual(key.count, 7 + 58)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir + "/id")[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        XCTAssertEqual(try ok("identity", "show", dir + "/id").stdout, key + "\n")
        // Never overwritten.
        XCTAssertEqual(try tresor("identity", "new", dir + "/id").code, 5)
        // The default place.
        let d = try ok("identity", "new").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try ok("identity", "show").stdout, d + "\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/home/.config/tresor/identity"))
        // A mistyped key is refused before anything is sealed to it.
        try initVault()
        var typo = Array(key)
        typo[20] = typo[20] == "a" ? "b" : "a"
        let r = try tresor("member", "add", "bob", String(typo))
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("checksum"), r.stderr)
        XCTAssertEqual(try tresor("member", "add", "bob", "age1xyz").code, 2)
    }

    func testMemberUnlocksWithItsIdentityWithoutThePassphrase() throws {
        try initVault()
        try ok("add", "Email/gmail", "--password-stdin", stdin: "gmail-secret\n")
        let laptop = try newIdentity("laptop")
        let phone = try newIdentity("phone")
        try ok("member", "add", "laptop", laptop)
        try ok("member", "add", "phone", phone)
        // One slot each: adding a member rewrites the header (and the vault domain's state record) only.
        let changed = try git("show", "--name-only", "--format=", "HEAD").stdout
        XCTAssertEqual(changed, ".tresor/state/vault.json\n.tresor/vault.json\n")
        let show = try withIdentity("laptop", "show", "Email/gmail")
        XCTAssertEqual(show.code, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("gmail-secret"))
        XCTAssertEqual(try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY": dir + "/phone"]).code, 0)
        // The list names this device.
        let ls = try withIdentity("phone", "member", "ls").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(ls.count, 2)
        XCTAssertTrue(ls[0].hasPrefix("laptop\t") && !ls[0].hasSuffix("(this device)"), ls[0])
        XCTAssertTrue(ls[1].hasPrefix("phone\t") && ls[1].hasSuffix("\t(this device)"), ls[1])
        // A session from an identity.
        let unlock = try withIdentity("laptop", "unlock", "--raw")
        XCTAssertEqual(unlock.code, 0, unlock.stderr)
        let token = unlock.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_SESSION": token]).code, 0)
        // An identity that is no member is told so (exit 3), and the passphrase still opens the vault.
        _ = try newIdentity("stranger")
        let refused = try withIdentity("stranger", "show", "Email/gmail")
        XCTAssertEqual(refused.code, 3)
        XCTAssertTrue(refused.stderr.contains("not a member"), refused.stderr)
        try ok("show", "Email/gmail")
        // Names and keys are unique.
        XCTAssertEqual(try tresor("member", "add", "laptop", phone).code, 2)
        XCTAssertEqual(try tresor("member", "add", "laptop2", laptop).code, 2)
    }

    func testProtectedIdentityNeedsItsOwnPassphrase() throws {
        try initVault()
        try write("identity secret words\n", to: dir + "/idpass")
        let key = try newIdentity("id", "--new-passphrase-file", dir + "/idpass", "--kdf", "minimum")
        XCTAssertFalse(try String(contentsOfFile: dir + "/id", encoding: .utf8).contains("secretKey"))
        try ok("member", "add", "me", key)
        XCTAssertEqual(try tresor(["ls", "--identity", dir + "/id"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil,
                                                                             "TRESOR_IDENTITY_PASSPHRASE_FILE": dir + "/idpass"]).code, 0)
        try write("wrong words here\n", to: dir + "/badpass")
        let r = try tresor(["show", "x", "--identity", dir + "/id"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_IDENTITY_PASSPHRASE_FILE": dir + "/badpass"])
        XCTAssertEqual(r.code, 3)
        XCTAssertTrue(r.stderr.contains("wrong passphrase for identity"), r.stderr)
    }

    /// The scenario: after `passwd`, an old header from history and the old passphrase open a new entry;
    /// after `passwd --revoke` they do not.
    func testPasswdRevokeMakesTheOldHeaderUselessForNewEntries() throws {
        try initVault()
        try ok("add", "Old/one", "--password-stdin", stdin: "old-secret\n")
        let first = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try write("a brand new passphrase\n", to: dir + "/new")
        try ok("passwd", "--new-passphrase-file", dir + "/new")
        try write("a brand new passphrase\n", to: passphraseFile)
        try ok("add", "New/after-passwd", "--password-stdin", stdin: "after-passwd\n")
        // Without revoke: the old header and the old passphrase read the new entry (what the README admits).
        try write("correct horse battery staple\n", to: dir + "/oldpass")
        var copy = try copyWithHeader(from: first)
        let leaked = try tresor(["show", "New/after-passwd", "--vault", copy, "--passphrase-file", dir + "/oldpass"])
        XCTAssertEqual(leaked.code, 0, leaked.stderr)
        XCTAssertTrue(leaked.stdout.contains("after-passwd"))

        try write("the third passphrase\n", to: dir + "/third")
        let revoke = try ok("passwd", "--revoke", "--new-passphrase-file", dir + "/third")
        XCTAssertTrue(revoke.stderr.contains("rekeyed"), revoke.stderr)
        try write("the third passphrase\n", to: passphraseFile)
        try ok("add", "New/after-revoke", "--password-stdin", stdin: "after-revoke\n")
        XCTAssertTrue(try ok("show", "Old/one").stdout.contains("old-secret"))
        XCTAssertTrue(try ok("show", "New/after-passwd").stdout.contains("after-passwd"))
        // Every header from history with the passphrase it had: none opens an entry written after the rekey,
        // nor the re-encrypted old ones.
        let log = try git("log", "--format=%H").stdout.split(separator: "\n").map(String.init)
        for rev in log.dropFirst(2) {
            copy = try copyWithHeader(from: rev)
            for (pass, name) in [("oldpass", "old"), ("new", "second")] {
                for path in ["New/after-revoke", "Old/one", "New/after-passwd"] {
                    let r = try tresor(["show", path, "--vault", copy, "--passphrase-file", dir + "/" + pass])
                    XCTAssertNotEqual(r.code, 0, "header of \(rev) with the \(name) passphrase opened \(path)")
                    XCTAssertFalse(r.stdout.contains("after-"), r.stdout)
                }
            }
        }
        // The old passphrases do not open the current header.
        XCTAssertEqual(try tresor(["show", "Old/one", "--passphrase-file", dir + "/oldpass"]).code, 3)
        XCTAssertEqual(try tresor(["show", "Old/one", "--passphrase-file", dir + "/new"]).code, 3)
    }

    func testMemberRemoveRekeysSoTheRemovedIdentityOpensNothingNew() throws {
        try initVault()
        try ok("add", "Team/db", "--password-stdin", stdin: "db-secret\n")
        try ok("add", "Team/ci", "--password-stdin", stdin: "ci-secret\n")
        let alice = try newIdentity("alice")
        let bob = try newIdentity("bob")
        try ok("member", "add", "alice", alice)
        try ok("member", "add", "bob", bob)
        let beforeRemoval = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try withIdentity("bob", "show", "Team/db").code, 0)
        // Alice removes Bob with her identity: the passphrase slot needs the passphrase, from the file.
        let rm = try tresor(["member", "rm", "bob", "--identity", dir + "/alice"])
        XCTAssertEqual(rm.code, 0, rm.stderr)
        XCTAssertTrue(rm.stderr.contains("2 entries re-encrypted"), rm.stderr)
        XCTAssertTrue(rm.stderr.contains("audit --removed bob"), rm.stderr)
        // Two entries, the header, the state record.
        XCTAssertEqual(try git("show", "--name-only", "--format=", "HEAD").stdout.split(separator: "\n").count, 4)
        try ok("add", "Team/new", "--password-stdin", stdin: "new-secret\n")
        // Bob: refused by the current header; with the header from before his removal, nothing current opens.
        XCTAssertEqual(try withIdentity("bob", "show", "Team/db").code, 3)
        let copy = try copyWithHeader(from: beforeRemoval)
        for path in ["Team/db", "Team/ci", "Team/new"] {
            let r = try tresor(["show", path, "--vault", copy, "--identity", dir + "/bob"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
            XCTAssertNotEqual(r.code, 0, "bob opened \(path)")
            XCTAssertFalse(r.stdout.contains("secret"))
        }
        // Alice and the passphrase still open everything.
        XCTAssertTrue(try withIdentity("alice", "show", "Team/new").stdout.contains("new-secret"))
        XCTAssertTrue(try ok("show", "Team/db").stdout.contains("db-secret"))
        let ls = try ok("member", "ls").stdout
        XCTAssertTrue(ls.hasPrefix("alice\t") && !ls.contains("bob"), ls)
        XCTAssertEqual(try tresor("member", "rm", "bob").code, 2)
        // Rekey with a session: the session held the old key and is ended.
        let token = try ok("unlock", "--raw").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rekey = try tresor(["rekey"], extraEnv: ["TRESOR_SESSION": token])
        XCTAssertEqual(rekey.code, 0, rekey.stderr)
        XCTAssertTrue(rekey.stderr.contains("3 entries re-encrypted"), rekey.stderr)
        XCTAssertTrue(try ok("show", "Team/ci").stdout.contains("ci-secret"))
        try ok("fsck")
    }

    /// A vault of format 1 (Tests/Fixtures/vault-format1, written by the tresor of that format) is read as it is, is
    /// written only after `upgrade`, and two replicas converting the same commit write the same tree (Spec/FORMAT.md
    /// §11.10), so they sync without a join.
    func testAFormat1VaultIsReadThenUpgradedAndTwoReplicasConvertAlike() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vault-format1").path
        try FileManager.default.copyItem(atPath: source, toPath: vaultDir)
        try write("demo passphrase\n", to: passphraseFile)
        XCTAssertEqual(try git("init", "-q", "-b", "main").code, 0)
        XCTAssertEqual(try git("add", "-A").code, 0)
        XCTAssertEqual(try git("-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "format 1").code, 0)
        try ok("fsck", "--fix-permissions")
        let bare = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", "--bare", vaultDir, bare], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try git("remote", "add", "origin", bare).code, 0)
        XCTAssertEqual(try git("fetch", "-q", "origin").code, 0)
        XCTAssertEqual(try git("branch", "-q", "-u", "origin/main").code, 0)
        let other = dir + "/other"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", bare, other], stdin: nil, extraEnv: [:]).code, 0)

        // Read as it is: values, history, search.
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "gmail-Correct-Horse-8\n")
        XCTAssertTrue(try ok("show", "Email/gmail", "--json").stdout.contains("gmail-Correct-Horse-7"), "old password in history")
        XCTAssertEqual(try ok("grep", "TOTP").stdout, "Social/github: notes: 2FA: TOTP app on phone\n")
        // Written only after upgrade: the refusal names the way and changes nothing.
        let head = try git("rev-parse", "HEAD").stdout
        let add = try tresor(["add", "New/one", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(add.code, 2)
        XCTAssertTrue(add.stderr.contains("format 1") && add.stderr.contains("tresor upgrade"), add.stderr)
        let id = try newIdentity("id")
        XCTAssertTrue(try tresor("member", "add", "me", id).stderr.contains("tresor upgrade"))
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, head)
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")

        try ok("upgrade")
        let upgraded = try VaultHeader.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: vaultDir + "/.tresor/vault.json"))))
        XCTAssertEqual(upgraded.version, FormatVersion.header)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "gmail-Correct-Horse-8\n")
        XCTAssertTrue(try ok("show", "Email/gmail", "--json").stdout.contains("gmail-Correct-Horse-7"))
        XCTAssertEqual(try ok("fsck").code, 0)
        try ok("member", "add", "me", id)
        XCTAssertEqual(try withIdentity("id", "show", "Bank/ing", "--field", "pin").stdout, "4711\n")

        // The other replica converts the same commit: the same payloads and clocks (entries are sealed with fresh
        // nonces), so joining the two conversions changes no entry.
        XCTAssertEqual(try tresor(["upgrade"], extraEnv: ["TRESOR_VAULT": other]).code, 0)
        try ok("sync")
        let s = try tresor(["sync", "--json"], extraEnv: ["TRESOR_VAULT": other])
        XCTAssertEqual(s.code, 0, s.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((report["mergedEntries"] as? [Any])?.count ?? -1, 0, "two conversions of one commit are one state: \(s.stdout)")
        XCTAssertEqual((report["resolutions"] as? [Any])?.count ?? -1, 0, s.stdout)
        try ok("sync")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", other, "rev-parse", "HEAD^{tree}"], stdin: nil, extraEnv: [:]).stdout,
                       try git("rev-parse", "HEAD^{tree}").stdout)
        XCTAssertEqual(try tresor(["show", "Bank/ing", "--field", "pin"], extraEnv: ["TRESOR_VAULT": other]).stdout, "4711\n")
    }

    func testAuditRemovedListsWhatTheRemovedMemberCouldRead() throws {
        try initVault()
        try ok("add", "Team/db", "--username", "admin", "--password-stdin", stdin: "db-secret\n")
        let bob = try newIdentity("bob")
        XCTAssertEqual(try tresor("audit", "--removed", "bob").code, 2)
        try ok("member", "add", "bob", bob)
        try ok("add", "Team/ci", "--password-stdin", stdin: "ci-secret\n")
        let still = try tresor("audit", "--removed", "bob")
        XCTAssertEqual(still.code, 2)
        XCTAssertTrue(still.stderr.contains("still a member"), still.stderr)
        try ok("member", "rm", "bob")
        try ok("add", "Team/new", "--password-stdin", stdin: "new-secret\n")
        let r = try tresor("audit", "--removed", "bob")
        XCTAssertEqual(r.code, 6, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("Team/db: password, username"), r.stdout)
        XCTAssertTrue(lines.contains("Team/ci: password"), r.stdout)
        XCTAssertFalse(r.stdout.contains("Team/new"), r.stdout)
        XCTAssertFalse(r.stdout.contains("secret"), r.stdout)
        XCTAssertTrue(r.stderr.contains("tresor rotate"), r.stderr)
        let json = try tresor("audit", "--removed", "bob", "--json")
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((o["entries"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual(try tresor("audit", "--removed", "nobody").code, 2)
    }
}
