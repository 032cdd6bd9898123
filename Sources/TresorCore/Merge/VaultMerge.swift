// Whole-vault merge: entries matched by id, then paths made unique again (Spec/MERGE.md §3, §9).
import Foundation

/// Merges vault states: decrypted entries and the vault header. Pure: no clock, no randomness, no I/O.
public enum VaultMerge {
    /// Merges three vault states of decrypted entries. Entries are matched by id, not by path, so a move on
    /// one side and an edit on the other become one entry at the new path. When two entries end at the
    /// same path (case-insensitively), all but the one with the smallest id move to `<path>.conflict-<id8>`.
    /// `deletedVersions` are, per side, the versions entries had just before that side deleted them (found
    /// in its history by the caller); an entry a side deleted while the other changed it is merged with
    /// those versions in its place (§3.2.1).
    /// Returns the entries sorted by path bytes and every automatic resolution.
    /// Spec/MERGE.md §3 and §9
    public static func merge(base: [Entry], ours: [Entry], theirs: [Entry],
                             deletedVersions: (ours: [Entry], theirs: [Entry]) = ([], [])) -> (entries: [Entry], resolutions: [MergeResolution]) {
        // An id used twice in one state breaks Spec/FORMAT.md (fsck reports it); such ids are matched by
        // id and path instead, so nothing is dropped.
        var ambiguous = Set<String>()
        for side in [base, ours, theirs] {
            var seen = Set<String>()
            for e in side where !seen.insert(e.id).inserted { ambiguous.insert(e.id) }
        }
        func key(_ e: Entry) -> MatchKey { MatchKey(id: e.id, path: ambiguous.contains(e.id) ? e.path.string : nil) }
        func index(_ side: [Entry]) -> [MatchKey: Entry] {
            Dictionary(side.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
        }
        let b = index(base)
        var o = index(ours), t = index(theirs)
        let keys = Set(b.keys).union(o.keys).union(t.keys).sorted { $0.precedes($1) }
        let revived = revive(&o, deleted: deletedVersions.ours, base: b, other: t)
            .union(revive(&t, deleted: deletedVersions.theirs, base: b, other: o))

        var merged: [Entry] = []
        var resolutions: [MergeResolution] = []
        for k in keys {
            let (entry, r) = EntryMerge.merge(base: b[k], ours: o[k], theirs: t[k])
            resolutions += r
            if let entry {
                merged.append(entry)
                if revived.contains(k) {
                    resolutions.append(MergeResolution(entryID: entry.id, path: entry.path.string, field: nil, kind: .editDeleteKeptEdit,
                        description: "entry \"\(entry.path)\" was deleted on one side and changed on the other: the changed entry is kept, with the values the deleting side wrote before deleting it"))
                }
            }
        }
        resolutions += separateCollisions(&merged)
        merged.sort { MergeOrder.compare($0.path.string, $1.path.string) < 0 }
        return (merged, resolutions)
    }

    /// §3.2.1: for each entry `side` deleted while `other` changed it, the versions in `deleted` with its
    /// id that differ from the base, merged in bytewise order of their payloads, take its place.
    private static func revive(_ side: inout [MatchKey: Entry], deleted: [Entry], base: [MatchKey: Entry],
                               other: [MatchKey: Entry]) -> Set<MatchKey> {
        var revived = Set<MatchKey>()
        for (key, b) in base where side[key] == nil {
            guard let changed = other[key], !MergeOrder.same(changed, b) else { continue }
            var versions: [Entry] = []
            for v in deleted where MergeOrder.same(v.id, key.id) && !MergeOrder.same(v, b) && !versions.contains(where: { MergeOrder.same($0, v) }) {
                versions.append(v)
            }
            guard !versions.isEmpty else { continue }
            versions.sort { MergeOrder.compare($0.payloadJSON().canonicalSecretBytes(), $1.payloadJSON().canonicalSecretBytes()) < 0 }
            var merged = versions[0]
            for v in versions.dropFirst() { merged = EntryMerge.merge(base: b, ours: merged, theirs: v).entry ?? merged }
            side[key] = merged
            revived.insert(key)
        }
        return revived
    }

    struct MatchKey: Hashable {
        var id: String
        var path: String?
        static func == (a: MatchKey, b: MatchKey) -> Bool {
            MergeOrder.same(a.id, b.id) && a.path.map { p in b.path.map { MergeOrder.same(p, $0) } ?? false } ?? (b.path == nil)
        }
        func hash(into h: inout Hasher) { h.combine(Array(id.utf8)); h.combine(path.map { Array($0.utf8) }) }
        func precedes(_ other: MatchKey) -> Bool {
            let c = MergeOrder.compare(id, other.id)
            if c != 0 { return c < 0 }
            return MergeOrder.compare(path ?? "", other.path ?? "") < 0
        }
    }

    /// §9: entries whose paths collide (same `EntryPath.collisionKey`) keep the path in order of id bytes:
    /// the smallest id stays, each other one moves to the first free `<path>.conflict-<id8>[-n]`.
    static func separateCollisions(_ entries: inout [Entry]) -> [MergeResolution] {
        var groups: [String: [Int]] = [:]
        for (i, e) in entries.enumerated() { groups[e.path.collisionKey, default: []].append(i) }
        var occupied = Set(groups.keys.map { Array($0.utf8) })
        var resolutions: [MergeResolution] = []
        for key in groups.keys.sorted(by: { MergeOrder.compare($0, $1) < 0 }) {
            let members = groups[key]!.sorted { entryPrecedes(entries[$0], entries[$1]) }
            guard members.count > 1 else { continue }
            let keeper = entries[members[0]]
            for i in members.dropFirst() {
                let old = entries[i].path
                let new = freePath(for: entries[i], occupied: occupied)
                occupied.insert(Array(new.collisionKey.utf8))
                entries[i].path = new
                resolutions.append(MergeResolution(
                    entryID: entries[i].id, path: old.string, kind: .pathCollisionRenamed(newPath: new.string),
                    description: "two entries ended at \"\(keeper.path)\": entry \(entries[i].id) was moved to \"\(new)\""))
            }
        }
        return resolutions
    }

    /// Order within a collision group: id bytes, then path bytes, then payload bytes (the last two only
    /// matter for an id used twice).
    static func entryPrecedes(_ a: Entry, _ b: Entry) -> Bool {
        var c = MergeOrder.compare(a.id, b.id)
        if c == 0 { c = MergeOrder.compare(a.path.string, b.path.string) }
        if c == 0 { c = MergeOrder.compare(a.payloadJSON().canonicalSecretBytes(), b.payloadJSON().canonicalSecretBytes()) }
        return c < 0
    }

    /// The first candidate that is a valid entry path and collides with nothing in `occupied`:
    /// `<path>.conflict-<id8>`, then `-2`, `-3`, … appended; the last component is shortened by whole
    /// Unicode scalars when the name would be too long. Spec/MERGE.md §9
    static func freePath(for entry: Entry, occupied: Set<[UInt8]>) -> EntryPath {
        let id8 = String(entry.id.unicodeScalars.prefix(8).map(Character.init))
        var n = 1
        while true {
            let suffix = ".conflict-" + id8 + (n == 1 ? "" : "-\(n)")
            let candidate = conflictPath(entry.path, suffix: suffix)
                ?? (try? EntryPath("conflict-" + id8 + (n == 1 ? "" : "-\(n)")))
                ?? (try? EntryPath("conflict-\(n)"))
            if let candidate, !occupied.contains(Array(candidate.collisionKey.utf8)) { return candidate }
            n += 1
        }
    }

    static func conflictPath(_ path: EntryPath, suffix: String) -> EntryPath? {
        let folder = path.folder
        var name = Array(path.name.unicodeScalars)
        while !name.isEmpty {
            var s = String.UnicodeScalarView()
            s.append(contentsOf: name)
            let last = String(s) + suffix
            if let p = try? EntryPath(folder.isEmpty ? last : folder + "/" + last) { return p }
            name.removeLast()
        }
        return nil
    }
}
