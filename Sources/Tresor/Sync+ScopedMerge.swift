// The merge of two diverged histories of a vault with scopes: each file under the key of its place (Spec/MERGE.md §14).
import Foundation
import TresorCore
import TresorGit

/// The key that seals an entry at one place of one version of the vault: the vault key, or one scope's key.
private enum SealingKey {
    case vault(EntryCipher)
    case scope(id: String, keys: ScopeKeys)

    var cipher: EntryCipher {
        switch self { case .vault(let c): return c; case .scope(_, let k): return k.cipher }
    }

    /// The same key (a rekeyed scope has another key under the same id; the vault key does not change in this merge).
    func same(_ other: SealingKey) -> Bool {
        switch (self, other) {
        case (.vault, .vault): return true
        case (.scope(let a, let x), .scope(let b, let y)): return a == b && x.key.constantTimeEquals(y.key)
        default: return false
        }
    }
}

/// What the merged tree holds at one path.
private enum Decision {
    case blob(String)
    case bytes([UInt8])
    case absent
}

extension Vault {
    /// The scope keys of the scopes listed at `rev` that `known` does not hold and that this process's credential opens
    /// (vault slot with the vault key, recipient slot with the identity): scopes made elsewhere.
    /// - Throws: `VaultError.hostileRemote` for a scope header that opens but is not authentic under the key it gives.
    func newScopeKeys(at rev: String, repo: GitRepository, known: [String: ScopeKeys]) throws -> [String: ScopeKeys] {
        guard let vault = try? SnapshotReader(repo: repo, cipher: nil, authenticator: nil, local: header).readHeader(rev) else { return [:] }
        let identity: Identity? = { if case .identity(let i) = credential { return i }; return nil }()
        var found: [String: ScopeKeys] = [:]
        for id in vault.scopes.keys.sorted() where known[id] == nil {
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let blob = try? repo.blobID(at: rev, path: path), (try? repo.blobSize(id: blob)) ?? Int.max <= 1 << 20,
                  let bytes = try? repo.blob(id: blob), let s = try? ScopeHeader.parse(bytes) else { continue }
            var key: SecretBytes?
            if let vaultKey = vaultKeyIfHeld, s.vaultSlot != nil { key = try? s.unlock(vaultKey: vaultKey) }
            if key == nil, let identity { key = try? s.unlock(identity: identity) }
            guard let key else { continue }
            let keys = try ScopeKeys(key)
            do { try keys.authenticator.verify(s) } catch let e as CoreError { throw VaultError.hostileRemote(file: path, problem: .header(e)) }
            found[id] = keys
        }
        return found
    }

    /// The keys of `keys` whose scope header at `rev` is authentic under them (a scope rekeyed since `rev` is under
    /// another key there: its files are left unread).
    func keysVerifying(at rev: String, repo: GitRepository, _ keys: [String: ScopeKeys]) -> [String: ScopeKeys] {
        keys.filter { id, k in
            guard let bytes = try? repo.blob(at: rev, path: ScopeHeader.relativePath(scopeID: id)),
                  let s = try? ScopeHeader.parse(bytes) else { return false }
            return (try? k.authenticator.verify(s)) != nil
        }
    }

    /// Spec/MERGE.md §14.4: a key rekeyed on one side since `base` (the vault key or a scope's: its rekey proof changed)
    /// while the other side changed files under that key since `base` is not merged: the changes under the key before
    /// would reach the merged vault through commits that holders of the new key alone cannot check.
    /// - Throws: `VaultError.rekeyConcurrentWithEdits` naming the scope (nil: the vault key) and the side that rekeyed.
    func requireNoRekeyConcurrentWithEdits(repo: GitRepository, base: String, ours: String, theirs: String, remote: String) throws {
        // Read before the fetched files are checked: only what parses, of at most 1 MiB (the checks refuse the rest).
        func small(_ rev: String, _ path: String) -> [UInt8]? {
            guard let id = try? repo.blobID(at: rev, path: path), (try? repo.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes else { return nil }
            return try? repo.blob(id: id)
        }
        func vaultHeader(_ rev: String) -> VaultHeader? { small(rev, VaultHeader.relativePath).flatMap { try? VaultHeader.parse($0) } }
        guard let b = vaultHeader(base), let o = vaultHeader(ours), let t = vaultHeader(theirs) else { return }
        func proof(_ rev: String, _ id: String) -> [UInt8]? {
            small(rev, ScopeHeader.relativePath(scopeID: id)).flatMap { try? ScopeHeader.parse($0) }?.rekeyProof
        }
        func governing(_ path: String, _ h: VaultHeader) -> String? {
            if let id = ScopeHeader.scopeID(ofPath: path) { return id }
            return EntryPath(filePath: path).flatMap { h.scope(containing: $0) }
        }
        let changedByOurs = try Vault.git { try repo.changes(from: base, to: ours) }.map(\.path)
        let changedByTheirs = try Vault.git { try repo.changes(from: base, to: theirs) }.map(\.path)
        // The vault key, on either side. Its rekey wraps the key of every open scope again (the vault slot of its scope
        // header): a scope header with a vault slot changed on the other side counts as a change under the key before,
        // or the merged header could keep a vault slot wrapped under the old key.
        func underVaultKey(_ path: String) -> Bool {
            if ScopeHeader.scopeID(ofPath: path) != nil {
                return [base, ours, theirs].contains { small($0, path).flatMap { try? ScopeHeader.parse($0) }?.vaultSlot != nil }
            }
            return governing(path, b) == nil || governing(path, o) == nil || governing(path, t) == nil
        }
        if o.rekeyProof != b.rekeyProof, changedByTheirs.contains(where: underVaultKey) {
            throw VaultError.rekeyConcurrentWithEdits(remote: remote, scope: nil, here: true)
        }
        if t.rekeyProof != b.rekeyProof, changedByOurs.contains(where: underVaultKey) {
            throw VaultError.rekeyConcurrentWithEdits(remote: remote, scope: nil, here: false)
        }
        // A closed scope made here since B, while the remote changed files in its folder under the vault key: the merge
        // would seal those changes under the scope's key, so a holder of the vault key alone would have written into a
        // closed scope (Spec/FORMAT.md §3.12.6). Refused like a rekey; this side makes the scope again afterwards. (Made on
        // the remote around changes here: they are this replica's own, sealed by it only if it holds the scope's key.)
        for (id, folder) in o.scopes.sorted(by: { $0.key < $1.key }) where b.scopes[id] == nil {
            guard let s = small(ours, ScopeHeader.relativePath(scopeID: id)).flatMap({ try? ScopeHeader.parse($0) }), s.vaultSlot == nil else { continue }
            if changedByTheirs.contains(where: { governing($0, o) == id && ScopeHeader.scopeID(ofPath: $0) == nil }) {
                throw VaultError.closedScopeMadeConcurrentWithEdits(remote: remote, scope: folder)
            }
        }
        for (id, folder) in b.scopes.sorted(by: { $0.key < $1.key }) {
            let inScope: (String) -> Bool = { governing($0, b) == id || governing($0, o) == id || governing($0, t) == id }
            // A side that removed the scope (its vault header no longer lists it) did not rekey it: its entries are under
            // the vault key there, and the merge reads them with it (§14.2).
            if o.scopes[id] != nil, proof(ours, id) != proof(base, id), changedByTheirs.contains(where: inScope) {
                throw VaultError.rekeyConcurrentWithEdits(remote: remote, scope: folder, here: true)
            }
            if t.scopes[id] != nil, proof(theirs, id) != proof(base, id), changedByOurs.contains(where: inScope) {
                throw VaultError.rekeyConcurrentWithEdits(remote: remote, scope: folder, here: false)
            }
        }
    }

    /// Merges `theirs` into `ours` (HEAD) for a version 4 vault (Spec/MERGE.md §14). Entries that this process can
    /// read on every side they are on merge by §3–§9 and are sealed under the key of their place in the merged vault
    /// header; every other file (entries and headers under keys not held) is taken from the side that changed it, and
    /// when both did, the merge stops before anything is written. Headers merge by §10 (vault) and §14.3 (scopes).
    /// `theirKeys`: the scope keys for the remote's tip (the held keys, successors of rekeys there, scopes made there).
    /// - Returns: the merge commit (not on the branch yet) and the scope keys of the merged vault.
    /// - Throws: `VaultError.scopeConflict`, `.mergedUnderKeyNotHeld`, `.unreadAcrossKeys`, `.scopeNests`, `.header`,
    ///   `.mergeDidNotVerify`.
    func mergeScoped(repo: GitRepository, base: String?, ours: String, theirs: String, theirKeys: [String: ScopeKeys],
                     remote: String) throws -> (MergeOutput, [String: ScopeKeys]) {
        let oursKeys = scopeKeys
        // B's keys: O's, and T's for a scope O no longer has (removed here, its key opened from T's header, §14.1).
        let baseKeys = base.map { keysVerifying(at: $0, repo: repo, oursKeys.merging(theirKeys) { a, _ in a }) } ?? [:]
        func reader(_ keys: [String: ScopeKeys], vault: Bool) -> SnapshotReader {
            let r = SnapshotReader(repo: repo, cipher: vault ? cipher : nil, authenticator: vault ? authenticator : nil, local: header)
            r.scopeKeys = keys
            return r
        }
        // A state's entries under the vault key only when its header is authentic under the key held (not across a rekey:
        // after following a rekey of the vault key made on T, O's and B's files under the key before are left unread, and
        // the blob rule takes T's, which O did not change, §14.4).
        func headerVerifies(_ rev: String?) -> Bool {
            guard let rev, let authenticator, let h = try? reader([:], vault: false).readHeader(rev) else { return false }
            return (try? authenticator.verify(h)) != nil
        }
        let b = try base.map { try reader(baseKeys, vault: headerVerifies($0)).read($0) }
        let o = try reader(oursKeys, vault: headerVerifies(ours)).read(ours)
        // T's files under a key rekeyed here since B are B's (§14.4 refused the rest): left unread, the blob rule takes O's.
        let t = try reader(keysVerifying(at: theirs, repo: repo, theirKeys), vault: headerVerifies(theirs)).read(theirs)
        guard let oh = o.header, let th = t.header else { throw VaultError.git(.unknownRevision("HEAD")) }

        func files(_ rev: String?) throws -> [String: String] {
            guard let rev else { return [:] }
            return Dictionary(try Vault.git { try repo.treeEntries(at: rev) }.map { ($0.path, $0.id) }, uniquingKeysWith: { a, _ in a })
        }
        let bf = try files(base), of = try files(ours), tf = try files(theirs)
        let baseHeader = try base.flatMap { try reader([:], vault: false).readHeader($0) }
        func folder(ofFile path: String) -> String? {
            if let id = ScopeHeader.scopeID(ofPath: path) { return oh.scopes[id] ?? th.scopes[id] }
            guard let p = EntryPath(filePath: path) else { return nil }
            return (oh.scope(containing: p).flatMap { oh.scopes[$0] }) ?? (th.scope(containing: p).flatMap { th.scopes[$0] })
        }
        /// The blob rule for a file this process does not merge itself: the side that changed it, or a conflict.
        func unread(_ path: String) throws -> Decision {
            let (bb, ob, tb) = (bf[path], of[path], tf[path])
            let pick: String?
            if ob == tb { pick = ob } else if ob == bb { pick = tb } else if tb == bb { pick = ob } else {
                // Changed on both sides while one side moved it under another key (a scope made around it or removed
                // there): no holder of a single key can merge it; the change here has to go another way.
                if let e = EntryPath(filePath: path), oh.scope(containing: e) != th.scope(containing: e) {
                    // The side that moved it since B: into a scope made there (this process lacks that key), or out of a
                    // scope removed there — then a holder of the vault key lacks the scope's key to read the other
                    // side's version (it could sync with the identity that opens it), a scope-only member the vault key.
                    let scopeOf: (VaultHeader) -> String? = { h in h.scope(containing: e).flatMap { h.scopes[$0] } }
                    let movedIsOurs = oh.scope(containing: e) != baseHeader?.scope(containing: e)
                    let (moved, other) = movedIsOurs ? (oh, th) : (th, oh)
                    if scopeOf(moved) == nil, cipher != nil, let folder = scopeOf(other) {
                        throw VaultError.unreadAcrossKeys(path: e.string, scope: folder)
                    }
                    throw VaultError.mergedUnderKeyNotHeld(path: e.string, scope: scopeOf(moved), remote: remote, added: false)
                }
                throw VaultError.scopeConflict(path: EntryPath(filePath: path)?.string ?? path, scope: folder(ofFile: path))
            }
            return pick.map { .blob($0) } ?? .absent
        }

        var decided: [String: Decision] = [:]
        var resolutions: [MergeResolution] = []

        // The vault header: §10 with the vault key, else the side that changed it.
        let vaultPath = VaultHeader.relativePath
        var mergedHeader: VaultHeader
        if let authenticator, (try? unread(vaultPath)) == nil {
            let r: (VaultHeader, [MergeResolution])
            do { r = try VaultMerge.mergeHeaders(base: baseHeader, ours: oh, theirs: th) }
            catch CoreError.malformed { throw VaultError.scopeNests(folder: oh.scopes.values.sorted().joined(separator: ", "), other: th.scopes.values.sorted().joined(separator: ", ")) }
            catch let e as CoreError { throw VaultError.header(e) }
            resolutions += r.1
            if r.0 == oh { decided[vaultPath] = .blob(of[vaultPath]!); mergedHeader = oh }
            else if r.0 == th { decided[vaultPath] = .blob(tf[vaultPath]!); mergedHeader = th }
            else {
                do { mergedHeader = try authenticator.authenticated(r.0) } catch let e as CoreError { throw VaultError.header(e) }
                decided[vaultPath] = .bytes(mergedHeader.serialized())
            }
        } else {
            let d = try unread(vaultPath)
            decided[vaultPath] = d
            guard case .blob(let id) = d else { throw VaultError.scopeConflict(path: vaultPath, scope: nil) }
            mergedHeader = id == of[vaultPath] ? oh : th
        }

        // Scope headers: §14.3 with the scope key, else the side that changed it. The merged vault's scope keys follow.
        var finalKeys: [String: ScopeKeys] = [:]
        let scopePaths = Set((Array(bf.keys) + Array(of.keys) + Array(tf.keys)).filter { ScopeHeader.scopeID(ofPath: $0) != nil })
        for path in scopePaths.sorted() {
            let id = ScopeHeader.scopeID(ofPath: path)!
            func parsed(_ f: [String: String]) throws -> ScopeHeader? {
                try f[path].map { blob in try ScopeHeader.parse(try Vault.git { try repo.blob(id: blob) }) }
            }
            do {
                if let d = try? unread(path) {
                    decided[path] = d
                } else if mergedHeader.scopes[id] == nil, of[path] == nil || tf[path] == nil {
                    // Removed on one side (§14.2), changed on the other: the merged vault has no such scope.
                    decided[path] = .absent
                } else if let ok = oursKeys[id], let tk = theirKeys[id], let os = try parsed(of), let ts = try parsed(tf) {
                    let bs = try parsed(bf)
                    // Both sides under one key: a rekey on either side with changes on the other stopped before (§14.4).
                    guard ok.key.constantTimeEquals(tk.key) else { throw VaultError.rekeyConcurrentWithEdits(remote: remote, scope: folder(ofFile: path), here: false) }
                    let r = try ScopeMerge.mergeHeaders(base: bs, ours: os, theirs: ts)
                    resolutions += r.1
                    decided[path] = r.0 == os ? .blob(of[path]!) : r.0 == ts ? .blob(tf[path]!) : .bytes(try ok.authenticator.authenticated(r.0).serialized())
                } else {
                    throw VaultError.scopeConflict(path: path, scope: folder(ofFile: path))
                }
            } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
            // The key the merged scope header is authentic under, among those held for either side.
            let bytes: [UInt8]?
            switch decided[path]! {
            case .blob(let blob): bytes = try Vault.git { try repo.blob(id: blob) }
            case .bytes(let b): bytes = b
            case .absent: bytes = nil
            }
            if let bytes, mergedHeader.scopes[id] != nil, let s = try? ScopeHeader.parse(bytes) {
                finalKeys[id] = [theirKeys[id], oursKeys[id]].compactMap { $0 }.first { (try? $0.authenticator.verify(s)) != nil }
            }
        }

        // The key that seals `path` in a version of the vault, nil when this process does not hold it.
        func sealing(_ path: EntryPath, _ h: VaultHeader, _ keys: [String: ScopeKeys]) -> SealingKey? {
            if let id = h.scope(containing: path) { return keys[id].map { .scope(id: id, keys: $0) } }
            return cipher.map { .vault($0) }
        }

        // Entries: those read on every side they are on merge field by field; the others follow the blob rule.
        let unreadable = Set(b.map(\.unreadable) ?? []).union(o.unreadable).union(t.unreadable)
        func readable(_ s: VaultSnapshot?) -> [Entry] { (s?.entries ?? [:]).filter { !unreadable.contains($0.key) }.map(\.value.entry) }
        let baseList = readable(b), ourList = readable(o), theirList = readable(t)
        // Deleted versions (§3.2.1) are read with every key at hand.
        let allKeys = Array(oursKeys.values) + Array(theirKeys.values)
        guard var historyCipher = try cipher ?? allKeys.first.map({ try EntryCipher(vaultKey: $0.key) }) else { throw VaultError.vaultLocked }
        for k in allKeys { historyCipher = try EntryCipher(vaultKey: k.key, previous: historyCipher) }
        let deletedOurs = try deletedVersions(repo: repo, cipher: historyCipher, base: base, baseEntries: baseList, side: ourList, sideTip: ours, other: theirList)
        let deletedTheirs = try deletedVersions(repo: repo, cipher: historyCipher, base: base, baseEntries: baseList, side: theirList, sideTip: theirs, other: ourList)
        let (entries, entryResolutions) = VaultMerge.merge(base: baseList, ours: ourList, theirs: theirList, deletedVersions: (deletedOurs, deletedTheirs))
        resolutions += entryResolutions.enumerated().sorted { x, y in
            let cx = Vault.isCollision(x.element.kind), cy = Vault.isCollision(y.element.kind)
            if cx != cy { return !cx }
            if !cx, x.element.entryID != y.element.entryID { return x.element.entryID.utf8.lexicographicallyPrecedes(y.element.entryID.utf8) }
            return x.offset < y.offset
        }.map(\.element)

        for path in unreadable.sorted() {
            let d = try unread(path)
            decided[path] = d
            // A file taken unread stays sealed under the key of its place on the side it comes from: the merged vault
            // must put it under the same key, or no key opens it there (and the merge commit would lack that key's tag).
            guard case .blob(let blob) = d else { continue }
            let side = blob == of[path] ? oh : th
            if CommitKeyRule.governingField(of: path, scopes: side.scopes) != CommitKeyRule.governingField(of: path, scopes: mergedHeader.scopes) {
                throw VaultError.unreadAcrossKeys(path: EntryPath(filePath: path)?.string ?? path,
                                                  scope: EntryPath(filePath: path).flatMap { side.scope(containing: $0) }.flatMap { side.scopes[$0] })
            }
        }
        // An entry this merge decides must not land where an unread file stays, nor share its id (moved there unread).
        var unreadIDs: [String: String] = [:]
        for path in unreadable.sorted() {
            guard case .blob(let blob) = decided[path]!, let id = (try? Envelope.parse(try Vault.git { try repo.blob(id: blob) }))?.id else { continue }
            unreadIDs[id] = path
        }
        var final: [String: (entry: Entry, key: SealingKey)] = [:]
        for e in entries {
            let path = e.path.filePath
            guard let key = sealing(e.path, mergedHeader, finalKeys) else {
                throw VaultError.mergedUnderKeyNotHeld(path: e.path.string, scope: mergedHeader.scope(containing: e.path).flatMap { mergedHeader.scopes[$0] },
                                                       remote: remote, added: b?.entries[e.path.filePath] == nil)
            }
            if decided[path] != nil || unreadIDs[e.id] != nil {
                let other = decided[path] != nil ? path : unreadIDs[e.id]!
                throw VaultError.scopeConflict(path: EntryPath(filePath: other)?.string ?? other, scope: folder(ofFile: other))
            }
            final[path] = (e, key)
        }
        var written: [String] = []
        for (path, f) in final {
            if let mine = o.entries[path], mine.entry == f.entry, let k = sealing(f.entry.path, oh, oursKeys), k.same(f.key) { decided[path] = .blob(mine.blob) }
            else if let other = t.entries[path], other.entry == f.entry, let k = sealing(f.entry.path, th, theirKeys), k.same(f.key) { decided[path] = .blob(other.blob) }
            else { decided[path] = .bytes(try f.key.cipher.seal(f.entry)); written.append(path) }
        }
        // Readable entry files the merge did not keep are gone.
        for path in Set(Array(bf.keys) + Array(of.keys) + Array(tf.keys)) where decided[path] == nil && EntryPath(filePath: path) != nil {
            decided[path] = .absent
        }
        // Other files (`.gitattributes`): the side that changed it, ours when both did.
        for path in Set(Array(bf.keys) + Array(of.keys) + Array(tf.keys)) where decided[path] == nil {
            decided[path] = (try? unread(path)) ?? of[path].map { .blob($0) } ?? .absent
        }

        // The tree: git's merge, then every decided path set to what was decided.
        let result = try Vault.git { try repo.mergeTrees(base: base, ours: ours, theirs: theirs) }
        var changed: [String] = []
        for (path, d) in decided.sorted(by: { $0.key < $1.key }) {
            let conflicted = result.conflicts.contains { $0.path == path }
            let current = try Vault.git { try result.contents(at: path) }
            switch d {
            case .absent:
                if current != nil || conflicted { try Vault.git { try result.remove(path) } }
                if of[path] != nil, EntryPath(filePath: path) != nil { changed.append(path) }
            case .blob(let id):
                let bytes = try Vault.git { try repo.blob(id: id) }
                if conflicted || current != bytes { try Vault.git { try result.write(bytes, at: path) } }
                if of[path] != id, EntryPath(filePath: path) != nil { changed.append(path) }
            case .bytes(let bytes):
                if conflicted || current != bytes { try Vault.git { try result.write(bytes, at: path) } }
                if EntryPath(filePath: path) != nil, o.entries[path]?.entry != final[path]?.entry { changed.append(path) }
            }
        }
        for conflict in result.conflicts { try Vault.git { try result.remove(conflict.path) } }

        // Every entry the merge sealed must decrypt, at its path and under the key of its place, to what was decided.
        for path in written {
            guard let bytes = try Vault.git({ try result.contents(at: path) }), let f = final[path],
                  (try? f.key.cipher.open(bytes, expectedPath: f.entry.path)) == f.entry else {
                throw VaultError.mergeDidNotVerify(path: path)
            }
        }
        let message = Vault.mergeMessage(remote: remote, changed: changed, resolutions: resolutions)
        let tree = try Vault.git { try result.writeTree() }
        // The merge commit carries a tag of every key the merged vault has that this process holds (Spec/FORMAT.md §3.12.6),
        // and of each held key of a scope a parent lists that the merged vault no longer has (a scope removed on one side:
        // what the merge changes there was under that key in the other parent).
        let held = scopeKeys
        scopeKeys = finalKeys
        for (keys, h) in [(theirKeys, th), (oursKeys, oh)] {
            for (id, k) in keys where scopeKeys[id] == nil && h.scopes[id] != nil && mergedHeader.scopes[id] == nil { scopeKeys[id] = k }
        }
        defer { scopeKeys = held }
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: [ours, theirs], message: message,
                                                          authentication: try commitAuthentication()) }
        return (MergeOutput(commit: commit, changed: changed.sorted(), resolutions: resolutions), finalKeys)
    }
}
