// Edit versus delete: the surviving entry also keeps what the deleting side wrote before it deleted.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// Replaces, in the deleting side's entry list, each entry that side deleted while the other side
    /// changed it by its last version before the deletion (Spec/MERGE.md §3.2.1). Returns the ids replaced.
    func restoreDeletedVersions(repo: GitRepository, cipher: EntryCipher, base: String?, baseEntries: [Entry],
                                deleting side: inout [Entry], sideTip: String, other: [Entry]) throws -> Set<String> {
        let sideIDs = Set(side.map(\.id))
        var otherByID: [String: Entry] = [:]
        for e in other { otherByID[e.id] = e }
        var wanted: [String: Entry] = [:]
        for b in baseEntries where !sideIDs.contains(b.id) {
            if let o = otherByID[b.id], o != b { wanted[b.id] = b }
        }
        guard !wanted.isEmpty else { return [] }
        var found: [String: Entry] = [:]
        var rev: String? = sideTip
        // Newest first along the first-parent chain, down to the merge base.
        while let current = rev, current != base, found.count < wanted.count {
            // Stop at anything the base already contains: versions from before the base are not this
            // side's edits (the base is not always on the first-parent chain).
            if let base, try Vault.git({ try repo.mergeBase(current, base) }) == current { break }
            let commit = try Vault.git { try repo.commitInfo(current) }
            for change in try Vault.git({ try repo.changes(in: commit.id) }) {
                if case .deleted = change.kind { continue }
                guard EntryPath(filePath: change.path) != nil,
                      let bytes = try Vault.git({ try repo.blob(at: commit.id, path: change.path) }),
                      let env = try? Envelope.parse(bytes), wanted[env.id] != nil, found[env.id] == nil,
                      let e = try? cipher.open(bytes, expectedPath: nil) else { continue }
                found[env.id] = e
            }
            rev = commit.parents.first
        }
        for (id, e) in found where e != wanted[id] { side.append(e) }
        return Set(found.filter { $0.value != wanted[$0.key] }.keys)
    }
}
