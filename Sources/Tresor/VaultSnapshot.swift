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
    /// Every tree entry by path (files that are not entries too).
    var files: [String: GitTreeEntry] = [:]

    var entryList: [Entry] { entries.values.map(\.entry) }
}

/// Decrypts blobs once each, whichever commit they appear in.
final class SnapshotReader {
    let repo: GitRepository
    let cipher: EntryCipher
    let vaultID: String
    private var cache: [String: Entry] = [:]

    init(repo: GitRepository, cipher: EntryCipher, vaultID: String) {
        self.repo = repo; self.cipher = cipher; self.vaultID = vaultID
    }

    /// Reads commit `rev`. Every file must pass the checks of Spec/MERGE.md §13.3 — by path, kind and
    /// size, never skipped because the same bytes were seen elsewhere; only decryption is shared.
    /// - Throws: `VaultError.hostileRemote` naming the first file that fails.
    /// With `unchanged` (entries as `path` NUL `blob id` that this replica already has at the same path,
    /// verified when it wrote or merged them), those entries are not decrypted again and are left out of
    /// `entries`: for a fast-forward, which needs the checks but not the entries.
    func read(_ rev: String, skippingUnchanged unchanged: Set<String> = []) throws -> VaultSnapshot {
        var snap = VaultSnapshot()
        for file in try Vault.git({ try repo.treeEntries(at: rev) }) {
            snap.files[file.path] = file
            try checkShape(file)
            if unchanged.contains(file.path + "\u{0}" + file.id) { continue }
            if file.path == VaultHeader.relativePath {
                let header: VaultHeader
                do { header = try VaultHeader.parse(try blob(file)) }
                catch let e as CoreError { throw VaultError.hostileRemote(file: file.path, reason: e.errorDescription ?? "\(e)") }
                guard header.vaultID == vaultID else {
                    throw VaultError.header(.differentVault(ours: vaultID, theirs: header.vaultID))
                }
                snap.header = header
                snap.headerBlob = file.id
                continue
            }
            guard let path = EntryPath(filePath: file.path) else { continue }
            snap.entries[file.path] = (file.id, try entry(file, path: path))
        }
        return snap
    }

    /// Rules on a file from elsewhere: a regular file, of bounded size, at an allowed path (Spec/MERGE.md §13.3).
    func checkShape(_ file: GitTreeEntry) throws {
        switch file.kind {
        case .file: break
        case .symlink: throw VaultError.hostileRemote(file: file.path, reason: "is a symbolic link")
        case .executable: throw VaultError.hostileRemote(file: file.path, reason: "is an executable file")
        case .submodule: throw VaultError.hostileRemote(file: file.path, reason: "is a submodule")
        case .other: throw VaultError.hostileRemote(file: file.path, reason: "is not a regular file")
        }
        let size = try Vault.git { try repo.blobSize(id: file.id) }
        guard size <= Envelope.maxFileBytes else { throw VaultError.hostileRemote(file: file.path, reason: "is larger than \(Envelope.maxFileBytes) bytes") }
        if file.path == VaultHeader.relativePath || file.path == SyncSetup.attributesFile { return }
        let parts = file.path.split(separator: "/")
        if parts.contains(where: { $0.hasPrefix(".") }) { throw VaultError.hostileRemote(file: file.path, reason: "is a hidden file, which a vault never holds") }
        if file.path.hasSuffix(EntryPath.fileExtension), EntryPath(filePath: file.path) == nil {
            throw VaultError.hostileRemote(file: file.path, reason: "is not a valid entry path")
        }
    }

    func blob(_ file: GitTreeEntry) throws -> [UInt8] { try Vault.git { try repo.blob(id: file.id) } }

    func entry(_ file: GitTreeEntry, path: EntryPath) throws -> Entry {
        if let e = cache[file.id], e.path == path { return e }
        do {
            let e = try cipher.open(try blob(file), expectedPath: path)
            cache[file.id] = e
            return e
        } catch let e as CoreError {
            throw VaultError.hostileRemote(file: file.path, reason: e.errorDescription ?? "\(e)")
        }
    }
}
