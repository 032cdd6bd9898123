// The model the join property tests run: replicas that edit and sync through one remote by StateJoin, the ground truth
// of what each has seen, the invariant of Spec/MERGE.md §2 checked on it, shrinking, and the entry join's algebra.
@testable import TresorCore
import TestSupport
import XCTest

/// One run: replicas with their own states, a remote, and the ground truth of what each replica has seen.
struct JoinSimulation {
    enum Kind: String, CaseIterable { case create, set, unset, move, copy, delete, restore, sync }

    /// One operation of one replica. `serial` is its place in the generated run (kept when shrinking), so every value
    /// and id it writes stays unique; `a` and `b` choose among what the replica holds when it runs.
    struct Op: CustomStringConvertible {
        var serial: Int
        var replica: Int
        var kind: Kind
        var a: Int
        var b: Int
        var description: String { "#\(serial) r\(replica) \(kind.rawValue)(\(a), \(b))" }
    }

    static let fields = ["password", "username", "pin", "notes"]
    static let folders = ["a", "b", "c"]
    static let names = ["x", "X", "y"]   // "a/x" and "a/X" collide (Spec/FORMAT.md §4.3)
    static let base = Timestamp(parsing: "2026-05-01T10:00:00.000Z")!

    final class Replica {
        let id: String
        let skew: Int64
        var entries: [String: Entry] = [:]
        var clock = Clock.empty
        var counter: UInt64 = 0
        /// Ground truth: the events (by global number) this state includes.
        var seen: Set<Int> = []
        /// The versions this replica deleted, by id (what `tresor restore` finds in history).
        var deleted: [String: [Entry]] = [:]
        init(id: String, skew: Int64) { self.id = id; self.skew = skew }
    }

    /// A value written: entry id, field, value text, the event that wrote it.
    struct Write { var id: String; var field: String; var value: String; var event: Int }
    /// A deletion: the entry id, the events the deleter had seen, and the values its version held.
    struct Deletion { var id: String; var seen: Set<Int>; var values: Set<String> }

    let seed: UInt64
    var replicas: [Replica]
    var remote: Replica
    var events = 0
    var tick: Int64 = 0
    var writes: [Write] = []
    var deletions: [Deletion] = []
    /// Every event that wrote to an entry id.
    var entryEvents: [String: Set<Int>] = [:]
    /// Versions met during the run, by entry id (for the algebra checks).
    var pool: [String: [Entry]] = [:]
    /// Test of the checker: the remote forgets its entries on every sync.
    var dropRemoteOnSync = false
    /// Every how many syncs the join is also computed in the other order and compared (Spec/MERGE.md §10: commutative).
    var commutativityEvery = 1
    var syncs = 0
    /// Operations that changed something, by kind, and the records the joins reported, by kind (coverage).
    var applied: [Kind: Int] = [:]
    var records: [String: Int] = [:]

    init(seed: UInt64, replicas count: Int) {
        self.seed = seed
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        replicas = (0..<count).map { i in
            Replica(id: String(repeating: String(format: "%x", i + 1), count: 16), skew: Int64.random(in: -30_000...30_000, using: &rng))
        }
        remote = Replica(id: "remote", skew: 0)
    }

    static func generate(seed: UInt64, replicas: Int, count: Int) -> [Op] {
        var rng = SplitMix64(seed: seed)
        let weights: [(Kind, Int)] = [(.create, 12), (.set, 28), (.unset, 7), (.move, 8), (.copy, 4), (.delete, 8), (.restore, 5), (.sync, 28)]
        let total = weights.map(\.1).reduce(0, +)
        return (0..<count).map { serial in
            var pick = Int.random(in: 0..<total, using: &rng)
            var kind = Kind.sync
            for (k, w) in weights { if pick < w { kind = k; break }; pick -= w }
            return Op(serial: serial, replica: Int.random(in: 0..<replicas, using: &rng), kind: kind,
                      a: Int.random(in: 0..<1000, using: &rng), b: Int.random(in: 0..<1000, using: &rng))
        }
    }

    // MARK: Running

    /// Runs `ops`, then lets every replica sync until all hold the remote's state, and checks the invariant. Returns the
    /// first problem, nil when the run is sound.
    mutating func run(_ ops: [Op]) -> String? {
        for op in ops {
            if let problem = apply(op) { return "\(op): \(problem)" }
        }
        for _ in 0..<2 {
            for r in replicas.indices { if let problem = sync(replicas[r]) { return "quiescing: \(problem)" } }
        }
        return check()
    }

    /// A new event of `r`: the next number it has used or seen for itself (Spec/FORMAT.md §11.3), in its domain clock and
    /// its ground truth.
    mutating func event(_ r: Replica) -> (Change, Int) {
        r.counter = max(r.counter, r.clock[r.id]) + 1
        let dot = Dot(replica: r.id, counter: r.counter)
        r.clock.advance(to: dot)
        events += 1
        r.seen.insert(events)
        let time = Timestamp(milliseconds: Self.base.milliseconds + tick * 1000 + r.skew)
        return (Change(time: time, origin: "device-\(r.id.prefix(1))", dot: dot), events)
    }

    /// A path of `r`'s state that collides with no other entry (a person picks a free path; collisions come from joins).
    func freePath(_ wanted: String, in r: Replica, for id: String) -> EntryPath {
        var candidate = wanted, n = 2
        while true {
            let p = try! EntryPath(candidate)
            if !r.entries.values.contains(where: { $0.id != id && $0.path.collisionKey == p.collisionKey }) { return p }
            candidate = wanted + "-\(n)"
            n += 1
        }
    }

    /// Keeps a version met in the run for the algebra checks; a version with the clock and path of the last one kept is
    /// that version (only a path-collision rename changes an entry without a write).
    mutating func remember(_ e: Entry) {
        var versions = pool[e.id, default: []]
        if let last = versions.last, last.clock == e.clock, MergeOrder.same(last.path.string, e.path.string) { return }
        versions.append(e)
        if versions.count > 24 { versions.removeFirst(versions.count - 24) }
        pool[e.id] = versions
    }

    mutating func apply(_ op: Op) -> String? {
        tick += 1
        let before = events
        defer { if events > before || op.kind == .sync { applied[op.kind, default: 0] += 1 } }
        let r = replicas[op.replica]
        let ids = r.entries.keys.sorted()
        func pickEntry() -> Entry? { ids.isEmpty ? nil : r.entries[ids[op.a % ids.count]] }
        func path(_ k: Int) -> String { Self.folders[k % Self.folders.count] + "/" + Self.names[(k / 3) % Self.names.count] }
        func value(_ field: String) -> String { "s\(op.serial).\(field)" }
        switch op.kind {
        case .create:
            let (change, ev) = event(r)
            let id = String(format: "%08x-0000-4000-8000-%012x", op.serial, seed & 0xFFFF_FFFF)
            var e = Entry(path: freePath(path(op.b), in: r, for: id), change: change)
            e.id = id
            for f in ["password", "username"] {
                try! e.set(f, .text(SecretText(value(f))), change: change)
                writes.append(Write(id: id, field: f, value: value(f), event: ev))
            }
            entryEvents[id, default: []].insert(ev)
            r.entries[id] = e
            remember(e)
        case .set:
            guard var e = pickEntry() else { return nil }
            let f = Self.fields[op.b % Self.fields.count]
            let (change, ev) = event(r)
            guard (try? e.set(f, .text(SecretText(value(f))), change: change)) == true else { return "a set of a new value changed nothing" }
            writes.append(Write(id: e.id, field: f, value: value(f), event: ev))
            entryEvents[e.id, default: []].insert(ev)
            r.entries[e.id] = e
            remember(e)
        case .unset:
            guard var e = pickEntry(), !e.fields.isEmpty else { return nil }
            let f = e.fields.keys.sorted()[op.b % e.fields.count]
            let (change, ev) = event(r)
            guard (try? e.set(f, nil, change: change)) == true else { return "removing a field changed nothing" }
            entryEvents[e.id, default: []].insert(ev)
            r.entries[e.id] = e
            remember(e)
        case .move:
            guard var e = pickEntry() else { return nil }
            let target = freePath(path(op.b), in: r, for: e.id)
            guard !MergeOrder.same(target.string, e.path.string) else { return nil }
            let (change, ev) = event(r)
            e.move(to: target, change: change)
            entryEvents[e.id, default: []].insert(ev)
            r.entries[e.id] = e
            remember(e)
        case .copy:
            guard let source = pickEntry() else { return nil }
            let (change, ev) = event(r)
            let id = String(format: "%08x-0000-4000-8000-%012x", op.serial, seed & 0xFFFF_FFFF)
            var c = Entry(path: freePath(source.path.string + "-copy", in: r, for: id), change: change)
            c.id = id
            for (f, field) in source.fields.sorted(by: { $0.key < $1.key }) {
                try! c.set(f, field.value, change: change)
                writes.append(Write(id: id, field: f, value: field.value.displayText, event: ev))
            }
            entryEvents[id, default: []].insert(ev)
            r.entries[id] = c
            remember(c)
        case .delete:
            guard let e = pickEntry() else { return nil }
            _ = event(r)
            deletions.append(Deletion(id: e.id, seen: r.seen, values: Self.values(of: e)))
            r.deleted[e.id, default: []].append(e)
            r.entries[e.id] = nil
        case .restore:
            let candidates = r.deleted.keys.sorted().filter { r.entries[$0] == nil }
            guard !candidates.isEmpty else { return nil }
            let id = candidates[op.a % candidates.count]
            let versions = r.deleted[id]!
            // Spec/MERGE.md §7: every deleted version joined, then written as a change of this replica that changes
            // only the clock (Spec/FORMAT.md §11.8 *restore*); moved when its path is taken meanwhile.
            var restored = versions.dropFirst().reduce(versions[0]) { EntryJoin.join($0, $1).entry }
            let (change, ev) = event(r)
            restored.clock.advance(to: change.dot)
            let target = freePath(restored.path.string, in: r, for: id)
            if !MergeOrder.same(target.string, restored.path.string) { restored.move(to: target, change: change) }
            entryEvents[id, default: []].insert(ev)
            r.entries[id] = restored
            remember(restored)
        case .sync:
            return sync(r)
        }
        return nil
    }

    static func side(_ r: Replica) -> JoinSide {
        JoinSide(entries: Array(r.entries.values), clocks: [Domain.vault: r.clock], domain: { _ in Domain.vault })
    }

    /// `r` syncs: the remote becomes the join of the two states (computed in both orders, which must agree: Spec/MERGE.md
    /// §10), and `r` takes it.
    mutating func sync(_ r: Replica) -> String? {
        if dropRemoteOnSync { remote.entries = [:] }
        syncs += 1
        let one = StateJoin.join(Self.side(remote), Self.side(r), domain: { _ in Domain.vault }, readable: { _ in true })
        guard one.conflicts.isEmpty else { return "the join stopped: \(one.conflicts)" }
        if syncs % commutativityEvery == 0 {
            let other = StateJoin.join(Self.side(r), Self.side(remote), domain: { _ in Domain.vault }, readable: { _ in true })
            guard other.conflicts.isEmpty else { return "the join stopped: \(other.conflicts)" }
            guard one.entries.count == other.entries.count, zip(one.entries, other.entries).allSatisfy({ $0.isIdentical(to: $1) }) else {
                return "the state join is not commutative: \(Self.describe(one.entries)) vs \(Self.describe(other.entries))"
            }
            guard one.resolutions.map({ $0.json.canonicalBytes() }) == other.resolutions.map({ $0.json.canonicalBytes() }) else {
                return "the state join reports different records in the two orders"
            }
        }
        var ids = Set<String>()
        for e in one.entries {
            guard ids.insert(e.id).inserted else { return "the join holds id \(e.id) twice" }
        }
        var keys = Set<String>()
        for e in one.entries {
            guard keys.insert(e.path.collisionKey).inserted else { return "the join left two entries at \(e.path)" }
        }
        for r in one.resolutions { records[r.kind.name, default: 0] += 1 }
        remote.entries = Dictionary(uniqueKeysWithValues: one.entries.map { ($0.id, $0) })
        remote.clock = remote.clock.joined(r.clock)
        remote.seen.formUnion(r.seen)
        r.entries = remote.entries
        r.clock = remote.clock
        r.seen = remote.seen
        for e in one.entries { remember(e) }
        return nil
    }

    static func values(of e: Entry) -> Set<String> {
        Set(e.fields.values.map(\.value.displayText) + e.history.map(\.value.displayText))
    }

    static func describe(_ entries: [Entry]) -> String {
        entries.map { "\($0.id.prefix(8))@\($0.path)" }.joined(separator: ", ")
    }

    /// Spec/MERGE.md §2 and §10 once every replica has synced: one state everywhere; every value ever written current
    /// or in its entry's history unless a replica that had seen it deleted the entry (or the cap of 64 items per field
    /// dropped it); an entry deleted by a replica that had seen every write to it stays deleted.
    func check() -> String? {
        for r in replicas {
            guard r.clock == remote.clock, r.entries.count == remote.entries.count,
                  r.entries.allSatisfy({ id, e in remote.entries[id]?.isIdentical(to: e) == true }) else {
                return "replica \(r.id.prefix(1)) does not hold the remote's state after syncing"
            }
        }
        for w in writes {
            let e = remote.entries[w.id]
            if let e, Self.values(of: e).contains(w.value) { continue }
            if deletions.contains(where: { $0.id == w.id && $0.seen.contains(w.event) && $0.values.contains(w.value) }) { continue }
            if let e, e.history.filter({ MergeOrder.same($0.field, w.field) }).count >= Entry.historyLimitPerField { continue }
            return "lost: the value \(w.value) of entry \(w.id.prefix(8)) (event \(w.event))" + (e == nil ? ", the entry is gone" : "")
        }
        for d in deletions where remote.entries[d.id] != nil {
            if (entryEvents[d.id] ?? []).isSubset(of: d.seen) {
                return "came back: entry \(d.id.prefix(8)) was deleted by a replica that had seen every write to it"
            }
        }
        return nil
    }

    // MARK: Checking and shrinking

    /// Runs a generated sequence and fails the test with the shrunk sequence when the invariant breaks.
    @discardableResult
    static func check(seed: UInt64, replicas: Int, operations: Int, commutativityEvery: Int = 1,
                      file: StaticString = #filePath, line: UInt = #line) -> JoinSimulation {
        let ops = generate(seed: seed, replicas: replicas, count: operations)
        func simulation() -> JoinSimulation {
            var s = JoinSimulation(seed: seed, replicas: replicas)
            s.commutativityEvery = commutativityEvery
            return s
        }
        var sim = simulation()
        guard let problem = sim.run(ops) else { return sim }
        let minimal = shrink(ops) { var s = simulation(); return s.run($0) != nil }
        var last = simulation()
        let minimalProblem = last.run(minimal) ?? problem
        XCTFail("seed \(seed), \(replicas) replicas: \(problem)\nminimal failing sequence (\(minimal.count) of \(ops.count) operations): \(minimalProblem)\n"
                + minimal.map { "  \($0)" }.joined(separator: "\n"), file: file, line: line)
        return sim
    }

    /// The shortest failing prefix (each prefix is run and then quiesced), then operations dropped (halves, smaller runs,
    /// single ones) while `fails` still holds; at most `budget` runs.
    static func shrink(_ ops: [Op], budget: Int = 600, fails: ([Op]) -> Bool) -> [Op] {
        var runs = 0
        func failing(_ candidate: [Op]) -> Bool {
            runs += 1
            return fails(candidate)
        }
        var low = 0, high = ops.count   // ops[..<high] fails; find the smallest such high
        while low + 1 < high && runs < budget {
            let mid = (low + high) / 2
            if failing(Array(ops[..<mid])) { high = mid } else { low = mid }
        }
        var current = Array(ops[..<high])
        var chunk = max(1, current.count / 2)
        while runs < budget {
            var i = 0, removed = false
            while i < current.count && runs < budget {
                let candidate = Array(current[..<i]) + Array(current[min(current.count, i + chunk)...])
                if failing(candidate) { current = candidate; removed = true } else { i += chunk }
            }
            if chunk == 1 && !removed { return current }
            if !removed { chunk = max(1, chunk / 2) }
        }
        return current
    }

    /// What differs between two versions of one entry, without values: fields by name, history items by field, reason
    /// and dot.
    static func difference(_ x: Entry, _ y: Entry) -> String {
        func fields(_ e: Entry) -> Set<String> { Set(e.fields.map { "\($0.key)@\($0.value.dot)" }) }
        func items(_ e: Entry) -> [String] { e.history.map { "\($0.field)/\($0.reason)@\($0.dot) replaced \($0.replaced)" } }
        var out: [String] = []
        let fx = fields(x), fy = fields(y)
        if fx != fy { out.append("fields \(fx.subtracting(fy).sorted()) vs \(fy.subtracting(fx).sorted())") }
        let hx = items(x), hy = items(y)
        if hx != hy { out.append("history only left \(hx.filter { !hy.contains($0) }), only right \(hy.filter { !hx.contains($0) })") }
        if !MergeOrder.same(x.path.string, y.path.string) { out.append("paths differ") }
        if x.clock != y.clock { out.append("clocks differ") }
        if x.modified != y.modified { out.append("modified \(x.modified) vs \(y.modified)") }
        return out.isEmpty ? "same" : out.joined(separator: "; ")
    }

    /// Whether two versions are the same but for the history items of writes that lost a concurrent write somewhere
    /// (a `merge` item in either version): a loser kept in one version only, or one write kept as a `merge` item in one
    /// and as an `edit` or `delete` item in the other (Spec/MERGE.md §5.2, §5.4). Every other item, and everything else,
    /// must be the same byte for byte.
    static func sameButMergeHistory(_ x: Entry, _ y: Entry) -> Bool {
        func write(_ h: HistoryItem) -> String {
            "\(Array(h.field.utf8))|\(h.modified)|\(Array(h.origin.utf8))|\(h.value.json.canonicalBytes())|\(h.dot)"
        }
        let losers = Set((x.history + y.history).filter { $0.reason == "merge" }.map(write))
        var x = x, y = y
        x.history.removeAll { losers.contains(write($0)) }
        y.history.removeAll { losers.contains(write($0)) }
        return x.isIdentical(to: y)
    }

    /// Spec/MERGE.md §10 on versions met in a run: the entry join is commutative (records included), associative and
    /// idempotent, and joining a version with one it descends from (a clock it covers) returns it.
    static func checkAlgebra(seed: UInt64, replicas: Int, operations: Int, triples: Int, file: StaticString = #filePath, line: UInt = #line) {
        var sim = JoinSimulation(seed: seed, replicas: replicas)
        sim.commutativityEvery = 8
        _ = sim.run(generate(seed: seed, replicas: replicas, count: operations))
        let ids = sim.pool.keys.sorted().filter { sim.pool[$0]!.count >= 2 }
        guard !ids.isEmpty else { return XCTFail("seed \(seed): no entry with two versions", file: file, line: line) }
        var rng = SplitMix64(seed: seed ^ 0xA16E_B7A)
        var descents = 0, mergeItemOnlyDifferences = 0
        defer {
            if mergeItemOnlyDifferences > 0 {
                print("known issue: seed \(seed): \(mergeItemOnlyDifferences) of \(triples) triples are not associative, differing only in the history items of writes that lost a concurrent write (MERGE.md §10 says associative)")
            }
        }
        func fail(_ what: String, _ vs: [Entry]) {
            XCTFail("seed \(seed): \(what) on versions " + vs.map { String(decoding: $0.payloadJSON().canonicalBytes(), as: UTF8.self) }.joined(separator: " | "),
                    file: file, line: line)
        }
        func records(_ r: [MergeResolution]) -> [[UInt8]] { r.map { $0.json.canonicalBytes() } }
        for _ in 0..<triples {
            let versions = sim.pool[ids.randomElement(using: &rng)!]!
            let a = versions.randomElement(using: &rng)!, b = versions.randomElement(using: &rng)!, c = versions.randomElement(using: &rng)!
            let ab = EntryJoin.join(a, b), ba = EntryJoin.join(b, a)
            if !ab.entry.isIdentical(to: ba.entry) { return fail("not commutative", [a, b]) }
            if records(ab.resolutions) != records(ba.resolutions) { return fail("records differ by order", [a, b]) }
            if !EntryJoin.join(a, a).entry.isIdentical(to: a) { return fail("not idempotent", [a]) }
            let left = EntryJoin.join(ab.entry, c).entry, right = EntryJoin.join(a, EntryJoin.join(b, c).entry).entry
            if !left.isIdentical(to: right) {
                // Known issue (Spec/MERGE.md §10 against §5): a loser of two live writes goes to the history only where
                // the two meet while both are live, so the groupings may differ in the history items of such writes, and
                // only in them.
                guard sameButMergeHistory(left, right) else { return fail("not associative (\(difference(left, right)))", [a, b, c]) }
                mergeItemOnlyDifferences += 1
            }
            // Descendants: the join of b and c descends from both; b edited by a later event descends from b.
            // (A clock that covers another's is no proof of descent: a path-collision rename writes no dot, §6.)
            let bc = EntryJoin.join(b, c).entry
            if !EntryJoin.join(bc, b).entry.isIdentical(to: bc) || !EntryJoin.join(c, bc).entry.isIdentical(to: bc) {
                return fail("joining with a version it descends from changed the join", [b, c])
            }
            var edited = b
            let later = Change(time: b.modified, origin: "later", dot: Dot(replica: "ffffffffffffffff", counter: UInt64(descents + 1)))
            _ = try? edited.set("notes", .text(SecretText("later \(descents)")), change: later)
            descents += 1
            if !EntryJoin.join(b, edited).entry.isIdentical(to: edited) { return fail("joining an edit with the version it edited changed it", [b, edited]) }
            if !ab.entry.clock.isAtMost(a.clock.joined(b.clock)) || !a.clock.joined(b.clock).isAtMost(ab.entry.clock) {
                return fail("the joined clock is not the join of the clocks", [a, b])
            }
        }
    }
}
