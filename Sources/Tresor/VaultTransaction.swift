// One change to the vault being prepared: reads come from the commit it started from, writes are staged in memory.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// A change in progress (Spec/TRANSACTIONS.md). Created by `Vault.transaction`, which holds the vault lock
/// while the body runs: everything read here is the state of `base`, the commit HEAD named when the lock was
/// taken, and everything staged becomes one commit on top of it — or nothing at all.
public final class VaultTransaction {
    /// The commit this transaction reads from and builds on; nil in a vault with no commit yet.
    public let base: String?
    /// The commit message; whoever stages a change sets it.
    public var message = ""
    /// The change this transaction makes: its time, this device, and the dot every value it writes gets
    /// (Spec/FORMAT.md §11.3).
    public let change: Change
    let repo: GitRepository
    /// The cipher of the key that seals an entry path under a header (the vault's keys, Spec/FORMAT.md §3.12.3).
    private let cipherFor: (EntryPath, VaultHeader) throws -> EntryCipher
    /// Set by a rekey: the commit is authenticated with this vault key, which the vault uses from then on.
    var newVaultKey: SecretBytes?
    /// Set by creating a scope or rekeying one: scope keys the commit is tagged with and the vault uses from then on.
    var newScopeKeys: [String: ScopeKeys] = [:]
    private var parsedHeader: (bytes: [UInt8], header: VaultHeader)?
    private var baseHeaderBytes: [UInt8]??
    /// Vault-relative file path → new bytes, or nil to remove the file.
    private(set) var staged: [String: [UInt8]?] = [:]
    /// Vault-relative file path → the clock of the entry staged there: the state record of the domain it lies in covers
    /// it (Spec/FORMAT.md §11.6).
    private(set) var stagedClocks: [String: Clock] = [:]

    init(repo: GitRepository, base: String?, change: Change, cipherFor: @escaping (EntryPath, VaultHeader) throws -> EntryCipher) {
        self.repo = repo
        self.cipherFor = cipherFor
        self.base = base
        self.change = change
    }

    var hasChanges: Bool { !staged.isEmpty }

    /// The cipher for the entry at `path` as this transaction's header places it. - Throws: `VaultError.noKeyFor`,
    /// `.vaultLocked`.
    private func cipher(for path: EntryPath) throws -> EntryCipher {
        let h = try header()
        if !newScopeKeys.isEmpty, let id = h.scope(containing: path), let keys = newScopeKeys[id] { return keys.cipher }
        return try cipherFor(path, h)
    }

    // MARK: Reading

    /// The bytes of a vault-relative file as this transaction sees it (staged, else the base commit).
    func file(_ relative: String) throws -> [UInt8]? {
        if let change = staged[relative] { return change }
        guard let base else { return nil }
        return try Vault.git { try repo.blob(at: base, path: relative) }
    }

    /// Whether an entry is at `path`.
    public func contains(_ path: EntryPath) throws -> Bool {
        if let change = staged[path.filePath] { return change != nil }
        guard let base else { return false }
        return try Vault.git { try repo.blobID(at: base, path: path.filePath) } != nil
    }

    /// The entry at `path`, decrypted and checked, or nil if there is none.
    /// - Throws: `VaultError.entry` for a file that does not open.
    public func entry(at path: EntryPath) throws -> Entry? {
        guard let bytes = try file(path.filePath) else { return nil }
        let cipher = try cipher(for: path)
        do { return try cipher.open(bytes, expectedPath: path) }
        catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
    }

    /// The entry at `path`. - Throws: `VaultError.entryNotFound` if there is none.
    public func existingEntry(at path: EntryPath) throws -> Entry {
        guard let entry = try entry(at: path) else { throw VaultError.entryNotFound(path: path.string, suggestions: []) }
        return entry
    }

    /// The vault header as of this transaction.
    package func header() throws -> VaultHeader {
        // Read from git once: every `put` asks which key seals its entry (Spec/FORMAT.md §3.12.3).
        if baseHeaderBytes == nil, staged[VaultHeader.relativePath] == nil { baseHeaderBytes = .some(try file(VaultHeader.relativePath)) }
        let current = staged[VaultHeader.relativePath] ?? baseHeaderBytes ?? nil
        guard let bytes = current else { throw VaultError.header(.malformed(.missingFile(path: VaultHeader.relativePath))) }
        if let parsedHeader, parsedHeader.bytes == bytes { return parsedHeader.header }
        do {
            let h = try VaultHeader.parse(bytes)
            parsedHeader = (bytes, h)
            return h
        } catch let e as CoreError { throw VaultError.header(e) }
    }

    /// The names in folder `folder` ("" for the root): the base commit's, with staged changes applied.
    func names(in folder: String) throws -> [String] {
        var names = Set(try base.map { rev in try Vault.git { try repo.folderNames(at: rev, folder: folder) }.map(\.name) } ?? [])
        // By component, not by `Character` (Spec/FORMAT.md §4.2).
        let prefix = folder.isEmpty ? [] : EntryPath.split(folder)
        for (path, change) in staged {
            let parts = EntryPath.split(path)
            guard parts.count > prefix.count, parts.starts(with: prefix) else { continue }
            let name = parts[prefix.count]
            if change != nil { names.insert(name) } else if parts.count == prefix.count + 1 { names.remove(name) }
        }
        return names.sorted()
    }

    /// An existing file or folder whose name differs from one of `path`'s components only by case or
    /// Unicode normalisation (Spec/FORMAT.md §4.3), or nil.
    package func caseCollision(for path: EntryPath) throws -> String? {
        var folder = ""
        let parts = path.components
        for (i, part) in parts.enumerated() {
            let want = i == parts.count - 1 ? part + EntryPath.fileExtension : part
            let names = try names(in: folder)
            let next = folder.isEmpty ? want : folder + "/" + want
            if names.contains(where: { $0.utf8.elementsEqual(want.utf8) }) { folder = next; continue }
            let key = want.lowercased().nfc
            if let other = names.first(where: { $0.lowercased().nfc == key }) {
                return folder.isEmpty ? other : folder + "/" + other
            }
            return nil
        }
        return nil
    }

    /// Refuses to create `path` when an entry is there (unless `replacing`) or its name collides by case.
    /// - Throws: `VaultError.entryExists`, `.caseCollision`.
    public func checkNew(_ path: EntryPath, replacing: Bool = false) throws {
        if try contains(path) {
            if !replacing { throw VaultError.entryExists(path: path.string) }
            return
        }
        if let other = try caseCollision(for: path) { throw VaultError.caseCollision(path: path.string, existing: other) }
    }

    // MARK: Staging

    /// Stages `entry` at its path, encrypted with a fresh nonce. Every entry staged is a changed one, so its
    /// history is written in canonical order and capped (Spec/FORMAT.md §5.4), also items it was read with.
    public func put(_ entry: Entry) throws {
        // Values written before this change was numbered (`Vault.pendingChange`) get its dot.
        var entry = entry.hasPlaceholderDots ? entry.redotted(to: change.dot) : entry
        entry.capHistory()
        let cipher = try cipher(for: entry.path)
        do { putSealed(entry, try cipher.seal(entry)) }
        catch let e as CoreError { throw VaultError.entry(path: entry.path.string, e) }
    }

    /// Stages `entry` sealed already (`bytes`, under the key of the domain it lies in).
    func putSealed(_ entry: Entry, _ bytes: [UInt8]) {
        staged[entry.path.filePath] = .some(bytes)
        stagedClocks[entry.path.filePath] = entry.clock
    }

    /// Stages the removal of the entry at `path`. - Throws: `VaultError.entryNotFound` if there is none.
    public func remove(_ path: EntryPath) throws {
        guard try contains(path) else { throw VaultError.entryNotFound(path: path.string, suggestions: []) }
        // Only a holder of the key that seals it may change it, removing included (Spec/FORMAT.md §3.12.6).
        _ = try cipher(for: path)
        staged[path.filePath] = .some(nil)
        stagedClocks[path.filePath] = nil
    }

    /// Stages a new vault header.
    package func putHeader(_ header: VaultHeader) {
        staged[VaultHeader.relativePath] = .some(header.serialized())
    }

    /// Stages a file that is not an entry (the vault header, `.gitattributes`).
    func putFile(_ relative: String, _ bytes: [UInt8]) {
        staged[relative] = .some(bytes)
    }

    /// Stages the removal of a file that is not an entry (a scope header).
    func removeFile(_ relative: String) {
        staged[relative] = .some(nil)
    }
}
