// Three-way merge of one entry, field by field, keeping every losing value in the history (Spec/MERGE.md §3–§7).
import Foundation

/// Merges the versions of one entry (matched by id). Pure: no clock, no randomness, no I/O.
public enum EntryMerge {
    /// Three-way merge of one entry. A nil `base` means the entry was added on both sides (it is merged
    /// field by field against an empty base); a nil `ours` or `theirs` means it was deleted on that side.
    /// The result is the same with `ours` and `theirs` swapped, resolutions included.
    /// Every present version must have the same id (a programming error otherwise).
    /// Spec/MERGE.md §3 (entry), §4 (fields), §5 (path and times), §6 (history), §7 (unknown members)
    public static func merge(base: Entry?, ours: Entry?, theirs: Entry?) -> (entry: Entry?, resolutions: [MergeResolution]) {
        guard let any = ours ?? theirs ?? base else { return (nil, []) }
        precondition([base, ours, theirs].allSatisfy { $0.map { MergeOrder.same($0.id, any.id) } ?? true },
                     "EntryMerge.merge: versions of different entries")
        switch (ours, theirs) {
        case (nil, nil):
            guard let base else { return (nil, []) }
            return (nil, [MergeResolution(entryID: base.id, path: base.path.string, kind: .deleteBoth,
                                          description: "entry \"\(base.path)\" was deleted on both sides")])
        case (let kept?, nil), (nil, let kept?):
            // Added on one side, deleted on one side, or deleted on one side and changed on the other.
            guard let base else { return (kept, []) }
            if MergeOrder.same(kept, base) { return (nil, []) }
            return (kept, [MergeResolution(entryID: kept.id, path: kept.path.string, kind: .editDeleteKeptEdit,
                                           description: "entry \"\(kept.path)\" was deleted on one side and changed on the other: the changed entry is kept")])
        case (let o?, let t?):
            if MergeOrder.same(o, t) { return (o, []) }
            if let base, MergeOrder.same(o, base) { return (t, []) }
            if let base, MergeOrder.same(t, base) { return (o, []) }
            return mergeChanged(base: base, ours: o, theirs: t)
        }
    }

    /// Both sides exist and both differ from the base (or there is none).
    static func mergeChanged(base: Entry?, ours: Entry, theirs: Entry) -> (entry: Entry?, resolutions: [MergeResolution]) {
        var resolutions: [MergeResolution] = []
        let path = mergedPath(base: base, ours: ours, theirs: theirs, resolutions: &resolutions)
        var fields: [String: Field] = [:]
        var losers: [HistoryItem] = []
        let names = MergeOrder.unionSorted(Array(ours.fields.keys) + Array(theirs.fields.keys) + (base.map { Array($0.fields.keys) } ?? []))
        for name in names {
            let b = base?.fields[name], o = ours.fields[name], t = theirs.fields[name]
            let picked: Field?
            if MergeOrder.same(o, t) { picked = o }
            else if MergeOrder.same(o, b) { picked = t }
            else if MergeOrder.same(t, b) { picked = o }
            else if let o, let t {
                let (winner, loser) = MergeOrder.fieldLess(o, t) ? (t, o) : (o, t)
                picked = winner
                if !MergeOrder.same(o.value, t.value) {
                    losers.append(HistoryItem(field: name, value: loser.value, modified: loser.modified, origin: loser.origin,
                                              replaced: winner.modified, reason: "merge"))
                    resolutions.append(MergeResolution(
                        entryID: ours.id, path: path.string, field: name, kind: .fieldConflict,
                        winnerOrigin: winner.origin, winnerModified: winner.modified,
                        loserOrigin: loser.origin, loserModified: loser.modified,
                        description: "field \"\(name)\" of \"\(path)\" was changed on both sides: kept the value written by \(loggable(winner.origin)) at \(winner.modified); the value written by \(loggable(loser.origin)) at \(loser.modified) is in the history"))
                }
                // Same value written on both sides: only the metadata differs and the greater write is kept.
            } else {
                let changed = (o ?? t)!
                picked = changed
                resolutions.append(MergeResolution(
                    entryID: ours.id, path: path.string, field: name, kind: .fieldDeleteKeptEdit,
                    winnerOrigin: changed.origin, winnerModified: changed.modified,
                    description: "field \"\(name)\" of \"\(path)\" was deleted on one side and changed on the other: kept the change written by \(loggable(changed.origin)) at \(changed.modified)"))
            }
            if let picked { fields[name] = picked }
        }
        let history = MergeOrder.mergedHistory([base?.history ?? [], ours.history, theirs.history, losers])
        let unknown = mergedUnknownMembers(base: base, ours: ours, theirs: theirs, path: path, resolutions: &resolutions)
        var modified = max(ours.modified, theirs.modified)
        for f in fields.values { modified = max(modified, f.modified) }
        let entry = Entry(id: ours.id, path: path, created: min(ours.created, theirs.created), modified: modified,
                          fields: fields, history: history, unknownMembers: unknown)
        return (entry, resolutions)
    }

    /// §5.1: the path is a three-way property; two different moves are decided by the entry's
    /// `modified`, then by the path bytes, greater wins.
    static func mergedPath(base: Entry?, ours: Entry, theirs: Entry, resolutions: inout [MergeResolution]) -> EntryPath {
        let o = ours.path, t = theirs.path
        if MergeOrder.same(o.string, t.string) { return o }
        if let b = base?.path {
            if MergeOrder.same(b.string, o.string) { return t }
            if MergeOrder.same(b.string, t.string) { return o }
        }
        let oursWins: Bool
        if ours.modified != theirs.modified { oursWins = ours.modified > theirs.modified }
        else { oursWins = MergeOrder.compare(o.string, t.string) > 0 }
        let (winner, loser) = oursWins ? (ours, theirs) : (theirs, ours)
        resolutions.append(MergeResolution(
            entryID: ours.id, path: winner.path.string, kind: .renameConflict(losingPath: loser.path.string),
            winnerModified: winner.modified, loserModified: loser.modified,
            description: "entry was moved to \"\(winner.path)\" on one side and to \"\(loser.path)\" on the other: kept \"\(winner.path)\""))
        return winner.path
    }

    /// §7: payload members this version does not know, merged one by one.
    static func mergedUnknownMembers(base: Entry?, ours: Entry, theirs: Entry, path: EntryPath,
                                     resolutions: inout [MergeResolution]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        let names = MergeOrder.unionSorted(Array(ours.unknownMembers.keys) + Array(theirs.unknownMembers.keys)
                                           + (base.map { Array($0.unknownMembers.keys) } ?? []))
        for name in names {
            let b = base?.unknownMembers[name], o = ours.unknownMembers[name], t = theirs.unknownMembers[name]
            let picked: JSONValue?
            if MergeOrder.same(o, t) { picked = o }
            else if MergeOrder.same(o, b) { picked = t }
            else if MergeOrder.same(t, b) { picked = o }
            else {
                if let o, let t { picked = MergeOrder.compare(o.canonicalBytes(), t.canonicalBytes()) > 0 ? o : t }
                else { picked = o ?? t }
                resolutions.append(MergeResolution(
                    entryID: ours.id, path: path.string, field: name, kind: .unknownMemberConflict,
                    description: "payload member \"\(name)\" of \"\(path)\" was changed on both sides: kept the \(o == nil || t == nil ? "changed" : "greater") value"))
            }
            if let picked { out[name] = picked }
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
