// The join of two accepted states into one merge commit: headers, entries by id, domains not read taken whole, state
// records written for what changed (Spec/MERGE.md §4, §8).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

extension Vault {
    struct MergeOutput {
        /// The merge commit, or one of the two sides when the join equals it.
        var commit: String
        var changed: [String]
        var resolutions: [MergeResolution]
    }

    /// Joins `theirs` (accepted, `verdicts`) into `ours` in `repo` (the quarantine, which reads this repository's objects
    /// too) and writes the result's objects there. - Throws: `VaultError.domainConflict`, `.mergeDidNotVerify`, `.header`.
    func join(quarantine repo: GitRepository, reader: SnapshotReader, ours: String, theirs: String, verdicts: [String: DomainVerdict],
              remote: String) throws -> MergeOutput {
        // Keys: this replica's for its own state; the ones that verified each domain of theirs.
        var ourKeys: [String: SecretBytes] = [:]
        if let k = vaultKeyIfHeld { ourKeys[Domain.vault] = k }
        for (id, keys) in scopeKeys { ourKeys[id] = keys.key }
        let theirKeys = verdicts.compactMapValues { $0.verified ? $0.key : nil }
        let o = try reader.read(ours, keys: ourKeys, remote: nil)
        let t = try reader.read(theirs, keys: theirKeys, remote: remote)
        var work = JoinWork(o: o, t: t, ourKeys: ourKeys, theirKeys: theirKeys, verdicts: verdicts, remote: remote)
        let header = try work.joinVaultHeader()
        try work.takeWholeTheDomainsNotRead(header)
        try work.joinScopeHeaders(header)
        try work.foldScopesMadeTwice(header)
        work.keepFilesOfWholeDomains()
        let (entries, written, ciphers) = try work.joinEntries(header)
        work.kept[SyncSetup.attributesFile] = nil
        work.files[SyncSetup.attributesFile] = Array(SyncSetup.attributes.utf8)
        // The new tree: every file named above, nothing else (state records below).
        var blobs: [String: String] = work.kept
        for (path, bytes) in work.files { blobs[path] = try Vault.git { try repo.writeBlob(bytes) } }
        let base = Vault.fileIDs(repo, ours) ?? [:]
        var changes: [GitTreeChange] = []
        for (path, blob) in blobs where base[path] != blob { changes.append(.put(path: path, blob: blob)) }
        for path in base.keys where blobs[path] == nil && StateRecord.domain(ofPath: path) == nil { changes.append(.remove(path: path)) }
        var tree = try Vault.git { try repo.tree(from: ours, applying: changes) }
        let stateChanges = try work.stateRecordChanges(header, repo: repo, tree: tree, entries: entries, blobs: blobs, base: base)
        tree = try Vault.git { try repo.tree(fromTree: tree, applying: stateChanges) }
        try Vault.verifySealed(written, blobs: blobs, ciphers: ciphers, header: header, repo: repo)
        let changed = Vault.changedPaths(entries, ours: o, blobs: blobs, base: base)
        let resolutions = work.resolutions
        if tree == (try Vault.git { try repo.treeEntriesID(of: theirs) }) { return MergeOutput(commit: theirs, changed: changed, resolutions: resolutions) }
        if tree == (try Vault.git { try repo.treeEntriesID(of: ours) }) { return MergeOutput(commit: ours, changed: [], resolutions: resolutions) }
        let message = Vault.mergeMessage(remote: remote, changed: changed, resolutions: resolutions)
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: [ours, theirs], message: message, authentication: nil) }
        return MergeOutput(commit: commit, changed: changed, resolutions: resolutions)
    }

    /// Every entry sealed anew must open, at its place, as what was decided. - Throws: `VaultError.mergeDidNotVerify`.
    private static func verifySealed(_ written: [(path: String, entry: Entry)], blobs: [String: String], ciphers: [String: EntryCipher],
                                     header: VaultHeader, repo: GitRepository) throws {
        for (path, entry) in written {
            // (A blob that cannot be read back fails the check as surely as one that does not open.)
            guard let blob = blobs[path], let cipher = ciphers[header.domain(of: entry.path)],
                  let bytes = try? repo.blob(id: blob), (try? cipher.open(bytes, expectedPath: entry.path)).map({ $0.isIdentical(to: entry) }) == true else {
                throw VaultError.mergeDidNotVerify(path: path)
            }
        }
    }

    /// The entry files whose content differs from this replica's `ours` (decrypted where read, by blob elsewhere), sorted.
    private static func changedPaths(_ entries: [Entry], ours o: VaultSnapshot, blobs: [String: String], base: [String: String]) -> [String] {
        var changedSet = Set<String>()
        let byPath = Dictionary(entries.map { ($0.path.filePath, $0) }, uniquingKeysWith: { a, _ in a })
        for (p, e) in byPath where !(o.entries[p].map { $0.entry.isIdentical(to: e) } ?? false) { changedSet.insert(p) }
        for p in o.entries.keys where byPath[p] == nil { changedSet.insert(p) }
        for p in Set(blobs.keys).union(base.keys) where EntryPath(filePath: p) != nil && o.entries[p] == nil && byPath[p] == nil && blobs[p] != base[p] {
            changedSet.insert(p)
        }
        return changedSet.sorted()
    }

    /// One join under way: the two sides read, their keys, and the result's files as the steps decide them.
    private struct JoinWork {
        let o: VaultSnapshot
        let t: VaultSnapshot
        let ourKeys: [String: SecretBytes]
        let theirKeys: [String: SecretBytes]
        let verdicts: [String: DomainVerdict]
        let remote: String
        var resolutions: [MergeResolution] = []
        /// New bytes by path.
        var files: [String: [UInt8]] = [:]
        /// Path → blob id taken as it is.
        var kept: [String: String] = [:]
        /// The domains not read, with the side each is taken whole from.
        var whole: [String: VaultSnapshot] = [:]
        /// The scope headers of the scopes read.
        var scopeHeaders: [String: ScopeHeader] = [:]

        /// The side whose key domain `d` ends with, when a rekey or an older epoch decides it.
        func side(_ d: String) -> HeaderJoin.KeySide? {
            guard let v = verdicts[d] else { return nil }
            return v.followsRekey ? .b : v.olderEpoch ? .a : nil
        }

        /// The result's key for domain `d`: the newer of a rekey, else the one held.
        func resultKey(_ d: String) -> SecretBytes? {
            side(d) == .b ? theirKeys[d] : (ourKeys[d] ?? theirKeys[d])
        }

        /// The vault domain's header: joined when both sides were read, else whole from the newer side (Spec/MERGE.md §4.4).
        mutating func joinVaultHeader() throws -> VaultHeader {
            guard let vaultKey = resultKey(Domain.vault), o.keys[Domain.vault] != nil, t.keys[Domain.vault] != nil else {
                return try wholeDomain(Domain.vault).header
            }
            let (h, r): (VaultHeader, [MergeResolution])
            do {
                (h, r) = try HeaderJoin.join(o.header, t.header, keySide: side(Domain.vault)) { slot in
                    try RecipientSlot.seal(vaultKey, to: slot.publicKey, name: slot.name, vaultID: o.header.vaultID, id: slot.id, dot: slot.dot)
                }
            } catch let e as CoreError { throw VaultError.header(e) }
            resolutions += r
            if h.serialized() == o.header.serialized() || h.serialized() == t.header.serialized() {
                kept[VaultHeader.relativePath] = h.serialized() == o.header.serialized() ? o.files[VaultHeader.relativePath]! : t.files[VaultHeader.relativePath]!
            } else {
                do { files[VaultHeader.relativePath] = try VaultAuthenticator(vaultKey: vaultKey).authenticated(h).serialized() }
                catch let e as CoreError { throw VaultError.header(e) }
            }
            return h
        }

        /// Domains not read: whole from the newer side.
        mutating func takeWholeTheDomainsNotRead(_ header: VaultHeader) throws {
            for d in [Domain.vault] + header.scopes.keys.sorted() {
                let readable = resultKey(d) != nil && (o.header.scopes[d] == nil || d == Domain.vault || o.keys[d] != nil)
                    && (t.header.scopes[d] == nil || d == Domain.vault || t.keys[d] != nil)
                if !readable { whole[d] = try wholeDomain(d) }
            }
        }

        /// A domain the merger does not read, taken whole from the side whose clock is newer (Spec/MERGE.md §4.4).
        /// - Throws: `VaultError.domainConflict` when the two sides' clocks are concurrent.
        func wholeDomain(_ d: String) throws -> VaultSnapshot {
            switch (o.states[d], t.states[d]) {
            case (nil, _?): return t
            case (_?, nil): return o
            case (let a?, let b?):
                switch a.clock.relation(to: b.clock) {
                case .newer: return o
                case .older, .equal: return t
                case .concurrent:
                    throw VaultError.domainConflict(remote: remote, path: nil, scope: d == Domain.vault ? nil : (o.header.scopes[d] ?? t.header.scopes[d] ?? d))
                }
            case (nil, nil): return t
            }
        }

        /// The scope headers of the scopes read: joined, or the one side that has it (Spec/MERGE.md §8).
        mutating func joinScopeHeaders(_ header: VaultHeader) throws {
            for id in header.scopes.keys.sorted() where whole[id] == nil {
                let path = ScopeHeader.relativePath(scopeID: id)
                guard let key = resultKey(id) else { continue }
                switch (o.scopeHeaders[id], t.scopeHeaders[id]) {
                case (let a?, let b?):
                    let (h, r): (ScopeHeader, [MergeResolution])
                    do {
                        (h, r) = try HeaderJoin.join(a, b, keySide: side(id), reseal: { slot in try a.resealing(slot, to: key) }, rewrap: { slot in
                            guard let vk = resultKey(Domain.vault) else { throw CoreError.notARecipient }
                            return try a.vaultSlot(wrapping: key, under: vk, dot: slot.dot)
                        })
                    } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
                    resolutions += r
                    scopeHeaders[id] = h
                    if h.serialized() == a.serialized() { kept[path] = o.files[path] }
                    else if h.serialized() == b.serialized() { kept[path] = t.files[path] }
                    else {
                        do { files[path] = try VaultAuthenticator(vaultKey: key).authenticated(h).serialized() }
                        catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
                    }
                case (let a?, nil): kept[path] = o.files[path]; scopeHeaders[id] = a
                case (nil, let b?): kept[path] = t.files[path]; scopeHeaders[id] = b
                case (nil, nil): throw VaultError.scopeHeader(path: path, .malformed(.missingFile(path: path)))
                }
            }
        }

        /// Two scopes made concurrently at one folder are one (Spec/MERGE.md §8 step 4): the members of the one left out
        /// join the one that stays, sealed to its key.
        mutating func foldScopesMadeTwice(_ header: VaultHeader) throws {
            guard whole[Domain.vault] == nil, o.keys[Domain.vault] != nil, t.keys[Domain.vault] != nil else { return }
            for (gone, stays) in HeaderJoin.scopes(o.header, t.header).folded.sorted(by: { $0.key < $1.key }) {
                guard let key = resultKey(stays), var h = scopeHeaders[stays], let other = o.scopeHeaders[gone] ?? t.scopeHeaders[gone] else { continue }
                let path = ScopeHeader.relativePath(scopeID: stays)
                do {
                    for slot in other.recipientSlots where !h.recipientSlots.contains(where: { $0.name == slot.name || $0.publicKey == slot.publicKey }) {
                        h.recipientSlots.append(try h.resealing(slot, to: key))
                    }
                    h.clock = h.clock.joined(other.clock)
                    h.auth = nil
                    files[path] = try VaultAuthenticator(vaultKey: key).authenticated(h).serialized()
                } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
                kept[path] = nil
                scopeHeaders[stays] = h
                resolutions.append(MergeResolution(entryID: stays, path: path, kind: .keySlotsMerged,
                    description: "the scope \(h.folder) was made on both sides: one scope stays, with the members of both"))
            }
        }

        /// The files and state records of the domains taken whole, as their side has them.
        mutating func keepFilesOfWholeDomains() {
            for (d, snap) in whole {
                for (path, blob) in snap.files(of: d) { kept[path] = blob }
                let sp = StateRecord.relativePath(domain: d)
                if let blob = snap.files[sp] { kept[sp] = blob }
            }
        }

        /// Entries of the domains read, by id (Spec/MERGE.md §4.2): a side's ciphertext is kept when the entry is that
        /// side's version under the same key, else the entry is sealed anew (`written`, with the cipher of each domain).
        /// - Throws: `VaultError.domainConflict` for an entry that would land in a domain not read.
        mutating func joinEntries(_ header: VaultHeader) throws
            -> (entries: [Entry], written: [(path: String, entry: Entry)], ciphers: [String: EntryCipher]) {
            func joinSide(_ s: VaultSnapshot) -> JoinSide {
                JoinSide(entries: s.entryList, clocks: s.clocks, domain: { [h = s.header] in h.domain(of: $0) }, unreadIDs: s.unreadIDs)
            }
            let joined = StateJoin.join(joinSide(o), joinSide(t), domain: { header.domain(of: $0) }, readable: { whole[$0] == nil && resultKey($0) != nil })
            if let conflict = joined.conflicts.first, case .entryInUnreadDomain(let id, let path) = conflict {
                // The domain whose key is missing: where a side keeps the entry unread, else where the result would put it.
                let unread = o.unreadDomains[id] ?? t.unreadDomains[id]
                    ?? (try? EntryPath(path)).map { header.domain(of: $0) } ?? Domain.vault  // (for the message only)
                let folder = unread == Domain.vault ? nil : (header.scopes[unread] ?? o.header.scopes[unread] ?? t.header.scopes[unread] ?? unread)
                throw VaultError.domainConflict(remote: remote, path: path, scope: folder)
            }
            resolutions += joined.resolutions
            var written: [(path: String, entry: Entry)] = []
            var ciphers: [String: EntryCipher] = [:]
            for e in joined.entries {
                let d = header.domain(of: e.path)
                guard let key = resultKey(d) else { continue }
                let cipher: EntryCipher
                if let c = ciphers[d] { cipher = c } else {
                    do { cipher = try EntryCipher(vaultKey: key) } catch { throw VaultError.session(.wrongToken) }
                    ciphers[d] = cipher
                }
                let path = e.path.filePath
                // A side's ciphertext is reused when the entry is that side's version under the same key.
                if let mine = o.entries[path], mine.entry.isIdentical(to: e), o.keys[o.header.domain(of: e.path)].map({ $0.constantTimeEquals(key) }) == true {
                    kept[path] = mine.blob
                } else if let other = t.entries[path], other.entry.isIdentical(to: e), t.keys[t.header.domain(of: e.path)].map({ $0.constantTimeEquals(key) }) == true {
                    kept[path] = other.blob
                } else {
                    do { files[path] = try cipher.seal(e) } catch let err as CoreError { throw VaultError.entry(path: e.path.string, err) }
                    written.append((path, e))
                }
            }
            return (joined.entries, written, ciphers)
        }

        /// State records of the domains read whose files changed against both sides (Spec/MERGE.md §4.5), and the removal
        /// of the records of domains the result no longer has: the changes to make to `tree`.
        func stateRecordChanges(_ header: VaultHeader, repo: GitRepository, tree: String, entries: [Entry], blobs: [String: String],
                                base: [String: String]) throws -> [GitTreeChange] {
            let source = CommitTree(repo: repo, tree: tree)
            var stateChanges: [GitTreeChange] = []
            for d in [Domain.vault] + header.scopes.keys.sorted() where whole[d] == nil {
                guard let key = resultKey(d) else { continue }
                let id = try DomainTree.id(domain: d, scopes: header.scopes, source: source)
                let path = StateRecord.relativePath(domain: d)
                let clock = StateJoin.domainClock(o.states[d]?.clock ?? .empty, t.states[d]?.clock ?? .empty, of: d, entries: entries,
                                                  domain: { header.domain(of: $0) })
                // A side's record when the result is that side's domain and its clock already includes the other's.
                if let r = o.states[d], r.tree == id, r.clock == clock, let blob = o.files[path] { stateChanges.append(.put(path: path, blob: blob)); continue }
                if let r = t.states[d], r.tree == id, r.clock == clock, let blob = t.files[path] { stateChanges.append(.put(path: path, blob: blob)); continue }
                let scopePath = ScopeHeader.relativePath(scopeID: d)
                let scopeBytes = try files[scopePath] ?? blobs[scopePath].map { blob in try Vault.git { try repo.blob(id: blob) } }
                let epoch: UInt64
                do { epoch = d == Domain.vault ? header.epoch : try scopeBytes.map { try ScopeHeader.parse($0) }?.epoch ?? 1 }
                catch let e as CoreError { throw VaultError.scopeHeader(path: scopePath, e) }
                let record = StateRecord(vaultID: header.vaultID, domain: d, epoch: epoch, clock: clock, tree: id)
                do {
                    let bytes = try record.authenticated(by: try VaultAuthenticator(vaultKey: key)).serialized()
                    stateChanges.append(.put(path: path, blob: try Vault.git { try repo.writeBlob(bytes) }))
                } catch let e as CoreError { throw VaultError.header(e) }
            }
            let domains = Set([Domain.vault] + header.scopes.keys)
            for path in base.keys { if let d = StateRecord.domain(ofPath: path), !domains.contains(d) { stateChanges.append(.remove(path: path)) } }
            return stateChanges
        }
    }

    /// "Merge origin: 2 entries changed, 1 conflict resolved". The resolutions themselves name fields,
    /// so they are printed by `tresor sync`, not stored where the git host can read them.
    static func mergeMessage(remote: String, changed: [String], resolutions: [MergeResolution]) -> String {
        var line = "Merge \(remote): \(changed.count) entr\(changed.count == 1 ? "y" : "ies") changed"
        if !resolutions.isEmpty { line += ", \(resolutions.count) conflict\(resolutions.count == 1 ? "" : "s") resolved" }
        return line
    }
}
