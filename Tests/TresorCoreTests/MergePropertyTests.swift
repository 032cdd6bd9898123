// Seeded random merges: symmetry, determinism, identity, idempotence, no value lost (Spec/MERGE.md §11).
import Foundation
import TestSupport
import XCTest
@testable import TresorCore

/// Random vault states and the edits a replica makes, with small pools so ties and collisions are common.
struct RandomVault {
    typealias M = MergeFixture
    static let fieldNames = ["password", "username", "notes", "pin", "cl\u{E9}"]
    static let values = ["a", "b", "c", "caf\u{E9}", "cafe\u{301}", "longer value", "z"]
    static let paths = ["a", "b", "c", "d/e", "D/E", "d/f"]
    var rng: SplitMix64

    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
    mutating func pick<T>(_ a: [T]) -> T { a[int(0...a.count - 1)] }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    static func freePath(_ state: [Entry], _ candidates: [String]) -> String? {
        let used = Set(state.map(\.path.collisionKey))
        return candidates.first { !used.contains(M.path($0).collisionKey) }
    }

    mutating func base() -> [Entry] {
        var state: [Entry] = []
        for i in 0..<int(0...4) {
            guard let p = Self.freePath(state, Self.paths.shuffled(using: &rng)) else { break }
            var e = M.entry(M.id(i + 1), p, at: Int64(int(0...3)))
            for _ in 0..<int(0...4) { M.edit(&e, pick(Self.fieldNames), pick(Self.values), at: Int64(int(0...9)), origin: pick(["laptop", "phone"])) }
            state.append(e)
        }
        return state
    }

    /// One to four entries added with no base, ids from a small pool so both sides often add the same id.
    mutating func added(origin: String) -> [Entry] {
        var s: [Entry] = []
        for _ in 0..<int(1...4) {
            let id = M.id(int(1...4))
            guard !s.contains(where: { $0.id == id }), let p = Self.freePath(s, Self.paths.shuffled(using: &rng)) else { continue }
            var e = M.entry(id, p, at: Int64(int(0...4)), [pick(Self.fieldNames): pick(Self.values)], origin: origin)
            for _ in 0..<int(0...3) { M.edit(&e, pick(Self.fieldNames), pick(Self.values), at: Int64(int(0...4)), origin: origin) }
            s.append(e)
        }
        return s
    }

    /// One replica's random edits: field sets and deletes, moves, adds (ids from a pool both sides share,
    /// so the same id can be added twice) and deletes. Moves and adds only use free paths, as `tresor` does.
    mutating func mutate(_ state: [Entry], origins: [String], times: ClosedRange<Int>, addIDs: ClosedRange<Int> = 100...103) -> [Entry] {
        var s = state
        for _ in 0..<int(0...4) {
            let t = Int64(int(times)), origin = pick(origins)
            switch int(0...19) {
            case 0...10 where !s.isEmpty:
                let i = int(0...s.count - 1)
                M.edit(&s[i], pick(Self.fieldNames), chance(0.2) ? nil : pick(Self.values), at: t, origin: origin)
            case 11...13 where !s.isEmpty:
                let i = int(0...s.count - 1)
                if let p = Self.freePath(s, Self.paths.shuffled(using: &rng)) { s[i] = M.moved(s[i], to: p, at: t) }
            case 14...16:
                let id = M.id(int(addIDs))
                guard !s.contains(where: { $0.id == id }), let p = Self.freePath(s, Self.paths.shuffled(using: &rng)) else { break }
                var e = M.entry(id, p, at: t, [pick(Self.fieldNames): pick(Self.values)], origin: origin)
                if chance(0.5) { M.edit(&e, pick(Self.fieldNames), pick(Self.values), at: t, origin: origin) }
                s.append(e)
            case 17...18 where !s.isEmpty:
                s.remove(at: int(0...s.count - 1))
            default: break
            }
        }
        return s
    }
}

final class MergePropertyTests: XCTestCase {
    typealias M = MergeFixture
    static let cases = 400

    func merge(_ b: [Entry], _ o: [Entry], _ t: [Entry]) -> [String] { M.bytes(VaultMerge.merge(base: b, ours: o, theirs: t).entries) }

    func testRandomMergesKeepEveryProperty() {
        var seen = Set<String>()
        for seed in 0..<UInt64(Self.cases) {
            var g = RandomVault(rng: SplitMix64(seed: seed))
            let b = g.base()
            // Base ids never come back after a delete: adds draw from their own pool.
            let o = g.mutate(b, origins: ["laptop", "desk"], times: 10...19)
            let t = g.mutate(b, origins: ["phone", "desk"], times: 10...19)
            let (r, resolutions) = VaultMerge.merge(base: b, ours: o, theirs: t)
            seen.formUnion(resolutions.map(\.kind.name))
            let rb = M.bytes(r)
            let ctx = "seed \(seed)"

            // Deterministic and symmetric, whatever the order of the inputs.
            let swapped = VaultMerge.merge(base: b.shuffled(using: &g.rng), ours: t.shuffled(using: &g.rng), theirs: o.shuffled(using: &g.rng))
            XCTAssertEqual(M.bytes(swapped.entries), rb, "symmetry, \(ctx)")
            XCTAssertEqual(swapped.resolutions, resolutions, "report symmetry, \(ctx)")

            // Identity.
            XCTAssertEqual(merge(o, o, o), M.bytes(o.sorted { $0.path < $1.path }), "merge(x,x,x), \(ctx)")
            XCTAssertEqual(merge(b, b, o), merge(o, o, o), "merge(b,b,o), \(ctx)")
            XCTAssertEqual(merge(b, o, b), merge(o, o, o), "merge(b,o,b), \(ctx)")
            XCTAssertEqual(merge(b, o, o), merge(o, o, o), "merge(b,o,o), \(ctx)")

            // Idempotence: with the input as base (git's view after the merge) and with the old base.
            XCTAssertEqual(merge(o, r, o), rb, "merge(o,r,o), \(ctx)")
            XCTAssertEqual(merge(t, t, r), rb, "merge(t,t,r), \(ctx)")
            XCTAssertEqual(merge(b, r, o), rb, "merge(b,r,o), \(ctx)")
            XCTAssertEqual(merge(b, t, r), rb, "merge(b,t,r), \(ctx)")

            checkValid(r, ctx)
            checkNoValueLost(base: b, sides: [o, t], result: r, ctx)
        }
        // The generator must reach the interesting cases, or the properties above prove little.
        XCTAssertTrue(seen.isSuperset(of: ["field-conflict", "field-delete-kept-edit", "edit-delete-kept-edit", "delete-both",
                                           "rename-conflict", "path-collision-renamed"]), "only saw \(seen.sorted())")
    }

    func testAddedOnBothSidesWithoutBase() {
        for seed in 0..<UInt64(Self.cases / 2) {
            var g = RandomVault(rng: SplitMix64(seed: 10_000 + seed))
            let o = g.mutate(g.added(origin: "laptop"), origins: ["laptop"], times: 5...9)
            let t = g.mutate(g.added(origin: "phone"), origins: ["phone"], times: 5...9)
            let r = VaultMerge.merge(base: [], ours: o, theirs: t)
            XCTAssertEqual(M.bytes(r.entries), merge([], t, o), "symmetry, seed \(seed)")
            checkValid(r.entries, "seed \(seed)")
            checkNoValueLost(base: [], sides: [o, t], result: r.entries, "seed \(seed)")
        }
    }

    /// Every (field, value) current or in history on a side is current or in history in the result,
    /// unless the entry is gone because one side deleted it and the other did not change it.
    func checkNoValueLost(base: [Entry], sides: [[Entry]], result: [Entry], _ ctx: String, file: StaticString = #filePath, line: UInt = #line) {
        let byID = Dictionary(result.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for side in sides {
            for e in side {
                guard let merged = byID[e.id] else {
                    let original = base.first { $0.id == e.id }
                    XCTAssertEqual(M.bytes(original), M.bytes(e), "entry \(e.id) lost though changed, \(ctx)", file: file, line: line)
                    continue
                }
                XCTAssertTrue(M.values(e).isSubset(of: M.values(merged)), "a value of \(e.id) was lost, \(ctx)", file: file, line: line)
            }
        }
    }

    func checkValid(_ r: [Entry], _ ctx: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(r.map(\.path.collisionKey)).count, r.count, "colliding paths, \(ctx)", file: file, line: line)
        XCTAssertEqual(Set(r.map(\.id)).count, r.count, "duplicate ids, \(ctx)", file: file, line: line)
        for e in r {
            XCTAssertEqual(e.history, e.history.sorted { MergeOrder.historyCompare($0, $1) < 0 }, "history order, \(ctx)", file: file, line: line)
            XCTAssertTrue(e.fields.values.allSatisfy { $0.modified <= e.modified }, "entry modified, \(ctx)", file: file, line: line)
            XCTAssertNoThrow(try Entry(id: e.id, payload: e.payloadJSON()), "payload readable, \(ctx)", file: file, line: line)
        }
    }

    /// The cap, tested apart: random histories far over the limit keep exactly the newest 64 per field
    /// of the union, in both side orders.
    func testHistoryCapKeepsTheNewestPerField() {
        for seed in 0..<UInt64(30) {
            var g = RandomVault(rng: SplitMix64(seed: 20_000 + seed))
            let b = M.entry(M.id(1), "a", ["password": "start", "notes": "start"])
            var o = b, t = b
            for i in 0..<g.int(30...120) { M.edit(&o, g.pick(["password", "notes"]), "o\(i)", at: Int64(g.int(1...500)), origin: "laptop") }
            for i in 0..<g.int(30...120) { M.edit(&t, g.pick(["password", "notes"]), "t\(i)", at: Int64(g.int(1...500)), origin: "phone") }
            let r = EntryMerge.merge(base: b, ours: o, theirs: t).entry!
            let rs = EntryMerge.merge(base: b, ours: t, theirs: o).entry!
            XCTAssertEqual(M.bytes(r), M.bytes(rs), "seed \(seed)")
            var losers: [HistoryItem] = []
            for name in ["password", "notes"] {
                let (x, y) = (o.fields[name]!, t.fields[name]!)
                guard !MergeOrder.same(x, b.fields[name]), !MergeOrder.same(y, b.fields[name]) else { continue }
                let (w, l) = MergeOrder.fieldLess(x, y) ? (y, x) : (x, y)
                losers.append(HistoryItem(field: name, value: l.value, modified: l.modified, origin: l.origin, replaced: w.modified, reason: "merge"))
            }
            for name in ["password", "notes"] {
                var union: [HistoryItem] = []
                for h in (o.history + t.history + losers).sorted(by: { MergeOrder.historyCompare($0, $1) < 0 }) where h.field == name {
                    if union.last.map({ MergeOrder.historyCompare($0, h) != 0 }) ?? true { union.append(h) }
                }
                let kept = r.history.filter { $0.field == name }
                XCTAssertEqual(kept.count, min(union.count, Entry.historyLimitPerField), "seed \(seed)")
                XCTAssertEqual(kept, Array(union.suffix(Entry.historyLimitPerField)), "seed \(seed)")
            }
        }
    }
}
