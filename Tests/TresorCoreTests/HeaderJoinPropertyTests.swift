// Seeded random histories of one open scope's header on three replicas of one remote — members added, rekeys (removing a
// member or not), the vault slot written again, syncs that join the remote's header into the replica's by HeaderJoin as
// Vault.join calls it and publish the result — checked after every join
// (Spec/MERGE.md §8): the result is under the key its epoch says, every slot of it opens to that key, a member both sides
// hold stays, and joining the result again with the side it came from changes nothing.
@testable import TresorCore
import TestSupport
import XCTest

final class HeaderJoinPropertyTests: XCTestCase {
    func testScopeHeaderJoinsHoldOnRandomHistories() {
        ScopeHistory.check(seeds: 1...40, steps: 60)
    }
}

final class HeaderJoinPropertyDeepTests: XCTestCase {
    func testScopeHeaderJoinsHoldOnLongRandomHistories() throws {
        try requireDeepTier("long random histories of scope headers")
        ScopeHistory.check(seeds: 100...399, steps: 200)
    }
}

/// One run: three replicas of one open scope and their remote, one vault key.
struct ScopeHistory {
    struct Replica { var header: ScopeHeader; var key: SecretBytes; let id: String; var counter: UInt64 }

    var rng: SplitMix64
    var replicas: [Replica] = []
    /// What the remote holds: the header and its key.
    var remote: (header: ScopeHeader, key: SecretBytes)
    let vaultKey = SecretBytes.random(count: Sodium.keyBytes)
    let vaultID = "6f1c2e84-3b5a-4c7d-9e2f-0a1b2c3d4e5f"
    let people = (0..<4).map { _ in Identity.generate() }
    var joins = 0
    /// Joins in which a slot of the side under the older key was sealed or wrapped again.
    var slotsFromTheOlderSide = 0

    /// Runs every seed; fails naming the first seed and step that break a property.
    static func check(seeds: ClosedRange<UInt64>, steps: Int, file: StaticString = #filePath, line: UInt = #line) {
        var joins = 0, reseals = 0
        for seed in seeds {
            var run = ScopeHistory(seed: seed)
            if let failure = run.run(steps: steps) { return XCTFail("seed \(seed): \(failure)", file: file, line: line) }
            joins += run.joins
            reseals += run.slotsFromTheOlderSide
        }
        // The runs do what they are for: many joins, and joins across a rekey that keep a slot of the older side.
        XCTAssertGreaterThan(joins, seeds.count * steps / 6, file: file, line: line)
        XCTAssertGreaterThan(reseals, seeds.count / 2, file: file, line: line)
    }

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        let ids = ["a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3"]
        let change = Change(time: Timestamp(milliseconds: 1), origin: ids[0], dot: Dot(replica: ids[0], counter: 1))
        let (h, key) = try! ScopeHeader.create(vaultID: vaultID, folder: "Team", vaultKey: vaultKey, members: [], change: change,
                                               scopeID: "7ea70000-0000-4000-8000-00000000000a")
        replicas = ids.map { Replica(header: h, key: key, id: $0, counter: $0 == ids[0] ? 1 : 0) }
        remote = (h, key)
    }

    mutating func change(_ r: Int) -> Change {
        replicas[r].counter += 1
        return Change(time: Timestamp(milliseconds: Int64(replicas[r].counter)), origin: replicas[r].id,
                      dot: Dot(replica: replicas[r].id, counter: replicas[r].counter))
    }

    /// The first broken property, or nil.
    mutating func run(steps: Int) -> String? {
        for step in 0..<steps {
            let r = Int.random(in: 0..<3, using: &rng)
            do {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0, 1:
                    let p = Int.random(in: 0..<people.count, using: &rng)
                    let h = replicas[r].header
                    guard h.member(named: "m\(p)") == nil, !h.recipientSlots.contains(where: { $0.publicKey == people[p].publicKey }) else { continue }
                    replicas[r].header = try h.addingMember("m\(p)", publicKey: people[p].publicKey, scopeKey: replicas[r].key, change: change(r))
                case 2:
                    let h = replicas[r].header
                    let removing = Bool.random(using: &rng) ? h.recipientSlots.randomElement(using: &rng)?.name : nil
                    let newKey = SecretBytes.random(count: Sodium.keyBytes)
                    let chain = try RekeyChain.make(vaultID: vaultID, domain: h.scopeID, epoch: h.epoch + 1, newKey: newKey,
                                                    previousKey: replicas[r].key, previousChain: h.rekeyChain)
                    replicas[r].header = try h.rekeyed(newKey: newKey, vaultKey: vaultKey, removing: removing, chain: chain, change: change(r))
                    replicas[r].key = newKey
                case 3:
                    // The vault slot written again (as a vault rekey does for every open scope).
                    let c = change(r)
                    var h = replicas[r].header.changed(by: c)
                    h.vaultSlot = try h.vaultSlot(wrapping: replicas[r].key, under: vaultKey, dot: c.dot)
                    replicas[r].header = h
                default:
                    if let failure = try sync(r) { return "step \(step), a sync of \(replicas[r].id): \(failure)" }
                }
            } catch {
                return "step \(step): \(error)"
            }
        }
        return nil
    }

    /// Which side's key the join of `a` (ours) and `b` (fetched) is under, as `Vault.join` decides from the verdicts: the
    /// newer epoch; two keys of one epoch (concurrent rekeys): the fetched side's; one key: nil.
    static func keySide(_ a: ScopeHeader, _ aKey: SecretBytes, _ b: ScopeHeader, _ bKey: SecretBytes) -> HeaderJoin.KeySide? {
        if a.epoch != b.epoch { return a.epoch > b.epoch ? .a : .b }
        return aKey.constantTimeEquals(bKey) ? nil : .b
    }

    func join(_ a: ScopeHeader, _ aKey: SecretBytes, _ b: ScopeHeader, _ bKey: SecretBytes, resealed: inout Int) throws -> (ScopeHeader, SecretBytes) {
        let side = Self.keySide(a, aKey, b, bKey)
        let key = side == .b ? bKey : aKey
        let (h, _) = try HeaderJoin.join(a, b, keySide: side, reseal: { slot in resealed += 1; return try a.resealing(slot, to: key) },
                                         rewrap: { slot in resealed += 1; return try a.vaultSlot(wrapping: key, under: self.vaultKey, dot: slot.dot) })
        return (h, key)
    }

    /// What a header says about who holds it: epoch, clock, recipient slots by id with their dots and names, the vault slot's dot.
    static func shape(_ h: ScopeHeader) -> String {
        let slots = h.recipientSlots.map { "\($0.id)@\($0.dot.map(\.description) ?? "-")=\($0.name)" }.sorted()
        return "epoch \(h.epoch) clock \(String(decoding: h.clock.json.canonicalBytes(), as: UTF8.self)) slots \(slots) vault \(h.vaultSlot?.dot.map(\.description) ?? "none")"
    }

    /// The remote's header joined into the replica's, checked, and published.
    mutating func sync(_ r: Int) throws -> String? {
        let a = replicas[r].header, b = remote.header
        var resealed = 0
        let (h, key) = try join(a, replicas[r].key, b, remote.key, resealed: &resealed)
        joins += 1
        if resealed > 0 { slotsFromTheOlderSide += 1 }
        // Under the key its epoch says.
        guard h.epoch == max(a.epoch, b.epoch) else { return "epoch \(h.epoch) of a join of epochs \(a.epoch) and \(b.epoch)" }
        // Every slot opens to that key: the vault slot (the scope is open) and each member's.
        guard h.vaultSlot != nil else { return "the scope lost its vault slot: \(Self.shape(h))" }
        guard (try? h.unlock(vaultKey: vaultKey))?.constantTimeEquals(key) == true else { return "the vault slot does not open to the result's key" }
        for slot in h.recipientSlots {
            guard let person = people.first(where: { $0.publicKey == slot.publicKey }) else { return "a slot of nobody" }
            guard (try? h.unlock(identity: person))?.constantTimeEquals(key) == true else { return "\(slot.name)'s slot does not open to the result's key" }
        }
        // A member both sides hold (one slot id) stays.
        for slot in a.recipientSlots where b.recipientSlots.contains(where: { $0.id == slot.id }) {
            guard h.recipientSlots.contains(where: { $0.id == slot.id }) else { return "\(slot.name), held by both sides, is gone:\n  ours \(Self.shape(a))\n  theirs \(Self.shape(b))\n  join \(Self.shape(h))" }
        }
        // Joining the result again with either side changes nothing (absorption). (Not with our side when the join followed
        // a concurrent rekey to the same epoch: fetched again, that side's key would be followed back.)
        var sides = [(b, remote.key)]
        if a.epoch != h.epoch || replicas[r].key.constantTimeEquals(key) { sides.append((a, replicas[r].key)) }
        for (other, otherKey) in sides {
            var ignored = 0
            let (again, _) = try join(h, key, other, otherKey, resealed: &ignored)
            guard Self.shape(again) == Self.shape(h) else {
                return "joined again, the result changed:\n  \(Self.shape(h))\n  \(Self.shape(again))"
            }
        }
        replicas[r].header = h
        replicas[r].key = key
        remote = (h, key)
        return nil
    }
}
