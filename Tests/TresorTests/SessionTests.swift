// Sessions at the library level: a token and a file, each useless alone; expiry, locking, several vaults.
import Foundation
@testable import Tresor
@testable import TresorCore
import XCTest

final class SessionTests: VaultTestCase {
    var sessions: String { dir + "/sessions" }

    func testATokenOpensItsVaultInAnotherProcessAndNothingElse() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        try vault.add(try entry("Email/gmail", ["password": "s3cret-value"]))
        let token = try Session.start(vault: vault, timeout: 60, directory: sessions)

        // Another process: opens the vault, unlocks with the session's key, reads.
        let other = try Vault.open(at: vault.root)
        try other.unlock(vaultKey: try Session.vaultKey(token: token, vaultID: other.header.vaultID, directory: sessions))
        XCTAssertEqual(try other.read(try EntryPath("Email/gmail")).fields["password"]?.value, .text("s3cret-value"))

        // The session file and its folder are private, and the file alone does not hold the key.
        var st = stat()
        XCTAssertEqual(stat(sessions, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: sessions)
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(stat(sessions + "/" + files[0], &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        let stored = try Data(contentsOf: URL(fileURLWithPath: sessions + "/" + files[0]))
        let key = try vault.currentVaultKey().withBytes { Data($0) }
        XCTAssertNil(stored.range(of: key), "the session file holds the vault key in the clear")
        XCTAssertNil(stored.range(of: Data(token.utf8)), "the session file holds the token")

        // A token of another session, garbage, or a lock: each refused with its own reason.
        let second = try makeVault("second")
        try second.unlock(passphrase: passphrase)
        let secondToken = try Session.start(vault: second, timeout: 60, directory: sessions)
        XCTAssertThrowsError(try Session.vaultKey(token: secondToken, vaultID: vault.header.vaultID, directory: sessions)) {
            XCTAssertEqual($0 as? VaultError, .session(.wrongToken))
        }
        XCTAssertThrowsError(try Session.vaultKey(token: "not-a-token", vaultID: vault.header.vaultID, directory: sessions)) {
            XCTAssertEqual($0 as? VaultError, .session(.notAToken))
        }
        // Two vaults' sessions live side by side: ending one leaves the other.
        XCTAssertTrue(try Session.end(vaultID: vault.header.vaultID, directory: sessions))
        XCTAssertFalse(try Session.end(vaultID: vault.header.vaultID, directory: sessions))
        XCTAssertThrowsError(try Session.vaultKey(token: token, vaultID: vault.header.vaultID, directory: sessions)) {
            XCTAssertEqual($0 as? VaultError, .session(.noSession))
        }
        XCTAssertNoThrow(try Session.vaultKey(token: secondToken, vaultID: second.header.vaultID, directory: sessions))
    }

    func testAnExpiredSessionIsRefusedAndItsFileRemoved() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let token = try Session.start(vault: vault, timeout: 0.05, directory: sessions)
        usleep(150_000)
        XCTAssertThrowsError(try Session.vaultKey(token: token, vaultID: vault.header.vaultID, directory: sessions)) { error in
            guard case .session(.expired)? = error as? VaultError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sessions), [])
    }

    func testASessionFolderOthersCanReadIsRefused() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
        chmod(sessions, 0o755)
        XCTAssertThrowsError(try Session.start(vault: vault, timeout: 60, directory: sessions)) {
            XCTAssertEqual($0 as? VaultError, .session(.directoryNotPrivate(sessions)))
        }
    }

    func testALockedVaultStartsNoSession() throws {
        let vault = try Vault.open(at: try makeVault().root)
        XCTAssertThrowsError(try Session.start(vault: vault, timeout: 60, directory: sessions)) {
            XCTAssertEqual($0 as? VaultError, .vaultLocked)
        }
    }
}

final class HistoryTests: VaultTestCase {
    func testTheLogNamesWhatEachCommitDidAndRestoreKeepsTheCurrentValue() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let path = try EntryPath("Site/one")
        try vault.add(try entry("Site/one", ["username": "alice", "password": "first"]))
        try edit(vault, "Site/one", ["password": "second"])
        try edit(vault, "Site/one", ["username": "bob"])

        let log = try vault.entryLog(path)
        XCTAssertEqual(log.map(\.kind), [.changed, .changed, .added])
        XCTAssertEqual(log.map(\.fields), [["username"], ["password"], ["password", "username"]])
        XCTAssertEqual(try vault.entryLog(path, limit: 1).count, 1)
        XCTAssertEqual(try vault.history(of: path).map(\.id), log.map(\.commit.id))

        // Back to the first version: a new commit; the values it replaces go into the entry's history.
        let source = try vault.restore(path, at: log[2].commit.id)
        XCTAssertEqual(source, log[2].commit.id)
        let restored = try vault.read(path)
        XCTAssertEqual(restored.fields["password"]?.value, .text("first"))
        XCTAssertEqual(restored.fields["username"]?.value, .text("alice"))
        XCTAssertEqual(values(restored, "password"), ["first", "second"])
        XCTAssertEqual(values(restored, "username"), ["alice", "bob"])
        XCTAssertEqual(try vault.entryLog(path).first?.kind, .changed)

        XCTAssertThrowsError(try vault.restore(path, at: "no-such-revision")) {
            XCTAssertEqual($0 as? VaultError, .unknownRevision("no-such-revision"))
        }
    }

    func testARemovedEntryComesBackAndItsLogSaysRemoved() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let path = try EntryPath("Gone/entry")
        try vault.add(try entry("Gone/entry", ["password": "keep-me"]))
        try vault.remove(path)
        XCTAssertEqual(try vault.entryLog(path).map(\.kind), [.removed, .added])
        try vault.restore(path, at: nil)
        XCTAssertEqual(try vault.read(path).fields["password"]?.value, .text("keep-me"))
    }

    func testRestoringTheOldPathOfAMovedEntryGivesACopyWithItsOwnID() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let old = try EntryPath("Moved/from"), new = try EntryPath("Moved/to")
        try vault.add(try entry("Moved/from", ["password": "p"]))
        try vault.move(old, to: new)
        try vault.restore(old, at: nil)
        let restored = try vault.read(old), moved = try vault.read(new)
        XCTAssertNotEqual(restored.id, moved.id)
        XCTAssertEqual(restored.fields["password"]?.value, .text("p"))
        let problems = try vault.check().problems
        XCTAssertTrue(problems.isEmpty, "\(problems)")
    }

    func testReadingTheDeviceIDWritesNothingAndTheFirstCommitKeepsIt() throws {
        let vault = try Vault.open(at: try makeVault().root)
        try vault.unlock(passphrase: passphrase)
        let file = vault.root + "/.git/tresor/device"
        try? FileManager.default.removeItem(atPath: file)
        let id = vault.deviceID
        XCTAssertEqual(vault.deviceID, id)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "a getter wrote the device file")
        try vault.add(try entry("Any/entry", ["password": "x"], origin: id))
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), id + "\n")
        XCTAssertEqual(try Vault.open(at: vault.root).deviceID, id)
    }
}
