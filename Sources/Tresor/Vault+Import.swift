// Many new and changed entries in one commit (an import): one transaction, so all or nothing.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

extension Vault {
    /// Writes `additions` (new entries) and `updates` (new versions of existing entries) as one commit with
    /// `message`: one transaction, so either every entry is committed or nothing changes.
    /// - Throws: `VaultError.entryExists`, `.caseCollision`, `.entryNotFound`, `.nothingChanged`, `.entry`, and
    ///   the errors of `transaction`.
    public func importEntries(adding additions: [Entry], updating updates: [Entry], originals: [Entry], message: String) throws {
        guard !additions.isEmpty || !updates.isEmpty else { throw VaultError.nothingChanged(path: "") }
        try transaction { txn in
            // The plan was made before this change: each update is made again on what is stored now, with this
            // change's dot, so that a change made meanwhile stays (Spec/FORMAT.md §11.8).
            for (e, original) in zip(updates, originals) {
                guard let current = try txn.entry(at: original.path) else { throw VaultError.entryNotFound(path: e.path.string, suggestions: []) }
                do { try txn.put(try Entry.rebasing(e, from: original, onto: current, change: txn.change)) }
                catch let err as CoreError { throw VaultError.entry(path: e.path.string, err) }
            }
            for e in additions {
                try txn.checkNew(e.path)
                try txn.put(e.redotted(to: txn.change.dot))
            }
            txn.message = message
        }
    }
}
