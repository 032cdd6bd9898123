// `tresor sync`: fetch, fast-forward or merge entries field by field, verify, commit, push; retried when the remote moves.
import Foundation
import TresorCore
import TresorGit

/// What one sync did, for the CLI to print (README "Sync").
public struct SyncOutcome: Sendable {
    public var remote: String
    /// Commits that came from the remote (fast-forward or merge).
    public var pulled = false
    public var pushed = false
    public var fastForwarded = false
    /// Entry paths the merge commit changed relative to the local vault.
    public var mergedEntries: [String] = []
    /// Every automatic decision, in order (no secret values).
    public var resolutions: [MergeResolution] = []
    /// The ref that keeps the local state from before the merge.
    public var recoveryRef: String?
    public var rounds = 0
    /// The remote had no vault yet and received this one.
    public var initializedRemote = false
    /// Every key slot this replica had was replaced: another replica changed the passphrase.
    public var passphraseChanged = false
    /// The vault was rekeyed elsewhere: this replica now uses the new key, and its own changes were
    /// re-encrypted under it in the merge.
    public var rekeyed = false
    /// Folders of scopes with a slot for this identity that this replica, without the vault key, has not accepted
    /// (Spec/FORMAT.md §3.12.6): `Vault.acceptScope` takes one.
    public var offeredScopes: [String] = []
    /// The remote had gone back to an older state (`from` → `to`, both commit ids); the push restored it.
    public var rolledBack: (from: String, to: String)?
}

extension Vault {
    static let remoteBranch = "main"

    /// The ref checked commits are copied into: nothing under `refs/remotes/` moves until what arrived passed the checks.
    static func incomingRef(_ remote: String) -> String { "refs/tresor/incoming/" + remote }
    /// The ref a fetch writes in the quarantine repository.
    static let quarantineRef = "refs/tresor/incoming"

    /// Syncs with `remote`: Spec/MERGE.md §13. Needs `unlock`. The network steps run without the vault
    /// lock; deciding and committing the merge runs as a transaction, so a sync and other commands on
    /// the same vault never lose each other's changes.
    /// - Throws: `VaultError.git` (unreachable, authentication), `.hostileRemote`, `.header(.differentVault)`,
    ///   `.changedOutsideTresor`, `.remoteKeptMoving`. The local vault is unchanged on every error but one:
    ///   `.pushFailedAfterMerge`, where the merge is committed here and only the push failed (the next sync
    ///   pushes it).
    /// `progress` hears of the objects received and sent and of the entries checked.
    public func sync(remote: String = "origin", credentials: GitCredentials = .standard(), maxRounds: Int = 4,
                     progress: VaultProgressHandler? = nil) throws -> SyncOutcome {
        // A vault with scopes: the per-key rules of Spec/FORMAT.md §3.12.6 and the merge of Spec/MERGE.md §14.
        if header.version >= FormatVersion.scopedHeader {
            return try syncScoped(remote: remote, credentials: credentials, maxRounds: maxRounds, progress: progress)
        }
        _ = try requireCipher()
        let repo = try repository()
        var outcome = SyncOutcome(remote: remote)
        let incoming = Vault.incomingRef(remote)
        let url = try Vault.git { try repo.url(ofRemote: remote) }
        // What was fetched is kept only while it is being checked and merged.
        defer { try? repo.deleteRef(name: incoming) }
        while outcome.rounds < maxRounds {
            outcome.rounds += 1
            try? repo.deleteRef(name: incoming)
            // The remote's objects first go to a quarantine that borrows this repository's objects; only
            // what passed every check is copied in, so a refused fetch leaves no object behind.
            removeAbandonedQuarantines()
            let quarantinePath = root + "/.git/tresor/incoming-\(getpid())-" + Vault.refStamp()
            defer { try? FileManager.default.removeItem(atPath: quarantinePath) }
            let quarantine = try Vault.git { try repo.makeQuarantine(at: quarantinePath) }
            do { try quarantine.fetch(url: url, into: Vault.quarantineRef, credentials: credentials, remoteName: remote, progress: progress.git) }
            catch GitError.malformedTree(_, let reason) { throw VaultError.hostileRemote(file: url, problem: .damagedTree(reason: reason)) }
            catch let e as GitError { throw VaultError.git(e) }
            Failpoint.hit("after-fetch")
            // The remote made the first scope: from here on the per-key rules of a vault with scopes (Spec/MERGE.md §14).
            if let tip = quarantine.resolve(Vault.quarantineRef), headerVersion(at: tip, repo: quarantine) >= FormatVersion.scopedHeader {
                let step = try scopedStep(repo: repo, quarantine: quarantine, quarantinePath: quarantinePath, remote: remote,
                                          incoming: incoming, outcome: &outcome, progress: progress)
                try? repo.deleteRef(name: incoming)
                if case .done = step { return outcome }
                if try push(repo, remote, credentials, progress) { outcome.pushed = true; return outcome }
                continue
            }
            let step = try syncStep(repo: repo, quarantine: quarantine, quarantinePath: quarantinePath, cipher: try requireCipher(),
                                    remote: remote, incoming: incoming, outcome: &outcome, progress: progress)
            try? repo.deleteRef(name: incoming)
            switch step {
            case .done: return outcome
            case .fetchAgain: continue
            case .push(let initializing):
                if pendingRekey, case .passphrase(let passphrase) = credential {
                    // Two concurrent rekeys and a member removed on this side only: the merged key was sealed to
                    // that member by the other rekey, so a new one is made before anything leaves this replica.
                    pendingRekey = false
                    try rekey(passphrase: passphrase, level: header.strongestLevel)
                }
                Failpoint.hit("before-push")
                let pushed: Bool
                do { pushed = try push(repo, remote, credentials, progress) }
                catch VaultError.git(let e) where outcome.pulled {
                    // The merge is committed here (a change like any other); only the push failed.
                    throw VaultError.pushFailedAfterMerge(remote: remote, mergedEntries: outcome.mergedEntries, e)
                }
                if pushed {
                    outcome.pushed = true
                    outcome.initializedRemote = initializing
                    return outcome
                }
            }
        }
        throw VaultError.remoteKeptMoving(remote: remote, attempts: maxRounds)
    }

    private enum SyncStep { case done, push(initializing: Bool), fetchAgain }

    /// Runs `body` with the vault using `key`, then goes back to the current key.
    func withKey<R>(_ key: SecretBytes, _ body: () throws -> R) throws -> R {
        let current = try currentVaultKey()
        try useKey(key)
        defer { try? useKey(current) }
        return try body()
    }

    /// One decision under the vault lock: compare HEAD with what was fetched, check it, fast-forward or merge.
    private func syncStep(repo: GitRepository, quarantine: GitRepository, quarantinePath: String, cipher: EntryCipher,
                          remote: String, incoming: String, outcome: inout SyncOutcome,
                          progress: VaultProgressHandler?) throws -> SyncStep {
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        try recover(repo)
        try adoptCommitsMadeWithGit(repo)
        guard let ours = try Vault.git({ try repo.headCommitID() }) else { throw VaultError.git(.unknownRevision("HEAD")) }
        guard let theirs = quarantine.resolve(Vault.quarantineRef) else { return .push(initializing: true) }
        let tracking = GitRepository.trackingRef(remote: remote)
        // A remote that went back to a state it had before (a force-push of an old commit) is told, and
        // healed by the push below; it is never taken for "nothing new".
        if let previous = repo.resolve(tracking), previous != theirs, (try? quarantine.contains(previous, theirs)) == true {
            outcome.rolledBack = (from: previous, to: theirs)
        }
        if ours == theirs {
            try Vault.git { try repo.setRef(name: tracking, to: theirs) }
            return .done
        }
        let base = try Vault.git { try quarantine.mergeBase(ours, theirs) }
        if base == theirs {
            if outcome.rolledBack == nil { try Vault.git { try repo.setRef(name: tracking, to: theirs) } }
            return .push(initializing: false)
        }
        // A vault rekeyed elsewhere: its new key, opened with this replica's passphrase or identity and vouched
        // for by the key this replica holds (Spec/FORMAT.md §3.11). From here on the vault uses it; on any error
        // it goes back to the previous one.
        // The other way round: this replica rekeyed and the remote has changes made under the key before.
        let previousAuthenticator = try requireAuthenticator()
        historyKeys = []
        var rekey: RekeyedSide?
        if let newKey = try incomingKey(quarantine: quarantine, theirs: theirs, remote: remote, base: base) {
            rekey = .theirs(previousKey: try currentVaultKey())
            try useKey(newKey)
        } else if let oldKey = incomingPreviousKey(quarantine: quarantine, theirs: theirs, base: base) {
            rekey = .ours(previousKey: oldKey)
        } else if credential == nil, header.rekeyProof != nil, !incomingVerifies(quarantine: quarantine, theirs: theirs) {
            // This replica rekeyed and was unlocked by a session: the key before needs the passphrase or identity.
            throw VaultError.rekeyedElsewhere(remote: remote)
        }
        // Both rekeyed since the base: the remote's rekey (already published) is followed; this replica's
        // changes are merged and written under its key, and members this replica removed are removed again
        // by a further rekey before anything is pushed (see `sync`).
        var baseKey: SecretBytes?
        if rekey == nil, let (theirKey, oldKey) = try concurrentRekeyKeys(quarantine: quarantine, theirs: theirs, base: base) {
            rekey = .theirs(previousKey: try currentVaultKey())
            baseKey = oldKey
            try useKey(theirKey)
        }
        do {
            return try syncStepChecked(repo: repo, quarantinePath: quarantinePath, quarantine: quarantine, cipher: cipher,
                                       previousAuthenticator: previousAuthenticator, rekey: rekey, baseKey: baseKey, remote: remote,
                                       incoming: incoming, ours: ours, theirs: theirs, base: base, tracking: tracking, outcome: &outcome,
                                       progress: progress)
        } catch {
            if case .theirs(let previousKey) = rekey { try? useKey(previousKey) }
            throw error
        }
    }

    /// The key a fetched header is under when this replica's own key is its successor: this replica rekeyed
    /// (its header's rekey proof verifies under that key) and the remote has changes made under the key before,
    /// which this replica's credential opens from the fetched header, and the merge base is under that key too
    /// (changes made on top of the rekey under the old key are not taken: only a removed holder would make them).
    /// Nil otherwise.
    func incomingPreviousKey(quarantine: GitRepository, theirs: String, base: String?) -> SecretBytes? {
        guard header.rekeyProof != nil, let credential, let current = try? currentVaultKey(), let base,
              let baseBytes = try? quarantine.blob(at: base, path: VaultHeader.relativePath),
              let baseHeader = try? VaultHeader.parse(baseBytes),
              let id = try? quarantine.blobID(at: theirs, path: VaultHeader.relativePath),
              (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
              let bytes = try? quarantine.blob(id: id), let incoming = try? VaultHeader.parse(bytes),
              incoming.vaultID == header.vaultID, incoming.version >= 2,
              let key = try? credential.open(incoming), let previous = try? VaultAuthenticator(vaultKey: key),
              (try? previous.verify(incoming)) != nil, (try? previous.verify(baseHeader)) != nil else { return nil }
        historyKeys = []
        if previous.verifyRekeyProof(header.rekeyProof, newKey: current) { return key }
        // This replica rekeyed more than once since the base: the chain runs through its own history.
        guard let ours = try? repository().headCommitID(),
              let chain = rekeyChain(from: previous, to: current, quarantine: quarantine, tip: ours, base: base, credential: credential) else { return nil }
        historyKeys = chain
        return key
    }

    /// When this replica and the remote both rekeyed since the merge base: the remote's key and the base's key,
    /// both opened with this replica's credential, each rekey proof verifying under the base's key.
    func concurrentRekeyKeys(quarantine: GitRepository, theirs: String, base: String?) throws -> (SecretBytes, SecretBytes)? {
        func headerAt(_ rev: String) -> VaultHeader? {
            guard let id = try? quarantine.blobID(at: rev, path: VaultHeader.relativePath),
                  (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
                  let bytes = try? quarantine.blob(id: id) else { return nil }
            return try? VaultHeader.parse(bytes)
        }
        guard header.rekeyProof != nil, let credential, let current = try? currentVaultKey(), let base,
              let incoming = headerAt(theirs), incoming.vaultID == header.vaultID, incoming.version >= 3,
              incoming.rekeyProof != nil, let baseHeader = headerAt(base),
              let theirKey = try? credential.open(incoming), let theirAuth = try? VaultAuthenticator(vaultKey: theirKey),
              (try? theirAuth.verify(incoming)) != nil,
              let baseKey = try? credential.open(baseHeader), let baseAuth = try? VaultAuthenticator(vaultKey: baseKey),
              (try? baseAuth.verify(baseHeader)) != nil, let ours = try? repository().headCommitID(),
              let ourChain = baseAuth.verifyRekeyProof(header.rekeyProof, newKey: current) ? []
                : rekeyChain(from: baseAuth, to: current, quarantine: quarantine, tip: ours, base: base, credential: credential),
              let theirChain = baseAuth.verifyRekeyProof(incoming.rekeyProof, newKey: theirKey) ? []
                : rekeyChain(from: baseAuth, to: theirKey, quarantine: quarantine, tip: theirs, base: base, credential: credential)
        else { return nil }
        historyKeys = ourChain + theirChain
        // Members this replica removed that the remote still has need a further rekey, which needs the passphrase.
        let removed = baseHeader.recipientSlots.filter { b in !header.recipientSlots.contains { $0.id == b.id } }
        if removed.contains(where: { r in incoming.recipientSlots.contains { $0.id == r.id } }) {
            guard case .passphrase = credential else { throw VaultError.rekeyedElsewhere(remote: "the remote") }
            pendingRekey = true
        }
        return (theirKey, baseKey)
    }

    /// The key of a fetched header that this replica's key does not authenticate, if it is a rekey: the header
    /// has a rekey proof, this replica's credential opens it, it verifies with the key it gives, and the proof
    /// verifies with this replica's key. Nil when the header is not a rekey (the checks that follow refuse it).
    /// - Throws: `VaultError.rekeyedElsewhere` when it looks like a rekey and there is no credential to open it.
    func incomingKey(quarantine: GitRepository, theirs: String, remote: String, base: String?) throws -> SecretBytes? {
        guard let id = try? quarantine.blobID(at: theirs, path: VaultHeader.relativePath),
              (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
              let bytes = try? quarantine.blob(id: id), let incoming = try? VaultHeader.parse(bytes),
              incoming.vaultID == header.vaultID, incoming.version >= 3, incoming.rekeyProof != nil else { return nil }
        let current = try requireAuthenticator()
        if (try? current.verify(incoming)) != nil { return nil }
        guard let credential else { throw VaultError.rekeyedElsewhere(remote: remote) }
        guard let key = try? credential.open(incoming), let next = try? VaultAuthenticator(vaultKey: key),
              (try? next.verify(incoming)) != nil else { return nil }
        historyKeys = []
        if current.verifyRekeyProof(incoming.rekeyProof, newKey: key) { return key }
        // Several rekeys since this replica's key: each step's proof under the key before.
        guard let chain = rekeyChain(from: current, to: key, quarantine: quarantine, tip: theirs, base: base, credential: credential) else { return nil }
        historyKeys = chain
        return key
    }

    /// Whether the fetched header is authentic under this replica's key (or cannot be read: the checks decide).
    func incomingVerifies(quarantine: GitRepository, theirs: String) -> Bool {
        guard let id = try? quarantine.blobID(at: theirs, path: VaultHeader.relativePath),
              (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
              let bytes = try? quarantine.blob(id: id), let incoming = try? VaultHeader.parse(bytes),
              incoming.vaultID == header.vaultID, let current = try? requireAuthenticator() else { return true }
        return (try? current.verify(incoming)) != nil
    }

    /// Every vault key that this replica's credential opens from an authentic rekeyed header in the history from
    /// `tips` back to `base` (at most 64).
    func historyKeysSince(base: String?, tips: [String], quarantine: GitRepository) -> [SecretBytes] {
        guard let credential, let commits = try? quarantine.commits(from: tips, excluding: base.map { [$0] } ?? []) else { return [] }
        var keys: [SecretBytes] = [], seen: Set<String> = []
        for c in commits.prefix(4000) where keys.count < 64 {
            guard let id = try? quarantine.blobID(at: c.id, path: VaultHeader.relativePath), seen.insert(id).inserted,
                  (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
                  let bytes = try? quarantine.blob(id: id), let h = try? VaultHeader.parse(bytes), h.rekeyProof != nil,
                  h.vaultID == header.vaultID, let k = try? credential.open(h), let a = try? VaultAuthenticator(vaultKey: k),
                  (try? a.verify(h)) != nil, !keys.contains(where: { $0.constantTimeEquals(k) }) else { continue }
            keys.append(k)
        }
        return keys
    }

    /// The keys between `start` and `target` when a chain of rekeys leads from one to the other: each step a
    /// header along the history from `tip` back to `base` that this replica's credential opens, authentic
    /// under its key, whose rekey proof verifies under the key before. Nil when there is no such chain.
    func rekeyChain(from start: VaultAuthenticator, to target: SecretBytes, quarantine: GitRepository, tip: String,
                    base: String?, credential: KeyCredential) -> [SecretBytes]? {
        guard let commits = try? quarantine.commits(from: [tip], excluding: base.map { [$0] } ?? []) else { return nil }
        var steps: [(key: SecretBytes, proof: [UInt8])] = [], seen: Set<String> = []
        for c in commits.prefix(2000) where steps.count < 64 {
            guard let id = try? quarantine.blobID(at: c.id, path: VaultHeader.relativePath), seen.insert(id).inserted,
                  (try? quarantine.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
                  let bytes = try? quarantine.blob(id: id), let h = try? VaultHeader.parse(bytes), let proof = h.rekeyProof,
                  h.vaultID == header.vaultID, let k = try? credential.open(h), let a = try? VaultAuthenticator(vaultKey: k),
                  (try? a.verify(h)) != nil, !steps.contains(where: { $0.key.constantTimeEquals(k) }) else { continue }
            steps.append((k, proof))
        }
        // Breadth first: concurrent rekeys branch (a key with two successors, one of them merged away).
        var queue: [(auth: VaultAuthenticator, chain: [SecretBytes])] = [(start, [])], visited: Set<Int> = []
        while !queue.isEmpty {
            let (auth, chain) = queue.removeFirst()
            for (i, step) in steps.enumerated() where !visited.contains(i) && auth.verifyRekeyProof(step.proof, newKey: step.key) {
                if step.key.constantTimeEquals(target) { return chain }
                visited.insert(i)
                if let next = try? VaultAuthenticator(vaultKey: step.key) { queue.append((next, chain + [step.key])) }
            }
        }
        return nil
    }

    private func syncStepChecked(repo: GitRepository, quarantinePath: String, quarantine: GitRepository, cipher oldCipher: EntryCipher,
                                 previousAuthenticator: VaultAuthenticator, rekey: RekeyedSide?, baseKey: SecretBytes?, remote: String, incoming: String,
                                 ours: String, theirs: String, base: String?, tracking: String, outcome: inout SyncOutcome,
                                 progress: VaultProgressHandler?) throws -> SyncStep {
        let cipher = try requireCipher()
        var previousKey: SecretBytes?
        // Which key each side's content is under: the base is under the older key in both cases.
        var theirsCipher = cipher, theirsAuthenticator = try requireAuthenticator()
        var localCipher = oldCipher, baseCipher = oldCipher, baseAuthenticator = previousAuthenticator
        switch rekey {
        case .theirs(let key):
            previousKey = key
            if let baseKey {
                baseCipher = try EntryCipher(vaultKey: baseKey)
                baseAuthenticator = try VaultAuthenticator(vaultKey: baseKey)
                localCipher = try EntryCipher(vaultKey: key, previous: baseCipher)
            }
        case .ours(let key):
            previousKey = key
            theirsCipher = try EntryCipher(vaultKey: key)
            theirsAuthenticator = try VaultAuthenticator(vaultKey: key)
            baseCipher = theirsCipher
            baseAuthenticator = theirsAuthenticator
            localCipher = try EntryCipher(vaultKey: try currentVaultKey(), previous: theirsCipher)
        case nil: break
        }
        // Only commits a holder of the vault key made are taken; then every file of the fetched tip is
        // checked, in the quarantine, before anything changes here. A fast-forward does not decrypt again
        // what this replica already holds at the same path.
        let known = try knownFormatVersion(repo)
        if case .ours(let key) = rekey { try withKey(key) { try requireAuthentic(incoming: theirs, ours: ours, repo: quarantine, known: known) } }
        else { try requireAuthentic(incoming: theirs, ours: ours, repo: quarantine, known: known) }
        let checker = SnapshotReader(repo: quarantine, cipher: theirsCipher, authenticator: theirsAuthenticator, local: header)
        checker.progress = progress
        let baseReader = SnapshotReader(repo: quarantine, cipher: baseCipher, authenticator: baseAuthenticator, local: header)
        let local = base == ours && rekey == nil ? Set(try Vault.git { try repo.treeEntries(at: ours) }.map { $0.path + "\u{0}" + $0.id }) : []
        let minimum = try base.flatMap { try baseReader.readHeader($0) }.map { $0.version >= 2 ? $0.generation : 0 } ?? 0
        let theirsSnap = try checker.readIncoming(theirs, skippingUnchanged: local, minimumGeneration: minimum)
        // Everything passed: copy the objects in (a local fetch from the quarantine) and go on here.
        try Vault.git { try repo.fetch(url: quarantinePath, ref: Vault.quarantineRef, into: incoming, credentials: .none, remoteName: remote) }
        let reader = SnapshotReader(repo: repo, cipher: localCipher, authenticator: previousAuthenticator, local: header)
        // Entry versions of either side since the base may be under keys of rekeys that a merge left behind
        // (the losing side of two concurrent rekeys): every key this replica's credential opens from a header
        // along both histories, for reading deleted versions (Spec/MERGE.md §3.2.1).
        historyKeys += historyKeysSince(base: base, tips: [ours, theirs], quarantine: quarantine)
        let target: String
        if base == ours {
            Failpoint.hit("before-fast-forward")
            target = theirs
            outcome.fastForwarded = true
        } else {
            let snapshots = (try base.map { try reader.read($0) }, try reader.read(ours), theirsSnap)
            // The merge's blobs, trees and commit go to one pack: one file and one fsync, not one per object.
            let merged = try Vault.git {
                try repo.writingObjectsAsOnePack {
                    try mergeDiverged(repo: repo, cipher: cipher, base: base, ours: ours, theirs: theirs,
                                      snapshots: snapshots, remote: remote, rekey: rekey, baseKey: baseKey)
                }
            }
            outcome.mergedEntries = merged.changed
            outcome.resolutions += merged.resolutions
            target = merged.commit
        }
        let paths = try Vault.git { try repo.changes(from: ours, to: target) }.map(\.path)
        try requireUnchangedWorkTree(repo, at: ours, paths: paths)
        // Only now, with nothing left to refuse, do refs here move.
        try Vault.git { try repo.setRef(name: tracking, to: theirs) }
        let recovery = "refs/tresor/pre-sync/" + Vault.refStamp()
        try Vault.git { try repo.setRef(name: recovery, to: ours) }
        outcome.recoveryRef = recovery
        Failpoint.hit("before-merge-commit")
        try publish(repo, from: ours, to: target, paths: paths,
                    reflog: outcome.fastForwarded ? "tresor: fast-forward to \(target)" : "tresor: merge \(remote)", knownStale: false)
        outcome.pulled = true
        let slotsBefore = Set(header.keySlots.map(\.id))
        try reloadHeader()
        outcome.passphraseChanged = slotsBefore.isDisjoint(with: header.keySlots.map(\.id))
        if case .theirs = rekey { outcome.rekeyed = true }
        _ = previousKey
        return base == ours ? .done : .push(initializing: false)
    }

    /// The work-tree files at `paths` must be what commit `rev` has: the update would overwrite them.
    func requireUnchangedWorkTree(_ repo: GitRepository, at rev: String, paths: [String]) throws {
        for path in paths {
            try checkWorkTreeFolders(of: path)
            let expected = try Vault.git { try repo.blobID(at: rev, path: path) }
            let file = root + "/" + path
            switch FileSystem.kind(file) {
            case .missing where expected == nil: continue
            case .file where try Vault.git({ try repo.hashFile(file) }) == expected: continue
            default: throw VaultError.changedOutsideTresor(path: path)
            }
        }
    }

    /// Pushes main; false when the remote moved meanwhile (fetch and merge again).
    func push(_ repo: GitRepository, _ remote: String, _ credentials: GitCredentials, _ progress: VaultProgressHandler?) throws -> Bool {
        do { try repo.push(remote: remote, credentials: credentials, progress: progress.git); return true }
        catch GitError.pushRejected, GitError.notFastForward { return false }
        catch let e as GitError { throw VaultError.git(e) }
    }

    static func refStamp() -> String {
        let t = Timestamp.now().description   // 2026-11-21T18:40:00.123Z
        return t.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "").replacingOccurrences(of: ".", with: "")
    }
}

extension Vault {
    /// Removes the quarantine folders (`.git/tresor/incoming-PID-…`) of syncs that were killed: they hold
    /// what a remote sent that was never checked.
    func removeAbandonedQuarantines() {
        for name in FileSystem.list(root + "/.git/tresor") where name.hasPrefix("incoming-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 2, let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: root + "/.git/tresor/" + name) }
        }
    }
}
