// Merging scope headers and the vault header's scopes (Spec/MERGE.md §10, §14.3).
import Foundation
import XCTest
@testable import TresorCore

final class MergeScopeTests: XCTestCase {
    let vaultID = "6f1b2c3d-0000-4000-8000-000000000001"

    func scope(members: [String]) throws -> (ScopeHeader, SecretBytes, [String: Identity]) {
        var ids: [String: Identity] = [:]
        for m in members { ids[m] = Identity.generate() }
        let (h, key) = try ScopeHeader.create(vaultID: vaultID, folder: "Team", vaultKey: SecretBytes.random(count: 32),
                                              members: members.map { ($0, ids[$0]!.publicKey) })
        return (h, key, ids)
    }

    func testMembersAddedOnBothSidesAreUnitedAndEachOpensTheScope() throws {
        let (base, key, _) = try scope(members: ["carol"])
        let erin = Identity.generate(), frank = Identity.generate()
        let ours = try base.addingMember("erin", publicKey: erin.publicKey, scopeKey: key)
        let theirs = try base.addingMember("frank", publicKey: frank.publicKey, scopeKey: key)
        let (merged, r) = try ScopeMerge.mergeHeaders(base: base, ours: ours, theirs: theirs)
        XCTAssertEqual(Set(merged.recipientSlots.map(\.name)), ["carol", "erin", "frank"])
        XCTAssertEqual(merged.generation, 3)
        XCTAssertNil(merged.auth, "the merger authenticates it")
        XCTAssertEqual(merged.vaultSlot, base.vaultSlot)
        XCTAssertTrue(try merged.unlock(identity: erin).constantTimeEquals(key))
        XCTAssertTrue(try merged.unlock(identity: frank).constantTimeEquals(key))
        XCTAssertEqual(r.map(\.kind), [.keySlotsMerged])
        XCTAssertEqual(try ScopeMerge.mergeHeaders(base: base, ours: theirs, theirs: ours).0.serialized(), merged.serialized(), "symmetric")
        XCTAssertEqual(try ScopeMerge.mergeHeaders(base: base, ours: base, theirs: theirs).0, theirs, "one side unchanged: the other")
        XCTAssertEqual(try ScopeMerge.mergeHeaders(base: base, ours: ours, theirs: ours).0, ours)
    }

    func testAMemberRemovedOnOneSideStaysRemovedAndTheSameNameTwiceKeepsOne() throws {
        let (base, key, _) = try scope(members: ["carol", "dave"])
        var ours = base.changed()
        ours.recipientSlots.removeAll { $0.name == "dave" }
        let erin1 = Identity.generate(), erin2 = Identity.generate()
        let oursAdded = try ours.addingMember("erin", publicKey: erin1.publicKey, scopeKey: key)
        let theirs = try base.addingMember("erin", publicKey: erin2.publicKey, scopeKey: key)
        let (merged, _) = try ScopeMerge.mergeHeaders(base: base, ours: oursAdded, theirs: theirs)
        XCTAssertEqual(merged.recipientSlots.map(\.name).sorted(), ["carol", "erin"])
        XCTAssertEqual(try ScopeMerge.mergeHeaders(base: base, ours: theirs, theirs: oursAdded).0.serialized(), merged.serialized())
    }

    func testAnotherScopeDoesNotMerge() throws {
        let (a, _, _) = try scope(members: ["carol"])
        let (b, _, _) = try scope(members: ["carol"])
        XCTAssertThrowsError(try ScopeMerge.mergeHeaders(base: a, ours: a.changed(), theirs: b))
    }

    func testVaultHeaderScopesMadeOnBothSidesAreKeptAndNestedOnesRefused() throws {
        let (base, key) = try VaultHeader.create(passphrase: SecretBytes(utf8: "pw"), level: .minimum)
        var ours = try base.addingScope("11111111-0000-4000-8000-000000000000", folder: "Team")
        ours = try ours.rewrapped(vaultKey: key, newPassphrase: SecretBytes(utf8: "ours"), level: .minimum)
        let theirs = try base.addingScope("22222222-0000-4000-8000-000000000000", folder: "Ops")
            .rewrapped(vaultKey: key, newPassphrase: SecretBytes(utf8: "theirs"), level: .minimum)
        let (merged, _) = try VaultMerge.mergeHeaders(base: base, ours: ours, theirs: theirs)
        XCTAssertEqual(merged.scopes, ["11111111-0000-4000-8000-000000000000": "Team", "22222222-0000-4000-8000-000000000000": "Ops"])
        XCTAssertEqual(merged.version, ours.version)
        let nested = try base.addingScope("33333333-0000-4000-8000-000000000000", folder: "Team/Ops")
            .rewrapped(vaultKey: key, newPassphrase: SecretBytes(utf8: "nested"), level: .minimum)
        XCTAssertThrowsError(try VaultMerge.mergeHeaders(base: base, ours: ours, theirs: nested))
    }
}
