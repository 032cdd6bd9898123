// Seeded random runs of replicas that edit and sync through one remote by StateJoin, checked against what each replica
// had seen (Spec/MERGE.md §2, §10); the entry join's algebra on versions from those runs. A failing run is shrunk.
@testable import TresorCore
import TestSupport
import XCTest

final class JoinPropertyTests: XCTestCase {
    /// The fast tier: a few seeds of a few hundred operations.
    func testInvariantHoldsOnRandomRuns() {
        var applied: [JoinSimulation.Kind: Int] = [:], records: [String: Int] = [:]
        for seed in [1, 2, 3] as [UInt64] {
            let sim = JoinSimulation.check(seed: seed, replicas: 4, operations: 200)
            applied.merge(sim.applied, uniquingKeysWith: +)
            records.merge(sim.records, uniquingKeysWith: +)
        }
        // The runs do what they are for: every kind of operation, concurrent writes, collisions, entries that came back.
        for kind in JoinSimulation.Kind.allCases { XCTAssertGreaterThan(applied[kind, default: 0], 0, "no \(kind) was applied") }
        XCTAssertGreaterThan(records["field-conflict", default: 0], 0, "no concurrent writes of one field")
        XCTAssertGreaterThan(records["path-collision-renamed", default: 0], 0, "no path collision")
    }

    func testEntryJoinAlgebraOnVersionsOfRandomRuns() {
        for seed in [11, 12, 13] as [UInt64] { JoinSimulation.checkAlgebra(seed: seed, replicas: 3, operations: 200, triples: 300) }
    }

    /// The checker must see a lost value: a sync that drops the remote's entries (a broken join) is caught and shrunk.
    func testACheckerThatSeesALostValue() {
        let ops = JoinSimulation.generate(seed: 5, replicas: 3, count: 120)
        var broken = JoinSimulation(seed: 5, replicas: 3)
        broken.dropRemoteOnSync = true
        let problem = broken.run(ops)
        XCTAssertNotNil(problem, "a join that forgets the remote's entries must fail the check")
        let minimal = JoinSimulation.shrink(ops) { var s = JoinSimulation(seed: 5, replicas: 3); s.dropRemoteOnSync = true; return s.run($0) != nil }
        XCTAssertLessThan(minimal.count, ops.count)
        XCTAssertLessThanOrEqual(minimal.count, 6, "shrunk to a handful of operations: \(minimal)")
        var again = JoinSimulation(seed: 5, replicas: 3)
        again.dropRemoteOnSync = true
        XCTAssertNotNil(again.run(minimal), "the shrunk sequence still fails")
    }
}

/// Spec/MERGE.md §10 says the entry join is associative; by §5.2 and §5.4 the loser of two live writes becomes a
/// history item only where the two meet while both are live. Three versions where the third has seen (and, by deleting
/// the entry, removed) both writes: (a ⊔ b) ⊔ c keeps a's value in the history, a ⊔ (b ⊔ c) does not.
final class EntryJoinAssociativityTests: XCTestCase {
    func testAssociativityAgainstALaterVersionThatSawBothWrites() throws {
        let r1 = "1111111111111111", r2 = "2222222222222222"
        func change(_ replica: String, _ n: UInt64, _ seconds: Int64) -> Change {
            Change(time: Timestamp(milliseconds: 1_800_000_000_000 + seconds * 1000), origin: "device-" + replica.prefix(1), dot: Dot(replica: replica, counter: n))
        }
        var base = Entry(path: try EntryPath("mail/work"), change: change(r2, 1, 0))
        base.id = "11111111-1111-4111-8111-111111111111"
        try base.set("password", .text("p"), change: change(r2, 1, 0))
        var a = base, b = base, c = base
        try a.set("pin", .text("a"), change: change(r1, 2, 2))
        try b.set("pin", .text("b"), change: change(r2, 3, 3))
        // c: a version whose clock covers both pin writes without holding them (r1 and r2 had seen them; the entry was
        // deleted and came back by an edit that had not, then r1 and r2 changed it again).
        try c.set("notes", .text("c"), change: change(r1, 5, 5))
        try c.set("username", .text("u"), change: change(r2, 4, 6))
        let left = EntryJoin.join(EntryJoin.join(a, b).entry, c).entry
        let right = EntryJoin.join(a, EntryJoin.join(b, c).entry).entry
        XCTAssertEqual(left.fields.keys.sorted(), right.fields.keys.sorted(), "the current fields agree")
        XCTAssertEqual(left.clock, right.clock)
        XCTAssertTrue(JoinSimulation.sameButMergeHistory(left, right), "they differ in the history items of the losing write only")
        KnownIssue.expect("MERGE.md §10 says the entry join is associative; by §5.2/§5.4 (a ⊔ b) ⊔ c keeps a's pin as a merge item of the "
                          + "history and a ⊔ (b ⊔ c) does not") {
            left.isIdentical(to: right)
        }
    }
}

/// A check of what the Spec says that the code (or the Spec) does not meet yet. XCTest on Linux has no
/// `XCTExpectFailure`: the issue is printed and the test passes while the check fails; once it holds, the test fails so
/// that the marker is removed.
enum KnownIssue {
    static func expect(_ issue: String, file: StaticString = #filePath, line: UInt = #line, _ holds: () throws -> Bool) rethrows {
        if try holds() {
            XCTFail("known issue no longer occurs, remove the marker: \(issue)", file: file, line: line)
        } else {
            print("known issue: \(issue)")
        }
    }
}

/// The deep tier: many seeds, thousands of operations each.
final class JoinPropertyDeepTests: XCTestCase {
    func testInvariantHoldsOnLongRandomRuns() throws {
        try requireDeepTier("join property runs over many seeds")
        for seed in 100..<112 as Range<UInt64> {
            JoinSimulation.check(seed: seed, replicas: 3 + Int(seed % 4), operations: 2000, commutativityEvery: 4)
        }
    }

    func testEntryJoinAlgebraOnLongRandomRuns() throws {
        try requireDeepTier("entry join algebra over many seeds")
        for seed in 200..<216 as Range<UInt64> { JoinSimulation.checkAlgebra(seed: seed, replicas: 4, operations: 1000, triples: 3000) }
    }
}
