// Edit versus delete: the surviving entry also keeps what the deleting side wrote before it deleted.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// For each entry one side deleted while the other side changed it: the versions it had just before
    /// each deletion anywhere in the deleting side's history since the merge base (Spec/MERGE.md §3.2.1),
    /// which the merge puts in place of the deletion.
    func deletedVersions(repo: GitRepository, cipher: EntryCipher, base: String?, baseEntries: [Entry],
                         side: [Entry], sideTip: String, other: [Entry]) throws -> [Entry] {
        let sideIDs = Set(side.map(\.id))
        var otherByID: [String: Entry] = [:]
        for e in other { otherByID[e.id] = e }
        var wanted: [String: Entry] = [:]
        for b in baseEntries where !sideIDs.contains(b.id) {
            if let o = otherByID[b.id], o != b { wanted[b.id] = b }
        }
        guard !wanted.isEmpty else { return [] }
        var found: [Entry] = []
        // Every commit of this side since the base, along all parents: deletions that reached this side
        // through a merge count as much as its own.
        for commit in try Vault.git({ try repo.commits(from: [sideTip], excluding: base.map { [$0] } ?? []) }) {
            for parent in commit.parents {
                var removed: [String: String] = [:]   // entry id → path in the parent
                var kept: Set<String> = []
                for change in try Vault.git({ try repo.changes(from: parent, to: commit.id) }) where EntryPath(filePath: change.path) != nil {
                    let rev = change.kind == .deleted ? parent : commit.id
                    guard let bytes = try Vault.git({ try repo.blob(at: rev, path: change.path) }),
                          let id = (try? Envelope.parse(bytes))?.id, wanted[id] != nil else { continue }
                    if change.kind == .deleted { removed[id] = change.path } else { kept.insert(id) }
                }
                // A deletion in one place and an addition elsewhere is a move, not a deletion.
                for (id, path) in removed where !kept.contains(id) {
                    guard let bytes = try Vault.git({ try repo.blob(at: parent, path: path) }),
                          let version = try? cipher.open(bytes, expectedPath: nil), version != wanted[id] else { continue }
                    if !found.contains(version) { found.append(version) }
                }
            }
        }
        return found
    }
}
