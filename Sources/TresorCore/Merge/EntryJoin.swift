// The join of two versions of one entry by their clocks and dots: nothing one side has not seen is dropped (Spec/MERGE.md §5).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Joins versions of one entry. Pure: no clock, no randomness, no I/O. Commutative, associative and idempotent.
package enum EntryJoin {
    /// The join of two versions of one entry id (Spec/MERGE.md §5) and the decisions it made (§9).
    /// Both versions must have the same id (a programming error otherwise).
    package static func join(_ a: Entry, _ b: Entry) -> (entry: Entry, resolutions: [MergeResolution]) {
        precondition(MergeOrder.same(a.id, b.id), "EntryJoin.join: versions of different entries")
        if MergeOrder.same(a, b) { return (a, []) }
        var resolutions: [MergeResolution] = []
        let (path, moved, renamed) = joinedPath(a, b)
        if let renamed {
            resolutions.append(MergeResolution(
                entryID: a.id, path: path.string, kind: .renameConflict(losingPath: renamed.path),
                winnerOrigin: moved.origin, winnerModified: moved.modified, loserOrigin: renamed.origin, loserModified: renamed.modified,
                description: "entry was moved to \"\(path)\" on one side and to \"\(renamed.path)\" on the other: kept \"\(path)\""))
        }
        var fields: [String: Field] = [:]
        var losers: [HistoryItem] = []
        for name in MergeOrder.unionSorted(Array(a.fields.keys) + Array(b.fields.keys)) {
            let live = liveWrites(a.fields[name], b.fields[name], a.clock, b.clock)
            guard let first = live.first else { continue }
            if live.count == 1 {
                fields[name] = first
                let other = a.fields[name] == nil ? a : b
                if other.fields[name] == nil, other.history.contains(where: { MergeOrder.same($0.field, name) && $0.reason == "delete" }) {
                    resolutions.append(MergeResolution(
                        entryID: a.id, path: path.string, field: name, kind: .fieldDeleteKeptEdit,
                        winnerOrigin: first.origin, winnerModified: first.modified,
                        description: "field \"\(name)\" of \"\(path)\" was deleted on one side and changed on the other: kept the change written by \(loggable(first.origin)) at \(first.modified)"))
                }
                continue
            }
            let (winner, loser) = MergeOrder.fieldLess(live[0], live[1]) ? (live[1], live[0]) : (live[0], live[1])
            fields[name] = winner
            guard !MergeOrder.same(winner.value, loser.value) else { continue }
            losers.append(HistoryItem(field: name, value: loser.value, modified: loser.modified, origin: loser.origin,
                                      replaced: winner.modified, reason: "merge", dot: loser.dot))
            resolutions.append(MergeResolution(
                entryID: a.id, path: path.string, field: name, kind: .fieldConflict,
                winnerOrigin: winner.origin, winnerModified: winner.modified, loserOrigin: loser.origin, loserModified: loser.modified,
                description: "field \"\(name)\" of \"\(path)\" was changed on both sides: kept the value written by \(loggable(winner.origin)) at \(winner.modified); the value written by \(loggable(loser.origin)) at \(loser.modified) is in the history"))
        }
        let unknown = joinedUnknownMembers(a, b, path: path, resolutions: &resolutions)
        var modified = max(a.modified, b.modified, moved.modified)
        for f in fields.values { modified = max(modified, f.modified) }
        let entry = Entry(id: a.id, path: path, created: min(a.created, b.created), modified: modified, fields: fields,
                          history: MergeOrder.mergedHistory([a.history, b.history, losers]), clock: a.clock.joined(b.clock),
                          moved: moved, unknownMembers: unknown)
        return (entry, resolutions)
    }

    /// The live writes of one field (Spec/MERGE.md §5.1): a write survives unless the other side's clock covers it and
    /// the other side does not have it.
    static func liveWrites(_ a: Field?, _ b: Field?, _ ca: Clock, _ cb: Clock) -> [Field] {
        if let a, let b, MergeOrder.same(a, b) { return [a] }
        var live: [Field] = []
        if let a, !cb.covers(a.dot) { live.append(a) }
        if let b, !ca.covers(b.dot) { live.append(b) }
        // The same value under two dots (two conversions of one older vault): one write, the greater dot.
        if live.count == 2, MergeOrder.sameButDot(live[0], live[1]) { return [live[0].dot < live[1].dot ? live[1] : live[0]] }
        return live
    }

    /// §5.3: the path register. Returns the path, its write, and the losing path of two concurrent moves.
    static func joinedPath(_ a: Entry, _ b: Entry) -> (EntryPath, PathWrite, (path: String, modified: Timestamp, origin: String)?) {
        let sameWrite = a.moved.dot == b.moved.dot && a.moved.modified == b.moved.modified && MergeOrder.same(a.moved.origin, b.moved.origin)
        if sameWrite {
            // One write; two paths only after a path-collision rename (§6), which the greater bytes keep.
            return (MergeOrder.compare(a.path.string, b.path.string) >= 0 ? a.path : b.path, a.moved, nil)
        }
        let aLive = !b.clock.covers(a.moved.dot), bLive = !a.clock.covers(b.moved.dot)
        switch (aLive, bLive) {
        case (true, false): return (a.path, a.moved, nil)
        case (false, true): return (b.path, b.moved, nil)
        default:
            let aWins = pathWriteGreater(a, b)
            let (w, l) = aWins ? (a, b) : (b, a)
            // Both live with one path: no conflict to report.
            let losing = aLive && bLive && !MergeOrder.same(w.path.string, l.path.string) ? (l.path.string, l.moved.modified, l.moved.origin) : nil
            return (w.path, w.moved, losing)
        }
    }

    /// Write order of two path writes (Spec/MERGE.md §3): `modified`, origin, path bytes, dot.
    static func pathWriteGreater(_ a: Entry, _ b: Entry) -> Bool {
        if a.moved.modified != b.moved.modified { return a.moved.modified > b.moved.modified }
        let o = MergeOrder.compare(a.moved.origin, b.moved.origin)
        if o != 0 { return o > 0 }
        let p = MergeOrder.compare(a.path.string, b.path.string)
        if p != 0 { return p > 0 }
        return b.moved.dot < a.moved.dot
    }

    /// §5.4: payload members this version does not know: equal, or on one side only, or the greater canonical bytes.
    static func joinedUnknownMembers(_ a: Entry, _ b: Entry, path: EntryPath, resolutions: inout [MergeResolution]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for name in MergeOrder.unionSorted(Array(a.unknownMembers.keys) + Array(b.unknownMembers.keys)) {
            switch (a.unknownMembers[name], b.unknownMembers[name]) {
            case (let x?, let y?) where !MergeOrder.same(x, y):
                out[name] = MergeOrder.compare(x.canonicalBytes(), y.canonicalBytes()) > 0 ? x : y
                resolutions.append(MergeResolution(
                    entryID: a.id, path: path.string, field: name, kind: .unknownMemberConflict,
                    description: "payload member \"\(name)\" of \"\(path)\" differs on the two sides: kept the greater value"))
            case (let x?, _): out[name] = x
            case (nil, let y?): out[name] = y
            case (nil, nil): break
            }
        }
        return out
    }

    /// Origins are device names chosen by users; keep a hostile one from forging lines in a report.
    /// A device id as people read it: "device 6d5fc44d" for the usual UUIDs, else the quoted id.
    static func loggable(_ origin: String) -> String {
        if Envelope.isCanonicalUUID(origin) { return "device " + origin.prefix(8) }
        return "\"" + String(origin.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }) + "\""
    }
}
