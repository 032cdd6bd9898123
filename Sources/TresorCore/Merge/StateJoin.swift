// The join of two vault states: entries matched by id, an entry missing on one side kept unless that side had seen all of it (Spec/MERGE.md §4, §6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the join sees of one side (Spec/MERGE.md §4.1): the entries of the domains the merger reads, the domain each
/// lies in on that side, every domain's clock, and the entry ids of the files it cannot read (envelope ids are clear).
package struct JoinSide {
    /// Decrypted entries of the domains the merger reads.
    package var entries: [Entry]
    /// Domain (`vault` or a scope id) → its clock in this state's state record.
    package var clocks: [String: Clock]
    /// The domain an entry path lies in, by this side's vault header.
    package var domain: (EntryPath) -> String
    /// Entry ids of entry files of domains the merger does not read.
    package var unreadIDs: Set<String>

    package init(entries: [Entry], clocks: [String: Clock], domain: @escaping (EntryPath) -> String, unreadIDs: Set<String> = []) {
        self.entries = entries; self.clocks = clocks; self.domain = domain; self.unreadIDs = unreadIDs
    }
}

/// Why a join cannot go on without a holder of another key (Spec/MERGE.md §4.2, §4.4).
package enum JoinConflict: Equatable, Sendable {
    /// An entry kept from one side would lie in a domain the merger does not read, or its id is in a file the merger
    /// cannot read on the other side.
    case entryInUnreadDomain(entryID: String, path: String)
    /// A domain the merger does not read changed on both sides (concurrent clocks): it cannot be taken whole from
    /// either (§4.4).
    case unreadDomainChangedOnBothSides(domain: String)
}

/// Joins vault states. Pure: no clock, no randomness, no I/O.
package enum StateJoin {
    /// The clock of a domain the merger reads in the result (Spec/MERGE.md §4.5): the join of the two sides' clocks of
    /// it (`a`, `b`) and of the clocks of the result's `entries` that lie in it (`domain` gives an entry's domain by the
    /// joined header), so that a domain's clock covers every entry it holds (§2) — also one that a join or a scope
    /// moved into it from another domain.
    package static func domainClock(_ a: Clock, _ b: Clock, of d: String, entries: [Entry], domain: (EntryPath) -> String) -> Clock {
        entries.reduce(a.joined(b)) { domain($1.path) == d ? $0.joined($1.clock) : $0 }
    }

    /// Joins the readable entries of two states (Spec/MERGE.md §4.2, §6). `readable` says whether the merger reads a
    /// domain of the joined vault (by the joined header, `domain`). Returns the entries by path bytes, the decisions,
    /// and the conflicts that stop the join (empty when it can go on).
    package static func join(_ a: JoinSide, _ b: JoinSide, domain: (EntryPath) -> String, readable: (String) -> Bool)
        -> (entries: [Entry], resolutions: [MergeResolution], conflicts: [JoinConflict]) {
        let (byA, extraA) = index(a.entries), (byB, extraB) = index(b.entries)
        var entries: [Entry] = [], resolutions: [MergeResolution] = [], conflicts: [JoinConflict] = []
        // An id used twice in one state (a file copied outside tresor; fsck and the content checks report it): the
        // further copies are kept as they are, never dropped.
        for e in extraA + extraB where !entries.contains(where: { MergeOrder.same($0, e) }) { entries.append(e) }
        for id in Set(byA.keys).union(byB.keys).sorted(by: { MergeOrder.compare($0, $1) < 0 }) {
            let joined: Entry
            switch (byA[id], byB[id]) {
            case (let x?, let y?):
                let r = EntryJoin.join(x, y)
                joined = r.entry
                resolutions += r.resolutions
            case (let x?, nil):
                guard let kept = keep(x, from: a, against: b, conflicts: &conflicts, resolutions: &resolutions) else { continue }
                joined = kept
            case (nil, let y?):
                guard let kept = keep(y, from: b, against: a, conflicts: &conflicts, resolutions: &resolutions) else { continue }
                joined = kept
            case (nil, nil): continue
            }
            if !readable(domain(joined.path)) { conflicts.append(.entryInUnreadDomain(entryID: id, path: joined.path.string)) }
            entries.append(joined)
        }
        resolutions += VaultMerge.separateCollisions(&entries)
        entries.sort { MergeOrder.compare($0.path.string, $1.path.string) < 0 }
        for d in Set(a.clocks.keys).intersection(b.clocks.keys).sorted(by: { MergeOrder.compare($0, $1) < 0 }) where !readable(d) {
            if a.clocks[d]!.relation(to: b.clocks[d]!) == .concurrent { conflicts.append(.unreadDomainChangedOnBothSides(domain: d)) }
        }
        return (entries, resolutions, conflicts)
    }

    /// An entry one side has and the other has not: gone when the other side's clock of the entry's domain covers the
    /// entry's clock (it had seen all of it), else kept whole (Spec/MERGE.md §4.2).
    static func keep(_ e: Entry, from side: JoinSide, against other: JoinSide, conflicts: inout [JoinConflict],
                     resolutions: inout [MergeResolution]) -> Entry? {
        if other.unreadIDs.contains(e.id) {
            conflicts.append(.entryInUnreadDomain(entryID: e.id, path: e.path.string))
            return e
        }
        let seen = other.clocks[side.domain(e.path)] ?? .empty
        if e.clock.isAtMost(seen) { return nil }
        // The other side had seen part of it and deleted it: a deletion concurrent with a change (reported, §4.2).
        let dots = [e.moved.dot] + e.fields.values.map(\.dot) + e.history.map(\.dot)
        if dots.contains(where: seen.covers) {
            resolutions.append(MergeResolution(entryID: e.id, path: e.path.string, kind: .editDeleteKeptEdit,
                description: "entry \"\(e.path)\" was deleted on one side and changed on the other: the changed entry is kept"))
        }
        return e
    }

    /// Entries by id (the first by path bytes), and the further entries of an id used twice.
    static func index(_ entries: [Entry]) -> ([String: Entry], [Entry]) {
        var out: [String: Entry] = [:], extra: [Entry] = []
        for e in entries.sorted(by: { MergeOrder.compare($0.path.string, $1.path.string) < 0 }) {
            if out[e.id] == nil { out[e.id] = e } else { extra.append(e) }
        }
        return (out, extra)
    }
}
