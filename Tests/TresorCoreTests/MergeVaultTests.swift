// Whole-vault merge examples: matching by id, path collisions, and the vault header (Spec/MERGE.md §3, §9, §10).
import Foundation
import XCTest
@testable import TresorCore

final class MergeVaultTests: XCTestCase {
    typealias M = MergeFixture

    func merge(_ b: [Entry], _ o: [Entry], _ t: [Entry], file: StaticString = #filePath, line: UInt = #line) -> (entries: [Entry], resolutions: [MergeResolution]) {
        let r = VaultMerge.merge(base: b, ours: o, theirs: t)
        let swapped = VaultMerge.merge(base: b, ours: t.reversed(), theirs: o.reversed())
        XCTAssertEqual(M.bytes(r.entries), M.bytes(swapped.entries), "not symmetric", file: file, line: line)
        XCTAssertEqual(r.resolutions, swapped.resolutions, "report not symmetric", file: file, line: line)
        return r
    }

    func testMoveOnOneSideAndEditOnTheOtherGiveOneEntryAtTheNewPath() {
        let x = M.entry(M.id(1), "mail/work", ["password": "p1"])
        let ours = M.moved(x, to: "mail/old-work", at: 10)
        let theirs = M.edited(x, "password", "p2", at: 11, origin: "phone")
        let (es, r) = merge([x], [ours], [theirs])
        XCTAssertEqual(es.map(\.path.string), ["mail/old-work"])
        XCTAssertEqual(es.first?.text("password"), "p2")
        XCTAssertEqual(r, [])
    }

    func testAddAddAtTheSamePathKeepsBothAndMovesTheGreaterID() {
        let a = M.entry("aaaaaaaa-0000-4000-8000-000000000000", "mail/work", ["password": "a"])
        let b = M.entry("bbbbbbbb-0000-4000-8000-000000000000", "Mail/Work", ["password": "b"])
        let (es, r) = merge([], [b], [a])
        XCTAssertEqual(es.map(\.path.string), ["Mail/Work.conflict-bbbbbbbb", "mail/work"])
        XCTAssertEqual(r.map(\.kind), [.pathCollisionRenamed(newPath: "Mail/Work.conflict-bbbbbbbb")])
        XCTAssertEqual(r.first?.entryID, b.id)
        XCTAssertFalse(r.first!.description.contains("\"b\""))
    }

    func testThreeEntriesAtOnePathAndAnOccupiedConflictName() {
        let e1 = M.entry(M.id(1), "x", ["password": "1"])
        let e2 = M.entry(M.id(2), "x", ["password": "2"])
        let e3 = M.entry(M.id(3), "X", ["password": "3"])
        let taken = M.entry(M.id(9), "x.conflict-00000002", ["password": "9"])
        let (es, r) = merge([], [e1, e3, taken], [e2])
        XCTAssertEqual(Set(es.map(\.path.string)), ["x", "x.conflict-00000002", "x.conflict-00000002-2", "X.conflict-00000003"])
        XCTAssertEqual(es.first { $0.id == e1.id }?.path.string, "x")
        XCTAssertEqual(r.count, 2)
    }

    func testConflictNameIsShortenedToAValidPath() throws {
        let long = String(repeating: "é", count: 50) // 100 bytes, the longest component
        let a = M.entry(M.id(1), "f/" + long, ["password": "a"])
        let b = M.entry(M.id(2), "f/" + long, ["password": "b"])
        let (es, _) = merge([], [a], [b])
        let moved = try XCTUnwrap(es.first { $0.id == b.id }?.path)
        XCTAssertEqual(moved.name.utf8.count, 100)
        XCTAssertTrue(moved.name.hasSuffix(".conflict-00000002"))
        XCTAssertEqual(try EntryPath(moved.string), moved)
    }

    func testTwoIDsMovedToTheSamePath() {
        let a = M.entry(M.id(1), "a", ["password": "a"]), b = M.entry(M.id(2), "b", ["password": "b"])
        let (es, r) = merge([a, b], [M.moved(a, to: "z", at: 5), b], [a, M.moved(b, to: "z", at: 6)])
        XCTAssertEqual(es.map(\.path.string), ["z", "z.conflict-00000002"])
        XCTAssertEqual(r.map(\.kind.name), ["path-collision-renamed"])
    }

    func testDeleteAndReAddAtTheSamePathVersusEdit() {
        let x = M.entry(M.id(5), "bank", ["password": "old"])
        let fresh = M.entry(M.id(1), "bank", ["password": "new"])
        let edited = M.edited(x, "password", "edited", at: 10, origin: "phone")
        let (es, r) = merge([x], [fresh], [edited])
        XCTAssertEqual(es.map(\.id), [fresh.id, x.id])
        XCTAssertEqual(es.map(\.path.string), ["bank", "bank.conflict-00000005"])
        XCTAssertEqual(r.map(\.kind.name), ["edit-delete-kept-edit", "path-collision-renamed"])
    }

    func testDuplicateIDsInOneStateAreNotDropped() {
        let x = M.entry(M.id(1), "a", ["password": "1"])
        var copy = x; copy.path = M.path("b")
        let edited = M.edited(x, "password", "2", at: 10, origin: "phone")
        let (es, _) = merge([x], [x, copy], [edited])
        XCTAssertEqual(es.map(\.path.string), ["a", "b"])
        XCTAssertEqual(es.map { $0.text("password") }, ["2", "1"])
    }

    func testInputOrderDoesNotMatter() {
        let es = (1...5).map { M.entry(M.id($0), "e\($0)", ["password": "\($0)"]) }
        let ours = es.map { M.edited($0, "notes", "o", at: 3, origin: "laptop") }
        let theirs = es.map { M.edited($0, "notes", "t", at: 3, origin: "phone") }
        let a = VaultMerge.merge(base: es, ours: ours, theirs: theirs)
        let b = VaultMerge.merge(base: es.reversed(), ours: ours.shuffled(), theirs: theirs.shuffled())
        XCTAssertEqual(M.bytes(a.entries), M.bytes(b.entries))
        XCTAssertEqual(a.resolutions, b.resolutions)
    }

    // MARK: header

    func secret(_ s: String) -> SecretBytes { SecretBytes(utf8: s) }

    func testHeaderPassphraseChangedOnBothSidesOpensWithEither() throws {
        let (base, key) = try VaultHeader.create(passphrase: secret("old"), level: .minimum)
        let ours = try base.rewrapped(vaultKey: key, newPassphrase: secret("ours"), level: .minimum)
        let theirs = try base.rewrapped(vaultKey: key, newPassphrase: secret("theirs"), level: .minimum)
        let (merged, r) = try VaultMerge.mergeHeaders(base: base, ours: ours, theirs: theirs)
        XCTAssertEqual(merged.keySlots.count, 2)
        XCTAssertTrue(try merged.unlock(passphrase: secret("ours")).constantTimeEquals(key))
        XCTAssertTrue(try merged.unlock(passphrase: secret("theirs")).constantTimeEquals(key))
        XCTAssertThrowsError(try merged.unlock(passphrase: secret("old")))
        XCTAssertEqual(r.map(\.kind), [.keySlotsMerged])
        XCTAssertEqual(try VaultMerge.mergeHeaders(base: base, ours: theirs, theirs: ours).0.serialized(), merged.serialized())

        let (oneSide, none) = try VaultMerge.mergeHeaders(base: base, ours: base, theirs: theirs)
        XCTAssertEqual(oneSide, theirs)
        XCTAssertEqual(none, [])
        XCTAssertEqual(try VaultMerge.mergeHeaders(base: theirs, ours: merged, theirs: theirs).0, merged, "idempotent")
    }

    func testHeadersOfDifferentVaultsDoNotMerge() throws {
        let (a, _) = try VaultHeader.create(passphrase: secret("a"), level: .minimum)
        let (b, _) = try VaultHeader.create(passphrase: secret("b"), level: .minimum)
        XCTAssertThrowsError(try VaultMerge.mergeHeaders(base: a, ours: a, theirs: b)) { e in
            XCTAssertEqual((e as? CoreError)?.kind, "different-vault")
            XCTAssertTrue((e as? CoreError)?.errorDescription?.contains("hint:") ?? false)
        }
        XCTAssertThrowsError(try VaultMerge.mergeHeaders(base: nil, ours: b, theirs: a))
    }
}
