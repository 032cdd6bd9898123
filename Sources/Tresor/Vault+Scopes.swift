// Scopes: folders with a key and members of their own; which key opens an entry; creating scopes and changing members.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// The keys of one opened scope (Spec/FORMAT.md §3.12): its entry cipher and its authenticator (scope header, state
/// record), and the epoch of the key (§11.5).
struct ScopeKeys {
    let key: SecretBytes
    let cipher: EntryCipher
    let authenticator: VaultAuthenticator
    let epoch: UInt64

    /// `readsVersion1`: the vault is of format 1–4 (read only until `upgrade`), so its entry files are of envelope version 1.
    init(_ key: SecretBytes, epoch: UInt64, readsVersion1: Bool = false) throws {
        do { self.key = key; cipher = try EntryCipher(vaultKey: key); authenticator = try VaultAuthenticator(vaultKey: key) }
        catch { throw VaultError.session(.wrongToken) }
        cipher.readsVersion1 = readsVersion1
        self.epoch = epoch
    }
}

/// A scope as `scope ls` shows it.
public struct ScopeInfo: Equatable, Sendable {
    /// The scope's id, as its header names it.
    public var id: String
    /// The folder of entries the scope seals.
    public var folder: String
    /// The names of its members (recipient slots).
    public var members: [String]
    /// Whether every holder of the vault key holds it (it has a vault slot).
    public var isOpen: Bool
    /// Whether this process opened its key.
    public var isHeld: Bool
    /// Whether its header has a slot for this process's identity that this replica, without the vault key, has not
    /// accepted yet (`Vault.acceptScope`).
    public var isOffered: Bool = false
}

extension Vault {
    /// The scope header of scope `id` in the work tree, checked against the vault header (not yet its tag).
    /// - Throws: `VaultError.scopeHeader`.
    func scopeHeader(_ id: String) throws -> ScopeHeader {
        let path = ScopeHeader.relativePath(scopeID: id)
        do {
            var bytes: [UInt8]
            if FileSystem.kind(store.absolute(path)) == .missing, FileSystem.kind(root + "/" + Vault.cloneMarker) == .file,
               let repo = try? repository(), let tip = repo.resolve(Vault.incomingRef("origin")),
               let id = try? repo.blobID(at: tip, path: path), (try? repo.blobSize(id: id)) ?? Int.max <= 1 << 20 {
                // A clone not checked out yet: the scope header of the fetched commit (checked by `completeClone`).
                bytes = try Vault.git { try repo.blob(id: id) }
            } else {
                bytes = try FileSystem.read(store.absolute(path), limit: 1 << 20)
            }
            let s = try ScopeHeader.parse(bytes)
            try s.checkPlace(in: header, path: path)
            return s
        } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
    }

    /// Where the scope headers whose keys this process opens are read: the work tree, or a commit (the state this replica
    /// last accepted, when git moved HEAD past it).
    enum ScopeHeaderSource {
        case workTree
        case commit(String, GitRepository)
    }

    /// The one rule for the scope keys this process holds (Spec/FORMAT.md §3.12.4, Spec/AUTH.md §7.3), for the scopes
    /// `own` lists, their headers read from `source`: a key held that verifies its scope's header stays; another is
    /// opened through the vault slot with the vault key (the one held, or one kept from an earlier epoch: a scope made
    /// while the vault key changed elsewhere) or through the recipient slot sealed to `identity`, and must verify the
    /// header; a scope nothing opens keeps the key held, if any.
    ///
    /// Without the vault key the vault header's list of scopes is not authentic (anyone who can push could have added
    /// one, with a slot for this identity): only the scopes this replica accepted are held (`acceptedScopeIDs`), the
    /// others are `offeredScopes`. A replica with no record yet (a clone, or one made before the record existed) accepts
    /// what opens now, once; scopes the vault header no longer lists are forgotten from the record (the same id coming
    /// back later is a new scope).
    /// - Throws: `VaultError.scopeHeader` for a scope header that is malformed, misplaced, or not authentic under the key
    ///   that opened it; `VaultError.file` when the record cannot be written.
    func openScopes(listedIn own: VaultHeader, from source: ScopeHeaderSource, identity: Identity?) throws {
        let restricted = vaultKeyIfHeld == nil
        let recorded = restricted ? try acceptedScopeIDs() : nil
        // With keys held already (after a sync) and no record, what is held is what was accepted: never "all".
        let accepted = restricted ? recorded ?? (scopeKeys.isEmpty ? nil : Set(scopeKeys.keys)) : nil
        // The earlier vault keys are read only for a vault slot the key held does not open (a scope made while the
        // vault key changed): a damaged record of them then stops this, and stops nothing that does not need it.
        var earlierVaultKeys: [SecretBytes]?
        func earlier() throws -> [SecretBytes] {
            if let earlierVaultKeys { return earlierVaultKeys }
            let keys = (try previousKeys()[Domain.vault] ?? []).sorted { $0.epoch > $1.epoch }.map(\.key)
            earlierVaultKeys = keys
            return keys
        }
        for id in own.scopes.keys.sorted() {
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let s = try scopeHeader(id, listedIn: own, from: source) else { continue }
            if let held = scopeKeys[id], held.epoch == s.epoch, (try? held.authenticator.verify(s)) != nil { continue }
            var key: SecretBytes?
            if s.vaultSlot != nil {
                key = vaultKeyIfHeld.flatMap { try? s.unlock(vaultKey: $0) }
                if key == nil { key = try earlier().lazy.compactMap({ try? s.unlock(vaultKey: $0) }).first }
            }
            if key == nil, let identity {
                do { key = try s.unlock(identity: identity) }
                catch CoreError.notARecipient { key = nil }
                catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
            }
            guard let key else { continue }
            let keys = try ScopeKeys(key, epoch: s.epoch, readsVersion1: own.version < FormatVersion.header)
            do { try keys.authenticator.verify(s) } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
            if let accepted, !accepted.contains(id) { offeredScopes[id] = own.scopes[id]; continue }
            offeredScopes[id] = nil
            scopeKeys[id] = keys
        }
        guard restricted else { return }
        if let accepted {
            let listed = accepted.intersection(own.scopes.keys)
            if listed != recorded { try recordAcceptedScopeIDs(listed) }
        } else if !scopeKeys.isEmpty {
            try recordAcceptedScopeIDs(Set(scopeKeys.keys))
        }
    }

    /// The header of scope `id` as `source` has it, checked against `own` (not yet its tag); nil when a commit has none.
    /// - Throws: `VaultError.scopeHeader`.
    func scopeHeader(_ id: String, listedIn own: VaultHeader, from source: ScopeHeaderSource) throws -> ScopeHeader? {
        guard case .commit(let commit, let repo) = source else { return try scopeHeader(id) }
        let path = ScopeHeader.relativePath(scopeID: id)
        guard let bytes = try Vault.git({ try repo.blob(at: commit, path: path) }) else { return nil }
        do {
            let s = try ScopeHeader.parse(bytes)
            try s.checkPlace(in: own, path: path)
            return s
        } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
    }

    // MARK: Scopes accepted by a replica without the vault key (Spec/FORMAT.md §3.12.6)

    /// Local, never committed: one scope id per line.
    static let acceptedScopesPath = ".git/tresor/scopes-accepted"

    /// The scopes this replica accepted, nil when it has no record yet. - Throws: when the record is there and cannot be
    /// read (never taken for "no record", which would accept every scope that opens).
    func acceptedScopeIDs() throws -> Set<String>? {
        guard let bytes = try readLocalRecord(Vault.acceptedScopesPath, limit: 1 << 16) else { return nil }
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter(Envelope.isCanonicalUUID))
    }

    func recordAcceptedScopeIDs(_ ids: Set<String>) throws {
        let file = root + "/" + Vault.acceptedScopesPath
        do {
            try FileSystem.makeDirectories(".git/tresor", under: root)
            try FileSystem.writeAtomically(Array(ids.sorted().map { $0 + "\n" }.joined().utf8), to: file)
        } catch let e as CoreError { throw VaultError.file(path: file, e) }
    }

    /// Accepts the scope at `folder`, which this process's identity opens but this replica without the vault key did
    /// not take on a sync (`offeredScopes`): the scope's state in HEAD is checked with its key (Spec/AUTH.md §7.3), the
    /// scope recorded as accepted, and held from then on.
    /// - Throws: `VaultError.noSuchScope`, `.header(.notARecipient)` when no slot of it is sealed to the identity,
    ///   `.scopeHeader`, `.refusedRemote` when its state does not verify under its key.
    public func acceptScope(_ folder: String) throws {
        let id = try scopeID(folder: folder)
        if scopeKeys[id] != nil { return }
        guard case .identity(let identity) = credential else { throw VaultError.header(.notARecipient) }
        let path = ScopeHeader.relativePath(scopeID: id)
        let s = try scopeHeader(id)
        let keys: ScopeKeys
        do {
            keys = try ScopeKeys(try s.unlock(identity: identity), epoch: s.epoch, readsVersion1: header.version < FormatVersion.header)
            try keys.authenticator.verify(s)
        } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
        let repo = try repository()
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        if let head = try Vault.git({ try repo.headCommitID() }) {
            let tip = try SnapshotReader(repo: repo).tipTree(head, remote: "HEAD")
            var held = try heldKeys()
            held[id] = [EpochKey(epoch: s.epoch, key: keys.key)]
            do {
                _ = try Acceptance.decide(tip: tip, vaultID: header.vaultID, held: held, opened: [:], trust: TrustRecord(), local: [:])
            } catch let refusal as AcceptanceRefusal { throw VaultError.refusedRemote(remote: "HEAD", refusal) }
        }
        try recordAcceptedScopeIDs((try acceptedScopeIDs() ?? Set(scopeKeys.keys)).union([id]))
        scopeKeys[id] = keys
        offeredScopes[id] = nil
    }

    /// The cipher of the key that seals `path` under `header` (Spec/FORMAT.md §3.12.3).
    /// - Throws: `VaultError.noKeyFor` when this process does not hold that key, `.vaultLocked` before `unlock`.
    func cipher(for path: EntryPath, header: VaultHeader) throws -> EntryCipher {
        guard !header.scopes.isEmpty, let id = header.scope(containing: path) else {
            if let cipher { return cipher }
            if !scopeKeys.isEmpty { throw VaultError.noKeyFor(path: path.string, scope: nil) }
            throw VaultError.vaultLocked
        }
        if let keys = scopeKeys[id] { return keys.cipher }
        if cipher == nil, scopeKeys.isEmpty { throw VaultError.vaultLocked }
        throw VaultError.noKeyFor(path: path.string, scope: header.scopes[id])
    }

    /// Whether this process can open the entry at `path` (it holds the key that seals it).
    public func canOpen(_ path: EntryPath) -> Bool { (try? cipher(for: path, header: header)) != nil }

    /// The scopes of the vault, by folder.
    public func scopes() throws -> [ScopeInfo] {
        try header.scopes.sorted { $0.value < $1.value }.map { id, folder in
            let s = try scopeHeader(id)
            return ScopeInfo(id: id, folder: folder, members: s.recipientSlots.map(\.name), isOpen: s.vaultSlot != nil, isHeld: scopeKeys[id] != nil,
                             isOffered: offeredScopes[id] != nil)
        }
    }

    /// The id of the scope at `folder`. - Throws: `VaultError.noSuchScope`.
    func scopeID(folder: String) throws -> String {
        let f = folder.nfc.trimming(ScalarSet(charactersIn: "/"))
        guard let id = header.scopes.first(where: { $0.value == f })?.key else { throw VaultError.noSuchScope(folder: f) }
        return id
    }

    /// The members of the scope at `folder`. - Throws: `VaultError.noSuchScope`, `.scopeHeader`.
    public func members(ofScope folder: String) throws -> [Member] {
        let s = try scopeHeader(try scopeID(folder: folder))
        let mine: RecipientKey? = { if case .identity(let i) = credential { return i.publicKey }; return nil }()
        return s.recipientSlots.map { Member(name: $0.name, publicKey: $0.publicKey, isThisDevice: $0.publicKey == mine) }
            .sorted { ($0.name, $0.publicKey.text) < ($1.name, $1.publicKey.text) }
    }

    /// Creates a scope at `folder` (Spec/FORMAT.md §3.12.5, §11.11): a new scope key sealed to `members` and, unless
    /// `closed`, wrapped for the holders of the vault key; the vault header listing it; the entries already in the
    /// folder re-encrypted under the scope key (same ids: a move into the scope). One change of the vault domain and the
    /// new scope domain.
    /// - Throws: `VaultError.vaultLocked` without the vault key, `.scopeNests`, `.header`, transaction errors.
    /// - Returns: how many entries were re-encrypted.
    @discardableResult
    package func createScope(_ folder: EntryPath, members: [(name: String, key: RecipientKey)], closed: Bool = false) throws -> Int {
        let vaultKey = try currentVaultKey()
        let authenticator = try requireAuthenticator()
        let oldCipher = try requireCipher()
        let (count, id, key) = try transaction { txn -> (Int, String, SecretBytes) in
            let current = try txn.header()
            if let other = current.scopes.values.first(where: { $0 == folder.string || EntryPath.isInside($0, folder: folder.string) || EntryPath.isInside(folder.string, folder: $0) }) {
                throw VaultError.scopeNests(folder: folder.string, other: other)
            }
            let scope: ScopeHeader, key: SecretBytes, newHeader: VaultHeader
            do {
                (scope, key) = try ScopeHeader.create(vaultID: current.vaultID, folder: folder.string, vaultKey: closed ? nil : vaultKey,
                                                     members: members, change: txn.change)
                newHeader = try authenticator.authenticated(try current.addingScope(scope.scopeID, folder: folder.string, change: txn.change))
            } catch let e as CoreError { throw VaultError.header(e) }
            let keys = try ScopeKeys(key, epoch: 1)
            var count = 0
            if let base = txn.base {
                for file in try Vault.git({ try txn.repo.treeEntries(at: base) }) where EntryPath.isInside(file.path, folder: folder.string) {
                    guard let path = EntryPath(filePath: file.path) else { continue }
                    var entry: Entry
                    do { entry = try oldCipher.open(try Vault.git { try txn.repo.blob(id: file.id) }, expectedPath: path) }
                    catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
                    // Into another domain: a change of the entry, so that a replica that edited it meanwhile keeps its edit.
                    entry.record(txn.change)
                    do { txn.putSealed(entry, try keys.cipher.seal(entry)) } catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
                    count += 1
                }
            }
            txn.putHeader(newHeader)
            txn.putFile(ScopeHeader.relativePath(scopeID: scope.scopeID), try keys.authenticator.authenticated(scope).serialized())
            txn.newScopeKeys[scope.scopeID] = keys
            txn.message = "Create scope \(folder)" + (count > 0 ? ": \(count) entr\(count == 1 ? "y" : "ies") re-encrypted" : "")
            return (count, scope.scopeID, key)
        }
        try reloadHeader()
        scopeKeys[id] = try ScopeKeys(key, epoch: 1)
        return count
    }

    /// Adds a member to the scope at `folder`: one recipient slot sealed to `publicKey`, the scope header's next
    /// generation authenticated under the scope key; no entry changes (Spec/FORMAT.md §3.12.5). Commits "Add member NAME to scope FOLDER".
    /// - Throws: `VaultError.noSuchScope`, `.noKeyFor` without the scope key, `.header(.memberExists)`.
    package func addMember(_ name: String, publicKey: RecipientKey, toScope folder: String) throws {
        let id = try scopeID(folder: folder)
        guard let keys = scopeKeys[id] else { throw VaultError.noKeyFor(path: header.scopes[id] ?? folder, scope: header.scopes[id]) }
        try transaction { txn in
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let bytes = try txn.file(path) else { throw VaultError.noSuchScope(folder: folder) }
            do {
                let s = try ScopeHeader.parse(bytes)
                txn.putFile(path, try keys.authenticator.authenticated(try s.addingMember(name, publicKey: publicKey, scopeKey: keys.key, change: txn.change)).serialized())
            } catch let e as CoreError { throw VaultError.header(e) }
            txn.message = "Add member \(name) to scope \(header.scopes[id] ?? folder)"
        }
    }

    /// Removes a member from the scope at `folder` and rekeys that scope only (Spec/FORMAT.md §3.12.5, §11.5): a new
    /// scope key of the next epoch with proofs from every earlier one, every entry in the folder re-encrypted, the
    /// remaining slots sealed again, the vault slot wrapped again. The vault key and everything outside the scope stay.
    /// - Throws: `VaultError.noSuchScope`, `.noKeyFor`, `.needsVaultKey` (an open scope, without the vault key),
    ///   `.header(.noSuchMember)`, transaction errors.
    @discardableResult
    package func removeMember(_ name: String, fromScope folder: String) throws -> RekeyOutcome {
        let id = try scopeID(folder: folder)
        guard scopeKeys[id] != nil else { throw VaultError.noKeyFor(path: header.scopes[id] ?? folder, scope: header.scopes[id]) }
        // An open scope's new key is wrapped again for the holders of the vault key: that needs the vault key.
        if (try scopeHeader(id)).vaultSlot != nil, vaultKeyIfHeld == nil { throw VaultError.needsVaultKey }
        let outcome = try transaction { txn -> RekeyOutcome in
            let (count, members) = try rekeyScope(id, removing: name, vaultKey: vaultKeyIfHeld, in: txn)
            txn.message = "Remove member \(name) from scope \(header.scopes[id] ?? folder) and rekey it: \(count) entr\(count == 1 ? "y" : "ies") re-encrypted"
            return RekeyOutcome(entries: count, members: members, generation: 0, droppedOtherSlots: 0)
        }
        return outcome
    }

    /// Stages a rekey of scope `id` in `txn` (Spec/FORMAT.md §11.5): the next epoch's key, its header with the remaining
    /// members sealed again and its vault slot (when open) wrapped under `vaultKey`, every entry of its folder resealed.
    /// The new key goes to `txn.newScopeKeys`; the key before is kept as an earlier key. Returns the entries resealed
    /// and the members left.
    func rekeyScope(_ id: String, removing name: String?, vaultKey: SecretBytes?, in txn: VaultTransaction) throws -> (Int, Int) {
        guard let old = scopeKeys[id] else { throw VaultError.noKeyFor(path: header.scopes[id] ?? id, scope: header.scopes[id]) }
        let path = ScopeHeader.relativePath(scopeID: id)
        guard let bytes = try txn.file(path) else { throw VaultError.noSuchScope(folder: header.scopes[id] ?? id) }
        let newKey = SecretBytes.random(count: Sodium.keyBytes)
        let rekeyed: ScopeHeader, new: ScopeKeys
        do {
            let s = try ScopeHeader.parse(bytes)
            let chain = try RekeyChain.make(vaultID: s.vaultID, domain: id, epoch: s.epoch + 1, newKey: newKey, previousKey: old.key, previousChain: s.rekeyChain)
            new = try ScopeKeys(newKey, epoch: s.epoch + 1)
            rekeyed = try new.authenticator.authenticated(try s.rekeyed(newKey: newKey, vaultKey: vaultKey, removing: name, chain: chain, change: txn.change))
        } catch let e as CoreError { throw VaultError.header(e) }
        let folder = try txn.header().scopes[id] ?? id
        var count = 0
        if let base = txn.base {
            for file in try Vault.git({ try txn.repo.treeEntries(at: base) }) where EntryPath.isInside(file.path, folder: folder) && EntryPath(filePath: file.path) != nil {
                let bytes = try txn.file(file.path) ?? Vault.git { try txn.repo.blob(id: file.id) }
                do { txn.putFile(file.path, try new.cipher.reseal(bytes, from: old.cipher)) }
                catch let e as CoreError { throw VaultError.entry(path: String(file.path.dropLast(EntryPath.fileExtension.count)), e) }
                count += 1
            }
        }
        txn.putFile(path, rekeyed.serialized())
        txn.newScopeKeys[id] = new
        return (count, rekeyed.recipientSlots.count)
    }

    /// Rekeys every open scope whose key this process could open only through an earlier vault key (a scope made
    /// concurrently with a vault rekey: whoever held the earlier vault key, a removed member too, can open its key), so
    /// that the scope's key is again one that only holders of the current vault key and its members get (Spec/AUTH.md §9).
    /// One commit. Returns whether there was anything to rekey. Needs the vault key.
    @discardableResult
    package func rekeyStaleScopes() throws -> Bool {
        guard let vaultKey = vaultKeyIfHeld else { return false }
        let earlier = (try previousKeys()[Domain.vault] ?? []).sorted { $0.epoch > $1.epoch }.map(\.key)
        // (A scope header that cannot be read stops this: skipped, its key would stay one a removed member may hold.)
        let stale = try header.scopes.keys.filter { id in
            guard scopeKeys[id] != nil else { return false }
            let s = try scopeHeader(id)
            guard s.vaultSlot != nil, (try? s.unlock(vaultKey: vaultKey)) == nil else { return false }
            // The key of the scope's header as it is (the one held may be of another epoch): rekeyed from that one only.
            func opens(_ k: ScopeKeys) -> Bool { k.epoch == s.epoch && (try? k.authenticator.verify(s)) != nil }
            if let held = scopeKeys[id], opens(held) { return true }
            for k in earlier {
                if let key = try? s.unlock(vaultKey: k), let keys = try? ScopeKeys(key, epoch: s.epoch), opens(keys) { scopeKeys[id] = keys; return true }
            }
            return false
        }
        guard !stale.isEmpty else { return false }
        try transaction { txn in
            for id in stale.sorted() { _ = try rekeyScope(id, removing: nil, vaultKey: vaultKey, in: txn) }
            txn.message = "Rekey " + stale.compactMap { header.scopes[$0] }.sorted().map { "scope \($0)" }.joined(separator: ", ")
                + ": made while the vault key changed"
        }
        return true
    }

    /// Removes the scope at `folder` (Spec/FORMAT.md §3.12.5): every entry in the folder moved under the vault key (same
    /// id, a change of each entry), the scope header and state record deleted, the scope dropped from the vault header.
    /// - Throws: `VaultError.noSuchScope`, `.needsVaultKey` without the vault key, `.noKeyFor` without the scope key
    ///   (a holder of the vault key alone cannot remove a closed scope), transaction errors.
    /// - Returns: how many entries were re-encrypted.
    @discardableResult
    package func removeScope(_ folder: String) throws -> Int {
        let id = try scopeID(folder: folder)
        let authenticator = try requireAuthenticator()
        let vaultCipher = try requireCipher()
        guard let keys = scopeKeys[id] else { throw VaultError.noKeyFor(path: header.scopes[id] ?? folder, scope: header.scopes[id]) }
        let count = try transaction { txn -> Int in
            let current = try txn.header()
            guard let scopeFolder = current.scopes[id] else { throw VaultError.noSuchScope(folder: folder) }
            let newHeader: VaultHeader
            do { newHeader = try authenticator.authenticated(current.removingScope(id, change: txn.change)) } catch let e as CoreError { throw VaultError.header(e) }
            var count = 0
            if let base = txn.base {
                for file in try Vault.git({ try txn.repo.treeEntries(at: base) }) where EntryPath.isInside(file.path, folder: scopeFolder) {
                    guard let path = EntryPath(filePath: file.path) else { continue }
                    var entry: Entry
                    do { entry = try keys.cipher.open(try Vault.git { try txn.repo.blob(id: file.id) }, expectedPath: path) }
                    catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
                    // Into the vault domain: a change of the entry (same id).
                    entry.record(txn.change)
                    do { txn.putSealed(entry, try vaultCipher.seal(entry)) } catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
                    count += 1
                }
            }
            txn.putHeader(newHeader)
            txn.removeFile(ScopeHeader.relativePath(scopeID: id))
            txn.message = "Remove scope \(scopeFolder)" + (count > 0 ? ": \(count) entr\(count == 1 ? "y" : "ies") re-encrypted under the vault key" : "")
            return count
        }
        try reloadHeader()
        scopeKeys[id] = nil
        return count
    }

    var vaultKeyIfHeld: SecretBytes? { try? currentVaultKey() }
}
