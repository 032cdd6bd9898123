// Edit versus delete across histories (Spec/MERGE.md §3.2.1): what a side wrote before deleting an entry survives.
import Foundation
@testable import Tresor
@testable import TresorCore
import XCTest

final class DeletedVersionsTests: VaultTestCase {
    /// Two replicas each edit then delete an entry while a third edits it: both earlier values survive,
    /// not only the one on the merge's first-parent chain.
    func testEditsBeforeDeletionsOnTwoReplicasSurviveAnEditOnAThird() throws {
        let r = try replicas(3) { try $0.add(try self.entry("Email/gmail", ["password": "p0", "username": "u0"])) }
        try edit(r[0], "Email/gmail", ["password": "A-from-r0-before-rm"])
        try r[0].remove(try EntryPath("Email/gmail"))
        try edit(r[1], "Email/gmail", ["username": "B-from-r1-before-rm"])
        try r[1].remove(try EntryPath("Email/gmail"))
        try edit(r[2], "Email/gmail", ["notes": "from r2"])
        _ = try r[0].sync(credentials: .none)
        _ = try r[1].sync(credentials: .none)   // deleted on both: gone
        let outcome = try r[2].sync(credentials: .none)
        XCTAssertTrue(outcome.resolutions.contains { $0.kind == .editDeleteKeptEdit }, "\(outcome.resolutions)")
        for v in r { _ = try v.sync(credentials: .none) }
        for v in r {
            let e = try v.read(try EntryPath("Email/gmail"))
            XCTAssertEqual(e.text("notes"), "from r2")
            XCTAssertTrue(values(e, "password").contains("A-from-r0-before-rm"), "\(e.history)")
            XCTAssertTrue(values(e, "username").contains("B-from-r1-before-rm"), "\(e.history)")
        }
    }

    /// An edit and a deletion made on one replica reach another through a merge (so they are not on the
    /// first-parent chain of the deleting side) and meet an edit on a third.
    func testAnEditBeforeADeletionThatArrivedThroughAMergeSurvives() throws {
        let r = try replicas(3) { v in
            try v.add(try self.entry("Email/gmail", ["password": "p0"]))
            try v.add(try self.entry("Bank/ing", ["password": "b0"]))
        }
        try edit(r[0], "Email/gmail", ["password": "edited-before-rm"])
        try r[0].remove(try EntryPath("Email/gmail"))
        _ = try r[0].sync(credentials: .none)
        try edit(r[1], "Bank/ing", ["username": "r1 own change"])
        let merge = try r[1].sync(credentials: .none)       // a merge commit whose second parent deleted the entry
        XCTAssertFalse(merge.fastForwarded)
        try edit(r[2], "Email/gmail", ["username": "edited on r2"])
        _ = try r[2].sync(credentials: .none)
        let e = try r[2].read(try EntryPath("Email/gmail"))
        XCTAssertEqual(e.text("username"), "edited on r2")
        XCTAssertTrue(values(e, "password").contains("edited-before-rm"), "\(e.fields) \(e.history)")
    }
}
