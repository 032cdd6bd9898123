// An entry's history from git (which fields each commit changed, decrypting old versions) and restoring old versions.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// One commit in an entry's life.
public struct EntryChange: Sendable {
    /// What a commit did to an entry.
    public enum Kind: String, Sendable {
        /// The commit created, changed or removed the entry.
        case added, changed, removed
        /// A merge commit (sync) that changed the entry.
        case merged
        /// Re-encrypted or rewritten with the same values (a rekey, an upgrade).
        case rewritten
        /// A version that could not be decrypted.
        case unreadable
    }

    /// The commit (id, author, time, message).
    public let commit: GitCommit
    /// What the commit did to the entry.
    public let kind: Kind
    /// Field names whose value differs from the version before (never the values).
    public let fields: [String]
}

extension Vault {
    /// The commits that touched `path`, newest first, each with the fields it changed.
    public func entryLog(_ path: EntryPath, limit: Int? = nil) throws -> [EntryChange] {
        let cipher = try cipher(for: path, header: header)
        let repo = try repository()
        let commits = try Vault.git { try repo.log(path: path.filePath, limit: limit) }
        // A version git cannot read is an error, never "not there" (which would show as the entry added or removed).
        func version(_ rev: String?) throws -> Result<Entry, Error>? {
            guard let rev, let bytes = try Vault.git({ try repo.blob(at: rev, path: path.filePath) }) else { return nil }
            return Result { try cipher.open(bytes, expectedPath: path) }
        }
        return try commits.map { c in
            let after = try version(c.id), before = try version(c.parents.first)
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

    /// Brings back an entry (Spec/MERGE.md §7). With `rev`, exactly the version commit `rev` has at `path`. Without it,
    /// for an entry that is there, the version before this replica's newest change of it along its own line of commits
    /// (undoing the last edit, or a removal a join overrode); for
    /// one that is not, the versions git history holds just before each commit that removed `path` (the deleted versions), joined: the
    /// newest by causality, with every value of each current or in its history. The result is written as a change of
    /// this replica (its clock includes the change, so a deletion elsewhere that did not see it does not undo it). When
    /// an entry is at `path` now, the restored values are set over its current ones (which go to its history).
    /// - Returns: the commit the version came from (the newest one for a join).
    /// - Throws: `VaultError.unknownRevision`, `.entryNotFound`, `.entry`.
    @discardableResult
    public func restore(_ path: EntryPath, at rev: String?) throws -> String {
        let repo = try repository()
        let ciphers = try historyCiphers(for: path)
        let found = try versionsToRestore(path, at: rev, repo: repo, ciphers: ciphers)
        let restored = found.versions.dropFirst().reduce(found.versions[0]) { EntryJoin.join($0, $1).entry }
        return try transaction { txn in
            try putRestored(restored, at: path, joinIntoCurrent: found.joinIntoCurrent, in: txn)
            txn.message = "Restore \(path) from \(found.source.prefix(8))"
            return found.source
        }
    }

    /// The versions `restore` brings back (newest first, never empty), the commit they came from, and whether they are
    /// joined into the entry that is there (every value of both kept, Spec/MERGE.md §7) rather than set over it: with
    /// `rev`, the version at `rev`; for an entry that is there, see `versionsBeforeCurrent`; for one that is not, its
    /// deleted versions.
    /// - Throws: `VaultError.unknownRevision`, `.entryNotFound`, `.entry`.
    private func versionsToRestore(_ path: EntryPath, at rev: String?, repo: GitRepository,
                                   ciphers: [EntryCipher]) throws -> (versions: [Entry], source: String, joinIntoCurrent: Bool) {
        let head = try Vault.git { try repo.headCommitID() }
        let currentBytes = try head.flatMap { h in try Vault.git { try repo.blob(at: h, path: path.filePath) } }
        if let rev {
            guard let id = repo.resolve(rev) else { throw VaultError.unknownRevision(rev) }
            guard let bytes = try Vault.git({ try repo.blob(at: id, path: path.filePath) }) else {
                throw VaultError.entryNotFound(path: path.string + " at " + String(id.prefix(8)), suggestions: [])
            }
            return ([try openEarlierVersion(bytes, of: path, ciphers: ciphers)], id, false)
        } else if let currentBytes, let current = try? openEarlierVersion(currentBytes, of: path, ciphers: ciphers) {  // (else: the removed ones)
            return try versionsBeforeCurrent(current, at: path, repo: repo, ciphers: ciphers)
        } else {
            let deleted = try deletedVersions(of: path, repo: repo, ciphers: ciphers)
            guard !deleted.versions.isEmpty else { throw VaultError.entryNotFound(path: path.string, suggestions: suggestions(for: path.string)) }
            return (deleted.versions, deleted.source, false)
        }
    }

    /// What `restore` brings back for `current`, the entry at `path` now. Deleted versions of it whose changes it has
    /// not seen (a removal a join overrode: the entry came back as another replica changed it) are joined into it;
    /// with none, its last change is undone: the version before the newest commit that changed its file.
    /// - Throws: `VaultError.entryNotFound` when there is no earlier version, `.entry`.
    private func versionsBeforeCurrent(_ current: Entry, at path: EntryPath, repo: GitRepository,
                                       ciphers: [EntryCipher]) throws -> (versions: [Entry], source: String, joinIntoCurrent: Bool) {
        let deleted = try deletedVersions(of: path, repo: repo, ciphers: ciphers)
        let unseen = deleted.versions.filter { $0.id == current.id && !$0.clock.isAtMost(current.clock) }
        if !unseen.isEmpty { return (unseen, deleted.source, true) }
        for c in try Vault.git({ try repo.log(path: path.filePath, limit: 200) }) {
            let mine = try Vault.git { try repo.blobID(at: c.id, path: path.filePath) }
            for parent in c.parents {
                guard let before = try Vault.git({ try repo.blobID(at: parent, path: path.filePath) }), before != mine else { continue }
                let bytes = try Vault.git { try repo.blob(id: before) }
                return ([try openEarlierVersion(bytes, of: path, ciphers: ciphers)], parent, false)
            }
        }
        throw VaultError.entryNotFound(path: path.string + " (no earlier version)", suggestions: [])
    }

    /// The versions git history holds just before each commit that removed `path` (newest first), of one id, and the
    /// commit the newest came from ("" when there is none).
    private func deletedVersions(of path: EntryPath, repo: GitRepository, ciphers: [EntryCipher]) throws
        -> (versions: [Entry], source: String) {
        var found: [Entry] = [], source = ""
        for c in try Vault.git({ try repo.log(path: path.filePath, limit: 200) }) {
            guard try Vault.git({ try repo.blobID(at: c.id, path: path.filePath) }) == nil else { continue }
            for parent in c.parents {
                guard let bytes = try Vault.git({ try repo.blob(at: parent, path: path.filePath) }),
                      let v = try? openEarlierVersion(bytes, of: path, ciphers: ciphers) else { continue }  // (a version no key opens)
                if let first = found.first, first.id != v.id { continue }
                if source.isEmpty { source = parent }
                found.append(v)
            }
        }
        return (found, source)
    }

    /// A version of `path` from git history, opened with the first of `ciphers` it is sealed under (it may predate a
    /// rekey or a scope change).
    /// - Throws: `VaultError.entry` when it is damaged, `.earlierVersionNotOpened` when no cipher opens it.
    private func openEarlierVersion(_ bytes: [UInt8], of path: EntryPath, ciphers: [EntryCipher]) throws -> Entry {
        for c in ciphers {
            do { return try c.open(bytes, expectedPath: path) } catch CoreError.authenticationFailed { continue }
            catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
        }
        throw VaultError.earlierVersionNotOpened(path: path.string)
    }

    /// Writes `restored` at `path` in `txn` as a change of this replica (its clock includes the change, so a deletion
    /// elsewhere that did not see it does not undo it): joined into the entry there (`joinIntoCurrent`), set over it
    /// (its current values go to its history), or, with no entry there, as the entry itself or, when that entry lives
    /// on under another path, as a copy.
    /// - Throws: `VaultError.entry`, `.entryExists`, `.caseCollision`.
    private func putRestored(_ restored: Entry, at path: EntryPath, joinIntoCurrent: Bool,
                             in txn: VaultTransaction) throws {
        var entry: Entry
        if let current = try txn.entry(at: path), joinIntoCurrent, current.id == restored.id {
            // Only the clock changes besides the join (Spec/FORMAT.md §11.8 restore).
            entry = EntryJoin.join(current, restored).entry
            entry.clock.advance(to: txn.change.dot)
            // It stays where it is (a deleted version's other path is in its history of moves, not taken).
            if entry.path != current.path { _ = entry.move(to: current.path, change: txn.change) }
        } else if var current = try txn.entry(at: path) {
            for name in Set(current.fields.keys).union(restored.fields.keys).sorted() {
                do { try current.set(name, restored.fields[name]?.value, change: txn.change) }
                catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
            }
            entry = current
        } else {
            try txn.checkNew(path)
            entry = restored
            entry.path = path
            // The entry lives on under another path (it was moved): the old version comes back as a copy, with an id
            // of its own (one id names one entry).
            if try findByID(restored.id, in: txn) != nil {
                entry = Entry(path: path, change: txn.change)
                for (name, field) in restored.fields { try entry.set(name, field.value, change: txn.change) }
            } else {
                // Only the clock changes (Spec/FORMAT.md §11.8 restore): a deletion elsewhere must have seen it.
                entry.clock.advance(to: txn.change.dot)
            }
        }
        try txn.put(entry)
    }

    /// The ciphers that may open old versions of `path`: the key of its place now, and the earlier keys kept.
    /// The ciphers an earlier version of `path` may be sealed under: its domain's key first, then every other key this
    /// replica holds or keeps (the path was in another domain then: a scope made or removed since, a rekey).
    private func historyCiphers(for path: EntryPath) throws -> [EntryCipher] {
        let domain = header.domain(of: path)
        let own = Result { try cipher(for: path, header: header) }
        var out = (try? own.get()).map { [$0] } ?? []
        var keys = (try previousKeys()[domain] ?? []).sorted(by: { $0.epoch > $1.epoch }).map(\.key)
        for (d, list) in try heldKeys().sorted(by: { $0.key < $1.key }) where d != domain {
            keys += list.sorted(by: { $0.epoch > $1.epoch }).map(\.key)
        }
        for k in keys { if let c = try? EntryCipher(vaultKey: k) { out.append(c) } }
        if out.isEmpty { _ = try own.get() }
        return out
    }
}
