// Three replicas edit and merge pairwise over an in-memory commit graph; they must converge and keep every value.
import Foundation
import TestSupport
import XCTest
@testable import TresorCore

final class MergeConvergenceTests: XCTestCase {
    typealias M = MergeFixture

    /// A tiny commit graph of vault states; `ancestors[c]` includes `c`.
    struct History {
        var states: [[Entry]] = []
        var ancestors: [Set<Int>] = []

        mutating func commit(_ state: [Entry], parents: [Int]) -> Int {
            let c = states.count
            states.append(state)
            ancestors.append(parents.reduce(into: Set([c])) { $0.formUnion(ancestors[$1]) })
            return c
        }

        /// A best common ancestor, as git picks one: common, and not an ancestor of another common one.
        /// With several (criss-cross) the newest is taken, so the choice is deterministic.
        func mergeBase(_ a: Int, _ b: Int) -> (base: Int, candidates: Int) {
            let common = ancestors[a].intersection(ancestors[b])
            let best = common.filter { c in !common.contains { $0 != c && ancestors[$0].contains(c) } }
            return (best.max()!, best.count)
        }
    }

    struct Write: Hashable { var id: String; var value: [UInt8] }

    func testThreeReplicasConverge() {
        var crissCross = 0
        for seed in 0..<UInt64(25) { crissCross += simulate(seed: seed, steps: 120) }
        XCTAssertGreaterThan(crissCross, 0, "no merge had two best common ancestors")
    }

    func same(_ a: [Entry], _ b: [Entry]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { MergeOrder.same($0, $1) }
    }

    func sorted(_ s: [Entry]) -> [Entry] { s.sorted { $0.path < $1.path } }

    /// Runs one simulation; returns how many merges had several best common ancestors.
    func simulate(seed: UInt64, steps: Int) -> Int {
        var g = RandomVault(rng: SplitMix64(seed: 30_000 + seed))
        var graph = History()
        let root = graph.commit(g.base(), parents: [])
        var heads = [root, root, root]
        var clock = 20
        var written = Set<Write>()
        var deleted = Set<String>()
        var merges = 0, crissCross = 0
        let ctx = "seed \(seed)"

        func log(old: [Entry], new: [Entry]) {
            let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for e in new {
                for (name, f) in e.fields where !MergeOrder.same(f, before[e.id]?.fields[name]) {
                    written.insert(Write(id: e.id, value: Array(name.utf8) + [0] + f.value.json.canonicalBytes()))
                }
            }
            deleted.formUnion(Set(old.map(\.id)).subtracting(new.map(\.id)))
        }

        /// Replica `r` merges replica `s`'s head, fast-forwarding when git would.
        func pull(_ r: Int, from s: Int) {
            let a = heads[r], b = heads[s]
            if graph.ancestors[a].contains(b) { return }
            if graph.ancestors[b].contains(a) {
                let three = VaultMerge.merge(base: graph.states[a], ours: graph.states[a], theirs: graph.states[b]).entries
                XCTAssertTrue(same(three, sorted(graph.states[b])), "merge with an ancestor is a fast-forward, \(ctx)")
                heads[r] = b
                return
            }
            let (c, candidates) = graph.mergeBase(a, b)
            if candidates > 1 { crissCross += 1 }
            let base = graph.states[c]
            let merged = VaultMerge.merge(base: base, ours: graph.states[a], theirs: graph.states[b])
            let swapped = VaultMerge.merge(base: base, ours: graph.states[b], theirs: graph.states[a])
            XCTAssertTrue(same(merged.entries, swapped.entries), "symmetry, \(ctx)")
            heads[r] = graph.commit(merged.entries, parents: [a, b])
            merges += 1
        }

        for _ in 0..<steps {
            clock += g.int(0...1)
            let r = g.int(0...2)
            if g.chance(0.6) {
                let old = graph.states[heads[r]]
                let addIDs = (100 + 10 * r)...(103 + 10 * r)
                let new = g.mutate(old, origins: ["r\(r)"], times: clock...clock, addIDs: addIDs)
                log(old: old, new: new)
                heads[r] = graph.commit(new, parents: [heads[r]])
            } else {
                pull(r, from: (r + g.int(1...2)) % 3)
            }
        }
        // Everyone exchanges until all three hold the same vault.
        var rounds = 0
        func converged() -> Bool { heads.allSatisfy { same(sorted(graph.states[$0]), sorted(graph.states[heads[0]])) } }
        while !converged() && rounds < 20 {
            pull(0, from: 1); pull(0, from: 2); pull(1, from: 0); pull(2, from: 0)
            rounds += 1
        }
        let final = graph.states[heads[0]]
        XCTAssertTrue(converged(), "did not converge, \(ctx)")
        XCTAssertEqual(Set(final.map(\.path.collisionKey)).count, final.count, "colliding paths, \(ctx)")
        XCTAssertGreaterThan(merges, 0, ctx)

        // No value lost: every value written on any replica, in an entry no replica deleted, is still there.
        let byID = Dictionary(final.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for e in final {
            let counts = Dictionary(grouping: e.history, by: \.field).mapValues(\.count)
            XCTAssertLessThan(counts.values.max() ?? 0, Entry.historyLimitPerField, "the simulation must stay under the cap, \(ctx)")
        }
        for w in written where !deleted.contains(w.id) {
            guard let e = byID[w.id] else { XCTFail("entry \(w.id) disappeared, \(ctx)"); continue }
            XCTAssertTrue(M.values(e).contains(w.value), "a value of \(w.id) was lost, \(ctx)")
        }
        return crissCross
    }
}
