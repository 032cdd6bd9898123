// An entry's history from git (which fields each commit changed, decrypting old versions) and restoring old versions.
import Foundation
import TresorCore
import TresorGit

/// One commit in an entry's life.
public struct EntryChange: Sendable {
    /// What a commit did to an entry.
    public enum Kind: String, Sendable {
        case added, changed, removed
        /// A merge commit (sync) that changed the entry.
        case merged
        /// Re-encrypted or rewritten with the same values (a rekey, an upgrade).
        case rewritten
        /// A version that could not be decrypted.
        case unreadable
    }

    public let commit: GitCommit
    public let kind: Kind
    /// Field names whose value differs from the version before (never the values).
    public let fields: [String]
}

extension Vault {
    /// The commits that touched `path`, newest first, each with the fields it changed.
    public func entryLog(_ path: EntryPath, limit: Int? = nil) throws -> [EntryChange] {
        let cipher = try requireCipher()
        let repo = try repository()
        let commits = try Vault.git { try repo.log(path: path.filePath, limit: limit) }
        func version(_ rev: String?) -> Result<Entry, Error>? {
            guard let rev, let bytes = try? repo.blob(at: rev, path: path.filePath) else { return nil }
            return Result { try cipher.open(bytes, expectedPath: path) }
        }
        return commits.map { c in
            let after = version(c.id), before = version(c.parents.first)
            switch (before, after) {
            case (nil, .success(let e)?): return EntryChange(commit: c, kind: .added, fields: e.fields.keys.sorted())
            case (.success(let e)?, nil): return EntryChange(commit: c, kind: .removed, fields: e.fields.keys.sorted())
            case (.success(let old)?, .success(let new)?):
                let names = Set(old.fields.keys).union(new.fields.keys).filter { old.fields[$0]?.value != new.fields[$0]?.value }
                let kind = c.parents.count > 1 ? EntryChange.Kind.merged : old.path == new.path && names.isEmpty ? .rewritten : .changed
                return EntryChange(commit: c, kind: kind, fields: names.sorted())
            default: return EntryChange(commit: c, kind: .unreadable, fields: [])
            }
        }
    }

    /// Brings back the version of `path` at `rev` (default: the version before the last commit that
    /// touched it, so a deleted entry comes back and an edited one goes back one step) as a new commit.
    /// Current values that differ go into the entry's history, so nothing is lost.
    /// - Returns: the commit the version came from.
    /// - Throws: `VaultError.unknownRevision`, `.entryNotFound`, `.entry`.
    @discardableResult
    public func restore(_ path: EntryPath, at rev: String?) throws -> String {
        let cipher = try requireCipher()
        let repo = try repository()
        return try transaction { txn in
            let source: String
            if let rev {
                guard let id = repo.resolve(rev) else { throw VaultError.unknownRevision(rev) }
                source = id
            } else {
                guard let last = try Vault.git({ try repo.log(path: path.filePath, limit: 1) }).first, let parent = last.parents.first else {
                    throw VaultError.entryNotFound(path: path.string, suggestions: suggestions(for: path.string))
                }
                source = parent
            }
            guard let bytes = try Vault.git({ try repo.blob(at: source, path: path.filePath) }) else {
                throw VaultError.entryNotFound(path: path.string + " at " + String(source.prefix(8)), suggestions: [])
            }
            let old: Entry
            do { old = try cipher.open(bytes, expectedPath: path) } catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
            let now = Timestamp.now()
            var entry: Entry
            if var current = try txn.entry(at: path) {
                for name in Set(current.fields.keys).union(old.fields.keys).sorted() {
                    do { try current.set(name, old.fields[name]?.value, at: now, origin: deviceID) }
                    catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
                }
                entry = current
            } else {
                try txn.checkNew(path)
                entry = old
                // The entry lives on under another path (it was moved): the old version comes back as a copy,
                // with an id of its own (one id names one entry).
                if try findByID(old.id, in: txn) != nil { entry.id = UUID().uuidString.lowercased() }
                entry.modified = max(now, entry.modified)
                for (name, field) in entry.fields { entry.fields[name] = Field(value: field.value, modified: now, origin: deviceID) }
            }
            try txn.put(entry)
            txn.message = "Restore \(path) from \(source.prefix(8))"
            return source
        }
    }
}
