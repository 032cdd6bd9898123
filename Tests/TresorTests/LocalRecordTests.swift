// A replica's local records (.git/tresor: trust, events, earlier keys, sessions) that cannot be read stop the command
// that needs them, naming the file: never taken for "none yet", which would weaken what they protect.
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

final class LocalRecordTests: VaultTestCase {
    /// Replaces the local record `relative` of `vault` by a folder (a file that cannot be read as one, even by root).
    private func makeUnreadable(_ vault: Vault, _ relative: String) throws {
        try? FileManager.default.removeItem(atPath: vault.root + "/" + relative)
        try FileManager.default.createDirectory(atPath: vault.root + "/" + relative + "/x", withIntermediateDirectories: true)
    }

    private func assertFileError(_ path: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case VaultError.file(let p, _) = error else { return XCTFail("not a file error: \(error)", file: file, line: line) }
            XCTAssertEqual(p, path, file: file, line: line)
        }
    }

    func testATrustRecordThatCannotBeReadStopsTheSyncInsteadOfMakingItAFirstContact() throws {
        let v = try replicas(2)
        _ = try v[1].add(try entry("Email/work", ["password": "from r1"]))
        _ = try v[1].sync(credentials: .none)
        let head = try git(v[0], "rev-parse", "HEAD")
        let trust = v[0].root + "/" + Vault.trustPath
        for damage in ["folder", "not JSON", #"{"version":2,"published":{},"remotes":{}}"#, #"{"version":1,"published":{"vault":"x"},"remotes":{}}"#] {
            if damage == "folder" { try makeUnreadable(v[0], Vault.trustPath) }
            else { try? FileManager.default.removeItem(atPath: trust); try Data(damage.utf8).write(to: URL(fileURLWithPath: trust)) }
            assertFileError(trust) { _ = try v[0].sync(credentials: .none) }
            XCTAssertEqual(try git(v[0], "rev-parse", "HEAD"), head, "a sync that stopped took something in (\(damage))")
        }
        // With the record as it was written, the same sync goes through.
        try FileManager.default.removeItem(atPath: trust)
        let outcome = try v[0].sync(credentials: .none)
        XCTAssertTrue(outcome.pulled)
        XCTAssertEqual(try v[0].read(try EntryPath("Email/work")).fields["password"]?.value, .text("from r1"))
    }

    func testAnEventCountThatCannotBeReadStopsAChangeInsteadOfNumberingFromOne() throws {
        let vault = try makeVault()
        _ = try vault.add(try entry("A/one", ["password": "1"]))
        let head = try git(vault, "rev-parse", "HEAD")
        let events = vault.root + "/" + Vault.eventsPath
        try Data("not a number\n".utf8).write(to: URL(fileURLWithPath: events))
        assertFileError(events) { _ = try vault.add(try entry("A/two", ["password": "2"])) }
        try makeUnreadable(vault, Vault.eventsPath)
        assertFileError(events) { _ = try vault.add(try entry("A/two", ["password": "2"])) }
        XCTAssertEqual(try git(vault, "rev-parse", "HEAD"), head)
        XCTAssertFalse(vault.contains(try EntryPath("A/two")))
    }

    func testARekeyStopsBeforeItsCommitWhenTheEarlierKeysCannotBeRead() throws {
        let vault = try makeVault()
        _ = try vault.add(try entry("A/one", ["password": "1"]))
        let head = try git(vault, "rev-parse", "HEAD")
        let record = vault.root + "/" + Vault.previousKeysPath
        try Data("{damaged".utf8).write(to: URL(fileURLWithPath: record))
        assertFileError(record) { _ = try vault.rekey(passphrase: passphrase, level: .minimum) }
        XCTAssertEqual(try git(vault, "rev-parse", "HEAD"), head, "the rekey was committed although its old key could not be kept")
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), "{damaged", "the record was written over")
        // Without the damage, the rekey keeps the old key and earlier versions still open.
        try FileManager.default.removeItem(atPath: record)
        _ = try vault.rekey(passphrase: passphrase, level: .minimum)
        XCTAssertEqual(try vault.previousKeys()[Domain.vault]?.count, 1)
    }

    /// After a rekey the earlier versions are sealed under the earlier key, kept in the record: a damaged record is
    /// named when a restore needs it (it was taken for no earlier keys, and the version reported as not opening).
    func testARestoreNamesADamagedRecordOfEarlierKeys() throws {
        let vault = try makeVault()
        _ = try vault.add(try entry("A/one", ["password": "1"]))
        let first = try git(vault, "rev-parse", "HEAD")
        _ = try vault.rekey(passphrase: passphrase, level: .minimum)
        let record = vault.root + "/" + Vault.previousKeysPath
        try Data("{damaged".utf8).write(to: URL(fileURLWithPath: record))
        let head = try git(vault, "rev-parse", "HEAD")
        assertFileError(record) { _ = try vault.restore(try EntryPath("A/one"), at: first) }
        assertFileError(record) { _ = try vault.previousKeys() }
        XCTAssertEqual(try git(vault, "rev-parse", "HEAD"), head)
        // What does not need an earlier key still works: the vault opens and shows its entry.
        let again = try Vault.open(at: vault.root)
        try again.unlock(passphrase: passphrase)
        XCTAssertEqual(try again.read(try EntryPath("A/one")).fields["password"]?.value, .text(SecretText("1")))
    }

    func testASessionThatCannotBeEndedIsAnErrorNotNoSession() throws {
        let vault = try makeVault()
        let sessions = dir + "/sessions"
        let file = Session.file(for: vault.header.vaultID, in: sessions)
        try FileManager.default.createDirectory(atPath: file + "/x", withIntermediateDirectories: true)
        XCTAssertThrowsError(try Session.end(vaultID: vault.header.vaultID, directory: sessions)) { error in
            guard case VaultError.io(let path, let code) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file)
            XCTAssertEqual(code, EISDIR)
        }
        XCTAssertThrowsError(try Session.keys(token: String(repeating: "ab", count: 32), vaultID: vault.header.vaultID, directory: sessions)) { error in
            guard case VaultError.file(let path, _) = error else { return XCTFail("not a file error: \(error)") }
            XCTAssertEqual(path, file)
        }
    }
}
