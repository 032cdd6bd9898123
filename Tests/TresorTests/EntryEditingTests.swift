// The library builds and changes entries itself: a front end passes field values, never stamps or origins.
import Foundation
@testable import Tresor
@testable import TresorCore
import XCTest

final class EntryEditingTests: VaultTestCase {
    func testAddStampsEveryFieldWithThisDeviceAndEditChangesOnlyWhatDiffers() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let path = try EntryPath("Web/site")
        let added = try vault.add(path, fields: ["username": .text("ann"), "password": .text("pw1"), "urls": .list(["https://a.example"])])
        let stored = try vault.read(path)
        XCTAssertEqual(stored, added)
        XCTAssertEqual(Set(stored.fields.values.map(\.origin)), [vault.deviceID])
        XCTAssertThrowsError(try vault.add(path, fields: ["password": .text("again")])) {
            XCTAssertEqual($0 as? VaultError, .entryExists(path: "Web/site"))
        }
        // A list field given as text is the format's error, named with the entry.
        XCTAssertThrowsError(try vault.makeEntry(try EntryPath("Web/bad"), fields: ["urls": .text("x")])) { error in
            guard case .entry(path: "Web/bad", _)? = error as? VaultError else { return XCTFail("\(error)") }
        }

        let commits = try git(vault, "rev-list", "--count", "HEAD")
        XCTAssertNil(try vault.edit(stored, changes: ["username": .text("ann")]), "an equal value changes nothing")
        XCTAssertNil(try vault.edit(stored, changes: ["absent": nil]), "removing what is not there changes nothing")
        XCTAssertEqual(try git(vault, "rev-list", "--count", "HEAD"), commits, "nothing was committed")

        let outcome = try XCTUnwrap(try vault.edit(stored, changes: ["password": .text("pw2"), "urls": nil]))
        XCTAssertEqual(outcome.changedFields.sorted(), ["password", "urls"])
        let edited = try vault.read(path)
        XCTAssertEqual(edited.fields["password"]?.value, .text("pw2"))
        XCTAssertNil(edited.fields["urls"])
        XCTAssertEqual(values(edited, "password"), ["pw1", "pw2"])
    }

    func testAnEditOfAnOldReadMergesWithWhatChangedMeanwhile() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let path = try EntryPath("Shared/one")
        try vault.add(path, fields: ["username": .text("u0"), "password": .text("p0")])
        let readEarlier = try vault.read(path)
        // Another process changes the password meanwhile.
        let other = try Vault.open(at: vault.root)
        try other.unlock(passphrase: passphrase)
        _ = try XCTUnwrap(try other.edit(try other.read(path), changes: ["password": .text("p-other")]))
        // The first one's edit of the username, based on its old read, keeps both changes.
        let outcome = try XCTUnwrap(try vault.edit(readEarlier, changes: ["username": .text("u-mine")]))
        XCTAssertTrue(outcome.merged)
        let now = try vault.read(path)
        XCTAssertEqual(now.fields["username"]?.value, .text("u-mine"))
        XCTAssertEqual(now.fields["password"]?.value, .text("p-other"))
    }
}
