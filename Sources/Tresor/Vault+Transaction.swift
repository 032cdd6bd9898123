// The one way the vault changes: lock, read HEAD once, build the commit in the object database, move the
// branch by compare-and-swap, then bring the touched work-tree files along; a journal makes it recoverable.
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
import TresorGit

/// Something a command did not finish that the next command will (the change itself is committed).
public enum VaultWarning: Equatable, Sendable {
    /// The work-tree file at `path` could not be brought up to date (for example a full disk): why.
    case workTreeNotUpdated(path: String, VaultError)
    /// Another process holds `.git/index.lock`: git's index is refreshed later (`git status` may show
    /// differences until then).
    case indexNotUpdated(lockFile: String)
}

/// Something a command did besides what it was asked, worth telling.
public enum VaultNotice: Equatable, Sendable {
    /// Commits made on this replica with plain git were checked and authenticated by a commit on top;
    /// `remerged`: a merge git made was merged again by tresor's rules.
    case adoptedCommitsMadeWithGit(count: Int, remerged: Bool)
    /// A state git fetched from `remote` is older there than what this replica last took from it (Spec/AUTH.md §8): it
    /// was joined with this replica's state, which the next sync publishes over it.
    case remoteWentBack(remote: String, RollbackReport)
}

/// The record of a change between moving the branch and finishing the work tree (Spec/TRANSACTIONS.md §4).
struct Journal: Equatable {
    static let relativePath = ".git/tresor/transaction"
    var base: String?
    var target: String
    var paths: [String]

    func serialized() -> [UInt8] {
        JSONValue.object([
            "version": .integer(1), "base": base.map(JSONValue.string) ?? .null, "target": .string(target),
            "paths": .array(paths.map(JSONValue.string)),
        ]).canonicalBytes() + [0x0A]
    }

    /// The journal of `root`, or nil when there is none (or it does not parse: it is written atomically,
    /// so that only happens to a file someone else wrote). - Throws: `VaultError.file` when it is there and cannot be
    /// read (taken for none, the change it records would never be finished, and recovery would remove it).
    static func read(root: String) throws -> Journal? {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.readIfPresent(root + "/" + relativePath, limit: 16 << 20) }
        catch let e as CoreError { throw VaultError.file(path: root + "/" + relativePath, e) }
        guard let bytes,
              let o = (try? JSONValue.parse(bytes))?.objectValue, o["version"]?.uint64Value == 1,
              let target = o["target"]?.stringValue, let list = o["paths"]?.arrayValue else { return nil }
        return Journal(base: o["base"]?.stringValue, target: target, paths: list.compactMap(\.stringValue))
    }
}

extension Vault {
    /// Runs `body` as one transaction: takes the vault lock (waiting at most `lockTimeout`), finishes an
    /// interrupted transaction, reads HEAD once as the base, and turns what `body` staged into one commit
    /// on top of it (Spec/TRANSACTIONS.md §3). If `body` throws, nothing changes. A command that waits on a
    /// person must not do so inside `body`: read first, then commit in a transaction that merges.
    /// - Throws: `VaultError.formatTooOld` for a vault of format 1–4, `.lockTimeout`, `.changedOutsideTresor`, `.io`, `.git`,
    ///   and whatever `body` throws.
    @discardableResult
    public func transaction<R>(_ body: (VaultTransaction) throws -> R) throws -> R {
        let repo = try repository()
        // A vault of format 1–4 is read, never written: `upgrade` converts it first (Spec/FORMAT.md §11.10).
        guard header.version == FormatVersion.header else { throw VaultError.formatTooOld(version: header.version, required: FormatVersion.header) }
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        return try transactionHoldingLock(repo, body)
    }

    /// `transaction` for a caller that holds the vault lock already (a sync deciding under it).
    @discardableResult
    func transactionHoldingLock<R>(_ repo: GitRepository, _ body: (VaultTransaction) throws -> R) throws -> R {
        try recover(repo)
        try adoptCommitsMadeWithGit(repo)
        let base = try Vault.git { try repo.headCommitID() }
        if let base { try holdKeys(of: base, repo: repo) }
        let txn = VaultTransaction(repo: repo, base: base, change: try nextChange(after: try stateRecords(at: base, repo: repo))) { [unowned self] path, header in
            try self.cipher(for: path, header: header)
        }
        let result = try body(txn)
        if txn.hasChanges {
            do { try persistDeviceID() } catch let e as CoreError { throw VaultError.file(path: root + "/.git/tresor/device", e) }
            // The keys this change replaces are kept after the commit (below): a record of earlier keys that cannot be
            // read stops the change now, before anything is committed.
            if txn.newVaultKey != nil || !txn.newScopeKeys.isEmpty { _ = try previousKeysRecord() }
            let previousScopeKeys = scopeKeys
            let previousVault = vaultKeyIfHeld.map { EpochKey(epoch: vaultEpoch, key: $0) }
            scopeKeys.merge(txn.newScopeKeys) { $1 }
            // (HEAD unreadable here: the new scope keys stay, as after a change made; the next command reads them again.)
            defer { if !txn.newScopeKeys.isEmpty, (try? Vault.git({ try repo.headCommitID() })) == txn.base { scopeKeys = previousScopeKeys } }
            if let key = txn.newVaultKey {
                // A rekey's state records are tagged under the new key; on failure the vault keeps the old key.
                try useKey(key)
                // (Back to the old key on failure, as far as it goes: the commit's own error is the one to report.)
                do { try commit(txn) } catch { if let old = previousVault { try? useKey(old.key) }; throw error }
            } else {
                try commit(txn)
            }
            // Keys replaced by this change are kept as earlier keys, sealed under their successors (Spec/FORMAT.md §11.9).
            if let key = txn.newVaultKey, let old = previousVault, !old.key.constantTimeEquals(key) {
                try keepPreviousKey(old.key, domain: Domain.vault, epoch: old.epoch, sealedUnder: key)
            }
            for (id, new) in txn.newScopeKeys {
                if let old = previousScopeKeys[id], !old.key.constantTimeEquals(new.key) {
                    try keepPreviousKey(old.key, domain: id, epoch: old.epoch, sealedUnder: new.key)
                }
            }
            try reloadHeader()
        }
        return result
    }

    /// Writes the staged changes as one commit and publishes it. Returns nil when the tree did not change.
    /// A full disk while writing objects is reported naming git's object folder.
    @discardableResult
    private func commit(_ txn: VaultTransaction) throws -> String? {
        do { return try writeAndPublish(txn) }
        catch VaultError.git(.libgit2(_, let message?, _)) where message.contains("No space left on device") {
            throw VaultError.io(path: root + "/.git/objects", errno: ENOSPC)
        }
    }

    private func writeAndPublish(_ txn: VaultTransaction) throws -> String? {
        let repo = txn.repo
        // A large change (a rekey, an import) stores its objects as one pack: one file and one fsync instead of
        // one per object.
        let written = txn.staged.count > Vault.batchedCheckoutThreshold
            ? try Vault.git { try repo.writingObjectsAsOnePack { try writeObjects(txn) } }
            : try writeObjects(txn)
        guard let (commit, message, changes, contents) = written else { return nil }
        // (The checkout writes the staged bytes themselves where the commit holds the blob made of them, instead of
        // reading each blob back from git.)
        try publish(repo, from: txn.base, to: commit, paths: changes.map(\.path),
                    reflog: "tresor: " + (message.split(separator: "\n").first.map(String.init) ?? ""), knownStale: true,
                    contents: contents)
        // What this replica writes on a state it accepted is accepted too. The ref only spares the next command checking
        // HEAD again (Vault+Authenticity): the change is committed whether or not it moves.
        if repo.resolve(Vault.verifiedRef) == txn.base { _ = try? repo.setRef(name: Vault.verifiedRef, to: commit) }
        return commit
    }

    /// Blobs, trees and the commit of `txn` in the object database; `nil` if the tree would not change. The state record
    /// of every domain the change touches is written anew: its clock with this change's event, the id of its tree, its
    /// tag under the domain's key (Spec/FORMAT.md §11.6). `contents`: each staged file's blob id and bytes.
    private func writeObjects(_ txn: VaultTransaction) throws
        -> (commit: String, message: String, changes: [GitTreeChange], contents: [String: (blob: String, bytes: [UInt8])])? {
        let repo = txn.repo
        var changes: [GitTreeChange] = []
        var contents: [String: (blob: String, bytes: [UInt8])] = [:]
        for (path, bytes) in txn.staged.sorted(by: { EntryPath.precedes($0.key, $1.key) }) {
            if Failpoint.fails("enospc-objects") { throw VaultError.io(path: root + "/.git/objects", errno: ENOSPC) }
            if let bytes {
                let blob = try Vault.git { try repo.writeBlob(bytes) }
                changes.append(.put(path: path, blob: blob))
                contents[path] = (blob, bytes)
            } else {
                changes.append(.remove(path: path))
            }
        }
        var tree = try Vault.git { try repo.tree(from: txn.base, applying: changes) }
        if let base = txn.base, try Vault.git({ try repo.treeEntriesID(of: base) }) == tree { return nil }
        // The state records go on top of the tree just written (no entry lies under `.tresor/state`): the folders of the
        // change's entries are not built again.
        let records = try stateChanges(txn, tree: tree)
        changes += records
        tree = try Vault.git { try repo.tree(fromTree: tree, applying: records) }
        try requireUnchangedWorkTree(repo, base: txn.base, changes: changes)
        let message = txn.message.isEmpty ? "Change the vault" : txn.message
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: txn.base.map { [$0] } ?? [], message: message, authentication: nil) }
        try recordUsedEvents(txn.change.dot.counter)
        Failpoint.hit("transaction-objects-written")
        return (commit, message, changes, contents)
    }

    /// The state records a transaction writes (Spec/FORMAT.md §11.6): for every domain a staged file belongs to (under the
    /// header before or after) or whose header changed, and every new domain, a record with the change's event; the
    /// records of domains the change removed go.
    private func stateChanges(_ txn: VaultTransaction, tree: String) throws -> [GitTreeChange] {
        let repo = txn.repo
        let header = try txn.header()
        // The base's own header: one that does not parse would leave domains of its layout out of the records.
        let before: VaultHeader?
        let beforeBytes = try txn.base.flatMap { rev in try Vault.git { try repo.blob(at: rev, path: VaultHeader.relativePath) } }
        do { before = try beforeBytes.map { try VaultHeader.parse($0) } } catch let e as CoreError { throw VaultError.header(e) }
        let records = try stateRecords(at: txn.base, repo: repo)
        var touched = Set<String>()
        for path in txn.staged.keys {
            if let d = StateRecord.governingDomain(of: path, scopes: header.scopes) { touched.insert(d) }
            if let before, let d = StateRecord.governingDomain(of: path, scopes: before.scopes) { touched.insert(d) }
        }
        let domains = [Domain.vault] + header.scopes.keys.sorted()
        var out: [GitTreeChange] = []
        let source = CommitTree(repo: repo, tree: tree)
        for d in domains where touched.contains(d) || records[d] == nil {
            let epoch: UInt64, key: SecretBytes?
            if d == Domain.vault {
                epoch = header.epoch
                key = txn.newVaultKey ?? vaultKeyIfHeld
            } else {
                let path = ScopeHeader.relativePath(scopeID: d)
                guard let bytes = try txn.file(path) else { throw VaultError.noSuchScope(folder: header.scopes[d] ?? d) }
                do { epoch = try ScopeHeader.parse(bytes).epoch } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
                key = txn.newScopeKeys[d]?.key ?? scopeKeys[d]?.key
            }
            guard let key else { throw d == Domain.vault ? VaultError.needsVaultKey : VaultError.noKeyFor(path: header.scopes[d] ?? d, scope: header.scopes[d]) }
            // The change's event, and the clock of every entry it wrote into the domain (moved in from another domain
            // included): a domain's clock covers every entry it holds (Spec/MERGE.md §2).
            var clock = records[d]?.clock ?? .empty
            clock.advance(to: txn.change.dot)
            for (path, entryClock) in txn.stagedClocks where StateRecord.governingDomain(of: path, scopes: header.scopes) == d { clock = clock.joined(entryClock) }
            let record = StateRecord(vaultID: header.vaultID, domain: d, epoch: epoch, clock: clock,
                                     tree: try DomainTree.id(domain: d, scopes: header.scopes, source: source))
            let bytes: [UInt8]
            do { bytes = try record.authenticated(by: try VaultAuthenticator(vaultKey: key)).serialized() }
            catch let e as CoreError { throw VaultError.header(e) }
            out.append(.put(path: StateRecord.relativePath(domain: d), blob: try Vault.git { try repo.writeBlob(bytes) }))
        }
        for d in records.keys where !domains.contains(d) { out.append(.remove(path: StateRecord.relativePath(domain: d))) }
        return out
    }

    /// The blob id of every file of commit `rev` by path (what `blobID(at:path:)` gives one by one), or `nil`
    /// if the tree cannot be read (the caller then asks path by path and meets the error there).
    static func fileIDs(_ repo: GitRepository, _ rev: String) -> [String: String]? {
        (try? repo.treeEntries(at: rev)).map { files in
            Dictionary(files.filter { $0.kind != .submodule && $0.kind != .other }.map { ($0.path, $0.id) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The work-tree files a change touches must be what `base` has (or already what the change writes):
    /// anything else was changed outside tresor and would be overwritten.
    private func requireUnchangedWorkTree(_ repo: GitRepository, base: String?, changes: [GitTreeChange]) throws {
        // Many files: those git's index records as unchanged since it was written are not read and hashed.
        let batched = changes.count > Vault.batchedCheckoutThreshold
        // (git's index is a cache here: without it every file is hashed.)
        let indexed = batched ? (try? repo.indexedBlobIDs(of: changes.map(\.path))) ?? [:] : [:]
        let baseFiles = batched ? base.flatMap { Vault.fileIDs(repo, $0) } : nil
        // A change recovery could not finish yet (a disk still full) left its paths as its base had them: still known.
        let pending = try Journal.read(root: root).flatMap { j in j.base.map { (base: $0, paths: Set(j.paths)) } }
        func pendingVersion(_ path: String) throws -> String?? {
            guard let pending, pending.paths.contains(path) else { return .none }
            return .some(try Vault.git { try repo.blobID(at: pending.base, path: path) })
        }
        for change in changes {
            try checkWorkTreeFolders(of: change.path)
            let expected = try baseFiles.map { $0[change.path] } ?? base.flatMap { rev in try Vault.git { try repo.blobID(at: rev, path: change.path) } }
            let file = root + "/" + change.path
            switch FileSystem.kind(file) {
            case .missing:
                if expected == nil { continue }
                if case .remove = change { continue }
                if case .some(nil) = try pendingVersion(change.path) { continue }
            case .file:
                let actual = try indexed[change.path] ?? Vault.git { try repo.hashFile(file) }
                if actual == expected { continue }
                if case .put(_, let blob) = change, blob == actual { continue }
                if case .some(let known?) = try pendingVersion(change.path), known == actual { continue }
            default: break
            }
            throw VaultError.changedOutsideTresor(path: change.path)
        }
    }

    /// The folders on the way to a work-tree file must be real folders (or missing): never a link, which
    /// would make a write land outside the vault, nor a file.
    func checkWorkTreeFolders(of path: String) throws {
        var folder = ""
        for part in path.utf8.split(separator: 0x2F).dropLast() {
            let name = String(decoding: part, as: UTF8.self)
            folder = folder.isEmpty ? name : folder + "/" + name
            switch FileSystem.kind(root + "/" + folder) {
            case .directory: continue
            case .missing: return
            case .symlink: throw VaultError.entry(path: path, .symlink(folder))
            default: throw VaultError.changedOutsideTresor(path: folder)
            }
        }
    }

    /// Moves the branch from `old` to `new` and brings `paths` in the work tree and index along, with a
    /// journal between the two so that a crash at any point is finished by the next command. Once the
    /// branch has moved nothing here throws: what cannot be finished now is left to recovery and noted in
    /// `warnings`.
    /// `contents`: for some paths, the blob id the change gave it and the bytes that blob holds, written as they are when
    /// HEAD's blob at the path is that one.
    func publish(_ repo: GitRepository, from old: String?, to new: String, paths: [String], reflog: String, knownStale: Bool,
                 contents: [String: (blob: String, bytes: [UInt8])] = [:]) throws {
        // An earlier change this process's recovery could not finish (a disk still full) keeps its paths in
        // the new journal: finishing means making every path what HEAD has, so none of them is forgotten.
        var all = paths
        if let pending = try Journal.read(root: root) { all += pending.paths.filter { !paths.contains($0) } }
        let journal = Journal(base: old, target: new, paths: all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        do {
            if Failpoint.fails("enospc-journal") { throw CoreError.io(.failed(.write, path: root + "/" + Journal.relativePath, errno: ENOSPC)) }
            try FileSystem.writeAtomically(journal.serialized(), to: root + "/" + Journal.relativePath)
        } catch let e as CoreError {
            throw VaultError.file(path: Journal.relativePath, e)
        }
        Failpoint.hit("transaction-journal-written")
        do {
            try moveBranch(repo, from: old, to: new, reflog: reflog)
        } catch {
            // (A journal left behind is finished by the next command's recovery: HEAD is what it makes the files.)
            _ = try? FileSystem.removeIfPresent(root + "/" + Journal.relativePath)
            throw error
        }
        Failpoint.hit("transaction-branch-moved")
        finish(repo, journal, knownStale: knownStale, contents: contents)
    }

    /// Compare-and-swap of the branch. A ref lock file in the way is waited for briefly: under the vault
    /// lock no tresor process can hold it, and git holds ref locks for milliseconds, so one that stays
    /// was left by a crash (Spec/TRANSACTIONS.md §5).
    private func moveBranch(_ repo: GitRepository, from old: String?, to new: String, reflog: String) throws {
        var removed = false
        while true {
            do { return try Vault.git { try repo.moveBranch(from: old, to: new, log: reflog) } }
            catch VaultError.git(.locked(let lockFile)) where !removed {
                removeStaleRefLock(root + "/" + lockFile)
                removed = true
            }
        }
    }

    /// Waits up to a second for a git ref lock file to go away, then removes it as a crash's leftover.
    func removeStaleRefLock(_ path: String) {
        for _ in 0..<50 {
            guard FileSystem.kind(path) != .missing else { return }
            usleep(20_000)
        }
        // (One that cannot be removed makes the branch move fail as locked, which says so.)
        _ = try? FileSystem.removeIfPresent(path)
    }

    /// The ref lock files tresor's own changes take.
    static let refLocks = [".git/refs/heads/main.lock", ".git/HEAD.lock"]

    /// When `path` was last modified (seconds since 1970, with nanoseconds), nil if it does not exist.
    static func modificationTime(of path: String) -> Double? {
        guard let st = try? FileSystem.status(path) else { return nil }  // (unreadable: as if missing, for the callers' guesses)
        return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
    }

    /// Seconds since `path` was last modified, nil if it does not exist.
    static func age(of path: String) -> TimeInterval? {
        guard let st = try? FileSystem.status(path) else { return nil }  // (as `modificationTime`)
        return Date().timeIntervalSince1970 - TimeInterval(st.st_mtim.tv_sec)
    }

    /// Brings each journal path in the work tree to what HEAD has, then git's index; removes the journal
    /// when both are done. `knownStale`: the files are known to differ (skip comparing them first). `contents`: as
    /// `publish` takes them.
    @discardableResult
    func finish(_ repo: GitRepository, _ journal: Journal, knownStale: Bool,
                contents: [String: (blob: String, bytes: [UInt8])] = [:]) -> Bool {
        // HEAD cannot be read: leave everything for later rather than take it for an empty vault.
        let head: String?
        do { head = try repo.headCommitID() } catch {
            warnings.append(.workTreeNotUpdated(path: "HEAD", Vault.cause(error)))
            return false
        }
        // Many files (a rekey, an import): written without an fsync each and made durable by one sync before
        // the journal goes; a crash before that leaves the journal, and recovery compares and rewrites them.
        let batched = journal.paths.count > Vault.batchedCheckoutThreshold
        guard let blobs = checkOutJournal(repo, journal, head: head, batched: batched, knownStale: knownStale, contents: contents) else {
            return false
        }
        if batched { FileSystem.syncFileSystem(of: root) }

        Failpoint.hit("transaction-worktree-written")
        return refreshIndexAndRemoveJournal(repo, journal, knownBlobs: blobs)
    }

    /// `finish`'s first step: writes what HEAD has at each journal path into the work tree (`batched`: without an
    /// fsync each, through `placeBatched`). Returns the blob id of each path written (for the index), nil when a path
    /// could not be written (each such path is in `warnings`).
    private func checkOutJournal(_ repo: GitRepository, _ journal: Journal, head: String?, batched: Bool,
                                 knownStale: Bool, contents: [String: (blob: String, bytes: [UInt8])]) -> [String: String]? {
        var done = true
        var blobs: [String: String] = [:]
        // Many paths: HEAD's whole tree read once rather than walked from the commit for each path.
        let headFiles = batched ? head.flatMap { Vault.fileIDs(repo, $0) } : nil
        // Batched, every new file is written beside its place first and renamed into it after one sync: ext4
        // starts writing a file's data back when a rename replaces another file with it (auto_da_alloc), one
        // request per file, unless the data is on disk already.
        var pending: [(path: String, bytes: [UInt8])]? = batched ? [] : nil
        for (number, path) in journal.paths.enumerated() {
            do {
                blobs[path] = try checkOut(repo, head: head, headFiles: headFiles, path: path, knownStale: knownStale,
                                           known: contents[path], durable: !batched, pending: &pending)
            } catch {
                warnings.append(.workTreeNotUpdated(path: path, Vault.cause(error)))
                done = false
            }
            if number == 0 { Failpoint.hit("transaction-worktree-partly-written") }
        }
        if let pending { done = placeBatched(pending, done: done) }
        return done ? blobs : nil
    }

    /// A batched checkout's files put in place: each written beside its place, one sync, then each renamed into its
    /// place. `done` false (a path failed already): nothing is written or renamed. Returns whether all is in place
    /// (each file that is not is in `warnings`).
    private func placeBatched(_ pending: [(path: String, bytes: [UInt8])], done: Bool) -> Bool {
        var done = done
        var written = [Result<String, Error>](repeating: .failure(CoreError.io(.other(""))), count: pending.count)
        if done {
            written = writeTemporaries(pending)
            for (item, result) in zip(pending, written) {
                if case .failure(let error) = result {
                    warnings.append(.workTreeNotUpdated(path: item.path, Vault.cause(error)))
                    done = false
                }
            }
        }
        guard done else {
            // (A leftover goes after the next change in its folder.)
            for case .success(let tmp) in written { _ = try? FileSystem.removeIfPresent(tmp) }
            return false
        }
        if !pending.isEmpty { FileSystem.syncFileSystem(of: root) }
        for (item, error) in zip(pending, renameTemporaries(pending, written)) {
            guard let error else { continue }
            warnings.append(.workTreeNotUpdated(path: item.path, Vault.cause(error)))
            done = false
        }
        return done
    }

    /// Each temporary file of `written` renamed into its place, on `renameLanes` threads: a rename that replaces a file
    /// frees it, which on a file system mounted with `discard` waits for the disk (~80 µs here), so the waits of
    /// several threads overlap. Returns why each rename failed, nil for each that did not (in `pending`'s order).
    private func renameTemporaries(_ pending: [(path: String, bytes: [UInt8])], _ written: [Result<String, Error>]) -> [Error?] {
        var failed = [Error?](repeating: nil, count: pending.count)
        let lanes = max(1, min(pending.count, Vault.renameLanes))
        failed.withUnsafeMutableBufferPointer { out in
            DiskLanes.run(lanes) { lane in
                for i in stride(from: lane, to: pending.count, by: lanes) {
                    guard case .success(let tmp) = written[i] else { continue }
                    do { try FileSystem.replace(root + "/" + pending[i].path, withTemporary: tmp, durable: false) }
                    catch { out[i] = error }
                }
            }
        }
        return failed
    }

    /// Threads renaming a batched checkout's files into place (`renameTemporaries`): 10,000 renames took 0.78 s on one
    /// thread, 0.38 s on 8 and 0.28 s on 16 on the benchmark machine (ext4 with `discard`, 2 cores).
    static let renameLanes = 8

    /// Writes each of `pending` to a temporary file beside its place, without an fsync, on every core (creating
    /// files is most of the time of a batched checkout). Returns each temporary file's path, or why it failed.
    private func writeTemporaries(_ pending: [(path: String, bytes: [UInt8])]) -> [Result<String, Error>] {
        var written = [Result<String, Error>](repeating: .failure(CoreError.io(.other(""))), count: pending.count)
        written.withUnsafeMutableBufferPointer { out in
            let chunks = max(1, min(pending.count, ProcessInfo.processInfo.activeProcessorCount * 2))
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for i in stride(from: chunk, to: pending.count, by: chunks) {
                    out[i] = Result { try FileSystem.writeTemporary(pending[i].bytes, beside: root + "/" + pending[i].path, durable: false) }
                }
            }
        }
        return written
    }

    /// `finish`'s last step, once the work tree holds HEAD's files: brings git's index up to date for the journal's
    /// paths (`knownBlobs`: their blob ids), then removes the journal and the temporary files a crash may have left
    /// beside them. Returns false, keeping the journal, when the index could not be written (said in `warnings`).
    private func refreshIndexAndRemoveJournal(_ repo: GitRepository, _ journal: Journal,
                                              knownBlobs blobs: [String: String]) -> Bool {
        // git holds index.lock only while it writes; one an hour old was left by a crash, and so was one a
        // tresor process took just before it died (its marker names it).
        let indexLock = root + "/.git/index.lock"
        // (Removals here are best effort: a lock that stays makes the index refresh below fail as locked, and say so.)
        if let age = Vault.age(of: indexLock), age > 3600 { _ = try? FileSystem.removeIfPresent(indexLock) }
        removeIndexLockOfADeadWriter()
        let marker = root + "/" + Vault.indexWriterPath
        // A hint for the next process after a kill, not data: no fsync on this hot path.
        try? FileSystem.writeAtomically(Array("\(getpid())\n".utf8), to: marker, durable: false)
        defer { _ = try? FileSystem.removeIfPresent(marker) }
        do { try repo.refreshIndex(paths: journal.paths, knownBlobs: blobs) }
        catch GitError.locked(let file) {
            warnings.append(.indexNotUpdated(lockFile: file))
            return false
        } catch {
            warnings.append(.workTreeNotUpdated(path: ".git/index", indexWriteFailure(error)))
            return false
        }
        // (A journal that cannot be removed is finished again by the next command: HEAD's files, already there.)
        _ = try? FileSystem.removeIfPresent(root + "/" + Journal.relativePath)
        removeTemporaryFiles(near: journal.paths)
        return true
    }

    /// Why git's index could not be written: libgit2 does not always say why a write failed (staging writes an
    /// object first); a disk with almost nothing left (under 1 MiB) is the common reason: say so.
    private func indexWriteFailure(_ error: Error) -> VaultError {
        var space = statvfs()
        let free = statvfs(root + "/.git", &space) == 0 ? UInt64(space.f_bavail) * UInt64(space.f_frsize) : UInt64.max
        return free < 1 << 20 ? .io(path: root + "/.git/index", errno: ENOSPC) : Vault.cause(error)
    }

    /// Names the tresor process about to write git's index, from just before it takes `.git/index.lock` to
    /// just after it let go of it.
    static let indexWriterPath = ".git/tresor/index-writer"

    /// Removes `.git/index.lock` that a tresor process took and did not release because it died (killed while
    /// writing the index): its marker names a process that no longer exists, and the lock was taken within
    /// seconds of the marker. Any other index lock belongs to git and is left alone.
    func removeIndexLockOfADeadWriter() {
        let marker = root + "/" + Vault.indexWriterPath
        // (A guess for a dead process's lock, best effort: a marker that cannot be read leaves the lock to git's rules.)
        guard let bytes = try? FileSystem.read(marker, limit: 32),
              let pid = Int32(String(decoding: bytes, as: UTF8.self).trimming(.whitespacesAndNewlines)),
              pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { return }
        let lock = root + "/.git/index.lock"
        if let written = Vault.modificationTime(of: marker), let taken = Vault.modificationTime(of: lock),
           taken >= written, taken - written < 10 { _ = try? FileSystem.removeIfPresent(lock) }
        _ = try? FileSystem.removeIfPresent(marker)
    }

    /// Makes the work-tree file at `path` what commit `head` has there: written atomically (0600, folders
    /// 0700), or removed with the folders it leaves empty.
    /// Makes the work-tree file of `path` what `head` has; returns the blob id the file now holds (`nil`:
    /// the path is not in `head` and the file is gone).
    @discardableResult
    /// With `pending`, a file to write is only listed there with its bytes, for the caller to write beside its
    /// place and rename.
    private func checkOut(_ repo: GitRepository, head: String?, headFiles: [String: String]?, path: String, knownStale: Bool,
                          known: (blob: String, bytes: [UInt8])?, durable: Bool,
                          pending: inout [(path: String, bytes: [UInt8])]?) throws -> String? {
        let expected = try headFiles.map { $0[path] } ?? head.flatMap { rev in try repo.blobID(at: rev, path: path) }
        let file = root + "/" + path
        let kind = FileSystem.kind(file)
        guard let expected else {
            if kind == .file || kind == .symlink { try FileSystem.removeFile(path, under: root) }
            return nil
        }
        if !knownStale, kind == .file, try repo.hashFile(file) == expected { return expected }
        if Failpoint.fails("enospc-worktree") { throw CoreError.io(.failed(.write, path: file, errno: ENOSPC)) }
        let folder = PathName.deletingLast(path)
        if !folder.isEmpty { try FileSystem.makeDirectories(folder, under: root) }
        if kind == .symlink { _ = try? FileSystem.removeIfPresent(file) }  // (one that stays is refused by the write below)
        let bytes = try known.flatMap { $0.blob == expected ? $0.bytes : nil } ?? repo.blob(id: expected)
        if pending != nil {
            pending!.append((path, bytes))
        } else {
            try FileSystem.writeAtomically(bytes, to: file, durable: durable)
        }
        return expected
    }

    /// Above this many files, a transaction's work-tree update is made durable by one `sync`.
    static let batchedCheckoutThreshold = 64

    /// `error` as a `VaultError`: a `CoreError` as `.file` (the path is the one the error names), a `GitError` as `.git`.
    static func cause(_ error: Error) -> VaultError {
        switch error {
        case let e as VaultError: return e
        case let e as CoreError: return .file(path: "", e)
        case let e as GitError: return .git(e)
        default: return .file(path: "", .io(.other(String(reflecting: error))))
        }
    }

    // MARK: Recovery

    /// Finishes or discards a transaction an earlier process did not complete (Spec/TRANSACTIONS.md §5):
    /// the journal's files are made what HEAD has, whichever side of the branch move the crash came.
    /// Runs under the lock at the start of every transaction; call `recoverIfNeeded` before reading.
    func recover(_ repo: GitRepository) throws {
        // A marker of the sync of earlier versions: HEAD then already holds what it names.
        let legacy = root + "/.git/tresor/sync-target"
        if FileSystem.kind(legacy) == .file {
            try Vault.git { try repo.checkoutHead() }
            try Vault.io { try FileSystem.removeIfPresent(legacy) }
        }
        for lock in Vault.refLocks where FileSystem.kind(root + "/" + lock) != .missing { removeStaleRefLock(root + "/" + lock) }
        guard let journal = try Journal.read(root: root) else {
            // One that does not parse was not written by tresor: it names nothing to finish.
            try Vault.io { try FileSystem.removeIfPresent(root + "/" + Journal.relativePath) }
            return
        }
        if finish(repo, journal, knownStale: false) { try reloadHeader() }
    }

    /// Finishes an interrupted transaction if there is one and no other process is working on the vault
    /// right now; a command that only reads calls this first. Never waits.
    public func recoverIfNeeded() throws {
        let leftovers = [Journal.relativePath, ".git/tresor/sync-target"] + Vault.refLocks
        guard FileSystem.kind(root + "/.git") == .directory,
              leftovers.contains(where: { FileSystem.kind(root + "/" + $0) != .missing }),
              let lock = VaultLock.tryAcquire(root: root) else { return }
        defer { lock.release() }
        try recover(try repository())
    }

    /// Temporary files of interrupted atomic writes in the folders of `paths` (under the lock no other
    /// tresor process is writing, so every one of them is a leftover).
    private func removeTemporaryFiles(near paths: [String]) {
        for folder in Set(paths.map { PathName.deletingLast($0) }) {
            let dir = folder.isEmpty ? root : root + "/" + folder
            // (Tidying: a leftover that stays is tried again after the next change in its folder.)
            // (Only names starting with "." can be temporary files: the others, nearly all of a large folder, are
            // passed over as bytes.)
            var temporary: [String] = []
            _ = FileSystem.readDirectory(dir) { name, _ in
                guard name.first == UInt8(ascii: "."), case let name = String(decoding: name, as: UTF8.self),
                      EntryStore.isTemporary(name) else { return }
                temporary.append(name)
            }
            for name in temporary { _ = try? FileSystem.removeIfPresent(dir + "/" + name) }
        }
    }
}
