// `tresor upgrade`: a vault of format 1–4 converted to format 5 in one commit (Spec/FORMAT.md §11.10).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

extension Vault {
    /// Converts a vault of format 1–4 to format 5 (Spec/FORMAT.md §11.10), deterministically from HEAD's tree: every value
    /// gets the conversion's dot, every header and domain a clock and epoch 1, entries are sealed again under the same
    /// keys, and every domain gets its state record. One commit; other replicas convert their own copy the same way (two
    /// conversions of one tree are the same state) or follow on sync. Needs the vault key and every scope's key.
    /// - Throws: `VaultError.vaultLocked`, `.noKeyFor` for a scope whose key is not held, `.entry`, `.header`.
    package func upgrade() throws {
        guard header.version < FormatVersion.header else { return }
        let vaultKey = try currentVaultKey()
        for (id, folder) in header.scopes where scopeKeys[id] == nil { throw VaultError.noKeyFor(path: folder, scope: folder) }
        let repo = try repository()
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        try recover(repo)
        guard let head = try Vault.git({ try repo.headCommitID() }) else { return }
        var files: [String: [UInt8]] = [:]
        for f in try Vault.git({ try repo.treeEntries(at: head) }) { files[f.path] = try Vault.git { try repo.blob(id: f.id) } }
        let converted: [String: [UInt8]]
        do {
            converted = try Conversion.convert(files: files, treeID: try Vault.git { try repo.treeEntriesID(of: head) }, vaultKey: vaultKey,
                                               scopeKeys: scopeKeys.mapValues(\.key), attributes: Array(SyncSetup.attributes.utf8))
        } catch let e as CoreError { throw VaultError.header(e) }
        var changes: [GitTreeChange] = []
        for (path, bytes) in converted { changes.append(.put(path: path, blob: try Vault.git { try repo.writeBlob(bytes) })) }
        for path in files.keys where converted[path] == nil { changes.append(.remove(path: path)) }
        let tree = try Vault.git { try repo.tree(from: head, applying: changes) }
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: [head], message: "Convert the vault to format \(FormatVersion.header)",
                                                          authentication: nil) }
        try publish(repo, from: head, to: commit, paths: changes.map(\.path), reflog: "tresor: upgrade", knownStale: true)
        try Vault.git { try repo.setRef(name: Vault.verifiedRef, to: commit) }
        try reloadHeader()
        vaultEpoch = 1
        for (id, keys) in scopeKeys { scopeKeys[id] = try ScopeKeys(keys.key, epoch: 1) }
        try SyncSetup.configure(repo)
    }
}
