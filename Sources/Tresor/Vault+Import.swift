// Many new and changed entries in one commit (an import); to be moved onto the transaction API when it lands.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// Writes `additions` (new entries) and `updates` (new versions of existing entries) and commits them
    /// all as one commit with `message`. All or nothing: if any write or the commit fails, the files
    /// written so far are put back as they were (new ones removed) and nothing is committed.
    /// - Throws: `VaultError.entryExists`, `.caseCollision`, `.entryNotFound`, `.nothingChanged`, `.entry`, `.git`.
    public func importEntries(adding additions: [Entry], updating updates: [Entry], message: String) throws {
        _ = try repository()  // refuse before touching any file
        guard !additions.isEmpty || !updates.isEmpty else { throw VaultError.nothingChanged("nothing to import") }
        for e in additions { try checkNew(e.path, force: false) }
        for e in updates where store.kind(of: e.path) != .file {
            throw VaultError.entryNotFound(e.path.string, suggestions: [])
        }
        var written: [(path: EntryPath, previous: [UInt8]?)] = []
        do {
            for e in updates {
                let previous: [UInt8]
                do { previous = try store.readEntryFile(e.path) } catch let c as CoreError { throw VaultError.entry(e.path.string, c) }
                written.append((e.path, previous))
                try write(e)
            }
            for e in additions {
                written.append((e.path, nil))
                try write(e)
            }
            try commit(message, adding: (updates + additions).map(\.path.filePath))
        } catch {
            for (path, previous) in written.reversed() {
                if let previous { try? store.writeEntryFile(previous, for: path) } else if store.kind(of: path) == .file { try? store.removeEntryFile(path) }
            }
            throw error
        }
    }
}
