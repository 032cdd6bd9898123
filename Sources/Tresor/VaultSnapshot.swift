// A commit's vault read straight from git objects: its tree as the acceptance rule sees it, its headers and state
// records, and its entries decrypted once per blob under the keys of their domains.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TresorCore
import TresorGit

/// One commit's vault (Spec/MERGE.md §4.1): headers, state records, and the entries of the domains read.
struct VaultSnapshot {
    var header: VaultHeader
    var scopeHeaders: [String: ScopeHeader] = [:]
    var states: [String: StateRecord] = [:]
    /// Every file: path → blob id.
    var files: [String: String] = [:]
    /// Entries of the domains read: path → (blob, entry).
    var entries: [String: (blob: String, entry: Entry)] = [:]
    /// Envelope ids of entry files of domains not read, with their domain.
    var unreadDomains: [String: String] = [:]
    var unreadIDs: Set<String> { Set(unreadDomains.keys) }
    /// Domain → the key its files were read with.
    var keys: [String: SecretBytes] = [:]

    var entryList: [Entry] { entries.values.map(\.entry) }
    var clocks: [String: Clock] { states.mapValues(\.clock) }

    /// The files of `domain` (Spec/FORMAT.md §11.2) by path.
    func files(of domain: String) -> [String: String] {
        files.filter { StateRecord.governingDomain(of: $0.key, scopes: header.scopes) == domain }
    }
}

/// Reads commits of one repository (the replica's or a quarantine borrowing its objects); decrypts each blob once.
final class SnapshotReader {
    let repo: GitRepository
    private var cache: [String: Entry] = [:]
    /// Told of each entry decrypted.
    var progress: VaultProgressHandler?

    init(repo: GitRepository) { self.repo = repo }

    /// Every entry of every tree of commit `rev`, in tree order, with the bytes of its small files, for the acceptance
    /// rule (Spec/AUTH.md §5). Walks the raw tree objects; stops at the limits the shape rule enforces (a tree that big
    /// is refused either way). - Throws: `VaultError.refusedRemote` for a tree that does not parse or exceeds a limit.
    func tipTree(_ rev: String, remote: String) throws -> TipTree {
        var items: [TipTree.Item] = []
        var small: [String: [UInt8]] = [:]
        let root = try Vault.git { try repo.treeEntriesID(of: rev) }
        func refuse(_ path: String, _ finding: AcceptanceRefusal.Finding) -> VaultError {
            .refusedRemote(remote: remote, AcceptanceRefusal(.treeShape, path: path, finding))
        }
        func walk(_ tree: String, _ folder: [String]) throws {
            guard folder.count < TreeShape.maxDepth + 1 else { throw refuse(folder.joined(separator: "/"), .foldersTooDeep(limit: nil)) }
            let entries: [GitRawTreeEntry]
            do { entries = try repo.rawTree(tree, limit: 64 << 20) }
            catch GitError.malformedTree { throw refuse(folder.isEmpty ? "/" : folder.joined(separator: "/"), .damagedTree) }
            catch let e as GitError { throw VaultError.git(e) }
            for e in entries {
                var item = TipTree.Item(folder: folder, name: e.name, mode: e.mode, id: e.id, size: 0)
                if e.mode == 0o100644 {
                    let header = try Vault.git { try repo.objectHeader(e.id) }
                    guard header.kind == .blob else { throw refuse(item.path, .notABlob) }
                    item.size = header.size
                    if TipTree.isSmallFile(item.path), header.size <= Envelope.maxFileBytes { small[item.path] = try Vault.git { try repo.blob(id: e.id) } }
                }
                items.append(item)
                guard items.count <= TreeShape.maxFiles * 2 else { throw refuse(item.path, .tooManyFiles(limit: TreeShape.maxFiles)) }
                if e.mode == 0o40000 { try walk(e.id, folder + [String(decoding: e.name, as: UTF8.self)]) }
            }
        }
        try walk(root, [])
        return TipTree(items: items, smallFiles: small)
    }

    /// The vault of commit `rev`: headers and state records parsed (they passed the acceptance rule, or are this
    /// replica's own), the entries of each domain in `keys` decrypted (domain → key), the ids of the others.
    /// - Throws: `VaultError.entryContent` (`remote` given) or `.entry` for an entry that does not open at its path.
    func read(_ rev: String, keys: [String: SecretBytes], remote: String?) throws -> VaultSnapshot {
        let list = try Vault.git { try repo.treeEntries(at: rev) }
        var files: [String: String] = [:]
        for f in list { files[f.path] = f.id }
        guard let hb = files[VaultHeader.relativePath] else { throw VaultError.header(.malformed(.missingFile(path: VaultHeader.relativePath))) }
        var snap = VaultSnapshot(header: try parse { try VaultHeader.parse(try Vault.git { try repo.blob(id: hb) }) })
        snap.files = files
        for (path, blob) in files {
            if let id = ScopeHeader.scopeID(ofPath: path) {
                snap.scopeHeaders[id] = try parse { try ScopeHeader.parse(try Vault.git { try repo.blob(id: blob) }) }
            } else if let d = StateRecord.domain(ofPath: path) {
                snap.states[d] = try parse { try StateRecord.parse(try Vault.git { try repo.blob(id: blob) }) }
            }
        }
        snap.keys = keys
        var ciphers: [String: EntryCipher] = [:]
        for (d, k) in keys {
            do { ciphers[d] = try EntryCipher(vaultKey: k) } catch { throw VaultError.session(.wrongToken) }
        }
        let entryFiles = files.compactMap { path, blob in EntryPath(filePath: path).map { ($0, path, blob) } }.sorted(by: { $0.1 < $1.1 })
        var done = 0
        // In batches: the blobs read here (one repository, one thread), the entries opened on every core, then taken in
        // path order, so the first that fails is the one a reading in order would stop at.
        for start in stride(from: 0, to: entryFiles.count, by: Self.batch) {
            let slice = entryFiles[start..<min(start + Self.batch, entryFiles.count)]
            // Each file's entry as decrypted before (for this path), or nil to open it now.
            let known = slice.map { entryPath, _, blob in cache[blob].flatMap { $0.path == entryPath ? $0 : nil } }
            let read = zip(slice, known).map { file, e -> Result<[UInt8], Error> in
                guard e == nil || ciphers[snap.header.domain(of: file.0)] == nil else { return .success([]) }
                return Result { try Vault.git { try repo.blob(id: file.2) } }
            }
            var work: [(path: EntryPath, cipher: EntryCipher, bytes: Result<[UInt8], Error>)] = []
            for ((entryPath, _, _), (bytes, e)) in zip(slice, zip(read, known)) where e == nil {
                if let cipher = ciphers[snap.header.domain(of: entryPath)] { work.append((entryPath, cipher, bytes)) }
            }
            var opened = Self.open(work).makeIterator()
            for ((entryPath, path, blob), (bytes, e)) in zip(slice, zip(read, known)) {
                let domain = snap.header.domain(of: entryPath)
                guard ciphers[domain] != nil else {
                    let file = try bytes.get()
                    if let env = try? Envelope.parse(file) { snap.unreadDomains[env.id] = domain }  // (not an envelope: no entry)
                    continue
                }
                let entry: Entry
                do { entry = try e ?? opened.next()!.get() } catch let e as CoreError {
                    if let remote { throw VaultError.entryContent(remote: remote, file: entryPath.filePath, e) }
                    throw VaultError.entry(path: entryPath.string, e)
                }
                cache[blob] = entry
                snap.entries[path] = (blob, entry)
                done += 1
                progress?(.entries(done: done, total: entryFiles.count))
            }
        }
        return snap
    }

    /// Entries read at a time (their ciphertext is held until they are opened).
    static let batch = 256

    /// Opens each of `work` (its blob's bytes, or the error reading them) on every core; results in the same order.
    private static func open(_ work: [(path: EntryPath, cipher: EntryCipher, bytes: Result<[UInt8], Error>)]) -> [Result<Entry, Error>] {
        var results = [Result<Entry, Error>?](repeating: nil, count: work.count)
        let chunks = max(1, min(work.count, ProcessInfo.processInfo.activeProcessorCount * 4))
        results.withUnsafeMutableBufferPointer { out in
            let slots = out  // each index is written by one chunk only
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for i in stride(from: chunk, to: work.count, by: chunks) {
                    slots[i] = Result { try work[i].cipher.open(try work[i].bytes.get(), expectedPath: work[i].path) }
                }
            }
        }
        return results.map { $0! }
    }

    private func parse<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as CoreError { throw VaultError.header(e) }
    }

    /// The entry of `blob` at `path` under `cipher`, decrypted once per blob.
    func entry(_ blob: String, path: EntryPath, cipher: EntryCipher, remote: String?) throws -> Entry {
        if let e = cache[blob], e.path == path { return e }
        do {
            let e = try cipher.open(try Vault.git { try repo.blob(id: blob) }, expectedPath: path)
            cache[blob] = e
            return e
        } catch let e as CoreError {
            if let remote { throw VaultError.entryContent(remote: remote, file: path.filePath, e) }
            throw VaultError.entry(path: path.string, e)
        }
    }
}
