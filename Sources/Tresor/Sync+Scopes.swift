// Sync and clone of a vault with scopes (Spec/FORMAT.md §3.12.6): fetched commits checked per key; fast-forward, merge, push.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    enum ScopedStep { case done, push }

    /// `sync` for a version 4 vault: what the remote brings must pass the per-key rule for the keys this process holds
    /// (every fetched commit) and the file checks as far as those keys reach; then it is fast-forwarded, or this
    /// replica's commits are pushed; diverged histories are merged by Spec/MERGE.md §14 (`mergeScoped`) and pushed.
    /// - Throws: `VaultError.foreignCommits`, `.hostileRemote`, `.scopeConflict`, `.rekeyConcurrentWithEdits`, `.git`.
    func syncScoped(remote: String, credentials: GitCredentials, maxRounds: Int, progress: VaultProgressHandler?) throws -> SyncOutcome {
        guard isUnlocked else { throw VaultError.vaultLocked }
        let repo = try repository()
        var outcome = SyncOutcome(remote: remote)
        let incoming = Vault.incomingRef(remote)
        let url = try Vault.git { try repo.url(ofRemote: remote) }
        defer { try? repo.deleteRef(name: incoming) }
        while outcome.rounds < maxRounds {
            outcome.rounds += 1
            try? repo.deleteRef(name: incoming)
            removeAbandonedQuarantines()
            let quarantinePath = root + "/.git/tresor/incoming-\(getpid())-" + Vault.refStamp()
            defer { try? FileManager.default.removeItem(atPath: quarantinePath) }
            let quarantine = try Vault.git { try repo.makeQuarantine(at: quarantinePath) }
            do { try quarantine.fetch(url: url, into: Vault.quarantineRef, credentials: credentials, remoteName: remote, progress: progress.git) }
            catch GitError.malformedTree(_, let reason) { throw VaultError.hostileRemote(file: url, problem: .damagedTree(reason: reason)) }
            catch let e as GitError { throw VaultError.git(e) }
            let step = try scopedStep(repo: repo, quarantine: quarantine, quarantinePath: quarantinePath, remote: remote,
                                      incoming: incoming, outcome: &outcome, progress: progress)
            try? repo.deleteRef(name: incoming)
            outcome.offeredScopes = offeredScopes.values.sorted()
            switch step {
            case .done: return outcome
            case .push:
                if try push(repo, remote, credentials, progress) { outcome.pushed = true; return outcome }
            }
        }
        throw VaultError.remoteKeptMoving(remote: remote, attempts: maxRounds)
    }

    func scopedStep(repo: GitRepository, quarantine: GitRepository, quarantinePath: String, remote: String, incoming: String,
                            outcome: inout SyncOutcome, progress: VaultProgressHandler?) throws -> ScopedStep {
        let lock = try VaultLock.acquire(root: root, timeout: lockTimeout, waiting: onLockWait)
        defer { lock.release() }
        try recover(repo)
        try adoptCommitsMadeWithGit(repo)
        guard let ours = try Vault.git({ try repo.headCommitID() }) else { throw VaultError.git(.unknownRevision("HEAD")) }
        guard let theirs = quarantine.resolve(Vault.quarantineRef) else { return .push }
        let tracking = GitRepository.trackingRef(remote: remote)
        if ours == theirs {
            try Vault.git { try repo.setRef(name: tracking, to: theirs) }
            return .done
        }
        let base = try Vault.git { try quarantine.mergeBase(ours, theirs) }
        if base == theirs {
            try Vault.git { try repo.setRef(name: tracking, to: theirs) }
            return .push
        }
        // Histories that share no commit are never merged in a vault with scopes: a clone shares the root, and with no
        // base the checks below (what changed on each side since B) have nothing to stand on (Spec/MERGE.md §14.2).
        guard base != nil else { throw VaultError.unrelatedHistories(remote: remote) }
        // A key rekeyed on one side while the other changed what it governs cannot be merged (Spec/MERGE.md §14.4).
        if let base, base != ours { try requireNoRekeyConcurrentWithEdits(repo: quarantine, base: base, ours: ours, theirs: theirs, remote: remote) }
        // The vault key rekeyed elsewhere (Spec/FORMAT.md §3.11): its new key, opened with this replica's passphrase or
        // identity, with a chain of rekey proofs from the key held. From here on the vault uses it; on any error it goes
        // back to the key before. Commits are checked under the key their own header is authentic under.
        var previousVaultKey: SecretBytes?
        var vaultKeys: [VaultAuthenticator] = []
        var followed = false
        if authenticator != nil, let newKey = try incomingKey(quarantine: quarantine, theirs: theirs, remote: remote, base: base) {
            let previous = try currentVaultKey()
            vaultKeys = try ([previous] + historyKeys + [newKey]).map { try VaultAuthenticator(vaultKey: $0) }
            previousVaultKey = previous
            try useKey(newKey)
        }
        defer { if !followed, let previousVaultKey { try? useKey(previousVaultKey) } }
        let successors = try scopeSuccessors(at: theirs, repo: quarantine, remote: remote)
        // The keys for the remote's tip: those held, the successors of scopes rekeyed there, and scopes made there that
        // this process's credential opens. Every fetched commit is checked with all of them (Spec/FORMAT.md §3.12.6):
        // a scope opened here is checked from its creation onward, not only from the tip.
        var theirKeys = scopeKeys.merging(successors) { $1 }
        let opened = try newScopeKeys(at: theirs, repo: quarantine, known: theirKeys)
        try requireFetchedByKeys(tip: theirs, excluding: [ours], repo: quarantine, successors: successors, opened: opened, vaultKeys: vaultKeys)
        // Without the vault key, a scope new to this replica is checked with its key but not taken (Spec/FORMAT.md
        // §3.12.6): its files pass unread until the user accepts it.
        let accepted = cipher == nil ? acceptedScopeIDs() ?? Set(scopeKeys.keys) : nil
        theirKeys.merge(opened.filter { accepted?.contains($0.key) ?? true }) { a, _ in a }
        let checker = SnapshotReader(repo: quarantine, cipher: cipher, authenticator: authenticator, local: header)
        checker.scopeKeys = theirKeys
        checker.progress = progress
        // What this replica already accepted at the same path, in its tip or (for a merge) in the merge base.
        var local = Set(try Vault.git { try repo.treeEntries(at: ours) }.map { $0.path + "\u{0}" + $0.id })
        if let base, base != ours { local.formUnion(try Vault.git { try repo.treeEntries(at: base) }.map { $0.path + "\u{0}" + $0.id }) }
        let baseReader = SnapshotReader(repo: quarantine, cipher: cipher, authenticator: authenticator, local: header)
        let minimum = try base.flatMap { try baseReader.readHeader($0) }?.generation ?? 0
        _ = try checker.readIncoming(theirs, skippingUnchanged: local, minimumGeneration: minimum)
        if let base { try requireScopeGenerations(repo: quarantine, base: base, theirs: theirs) }
        var target = theirs
        var keys = theirKeys
        if base != ours {
            // Merged in the quarantine (which reads this repository's objects): a refused merge leaves nothing here. Its
            // blobs, trees and commit go to one pack there (one file, one fsync), which the fetch below copies in.
            let (merged, finalKeys) = try Vault.git {
                try quarantine.writingObjectsAsOnePack {
                    try mergeScoped(repo: quarantine, base: base, ours: ours, theirs: theirs, theirKeys: theirKeys, remote: remote)
                }
            }
            outcome.mergedEntries = merged.changed
            outcome.resolutions += merged.resolutions
            target = merged.commit
            keys = finalKeys
            try Vault.git { try quarantine.setRef(name: Vault.quarantineRef, to: target) }
        }
        // Everything passed: copy the objects in (the merge commit's parents bring the remote's).
        try Vault.git { try repo.fetch(url: quarantinePath, ref: Vault.quarantineRef, into: incoming, credentials: .none, remoteName: remote) }
        let paths = try Vault.git { try repo.changes(from: ours, to: target) }.map(\.path)
        try requireUnchangedWorkTree(repo, at: ours, paths: paths)
        try Vault.git { try repo.setRef(name: tracking, to: theirs) }
        let recovery = "refs/tresor/pre-sync/" + Vault.refStamp()
        try Vault.git { try repo.setRef(name: recovery, to: ours) }
        outcome.recoveryRef = recovery
        Failpoint.hit(target == theirs ? "before-fast-forward" : "before-merge-commit")
        try publish(repo, from: ours, to: target, paths: paths,
                    reflog: target == theirs ? "tresor: fast-forward to \(theirs)" : "tresor: merge \(remote)", knownStale: false)
        if target == theirs { scopeKeys.merge(keys) { $1 } } else { scopeKeys = keys }
        try Vault.git { try repo.setRef(name: verifiedRef, to: target) }
        followed = true
        outcome.pulled = true
        outcome.fastForwarded = target == theirs
        outcome.rekeyed = previousVaultKey != nil
        try reloadHeader()
        _ = try knownFormatVersion(repo)
        // Scopes created elsewhere that this process's keys open.
        try openScopes(vaultKey: vaultKeyIfHeld, identity: { if case .identity(let i) = credential { return i }; return nil }())
        return target == theirs ? .done : .push
    }

    /// A fetched scope header may not be of a lower generation than the merge base's (Spec/FORMAT.md §3.12.6): a replay.
    /// - Throws: `VaultError.hostileRemote` naming the scope header.
    func requireScopeGenerations(repo: GitRepository, base: String, theirs: String) throws {
        for file in try Vault.git({ try repo.treeEntries(at: theirs) }) {
            guard ScopeHeader.scopeID(ofPath: file.path) != nil,
                  let old = (try? repo.blob(at: base, path: file.path)).flatMap({ $0 }).flatMap({ try? ScopeHeader.parse($0) }),
                  let new = (try? repo.blob(id: file.id)).flatMap({ try? ScopeHeader.parse($0) }), new.generation < old.generation else { continue }
            throw VaultError.hostileRemote(file: file.path, problem: .header(.headerReplayed(generation: new.generation, minimum: old.generation)))
        }
    }

    /// The scopes this process holds whose header at `tip` is under a new key (a member removed elsewhere, §3.12.5) that
    /// its credential opens, authentic under that key, with a rekey proof that verifies under the key held: scope id →
    /// the new key. (One step: a replica several rekeys of a scope behind is refused by the per-key rule.)
    /// - Throws: `VaultError.rekeyedElsewhere` when a held scope was rekeyed there and this process has no identity or
    ///   passphrase to open the new key with (unlocked by a session).
    func scopeSuccessors(at tip: String, repo: GitRepository, remote: String) throws -> [String: ScopeKeys] {
        var found: [String: ScopeKeys] = [:]
        let identity: Identity? = { if case .identity(let i) = credential { return i }; return nil }()
        for (id, held) in scopeKeys {
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let blob = try? repo.blobID(at: tip, path: path), (try? repo.blobSize(id: blob)) ?? Int.max <= 1 << 20,
                  let bytes = try? repo.blob(id: blob), let s = try? ScopeHeader.parse(bytes), (try? held.authenticator.verify(s)) == nil,
                  let proof = s.rekeyProof else { continue }
            var key: SecretBytes?
            if let vaultKey = vaultKeyIfHeld, s.vaultSlot != nil { key = try? s.unlock(vaultKey: vaultKey) }
            if key == nil, let identity { key = try? s.unlock(identity: identity) }
            if key == nil, credential == nil { throw VaultError.rekeyedElsewhere(remote: remote) }
            guard let key, let next = try? ScopeKeys(key), (try? next.authenticator.verify(s)) != nil,
                  held.authenticator.verifyRekeyProof(proof, newKey: key) else { continue }
            found[id] = next
        }
        return found
    }

    /// Spec/FORMAT.md §3.12.6 on fetched commits: every commit reachable from `tip` and not from `excluding` is of format
    /// version 4 and passes the per-key rule for the keys this process holds (`vaultKeys`: see `isAuthenticByKeys`).
    /// - Throws: `VaultError.foreignCommits` naming the commits that do not, and the paths they change.
    func requireFetchedByKeys(tip: String, excluding: [String], repo: GitRepository, successors: [String: ScopeKeys] = [:],
                              opened: [String: ScopeKeys] = [:], vaultKeys: [VaultAuthenticator] = []) throws {
        var broken: [ForeignCommit] = []
        let commits = Array(try Vault.git({ try repo.commits(from: [tip], excluding: excluding) }).prefix(100_000))
        let vouched = vouchedByVaultTag(commits, repo: repo)
        // A scope opened by this sync is checked on every fetched commit but those below a commit that carries a valid
        // tag of its key: those a member vouched for (there, the scope may have been under a key before a rekey).
        var vouchedInScope: [String: Set<String>] = [:]
        for (id, keys) in opened { vouchedInScope[id] = self.vouched(by: CommitTags.field(scopeID: id), keys.authenticator, commits, repo: repo) }
        for c in commits {
            // A header that does not parse counts as version 0: refused below, never skipped.
            let version = (try? repo.blobID(at: c.id, path: VaultHeader.relativePath)).flatMap { $0 }
                .flatMap { id in (try? repo.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes ? try? repo.blob(id: id) : nil }
                .flatMap { try? VaultHeader.parse($0) }?.version ?? 0
            if version == 0 {
                broken.append(ForeignCommit(id: c.id, summary: c.summary, paths: [VaultHeader.relativePath]))
                continue
            }
            // History from before the first scope is vouched for by a vault tag on it or on a commit above it (the commit
            // that made the first scope carries one, and a commit's id binds its ancestors); a holder of no vault key
            // cannot check it. A version 3 commit on top of a version 4 one is a downgrade.
            if version < FormatVersion.scopedHeader {
                let downgrade = c.parents.contains { headerVersion(at: $0, repo: repo) >= FormatVersion.scopedHeader }
                if !downgrade, authenticator == nil || vouched.contains(c.id) { continue }
            } else if isAuthenticByKeys(c.id, repo: repo, successors: successors,
                                        opened: opened.filter { vouchedInScope[$0.key]?.contains(c.id) != true }, vaultKeys: vaultKeys) { continue }
            let paths = (try? repo.changes(from: c.parents.first, to: c.id).map(\.path)) ?? []
            broken.append(ForeignCommit(id: c.id, summary: c.summary, paths: paths))
            if broken.count >= 50 { break }
        }
        if !broken.isEmpty { throw VaultError.foreignCommits(broken) }
    }

    /// The commits of `commits` that carry a vault tag verifying under the vault key held (Spec/FORMAT.md §7.1, §3.12.6),
    /// and every one of `commits` below them: what such a tag vouches for. Empty without the vault key.
    func vouchedByVaultTag(_ commits: [GitCommit], repo: GitRepository) -> Set<String> {
        guard let authenticator else { return [] }
        return vouched(by: CommitTags.vaultField, authenticator, commits, repo: repo)
    }

    /// The commits of `commits` that carry a tag in `field` verifying under `authenticator`, and every one of `commits`
    /// below them.
    func vouched(by field: String, _ authenticator: VaultAuthenticator, _ commits: [GitCommit], repo: GitRepository) -> Set<String> {
        var byID: [String: GitCommit] = [:]
        for c in commits { byID[c.id] = c }
        var vouched: Set<String> = []
        var queue: [String] = commits.compactMap { c in
            guard let raw = try? repo.rawCommit(c.id) else { return nil }
            let (content, found) = CommitTags.split(raw)
            guard let fields = found, let value = fields[field],
                  authenticator.verifyCommit(content: content, fields: Array(fields.keys), value: value) else { return nil }
            return c.id
        }
        while let id = queue.popLast() {
            guard let c = byID[id], vouched.insert(id).inserted else { continue }
            queue += c.parents
        }
        return vouched
    }
}

