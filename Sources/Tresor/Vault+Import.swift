// Many new and changed entries in one commit (an import): one transaction, so all or nothing.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// Writes `additions` (new entries) and `updates` (new versions of existing entries) as one commit with
    /// `message`: one transaction, so either every entry is committed or nothing changes.
    /// - Throws: `VaultError.entryExists`, `.caseCollision`, `.entryNotFound`, `.nothingChanged`, `.entry`, and
    ///   the errors of `transaction`.
    public func importEntries(adding additions: [Entry], updating updates: [Entry], message: String) throws {
        guard !additions.isEmpty || !updates.isEmpty else { throw VaultError.nothingChanged(path: "") }
        try transaction { txn in
            // The plan was made before this change was numbered: its values get this change's dot.
            for e in updates {
                guard try txn.contains(e.path) else { throw VaultError.entryNotFound(path: e.path.string, suggestions: []) }
                try txn.put(e.redotted(to: txn.change.dot))
            }
            for e in additions {
                try txn.checkNew(e.path)
                try txn.put(e.redotted(to: txn.change.dot))
            }
            txn.message = message
        }
    }
}
