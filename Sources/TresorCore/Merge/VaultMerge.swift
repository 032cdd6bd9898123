// Path collisions after a join: entries whose paths collide are made unique again (Spec/MERGE.md §6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Separates entries that a join put at one path. Pure: no clock, no randomness, no I/O.
package enum VaultMerge {
    /// Spec/MERGE.md §6: entries whose paths collide (same `EntryPath.collisionKey`) keep the path in order of id bytes:
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
    /// Unicode scalars when the name would be too long. Spec/MERGE.md §6
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
