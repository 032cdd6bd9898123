// A commit's vault, read straight from git objects: entries decrypted once per blob, header, and the checks
// that refuse hostile content before anything is merged.
import Foundation
import TresorCore
import TresorGit

/// The vault as one commit has it. Built without touching the work tree.
struct VaultSnapshot {
    /// Entry file path → (blob id, decrypted entry).
    var entries: [String: (blob: String, entry: Entry)] = [:]
    var header: VaultHeader?
    var headerBlob: String?
    /// Entry files under a scope key this process does not hold: checked for shape only, not in `entries`.
    var unreadable: [String] = []

    var entryList: [Entry] { entries.values.map(\.entry) }
}

/// Decrypts blobs once each, whichever commit they appear in.
final class SnapshotReader {
    let repo: GitRepository
    /// The vault key's cipher and authenticator; nil for a scope-only member (Spec/FORMAT.md §3.12.4), who checks
    /// entries outside its scopes for shape only and cannot check the vault header's tag.
    let cipher: EntryCipher?
    let authenticator: VaultAuthenticator?
    /// The local header: the vault id every header must carry, and the version a header may not go below.
    let local: VaultHeader
    private var cache: [String: Entry] = [:]
    /// The keys of the scopes this process holds (scope id → keys): entries in other scopes are checked for shape only.
    var scopeKeys: [String: ScopeKeys] = [:]
    /// Told of each entry checked by `readIncoming`.
    var progress: VaultProgressHandler?

    init(repo: GitRepository, cipher: EntryCipher?, authenticator: VaultAuthenticator?, local: VaultHeader) {
        self.repo = repo; self.cipher = cipher; self.authenticator = authenticator; self.local = local
    }

    /// Reads commit `rev` of this replica's own history (already checked when it arrived or was written).
    func read(_ rev: String) throws -> VaultSnapshot {
        let files = try Vault.git { try repo.treeEntries(at: rev) }.map { ($0.path, $0.id) }
        return try snapshot(files, check: false, minimumGeneration: nil)
    }

    /// The header of commit `rev` of this replica's own history, nil if it has none; as `read(rev).header`
    /// without decrypting every entry.
    func readHeader(_ rev: String) throws -> VaultHeader? {
        guard let blob = try Vault.git({ try repo.blobID(at: rev, path: VaultHeader.relativePath) }) else { return nil }
        return try header(blob, check: false, minimumGeneration: nil)
    }

    /// Reads commit `rev` from elsewhere. Every file must pass the checks of Spec/MERGE.md §13.3 — by path,
    /// kind and size on the raw tree objects, never skipped because the same bytes were seen elsewhere; only
    /// decryption is shared. With `unchanged` (entries as `path` NUL `blob id` that this replica already has
    /// at the same path, verified when it wrote or merged them), those entries are not decrypted again and are
    /// left out of `entries`: for a fast-forward, which needs the checks but not the entries. For a merge, the
    /// merge base's files count as unchanged too (the base is in this replica's history): after a rekey here, the
    /// remote's untouched files are still under the key before, which the keys held now do not open (Spec/MERGE.md
    /// §14.4). Headers are always read (they say which key seals each entry and where each scope is); an unchanged
    /// one is not authenticated again, but every other check applies. The header must be this vault's, authentic
    /// (version 2), not a downgrade, and of generation `minimumGeneration` or more.
    /// - Throws: `VaultError.hostileRemote` naming the first file that fails.
    func readIncoming(_ rev: String, skippingUnchanged unchanged: Set<String> = [], minimumGeneration: UInt64) throws -> VaultSnapshot {
        let files = try TreeHygiene(repo: repo).files(of: rev)
        guard files.contains(where: { $0.path == VaultHeader.relativePath }) else {
            throw VaultError.hostileRemote(file: VaultHeader.relativePath, problem: .header(.malformed("the vault header is missing")))
        }
        func isHeader(_ path: String) -> Bool { path == VaultHeader.relativePath || ScopeHeader.scopeID(ofPath: path) != nil }
        let kept = files.filter { isHeader($0.path) || !unchanged.contains($0.path + "\u{0}" + $0.blob) }
        return try snapshot(kept, check: true, minimumGeneration: minimumGeneration, accepted: unchanged)
    }

    /// `accepted`: headers (as `path` NUL `blob id`) already accepted by this replica, parsed but not authenticated.
    private func snapshot(_ files: [(String, String)], check: Bool, minimumGeneration: UInt64?, accepted: Set<String> = []) throws -> VaultSnapshot {
        var snap = VaultSnapshot()
        let total = files.count { EntryPath(filePath: $0.0) != nil }
        var done = 0
        // The header first: it says which key seals each entry (Spec/FORMAT.md §3.12.3).
        if let (path, blob) = files.first(where: { $0.0 == VaultHeader.relativePath }) {
            snap.header = try header(blob, check: check, authenticate: !accepted.contains(path + "\u{0}" + blob), minimumGeneration: minimumGeneration)
            snap.headerBlob = blob
        }
        let scopes = snap.header?.scopes ?? [:]
        for (path, blob) in files {
            if path == VaultHeader.relativePath {
                continue
            } else if let id = ScopeHeader.scopeID(ofPath: path) {
                try scopeHeader(blob, id: id, path: path, vault: snap.header, authenticate: !accepted.contains(path + "\u{0}" + blob))
            } else if path == SyncSetup.attributesFile {
                if check, try Vault.git({ try repo.blob(id: blob) }) != Array(SyncSetup.attributes.utf8) {
                    throw VaultError.hostileRemote(file: path, problem: .attributesChanged)
                }
            } else if let entryPath = EntryPath(filePath: path) {
                var cipher = self.cipher
                if !scopes.isEmpty, let id = snap.header?.scope(containing: entryPath) { cipher = scopeKeys[id]?.cipher }
                do {
                    guard let cipher else {
                        // Sealed under a key this process does not hold: its shape is all that can be checked.
                        do { _ = try Envelope.parse(try Vault.git { try repo.blob(id: blob) }) }
                        catch let e as CoreError { throw VaultError.hostileRemote(file: path, problem: .entry(e)) }
                        snap.unreadable.append(path)
                        continue
                    }
                    snap.entries[path] = (blob, try entry(blob, path: entryPath, file: path, cipher: cipher))
                }
                done += 1
                if check { progress?(.entries(done: done, total: total)) }
            }
        }
        return snap
    }

    /// `authenticate`: false for a header this replica already accepted at the same path (its tag may be under a key
    /// rekeyed since); the version and generation checks apply all the same (a fork from before an upgrade is a downgrade).
    private func header(_ blob: String, check: Bool, authenticate: Bool = true, minimumGeneration: UInt64?) throws -> VaultHeader {
        let path = VaultHeader.relativePath
        let header: VaultHeader
        do { header = try VaultHeader.parse(try Vault.git { try repo.blob(id: blob) }) }
        catch let e as CoreError { throw VaultError.hostileRemote(file: path, problem: .header(e)) }
        guard header.vaultID == local.vaultID else { throw VaultError.header(.differentVault(ours: local.vaultID, theirs: header.vaultID)) }
        guard check else { return header }
        if header.version < local.version { throw VaultError.hostileRemote(file: path, problem: .downgrade(version: header.version)) }
        if authenticate, let authenticator {
            do { try authenticator.verify(header) } catch let e as CoreError { throw VaultError.hostileRemote(file: path, problem: .header(e)) }
        }
        if let minimum = minimumGeneration, header.version >= 2, header.generation < minimum {
            throw VaultError.hostileRemote(file: path, problem: .header(.headerReplayed(generation: header.generation, minimum: minimum)))
        }
        return header
    }

    /// A scope header: listed by the vault header with its folder, and authentic when this process holds its key.
    private func scopeHeader(_ blob: String, id: String, path: String, vault: VaultHeader?, authenticate: Bool = true) throws {
        do {
            guard let vault, vault.scopes[id] != nil else { throw CoreError.malformed("the vault header lists no scope \(id)") }
            let s = try ScopeHeader.parse(try Vault.git { try repo.blob(id: blob) })
            try s.checkPlace(in: vault, path: path)
            if authenticate, let keys = scopeKeys[id] { try keys.authenticator.verify(s) }
        } catch let e as CoreError { throw VaultError.hostileRemote(file: path, problem: .header(e)) }
    }

    private func entry(_ blob: String, path: EntryPath, file: String, cipher: EntryCipher) throws -> Entry {
        if let e = cache[blob], e.path == path { return e }
        do {
            let e = try cipher.open(try Vault.git { try repo.blob(id: blob) }, expectedPath: path)
            cache[blob] = e
            return e
        } catch let e as CoreError {
            throw VaultError.hostileRemote(file: file, problem: .entry(e))
        }
    }
}
