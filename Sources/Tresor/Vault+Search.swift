// Searching every entry with the local search cache: only files that changed since the last search are
// decrypted, and only payloads that can contain the text are parsed.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TresorCore

/// One entry of a search: `entry` is nil when its payload cannot contain the text searched for (only its
/// path may match); otherwise the entry read, or why it could not be.
package struct SearchCandidate: Sendable {
    /// The entry's path.
    package var path: EntryPath
    /// The entry read, or why it could not be; nil when its payload cannot contain the text.
    package var entry: Result<Entry, VaultError>?
}

/// The entries of a search and what the cache saved.
package struct SearchCandidates: Sendable {
    /// Every entry below the prefix, in path order.
    package var candidates: [SearchCandidate]
    /// How many entry files had to be decrypted (not in the cache, or changed since).
    package var decrypted: Int
}

extension Vault {
    /// Every entry below `prefix` for a search for `needle` (lowercased), in path order, reading the local
    /// search cache (Spec/FORMAT.md §10) and bringing it up to date: an entry file whose `lstat` data or blob
    /// id is what the cache recorded is not decrypted again. When the needle is printable ASCII without `"`
    /// or `\`, an entry whose payload is ASCII and does not contain it (ignoring case) is not parsed: its
    /// `entry` is nil. A cache that is missing, damaged or sealed under another key is rebuilt silently.
    /// - Throws: `VaultError.vaultLocked`.
    package func searchCandidates(lowercasedNeedle needle: String, prefix: String? = nil,
                                 progress: VaultProgressHandler? = nil) throws -> SearchCandidates {
        guard isUnlocked else { throw VaultError.vaultLocked }
        let header = self.header
        // The cache is sealed under the vault key: a member holding only scope keys searches without one.
        let cacheKey = (try? currentVaultKey()).flatMap { try? SearchCache.key(vaultKey: $0) }
        let cachePath = root + "/" + SearchCache.relativePath
        let vaultID = header.vaultID
        var cache = cacheKey.flatMap { key in
            (try? FileSystem.read(cachePath, limit: SearchCache.maxFileBytes)).flatMap { try? SearchCache.open($0, key: key, vaultID: vaultID) }
        } ?? SearchCache()
        // A record whose file changed in or after the moment the cache was written may hide a second change
        // within the same clock tick (git's "racily clean" entries): its file is hashed again, not trusted.
        // (No cache file, or one that cannot be looked at: 0, and every record is checked against its file again.)
        let written = (try? FileSystem.status(cachePath)).map { Int64($0.st_mtim.tv_sec) * 1_000_000_000 + Int64($0.st_mtim.tv_nsec) } ?? 0
        let paths = list(prefix: prefix).paths
        // Each entry under the key of its place (Spec/FORMAT.md §3.12.3).
        let ciphers = paths.map { p in Result { try cipher(for: p, header: header) }.mapError { $0 as? VaultError ?? .vaultLocked } }
        let read = readCandidates(paths, ciphers: ciphers, known: cache.records, cacheWritten: written, needle: needle,
                                  progress: progress)
        let changed = Vault.updateSearchRecords(&cache, fresh: read.fresh, unreadable: read.unreadable, paths: paths,
                                                prefix: prefix)
        if changed, let cacheKey {
            saveSearchCache(cache, key: cacheKey, vaultID: vaultID, to: cachePath)
        }
        return SearchCandidates(candidates: read.candidates, decrypted: read.decrypted)
    }

    /// The candidate for each of `paths` (read with `ciphers`, the one of each path), on every core, with the records
    /// the cache lacks or has out of date (`fresh`), the paths that no longer open (`unreadable`: another key since,
    /// damaged), and how many files were decrypted. `known`: the cache's records; `needle`: lowercased.
    private func readCandidates(_ paths: [EntryPath], ciphers: [Result<EntryCipher, VaultError>],
                                known: [String: SearchCache.Record], cacheWritten written: Int64, needle: String,
                                progress: VaultProgressHandler?)
        -> (candidates: [SearchCandidate], fresh: [SearchCache.Record?], unreadable: [Bool], decrypted: Int) {
        let needleBytes = Array(needle.utf8)
        let filterable = needleBytes.allSatisfy { $0 >= 0x20 && $0 < 0x7f && $0 != 0x22 && $0 != 0x5c }
        var results = [SearchCandidate?](repeating: nil, count: paths.count)
        var fresh = [SearchCache.Record?](repeating: nil, count: paths.count)
        var unreadable = [Bool](repeating: false, count: paths.count)
        let lock = ThreadLock()
        var done = 0, decryptedCount = 0
        results.withUnsafeMutableBufferPointer { out in
            fresh.withUnsafeMutableBufferPointer { newRecords in
                unreadable.withUnsafeMutableBufferPointer { failed in
                    let chunks = max(1, min(paths.count, ProcessInfo.processInfo.activeProcessorCount * 4))
                    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                        for i in stride(from: chunk, to: paths.count, by: chunks) {
                            let path = paths[i]
                            let outcome = ciphers[i].flatMap { cipher in
                                Vault.searchOne(path, file: root + "/" + path.filePath, cached: known[path.filePath], cipher: cipher,
                                                store: store, cacheWritten: written).map { ($0.0, $0.isNew, $0.decrypted, cipher) }
                            }
                            switch outcome {
                            case .failure(let error):
                                out[i] = SearchCandidate(path: path, entry: .failure(error))
                                failed[i] = true
                            case .success(let (record, isNew, decrypted, cipher)):
                                if isNew { newRecords[i] = record }
                                if decrypted { lock.lock(); decryptedCount += 1; lock.unlock() }
                                out[i] = SearchCandidate(path: path, entry: Vault.candidate(record, path: path, needle: needleBytes,
                                                                                             filterable: filterable, cipher: cipher))
                            }
                            lock.lock(); done += 1; progress?(.entries(done: done, total: paths.count)); lock.unlock()
                        }
                    }
                }
            }
        }
        return (results.map { $0! }, fresh, unreadable, decryptedCount)
    }

    /// Brings `cache` up to date after a search of `paths`: new and changed files in, files that no longer open or
    /// are gone out (below `prefix` only). Returns whether anything changed.
    private static func updateSearchRecords(_ cache: inout SearchCache, fresh: [SearchCache.Record?],
                                            unreadable: [Bool], paths: [EntryPath], prefix: String?) -> Bool {
        var changed = false
        for record in fresh.compactMap({ $0 }) {
            cache.records[record.filePath] = record
            changed = true
        }
        for (path, failed) in zip(paths, unreadable) where failed && cache.records[path.filePath] != nil {
            cache.records[path.filePath] = nil
            changed = true
        }
        let listed = Set(paths.map(\.filePath))
        for key in cache.records.keys where !listed.contains(key) && Vault.isBelow(key, prefix: prefix) {
            cache.records[key] = nil
            changed = true
        }
        return changed
    }

    /// Seals `cache` and writes it to `cachePath`, without an fsync (a lost cache is rebuilt), when the vault is
    /// inside a git repository; a cache that cannot be sealed or written is not kept.
    private func saveSearchCache(_ cache: SearchCache, key: SecretBytes, vaultID: String, to cachePath: String) {
        guard let bytes = try? SearchCache.seal(Array(cache.records.values), key: key, vaultID: vaultID,
                                                nonce: Sodium.randomBytes(Sodium.nonceBytes)) else { return }
        // Only inside an existing repository: a plain copy of a vault (no `.git`) is searched without one,
        // and a `.git` folder made here would look like a damaged repository to every later command.
        if FileSystem.kind(root + "/.git") == .directory {
            try? FileSystem.makeDirectories(".git/tresor", under: root)
            try? FileSystem.writeAtomically(bytes, to: cachePath, durable: false)
        }
    }

    /// The record for one entry file: the cached one when the file's `lstat` data is what the cache recorded
    /// (and the file did not change in or after the moment the cache was written) or, failing that, when its
    /// blob id is; otherwise the file decrypted. `isNew`: the cache must record it; `decrypted`: it was.
    static func searchOne(_ path: EntryPath, file: String, cached: SearchCache.Record?, cipher: EntryCipher, store: EntryStore,
                          cacheWritten: Int64) -> Result<(SearchCache.Record, isNew: Bool, decrypted: Bool), VaultError> {
        let found: stat?
        do { found = try FileSystem.status(file) } catch {
            return .failure(.entry(path: path.string, .io(.failed(.read, path: file, errno: error.errno))))
        }
        guard let st = found else { return .failure(.entry(path: path.string, .io(.failed(.read, path: file, errno: ENOENT)))) }
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        let changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        if let cached, st.st_mode & S_IFMT == S_IFREG, cached.size == UInt64(st.st_size), cached.modified == modified,
           cached.changed == changed, cached.inode == UInt64(st.st_ino), modified < cacheWritten, changed < cacheWritten {
            return .success((cached, false, false))
        }
        do {
            let bytes = try store.readEntryFile(path)
            let blob = SearchCache.blobID(of: bytes)
            var record: SearchCache.Record
            var decrypted = false
            if let cached, cached.blobID == blob {
                record = cached
            } else {
                let envelope = try Envelope.parse(bytes, acceptingVersion1: cipher.readsVersion1)
                record = SearchCache.Record(filePath: path.filePath, blobID: blob, size: 0, modified: 0, changed: 0, inode: 0,
                                            id: envelope.id, payload: try cipher.openPayload(envelope))
                decrypted = true
            }
            record.size = UInt64(st.st_size); record.modified = modified; record.changed = changed; record.inode = UInt64(st.st_ino)
            return .success((record, true, decrypted))
        } catch let e as CoreError {
            return .failure(.entry(path: path.string, e))
        } catch {
            return .failure(.entry(path: path.string, .io(.other(String(reflecting: error)))))
        }
    }

    /// The entry of a record, or nil when its ASCII payload cannot contain the needle.
    static func candidate(_ record: SearchCache.Record, path: EntryPath, needle: [UInt8], filterable: Bool,
                          cipher: EntryCipher) -> Result<Entry, VaultError>? {
        if filterable, !needle.isEmpty {
            let possible = record.withPayload { p -> Bool in
                !TextSearch.isASCII(p) || TextSearch.asciiContains(p.assumingMemoryBound(to: UInt8.self), needle)
            }
            if !possible { return nil }
        }
        do { return .success(try record.withPayload { try cipher.entry(id: record.id, payload: $0, expectedPath: path) }) }
        catch let e as CoreError { return .failure(.entry(path: path.string, e)) }
        catch { return .failure(.entry(path: path.string, .io(.other(String(reflecting: error))))) }
    }

    static func isBelow(_ filePath: String, prefix: String?) -> Bool {
        guard let prefix, !prefix.isEmpty else { return true }
        let p = prefix.nfc.trimming(ScalarSet(charactersIn: "/"))
        return EntryPath.isInside(filePath, folder: p) || filePath == p + EntryPath.fileExtension
    }
}
