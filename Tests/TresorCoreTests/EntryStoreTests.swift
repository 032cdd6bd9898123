// EntryStore on a real temporary directory: listing rules, links, case collisions, modes (Spec/FORMAT.md §4).
import Foundation
@testable import TresorCore
import XCTest

final class EntryStoreTests: XCTestCase {
    var root = ""
    var store: EntryStore { EntryStore(root: root) }

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func put(_ rel: String, _ text: String = "{}") throws {
        let url = URL(fileURLWithPath: root + "/" + rel)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
    func link(_ rel: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/" + rel, withDestinationPath: target)
    }
    func paths() -> [String] { store.entryPaths().paths.map(\.string) }

    func testListingSkipsDotNamesAndNonJSONFiles() throws {
        for f in ["Email/gmail.json", "top.json", "Bank/Sub/acct.json", ".git/config.json", ".tresor/vault.json",
                  ".gitattributes", "README.md", "Email/notes.txt", "Email/.hidden.json", ".folder/x.json", "Email/x.JSON"] {
            try put(f)
        }
        let (found, problems) = store.entryPaths()
        XCTAssertEqual(found.map(\.string), ["Bank/Sub/acct", "Email/gmail", "top"])
        XCTAssertEqual(problems, [])
    }

    func testInvalidEntryFileNamesAreProblemsNotEntries() throws {
        try put("bad:name.json")
        try put("trailing .json")
        try put("Cafe\u{301}.json")          // not NFC: reported, not silently read as "Café"
        try put("good.json")
        let (found, problems) = store.entryPaths()
        XCTAssertEqual(found.map(\.string), ["good"])
        XCTAssertEqual(Set(problems.map(\.file)), ["bad:name.json", "trailing .json", "Cafe\u{301}.json"])
    }

    func testWriteCreatesPrivateFilesAndFoldersAndLeavesNoTemporaryFile() throws {
        let p = try EntryPath("Email/work/gmail")
        try store.writeEntryFile(Array("one\n".utf8), for: p)
        try store.writeEntryFile(Array("two\n".utf8), for: p)        // replaces atomically
        XCTAssertEqual(try store.readEntryFile(p), Array("two\n".utf8))
        XCTAssertEqual(FileSystem.mode(root + "/Email/work/gmail.json"), 0o600)
        XCTAssertEqual(FileSystem.mode(root + "/Email"), 0o700)
        XCTAssertEqual(FileSystem.mode(root + "/Email/work"), 0o700)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/Email/work"), ["gmail.json"])
        try store.writeHeader(Array("{}\n".utf8))
        XCTAssertEqual(FileSystem.mode(root + "/.tresor"), 0o700)
        XCTAssertEqual(FileSystem.mode(root + "/.tresor/vault.json"), 0o600)
        XCTAssertEqual(paths(), ["Email/work/gmail"])
    }

    func testALeftoverTemporaryFileIsNeverListed() throws {
        // What an interrupted write leaves behind: "." + name + ".tmp-" + suffix, next to the entry.
        try put("Email/.gmail.json.tmp-AbCdEfGh", "partial")
        try put("Email/gmail.json")
        XCTAssertEqual(paths(), ["Email/gmail"])
        XCTAssertEqual(store.entryPaths().problems, [])
    }

    func testRemoveDeletesEmptyFolders() throws {
        let a = try EntryPath("A/B/x"), b = try EntryPath("A/y")
        try store.writeEntryFile([1], for: a)
        try store.writeEntryFile([2], for: b)
        try store.removeEntryFile(a)
        XCTAssertEqual(FileSystem.kind(root + "/A/B"), .missing)
        XCTAssertEqual(FileSystem.kind(root + "/A"), .directory)
        try store.removeEntryFile(b)
        XCTAssertEqual(FileSystem.kind(root + "/A"), .missing)
        XCTAssertEqual(FileSystem.kind(root), .directory)
    }

    func testSymlinkedEntryFileIsRefused() throws {
        let outside = root + "-outside.json"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try link("stolen.json", to: outside)
        let p = try EntryPath("stolen")
        XCTAssertThrowsError(try store.readEntryFile(p)) { XCTAssertEqual(($0 as? CoreError)?.kind, "symlink") }
        XCTAssertThrowsError(try store.writeEntryFile([1], for: p)) { XCTAssertEqual(($0 as? CoreError)?.kind, "symlink") }
        XCTAssertEqual(try String(contentsOfFile: outside, encoding: .utf8), "secret", "the link target is untouched")
        let (found, problems) = store.entryPaths()
        XCTAssertEqual(found, [])
        XCTAssertEqual(problems.map(\.file), ["stolen.json"])
    }

    func testSymlinkedDirectoryIsNotFollowed() throws {
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: outside + "/inner.json"))
        try link("Linked", to: outside)
        let p = try EntryPath("Linked/inner")
        XCTAssertEqual(paths(), [])
        XCTAssertEqual(store.entryPaths().problems.map(\.file), ["Linked"])
        XCTAssertThrowsError(try store.readEntryFile(p)) { XCTAssertEqual(($0 as? CoreError)?.kind, "symlink") }
        XCTAssertThrowsError(try store.writeEntryFile([1], for: try EntryPath("Linked/new"))) {
            XCTAssertEqual(($0 as? CoreError)?.kind, "symlink")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), ["inner.json"])
    }

    func testSymlinkedMetadataDirectoryIsRefused() throws {
        let outside = root + "-meta"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: outside + "/vault.json"))
        try link(".tresor", to: outside)
        XCTAssertThrowsError(try store.readHeader()) { XCTAssertEqual(($0 as? CoreError)?.kind, "symlink") }
    }

    func testCaseCollisions() throws {
        try put("Email/gmail.json")
        try put("Bank/Caf\u{E9}/x.json")
        XCTAssertEqual(store.caseCollision(for: try EntryPath("Email/Gmail")), "Email/gmail.json")
        XCTAssertEqual(store.caseCollision(for: try EntryPath("email/other")), "Email")
        XCTAssertEqual(store.caseCollision(for: try EntryPath("EMAIL/gmail")), "Email")
        XCTAssertEqual(store.caseCollision(for: try EntryPath("Bank/CAF\u{C9}/y")), "Bank/Caf\u{E9}")
        XCTAssertNil(store.caseCollision(for: try EntryPath("Email/gmail")), "the same path is no collision")
        XCTAssertNil(store.caseCollision(for: try EntryPath("Email/outlook")))
        XCTAssertNil(store.caseCollision(for: try EntryPath("Other/gmail")))
        XCTAssertNil(store.caseCollision(for: try EntryPath("Email")), "an entry beside a folder of the same name is allowed")
    }

    func testDecomposedNameOnDiskCollidesWithItsNFCForm() throws {
        try put("Cafe\u{301}/x.json")   // written by another tool: NFD folder name
        XCTAssertEqual(store.caseCollision(for: try EntryPath("Caf\u{E9}/y")), "Cafe\u{301}")
    }

    func testOversizedEntryFileIsRefused() throws {
        try put("big.json", String(repeating: " ", count: Envelope.maxFileBytes + 1))
        XCTAssertThrowsError(try store.readEntryFile(try EntryPath("big"))) { XCTAssertEqual(($0 as? CoreError)?.kind, "malformed") }
        XCTAssertThrowsError(try Envelope.parse(Array(repeating: 0x20, count: Envelope.maxFileBytes + 1))) {
            XCTAssertEqual(($0 as? CoreError)?.kind, "malformed")
        }
    }

    func testHeaderRoundTripThroughTheStore() throws {
        let made = Change(time: Timestamp(milliseconds: 1_700_000_000_000), origin: "dev", dot: Dot(replica: "a1a1a1a1a1a1a1a1", counter: 1))
        let (unsigned, key) = try VaultHeader.create(passphrase: SecretBytes(utf8: "pw"), level: .minimum, change: made)
        XCTAssertEqual(unsigned.version, 5)
        XCTAssertEqual(unsigned.epoch, 1)
        XCTAssertEqual(unsigned.clock, Clock(["a1a1a1a1a1a1a1a1": 1]))
        XCTAssertEqual(unsigned.keySlots.map(\.dot), [made.dot])
        let authenticator = try VaultAuthenticator(vaultKey: key)
        let header = try authenticator.authenticated(unsigned)
        try store.writeHeader(header.serialized())
        let back = try VaultHeader.parse(try store.readHeader())
        XCTAssertEqual(back, header)
        XCTAssertTrue(try back.unlock(passphrase: SecretBytes(utf8: "pw")).constantTimeEquals(key))
        XCTAssertThrowsError(try back.unlock(passphrase: SecretBytes(utf8: "pW"))) { XCTAssertEqual(($0 as? CoreError)?.kind, "wrong-passphrase") }
        XCTAssertNoThrow(try authenticator.verify(back))
        // Any change made without the vault key breaks the tag: an added slot, a clock or an epoch put back.
        var forged = back
        forged.keySlots.append(try KeySlot.wrap(SecretBytes.random(count: 32), passphrase: SecretBytes(utf8: "attacker"), level: .minimum,
                                                vaultID: back.vaultID, dot: made.dot))
        XCTAssertThrowsError(try authenticator.verify(forged)) { XCTAssertEqual(($0 as? CoreError)?.kind, "header-not-authentic") }
        var older = back
        older.clock = Clock(["a1a1a1a1a1a1a1a1": 1, "b2b2b2b2b2b2b2b2": 7])
        XCTAssertThrowsError(try authenticator.verify(older)) { XCTAssertEqual(($0 as? CoreError)?.kind, "header-not-authentic") }
        var otherEpoch = back
        otherEpoch.epoch = 2
        XCTAssertThrowsError(try authenticator.verify(otherEpoch))
        XCTAssertThrowsError(try VaultAuthenticator(vaultKey: SecretBytes.random(count: 32)).verify(back))
    }
}
