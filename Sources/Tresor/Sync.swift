// `tresor sync`: ask the remote, fetch into a quarantine, accept or refuse its state by one rule, fast-forward, join
// or publish, push leased; retried with a growing random delay while the remote keeps moving (Spec/MERGE.md §11).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore
import TresorGit

/// A domain the remote had rolled back from what this replica last took from it (Spec/AUTH.md `rolled-back`).
public struct RollbackReport: Sendable, Equatable {
    /// `vault`, or the folder of a scope.
    public var domain: String
    /// The clock last taken from the remote.
    public var from: Clock
    /// The earlier clock the remote showed.
    public var to: Clock
}

/// What one sync did, for the CLI to print (README "Sync").
public struct SyncOutcome: Sendable {
    /// The name of the remote synced with.
    public var remote: String
    /// The remote had nothing new and this replica nothing to send: one ref advertisement was all.
    public var upToDate = false
    /// Something came from the remote (fast-forward or join).
    public var pulled = false
    /// Something was sent to the remote (this replica's commits, or the join).
    public var pushed = false
    /// The local branch moved forward to the remote's state without a join.
    public var fastForwarded = false
    /// Entry paths the join changed relative to the local vault.
    public var mergedEntries: [String] = []
    /// Every automatic decision, in order (no secret values).
    public var resolutions: [MergeResolution] = []
    /// The ref that keeps the local state from before a join.
    public var recoveryRef: String?
    /// Attempts made (1 when the remote did not move meanwhile).
    public var rounds = 0
    /// Pack bytes received by fetches, over all attempts (the ref advertisements not counted).
    public var bytesReceived = 0
    /// Pack bytes sent by pushes, over all attempts.
    public var bytesSent = 0
    /// How many times the remote moved between a fetch and the push.
    public var remoteChanges = 0
    /// The remote had no vault yet and received this one.
    public var initializedRemote = false
    /// Every passphrase slot this replica had was replaced: another replica changed the passphrase.
    public var passphraseChanged = false
    /// A key of this vault was replaced elsewhere (a member removed, a rekey) and this replica follows it.
    public var rekeyed = false
    /// Folders of scopes with a slot for this identity that this replica, without the vault key, has not accepted
    /// (Spec/AUTH.md §7.3): `Vault.acceptScope` takes one.
    public var offeredScopes: [String] = []
    /// Domains the remote had rolled back; this sync published this replica's newer state over them.
    public var rolledBack: [RollbackReport] = []
    /// With `repair`: the domains of the remote's state that were refused and left out (with the rule).
    public var discarded: [(domain: String, refusal: AcceptanceRefusal)] = []
}

extension Vault {
    static let remoteBranch = "main"

    /// The ref checked commits are copied into: nothing under `refs/remotes/` moves until what arrived passed the checks.
    static func incomingRef(_ remote: String) -> String { "refs/tresor/incoming/" + remote }
    /// The ref a fetch writes in the quarantine repository.
    static let quarantineRef = "refs/tresor/incoming"
    /// How long `sync` keeps trying while the remote moves, by default (Spec/MERGE.md §11 step 6).
    public static let defaultRetryTime: TimeInterval = 60

    /// Syncs with `remote`: Spec/MERGE.md §11 under the acceptance rule of Spec/AUTH.md. Needs `unlock`. The network
    /// steps run without the vault lock; deciding and publishing runs under it, so a sync and other commands on the same
    /// vault never lose each other's changes. While the remote moves between a fetch and the push, the sync starts
    /// again after a random delay that grows with each attempt, until `retryTime` seconds are spent.
    /// `repair`: a remote whose state is refused gets the authentic part of it joined and this replica's result pushed
    /// over it (Spec/AUTH.md §10).
    /// - Throws: `VaultError.git` (unreachable, authentication), `.refusedRemote`, `.entryContent`, `.rekeyedElsewhere`,
    ///   `.removedFromVault`, `.domainConflict`, `.changedOutsideTresor`, `.remoteKeptMoving`, `.formatTooOld`,
    ///   `.remoteFormatOlder`. The local vault is unchanged on every error but one: `.pushFailedAfterMerge`, where the
    ///   join is committed here and only the push failed (the next sync pushes it).
    public func sync(remote: String = "origin", credentials: GitCredentials = .standard(), retryTime: TimeInterval = Vault.defaultRetryTime,
                     repair: Bool = false, progress: VaultProgressHandler? = nil) throws -> SyncOutcome {
        guard header.version == FormatVersion.header else { throw VaultError.formatTooOld(version: header.version, required: FormatVersion.header) }
        guard isUnlocked else { throw VaultError.vaultLocked }
        let repo = try repository()
        let url = try Vault.git { try repo.url(ofRemote: remote) }
        var outcome = SyncOutcome(remote: remote)
        let deadline = Date().addingTimeInterval(retryTime)
        while true {
            let began = Date()
            outcome.rounds += 1
            if try attempt(repo: repo, remote: remote, url: url, credentials: credentials, repair: repair, outcome: &outcome, progress: progress) {
                outcome.offeredScopes = offeredScopes.values.sorted()
                return outcome
            }
            outcome.remoteChanges += 1
            // The remote moved between reading it and pushing: start again after a random delay ("full jitter") whose bound
            // doubles with each change and is measured in attempts (an attempt over a slow link waits longer), so replicas
            // that collided spread out instead of colliding again.
            let remaining = deadline.timeIntervalSinceNow
            let bound = min(Vault.retryDelayBound(attemptSeconds: Date().timeIntervalSince(began), remoteChanges: outcome.remoteChanges), remaining)
            guard remaining > 0.01 else {
                throw VaultError.remoteKeptMoving(remote: remote, attempts: outcome.rounds, seconds: retryTime)
            }
            usleep(UInt32(Double.random(in: 0...bound) * 1_000_000))
        }
    }

    /// The bound of the random wait before the next attempt after `remoteChanges` changes of the remote, each attempt
    /// taking about `attemptSeconds`: at least 50 ms, doubling with each change, at most 5 s.
    static func retryDelayBound(attemptSeconds: TimeInterval, remoteChanges: Int) -> TimeInterval {
        let unit = max(0.05, attemptSeconds)
        return min(5, unit * pow(2, Double(min(remoteChanges, 16) - 1)))
    }

    /// One attempt; false when the remote moved before the push (the caller tries again).
    private func attempt(repo: GitRepository, remote: String, url: String, credentials: GitCredentials, repair: Bool,
                         outcome: inout SyncOutcome, progress: VaultProgressHandler?) throws -> Bool {
        let tracking = GitRepository.trackingRef(remote: remote)
        // 1. Ask first: one ref advertisement says whether anything changed there.
        let advertised: String?
        do { advertised = try repo.remoteMain(url: url, credentials: credentials, remoteName: remote) }
        catch let e as GitError { throw VaultError.git(e) }
        let head = try Vault.git { try repo.headCommitID() }
        // (Only when HEAD is the state last accepted here: what plain git did is taken in first, under the lock below.)
        if let advertised, advertised == repo.resolve(tracking), !repair, head == repo.resolve(Vault.verifiedRef) {
            if head == advertised { outcome.upToDate = true; return true }
            if let head, try dominates(head, over: advertised, repo: repo) {
                return try push(repo: repo, remote: remote, credentials: credentials, lease: .some(advertised), outcome: &outcome, progress: progress)
            }
        }
        guard advertised != nil else {
            // An empty remote gets this vault.
            guard try push(repo: repo, remote: remote, credentials: credentials, lease: .some(nil), outcome: &outcome, progress: progress) else { return false }
            outcome.initializedRemote = true
            return true
        }
        // 2. Fetch into a quarantine that borrows this repository's objects; only what passed is copied in.
        removeAbandonedQuarantines()
        let quarantinePath = root + "/.git/tresor/incoming-\(getpid())-" + Vault.refStamp()
        defer { try? FileManager.default.removeItem(atPath: quarantinePath) }  // (one left behind goes with the next sync)
        var quarantine = try Vault.git { try repo.makeQuarantine(at: quarantinePath) }
        var received = 0
        defer { outcome.bytesReceived += received }
        let fetchProgress: GitProgressHandler = { p in received = max(received, p.bytes); progress.git?(p) }
        do {
            // From a path: the packs this vault does not hold yet, read as they are, else a fetch (as for a clone).
            let copy = try quarantine.copyPacks(ofLocalRepository: url, into: Vault.quarantineRef, progress: fetchProgress)
            if copy == .stopped {
                try? FileManager.default.removeItem(atPath: quarantinePath)
                quarantine = try repo.makeQuarantine(at: quarantinePath)
            }
            if copy != .copied {
                try quarantine.fetch(url: url, into: Vault.quarantineRef, credentials: credentials, remoteName: remote, progress: fetchProgress)
            }
        } catch GitError.malformedTree {
            throw VaultError.refusedRemote(remote: remote, AcceptanceRefusal(.treeShape, path: "/", .damagedTree))
        } catch let e as GitError { throw VaultError.git(e) }
        Failpoint.hit("after-fetch")
        guard let theirs = try Vault.git({ try quarantine.commitID(of: Vault.quarantineRef) }) else { return false }
        // 3–5. Under the lock: accept, decide, publish.
        let step = try decide(repo: repo, quarantine: quarantine, quarantinePath: quarantinePath, remote: remote, theirs: theirs,
                              repair: repair, outcome: &outcome, progress: progress)
        // Scopes made while the vault key changed get a key of their own again before anything is published.
        let rekeyed = try rekeyStaleScopes()
        switch step {
        case .done:
            guard rekeyed else { return true }
            return try push(repo: repo, remote: remote, credentials: credentials, lease: .some(theirs), outcome: &outcome, progress: progress)
        case .push(let lease):
            return try push(repo: repo, remote: remote, credentials: credentials, lease: .some(lease), outcome: &outcome, progress: progress)
        }
    }

    private enum Step { case done, push(lease: String) }

    /// Pushes HEAD leased on `lease`; records what the remote now holds. False when the remote moved.
    private func push(repo: GitRepository, remote: String, credentials: GitCredentials, lease: String??, outcome: inout SyncOutcome,
                      progress: VaultProgressHandler?) throws -> Bool {
        Failpoint.hit("before-push")
        var sent = 0
        defer { outcome.bytesSent += sent }
        let pushProgress: GitProgressHandler = { p in sent = max(sent, p.bytes); progress.git?(p) }
        do { try repo.push(remote: remote, credentials: credentials, lease: lease, progress: pushProgress) }
        catch GitError.pushRejected, GitError.notFastForward { return false }
        catch let e as GitError {
            if outcome.pulled, !outcome.fastForwarded { throw VaultError.pushFailedAfterMerge(remote: remote, mergedEntries: outcome.mergedEntries, e) }
            throw VaultError.git(e)
        }
        outcome.pushed = true
        if let head = try Vault.git({ try repo.headCommitID() }) {
            try Vault.git { try repo.setRef(name: GitRepository.trackingRef(remote: remote), to: head) }
            try recordTrust(remote: remote, states: try stateRecords(at: head, repo: repo))
        }
        return true
    }

    /// Whether every domain of `a`'s state is at least as new as `b`'s, and `a` has every domain `b` has.
    func dominates(_ a: String, over b: String, repo: GitRepository) throws -> Bool {
        let x = try stateRecords(at: a, repo: repo), y = try stateRecords(at: b, repo: repo)
        return y.allSatisfy { d, r in x[d].map { r.clock.isAtMost($0.clock) } ?? false }
    }

    /// Steps 3–5 of Spec/MERGE.md §11 under the vault lock.
    private func decide(repo: GitRepository, quarantine: GitRepository, quarantinePath: String, remote: String, theirs: String, repair: Bool,
                        outcome: inout SyncOutcome, progress: VaultProgressHandler?) throws -> Step {
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        try recover(repo)
        try adoptCommitsMadeWithGit(repo)
        guard let ours = try Vault.git({ try repo.headCommitID() }) else { throw VaultError.git(.unknownRevision("HEAD")) }
        let tracking = GitRepository.trackingRef(remote: remote)
        let reader = SnapshotReader(repo: quarantine)
        reader.progress = progress
        let tip = try reader.tipTree(theirs, remote: remote)
        // A remote of an older format: this replica's (converted) vault goes over it only when it holds nothing newer.
        // (A header that does not parse is not of an older format: the acceptance rule below refuses it.)
        if let bytes = tip.smallFiles[VaultHeader.relativePath], let h = try? VaultHeader.parse(bytes), h.vaultID == header.vaultID,
           h.version < FormatVersion.header {
            guard try quarantine.contains(ours, theirs) else { throw VaultError.remoteFormatOlder(remote: remote, version: h.version) }
            return .push(lease: theirs)
        }
        if ours == theirs {
            try Vault.git { try repo.setRef(name: tracking, to: theirs) }
            try recordTrust(remote: remote, states: try stateRecords(at: ours, repo: repo))
            return .done
        }
        let local = try stateRecords(at: ours, repo: repo)
        guard let verdicts = try verdicts(of: tip, remote: remote, local: local, repair: repair, outcome: &outcome) else {
            return .push(lease: theirs)
        }
        let relations = try clockRelations(verdicts, local: local, remote: remote)
        let needsKeyChange = verdicts.values.contains { $0.followsRekey || $0.olderEpoch }
        let offered = verdicts.filter(\.value.offered).keys
        for id in offered { if let folder = tipFolder(id, tip) { offeredScopes[id] = folder } }

        // The remote is behind (or rolled back): publish this replica's state over it.
        // (Its objects stay in the quarantine: nothing of it is kept, the push leases on its id.)
        if !needsKeyChange, relations.allSatisfy({ $0 == .older || $0 == .equal }), relations.contains(.older) {
            return .push(lease: theirs)
        }
        // Take the accepted objects in: the quarantine's packs as they are (what it received, and the join written there).
        let fastForward = !needsKeyChange && relations.allSatisfy({ $0 == .newer || $0 == .equal })
        let target = try targetState(fastForward: fastForward, repo: repo, quarantine: quarantine, reader: reader, ours: ours,
                                     theirs: theirs, verdicts: verdicts, remote: remote, outcome: &outcome)
        try Vault.git { try repo.takeInObjects(ofQuarantineAt: quarantinePath, commit: target == ours ? theirs : target, into: Vault.incomingRef(remote), remoteName: remote) }
        defer { try? repo.deleteRef(name: Vault.incomingRef(remote)) }  // (tidying: the next sync writes it anew)
        if target == ours {
            // The join is this replica's state: nothing to publish here; the remote gets it.
            try adoptKeys(verdicts)
            try Vault.git { try repo.setRef(name: tracking, to: theirs) }
            return .push(lease: theirs)
        }
        try takeIn(target, ours: ours, theirs: theirs, repo: repo, remote: remote, verdicts: verdicts, outcome: &outcome)
        return target == theirs ? .done : .push(lease: theirs)
    }

    /// The verdict on each domain of `tip` (Spec/AUTH.md §5), with the domains the remote rolled back reported in
    /// `outcome`; nil when, with `repair`, the tip is refused and discarded (Spec/AUTH.md §10: what the remote holds that
    /// no rule accepts is discarded, and named). - Throws: `VaultError.refusedRemote` (without `repair`), as `acceptTip`.
    private func verdicts(of tip: TipTree, remote: String, local: [String: StateRecord], repair: Bool,
                          outcome: inout SyncOutcome) throws -> [String: DomainVerdict]? {
        let verdicts: [String: DomainVerdict]
        do {
            verdicts = try acceptTip(tip, remote: remote, local: local)
        } catch VaultError.refusedRemote(_, let refusal) where repair {
            outcome.discarded.append((refusal.domain ?? Domain.vault, refusal))
            return nil
        }
        outcome.rolledBack += rollbacks(verdicts, remote: remote)
        return verdicts
    }

    /// How each domain of the tip and of this replica's `local` state relates to this replica's (`.newer`: the tip's is newer).
    /// A domain only the tip has is new there; one only this replica has is new here when the tip's vault domain is not
    /// newer, else it may hold changes the remote removed the scope without seeing: joined. A removal the remote made
    /// after holding all this replica has of the domain is the tip's (Spec/MERGE.md §11 step 4).
    private func clockRelations(_ verdicts: [String: DomainVerdict], local: [String: StateRecord], remote: String) throws -> [ClockRelation] {
        let vaultRelation = verdicts[Domain.vault]?.relation ?? .concurrent
        let held = try trustRecord(remote: remote).remote
        return Set(verdicts.keys).union(local.keys).map { d -> ClockRelation in
            guard let v = verdicts[d] else {
                if vaultRelation == .older || vaultRelation == .equal { return .older }
                if vaultRelation == .newer, let mine = local[d]?.clock, let there = held[d], mine.isAtMost(there) { return .newer }
                return .concurrent
            }
            return v.relation
        }
    }

    /// The state this replica moves to: the tip as it is (`fastForward`, its changed entries checked first, Spec/AUTH.md
    /// §6), or the join of the tip and `ours`, written in the quarantine and named by its ref there.
    private func targetState(fastForward: Bool, repo: GitRepository, quarantine: GitRepository, reader: SnapshotReader, ours: String,
                             theirs: String, verdicts: [String: DomainVerdict], remote: String, outcome: inout SyncOutcome) throws -> String {
        if fastForward {
            try checkContent(reader: reader, theirs: theirs, ours: ours, verdicts: verdicts, remote: remote, repo: repo)
            outcome.fastForwarded = true
            return theirs
        }
        let merged = try Vault.git {
            try quarantine.writingObjectsAsOnePack {
                try join(quarantine: quarantine, reader: reader, ours: ours, theirs: theirs, verdicts: verdicts, remote: remote)
            }
        }
        outcome.mergedEntries = merged.changed
        outcome.resolutions += merged.resolutions
        return merged.commit
    }

    /// Moves this replica from `ours` to `target` (the tip, or the join with it), its objects fetched in already: the work
    /// tree checked, the tracking ref and a recovery ref set, the keys followed, the branch published, the trust recorded.
    private func takeIn(_ target: String, ours: String, theirs: String, repo: GitRepository, remote: String, verdicts: [String: DomainVerdict],
                        outcome: inout SyncOutcome) throws {
        let paths = try Vault.git { try repo.changes(from: ours, to: target) }.map(\.path)
        try requireUnchangedWorkTree(repo, at: ours, paths: paths)
        // From here on the sync goes through: the tracking ref names what the remote holds.
        try Vault.git { try repo.setRef(name: GitRepository.trackingRef(remote: remote), to: theirs) }
        if target != theirs {
            let recovery = "refs/tresor/pre-sync/" + Vault.refStamp()
            try Vault.git { try repo.setRef(name: recovery, to: ours) }
            outcome.recoveryRef = recovery
        }
        // Keys followed or kept before the branch moves: a crash after it leaves a vault the next unlock opens.
        try adoptKeys(verdicts)
        Failpoint.hit(target == theirs ? "before-fast-forward" : "before-merge-commit")
        try publish(repo, from: ours, to: target, paths: paths,
                    reflog: target == theirs ? "tresor: fast-forward to \(theirs)" : "tresor: merge \(remote)", knownStale: false)
        // What was accepted (and what this replica joined) is this replica's verified state; the ref only spares the
        // next command checking HEAD again, so the sync has happened whether or not it moves.
        _ = try? repo.setRef(name: Vault.verifiedRef, to: target)
        outcome.pulled = true
        outcome.rekeyed = verdicts.values.contains { $0.followsRekey }
        let slotsBefore = Set(header.keySlots.map(\.id))
        try reloadHeader()
        outcome.passphraseChanged = !slotsBefore.isEmpty && slotsBefore.isDisjoint(with: header.keySlots.map(\.id))
        try recordTrust(remote: remote, states: try stateRecords(at: theirs, repo: repo))
        try openScopes(listedIn: header, from: .workTree, identity: credentialIdentity)
    }

    /// The domains of a fetched tip older than what this replica last took from `remote` (`rolled-back`, Spec/AUTH.md §8),
    /// by domain: `vault` or the scope's folder. Read before the trust record takes the tip.
    func rollbacks(_ verdicts: [String: DomainVerdict], remote: String) -> [RollbackReport] {
        // (The record gives the report's "from" only: the verdicts were reached with it, and a sync whose record cannot be
        // read stopped before this.)
        let last = (try? trustRecord(remote: remote))?.remote ?? [:]
        return verdicts.filter(\.value.rolledBack).sorted { $0.key < $1.key }.map { d, v in
            RollbackReport(domain: d == Domain.vault ? Domain.vault : header.scopes[d] ?? d, from: last[d] ?? .empty, to: v.clock)
        }
    }

    /// The folder a tip's vault header gives scope `id` (for the outcome's list; the header was accepted already).
    private func tipFolder(_ id: String, _ tip: TipTree) -> String? {
        tip.smallFiles[VaultHeader.relativePath].flatMap { try? VaultHeader.parse($0) }?.scopes[id]
    }

    /// Applies Spec/AUTH.md §5 to `tip`: the keys this replica holds (and those of earlier epochs it keeps), the keys its
    /// credential opens from the tip's headers where they are of a newer key, its trust record and HEAD.
    /// - Throws: `VaultError.refusedRemote`, `.rekeyedElsewhere` (a newer key and no passphrase or identity at hand),
    ///   `.removedFromVault` (the credential opens no slot of the newer key).
    func acceptTip(_ tip: TipTree, remote: String, local: [String: StateRecord]) throws -> [String: DomainVerdict] {
        let held = try heldKeys()
        let opened = try keysOpened(from: tip, held: held, remote: remote)
        do {
            return try Acceptance.decide(tip: tip, vaultID: header.vaultID, held: held, opened: opened, trust: try trustRecord(remote: remote),
                                         local: local.mapValues { Acceptance.LocalDomain(epoch: $0.epoch, clock: $0.clock) })
        } catch let refusal as AcceptanceRefusal {
            throw VaultError.refusedRemote(remote: remote, refusal)
        }
    }

    /// The keys this process's credential opens from the tip's headers of domains whose header the keys held do not
    /// verify (a newer epoch, or a rekey concurrent with this replica's own).
    private func keysOpened(from tip: TipTree, held: [String: [EpochKey]], remote: String) throws -> [String: [EpochKey]] {
        // (A header that does not parse opens nothing here: the acceptance rule refuses it, naming why. Below, a key that
        // does not verify or unlock is the answer "not this key", as the rule itself sees it.)
        guard let vb = tip.smallFiles[VaultHeader.relativePath], let vh = try? VaultHeader.parse(vb), vh.version == FormatVersion.header else { return [:] }
        func verifies(_ keys: [EpochKey], epoch: UInt64, _ check: (VaultAuthenticator) throws -> Void) -> Bool {
            keys.contains { $0.epoch == epoch && (try? VaultAuthenticator(vaultKey: $0.key)).map { (try? check($0)) != nil } == true }
        }
        var opened: [String: [EpochKey]] = [:]
        var vaultKey = vaultKeyIfHeld
        if let heldVault = held[Domain.vault], !verifies(heldVault, epoch: vh.epoch, { try $0.verify(vh) }) {
            guard let credential else { throw VaultError.rekeyedElsewhere(remote: remote) }
            do {
                let k = try credential.open(vh)
                opened[Domain.vault] = [EpochKey(epoch: vh.epoch, key: k)]
                vaultKey = k
            } catch CoreError.notARecipient, CoreError.wrongPassphrase {
                throw VaultError.removedFromVault(remote: remote, byPassphrase: { if case .passphrase = credential { return true }; return false }())
            } catch { }
        }
        let identity = credentialIdentity
        for path in tip.smallFiles.keys.sorted() {
            guard let id = ScopeHeader.scopeID(ofPath: path), vh.scopes[id] != nil, let s = try? ScopeHeader.parse(tip.smallFiles[path]!) else { continue }
            if let h = held[id], verifies(h, epoch: s.epoch, { try $0.verify(s) }) { continue }
            var key: SecretBytes?
            if let vaultKey, s.vaultSlot != nil { key = try? s.unlock(vaultKey: vaultKey) }
            // A scope made concurrently with a vault rekey: its key is wrapped under an earlier vault key.
            if key == nil, s.vaultSlot != nil {
                key = (held[Domain.vault] ?? []).sorted(by: { $0.epoch > $1.epoch }).lazy.compactMap({ try? s.unlock(vaultKey: $0.key) }).first
            }
            if key == nil, let identity { key = try? s.unlock(identity: identity) }
            if key == nil, held[id] != nil, credential == nil { throw VaultError.rekeyedElsewhere(remote: remote) }
            if let key { opened[id] = [EpochKey(epoch: s.epoch, key: key)] }
        }
        return opened
    }

    /// Spec/AUTH.md §6: every entry file of a verified domain that differs from HEAD's at the same path opens at its path.
    private func checkContent(reader: SnapshotReader, theirs: String, ours: String, verdicts: [String: DomainVerdict], remote: String,
                              repo: GitRepository) throws {
        let mine = Vault.fileIDs(repo, ours) ?? [:]
        let keys = verdicts.compactMapValues(\.key)
        let files = try Vault.git { try reader.repo.treeEntries(at: theirs) }
        // The tip's header (accepted already): without it no entry would be checked, so its absence is a refusal.
        guard let hb = files.first(where: { $0.path == VaultHeader.relativePath }) else {
            throw VaultError.entryContent(remote: remote, file: VaultHeader.relativePath, .malformed(.missingFile(path: VaultHeader.relativePath)))
        }
        let h: VaultHeader
        do { h = try VaultHeader.parse(try Vault.git { try reader.repo.blob(id: hb.id) }) }
        catch let e as CoreError { throw VaultError.entryContent(remote: remote, file: VaultHeader.relativePath, e) }
        var ciphers: [String: EntryCipher] = [:]
        for (d, k) in keys { ciphers[d] = try EntryCipher(vaultKey: k) }
        for f in files where mine[f.path] != f.id {
            if f.path == SyncSetup.attributesFile, keys[Domain.vault] != nil, try Vault.git({ try reader.repo.blob(id: f.id) }) != Array(SyncSetup.attributes.utf8) {
                throw VaultError.entryContent(remote: remote, file: f.path, .malformed(.mismatch(.gitAttributes)))
            }
            guard let p = EntryPath(filePath: f.path), let cipher = ciphers[h.domain(of: p)] else { continue }
            _ = try reader.entry(f.id, path: p, cipher: cipher, remote: remote)
        }
    }

    /// After taking a tip: keys followed (a newer epoch) are used from now on, the ones they replace kept as earlier keys.
    func adoptKeys(_ verdicts: [String: DomainVerdict]) throws {
        for (d, v) in verdicts where v.followsRekey {
            guard let key = v.key else { continue }
            if d == Domain.vault {
                if let old = vaultKeyIfHeld { try keepPreviousKey(old, domain: d, epoch: vaultEpoch, sealedUnder: key) }
                try useKey(key)
                vaultEpoch = v.epoch
            } else {
                if let old = scopeKeys[d] { try keepPreviousKey(old.key, domain: d, epoch: old.epoch, sealedUnder: key) }
                scopeKeys[d] = try ScopeKeys(key, epoch: v.epoch)
            }
        }
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

    static func refStamp() -> String {
        let t = Timestamp.now().description   // 2026-11-21T18:40:00.123Z
        return t.replacingAll("-", with: "").replacingAll(":", with: "").replacingAll(".", with: "")
    }

    /// Removes the quarantine folders (`.git/tresor/incoming-PID-…`) of syncs that were killed: they hold
    /// what a remote sent that was never checked.
    func removeAbandonedQuarantines() {
        for name in FileSystem.list(root + "/.git/tresor") where name.hasPrefix("incoming-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 2, let pid = Int32(parts[1]), pid != getpid() else { continue }
            // (Tidying: one that cannot be removed holds nothing that is ever read, and is tried again next time.)
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: root + "/.git/tresor/" + name) }
        }
    }
}
