// Vault.importEntries: many entries in one commit, and nothing kept when any write fails.
import Foundation
import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

final class VaultImportTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tresor-import-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func entry(_ path: String, _ password: String) throws -> Entry {
        var e = Entry(path: try EntryPath(path), change: Change(time: .now(), origin: "test", dot: .placeholder))
        try e.set("password", .text(SecretText(password)), change: Change(time: .now(), origin: "test", dot: .placeholder))
        return e
    }

    func testOneCommitForAllAndNothingWhenAWriteFails() throws {
        let vault = try Vault.create(at: dir + "/v", passphrase: SecretBytes(utf8: "pass"), level: .minimum)
        try vault.add(try entry("Old/one", "first"))
        let commits = try vault.history().count

        let original = try vault.read(try EntryPath("Old/one"))
        var changed = original
        try changed.set("password", .text("second"), change: Change(time: .now(), origin: "test", dot: .placeholder))
        try vault.importEntries(adding: [try entry("New/a", "a"), try entry("New/b", "b")], updating: [changed], originals: [original], message: "Import 2 entries from test, update 1")
        XCTAssertEqual(try vault.history().count, commits + 1)
        XCTAssertEqual(try vault.history().first?.message, "Import 2 entries from test, update 1\n")
        XCTAssertEqual(try vault.read(try EntryPath("Old/one")).text("password"), "second")
        XCTAssertEqual(vault.list().paths.map(\.string), ["New/a", "New/b", "Old/one"])

        // "Blocked" is a plain file, so "Blocked/c" cannot be written: the update and the first
        // addition, already written, are put back and nothing is committed.
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: dir + "/v/Blocked"))
        let second = try vault.read(try EntryPath("Old/one"))
        var again = second
        try again.set("password", .text("third"), change: Change(time: .now(), origin: "test", dot: .placeholder))
        XCTAssertThrowsError(try vault.importEntries(adding: [try entry("New/c", "c"), try entry("Blocked/c", "x")], updating: [again], originals: [second], message: "Import"))
        XCTAssertEqual(try vault.history().count, commits + 1)
        XCTAssertEqual(try vault.read(try EntryPath("Old/one")).text("password"), "second")
        XCTAssertEqual(vault.list().paths.map(\.string), ["New/a", "New/b", "Old/one"])

        // An existing entry is never overwritten as an addition.
        XCTAssertThrowsError(try vault.importEntries(adding: [try entry("New/a", "other")], updating: [], originals: [], message: "Import")) {
            guard case VaultError.entryExists = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try vault.read(try EntryPath("New/a")).text("password"), "a")
    }
}
