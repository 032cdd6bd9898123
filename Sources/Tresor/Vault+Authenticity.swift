// Taking in what plain git did on this replica (a commit, a merge by `git pull`, a revert): judged by the acceptance
// rule like a fetched state, joined or re-applied as this replica's own change, and given state records (Spec/MERGE.md §12).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

extension Vault {
    /// The last commit whose state this replica wrote or accepted (local, never pushed).
    static let verifiedRef = "refs/tresor/verified"

    /// Takes in commits made on this replica with plain git that tresor has not written or accepted (Spec/MERGE.md §12):
    /// a HEAD whose state is authentic is judged like a fetched tip (when it came from a remote by `git pull`); a merge
    /// git made is joined again from its two parents; another commit git made is re-applied as this replica's change.
    /// Runs under the vault lock. Without the keys of what changed it does nothing; a later command with them does it.
    /// - Throws: `VaultError.unauthenticatedCommitsFetched`, `.commitMadeWithGitRefused`.
    func adoptCommitsMadeWithGit(_ repo: GitRepository) throws {
        guard header.version == FormatVersion.header, isUnlocked, let head = try Vault.git({ try repo.headCommitID() }) else { return }
        // (A read error is an error: "nothing accepted yet" would let any commit be the base.)
        let verified = try Vault.git { try repo.commitID(of: Vault.verifiedRef) }
        guard head != verified else { return }
        // What git brought is judged with the keys of the state this replica last accepted, never with ones the work tree's
        // headers gave at unlock (a scope header someone without the key wrote, with a slot for this identity).
        if let verified { try unlock(asOf: verified, repo: repo) }
        let reader = SnapshotReader(repo: repo)
        let fetchedBy = try remoteRefContaining(head, repo: repo)
        let parents = try Vault.git { try repo.commitInfo(head) }.parents
        if try isMergeMadeWithGit(head, parents: parents, repo: repo) {
            // Never taken as it is. Fetched from a remote, it is joined only when one parent is this replica's last
            // accepted state (made here, then pushed; or elsewhere on top of a state this replica pushed): nothing is
            // trusted but that state, and the other parent is judged as any fetched tip.
            if let fetchedBy, verified.map(parents.contains) != true {
                throw VaultError.unauthenticatedCommitsFetched(
                    ref: fetchedBy.ref, AcceptanceRefusal(.stateFiles, path: StateRecord.relativePath(domain: Domain.vault), .mergeMadeWithGit))
            }
        } else {
            do {
                try adoptAuthentic(head, verified: verified, fetchedBy: fetchedBy, reader: reader, repo: repo)
                return
            } catch let refusal as AcceptanceRefusal {
                // Not authentic and fetched from a remote: what sync refuses must not come in through plain git.
                if let fetchedBy { throw VaultError.unauthenticatedCommitsFetched(ref: fetchedBy.ref, refusal) }
            }
        }
        // Whatever git did is taken in on top of the state this replica last accepted, and on nothing else: a merge must
        // have it as a parent; another commit must descend from it through commits made here (none fetched, no merge).
        let target: String
        var fetchedTheirs: (remote: String, commit: String)?
        if parents.count == 2 {
            if let verified, !parents.contains(verified) {
                throw VaultError.unauthenticatedCommitsFetched(
                    ref: try remoteRefContaining(parents[1], repo: repo)?.ref ?? "HEAD",
                    AcceptanceRefusal(.stateFiles, path: StateRecord.relativePath(domain: Domain.vault), .mergeOnCommitsNotTakenIn))
            }
            (target, fetchedTheirs) = try joinMergeMadeWithGit(head, parents: parents, verified: verified, reader: reader, repo: repo)
        } else {
            guard let parent = parents.first else {
                throw VaultError.commitMadeWithGitRefused(commit: head, file: VaultHeader.relativePath, problem: .header(.malformed(.mismatch(.rootCommitMadeWithGit))))
            }
            let base = verified ?? parent
            if let verified { try checkMadeHere(from: head, downTo: verified, repo: repo) }
            target = try reapply(head, on: base, repo: repo)
        }
        try takeIn(target, over: head, remerged: parents.count == 2, repo: repo)
        // Their state came from a remote: recorded as that remote's, as sync does (a later older state is a rollback,
        // an epoch followed is published).
        if let fetchedTheirs { try recordTrust(remote: fetchedTheirs.remote, states: try stateRecords(at: fetchedTheirs.commit, repo: repo)) }
    }

    /// Checks that the commits from `head` down to `accepted` (first parents) were all made here with git: none is in a
    /// remote-tracking ref (a state fetched and not accepted, under a `git commit` or a `git pull --rebase`), none is a
    /// merge (one git made and not taken in yet), and the chain reaches `accepted`.
    /// - Throws: `VaultError.unauthenticatedCommitsFetched`.
    private func checkMadeHere(from head: String, downTo accepted: String, repo: GitRepository) throws {
        func refused(_ ref: String, _ finding: AcceptanceRefusal.Finding) -> VaultError {
            .unauthenticatedCommitsFetched(ref: ref, AcceptanceRefusal(.stateFiles, path: StateRecord.relativePath(domain: Domain.vault), finding))
        }
        var commit = head
        for _ in 0..<100_000 {
            if commit == accepted { return }
            if let fetched = try remoteRefContaining(commit, repo: repo) {
                throw refused(fetched.ref, .commitsOnUnacceptedState)
            }
            let parents = try Vault.git { try repo.commitInfo(commit) }.parents
            guard parents.count == 1 else { throw refused("HEAD", .commitsOnMergeNotTakenIn) }
            commit = parents[0]
        }
        throw refused("HEAD", .commitsNotOnAcceptedState)
    }

    /// Whether `head` is a merge git made: its state does not cover both parents' (its tree can be an authentic state,
    /// one side's, when git kept ours on every conflict). A domain the merge does not have was removed by it: only the
    /// domains it has are compared.
    private func isMergeMadeWithGit(_ head: String, parents: [String], repo: GitRepository) throws -> Bool {
        guard parents.count == 2 else { return false }
        let mine = try stateRecords(at: head, repo: repo)
        for p in parents {
            for (d, r) in try stateRecords(at: p, repo: repo) {
                if let m = mine[d], !r.clock.isAtMost(m.clock) { return true }
            }
        }
        return false
    }

    /// A HEAD whose state is authentic (written by tresor here or elsewhere: a checkout, a fast-forward by git pull)
    /// becomes this replica's accepted state; one older than the state accepted before, made here with git (`git
    /// revert`, `git reset`), is this replica's change of going back, taken in as one (else the next sync would see an
    /// old state and move forward again); one fetched that is older or concurrent is joined with the state accepted.
    /// - Throws: `AcceptanceRefusal` when it is not authentic; `VaultError` as `acceptTip` and the join do.
    private func adoptAuthentic(_ head: String, verified: String?, fetchedBy: (ref: String, remote: String)?, reader: SnapshotReader,
                                repo: GitRepository) throws {
        let tip = try reader.tipTree(head, remote: "HEAD")
        let known = try verified.map { try stateRecords(at: $0, repo: repo) } ?? [:]
        let verdicts: [String: DomainVerdict]
        if let fetchedBy {
            // Fetched (a fast-forward by git pull): judged as sync judges a tip, a newer key opened with the credential.
            do { verdicts = try acceptTip(tip, remote: fetchedBy.remote, local: known) }
            catch VaultError.refusedRemote(_, let refusal) { throw refusal }
            notices += rollbacks(verdicts, remote: fetchedBy.remote).map { .remoteWentBack(remote: fetchedBy.remote, $0) }
        } else {
            verdicts = try Acceptance.decide(tip: tip, vaultID: header.vaultID, held: try heldKeys(), opened: [:], trust: TrustRecord(),
                                             local: known.mapValues { Acceptance.LocalDomain(epoch: $0.epoch, clock: $0.clock) })
        }
        if let verified, fetchedBy == nil, verdicts.values.contains(where: { $0.relation == .older }),
           !verdicts.values.contains(where: { $0.relation == .newer || $0.relation == .concurrent }) {
            try takeIn(try reapply(head, on: verified, repo: repo), over: head, remerged: false, repo: repo)
            return
        }
        // Fetched, and not newer than what this replica accepted (a remote rolled back, or a forged fast-forward whose
        // tree is an older or a concurrent authentic state): joined with that state, as sync would, never taken as it is.
        if let verified, let fetchedBy, verdicts.values.contains(where: { $0.relation == .older || $0.relation == .concurrent }) {
            let merged = try join(quarantine: repo, reader: reader, ours: verified, theirs: head, verdicts: verdicts, remote: fetchedBy.remote)
            try adoptKeys(verdicts)
            let target = try commitJoin(merged.commit, over: head, message: "Join the state git brought by tresor's rules", repo: repo)
            try takeIn(target, over: head, remerged: true, repo: repo)
            try recordTrust(remote: fetchedBy.remote, states: try stateRecords(at: head, repo: repo))
            return
        }
        try adoptKeys(verdicts)
        try Vault.git { try repo.setRef(name: Vault.verifiedRef, to: head) }
        if let fetchedBy {
            try recordTrust(remote: fetchedBy.remote, states: try stateRecords(at: head, repo: repo))
            try reloadHeader()
            try openScopes(listedIn: header, from: .workTree, identity: credentialIdentity)
        }
    }

    /// A merge git made (`git pull`): its two parents joined by tresor's rules (Spec/MERGE.md §12), git's result kept
    /// under a ref. Ours is the parent this replica last accepted (git's first parent when it made the merge here); the
    /// other is judged as a fetched tip. Returns the commit of the join, on top of `head`, and the remote and commit of
    /// the other parent when it came from a remote (recorded as that remote's once the join is taken in).
    private func joinMergeMadeWithGit(_ head: String, parents: [String], verified: String?, reader: SnapshotReader,
                                      repo: GitRepository) throws -> (String, fetched: (remote: String, commit: String)?) {
        let (ours, theirs) = verified == parents[1] ? (parents[1], parents[0]) : (parents[0], parents[1])
        // The work tree holds git's header, perhaps under a key this replica has not followed yet: this replica's own
        // state is that parent's, opened with the credential.
        try unlock(asOf: ours, repo: repo)
        let fetchedFrom = try remoteRefContaining(theirs, repo: repo)?.remote
        let remote = fetchedFrom ?? "the merge made with git"
        let theirTip = try reader.tipTree(theirs, remote: remote)
        let verdicts: [String: DomainVerdict]
        do {
            verdicts = try acceptTip(theirTip, remote: remote, local: try stateRecords(at: ours, repo: repo))
        } catch VaultError.refusedRemote(_, let refusal) {
            throw VaultError.unauthenticatedCommitsFetched(ref: remote, refusal)
        }
        if let fetchedFrom { notices += rollbacks(verdicts, remote: fetchedFrom).map { .remoteWentBack(remote: fetchedFrom, $0) } }
        let merged = try join(quarantine: repo, reader: reader, ours: ours, theirs: theirs, verdicts: verdicts, remote: remote)
        try adoptKeys(verdicts)
        let joined = try commitJoin(merged.commit, over: head, message: "Join the merge made with git by tresor's rules", repo: repo)
        return (joined, fetchedFrom.map { ($0, theirs) })
    }

    /// The tree of the join `merged` committed on top of `head` (what git made stays under `refs/tresor/git-merge/`).
    private func commitJoin(_ merged: String, over head: String, message: String, repo: GitRepository) throws -> String {
        try Vault.git { try repo.setRef(name: "refs/tresor/git-merge/" + Vault.refStamp(), to: head) }
        let tree = try Vault.git { try repo.treeEntriesID(of: merged) }
        return try Vault.git { try repo.writeCommit(tree: tree, parents: [head], message: message, authentication: nil) }
    }

    /// Makes `target` (a commit on top of `head` that takes in what git did) this replica's HEAD and accepted state.
    private func takeIn(_ target: String, over head: String, remerged: Bool, repo: GitRepository) throws {
        let paths = try Vault.git { try repo.changes(from: head, to: target) }.map(\.path)
        try publish(repo, from: head, to: target, paths: paths, reflog: "tresor: adopt", knownStale: false)
        try Vault.git { try repo.setRef(name: Vault.verifiedRef, to: target) }
        notices.append(.adoptedCommitsMadeWithGit(count: 1, remerged: remerged))
        try reloadHeader()
    }

    /// Makes the vault header of `commit` this process's, opened with its credential (passphrase or identity) when the key
    /// held does not verify it, and the scopes as that commit has them: after a merge made with git, the work tree's
    /// headers are git's, not this replica's. Without a credential (the agent's or a session's keys) a header under
    /// another key leaves the keys as they are.
    func unlock(asOf commit: String, repo: GitRepository) throws {
        guard let bytes = try Vault.git({ try repo.blob(at: commit, path: VaultHeader.relativePath) }) else { return }
        let own: VaultHeader
        do { own = try VaultHeader.parse(bytes) } catch let e as CoreError { throw VaultError.header(e) }
        if own.serialized() != header.serialized() {
            if let authenticator, (try? authenticator.verify(own)) != nil {
                // Under the key held (git merged a passphrase change, a member added): that header, the same keys.
                header = own
                vaultEpoch = own.epoch
            } else {
                // Opened with the credential: the vault key only, as the scopes are opened below from that commit (the
                // work tree's scope headers are git's: a scope the merge removed has none there).
                guard let credential else { return }
                let key: SecretBytes?
                do {
                    switch credential {
                    case .passphrase(let p): key = try own.unlock(passphrase: p)
                    case .identity(let i):
                        do { key = try own.unlock(identity: i) }
                        catch CoreError.notARecipient { key = nil }   // a member of scopes only
                    }
                    if let key { try VaultAuthenticator(vaultKey: key).verify(own) }
                } catch CoreError.wrongPassphrase { throw VaultError.wrongPassphrase }
                catch let e as CoreError { throw VaultError.header(e) }
                header = own
                if let key { try useKey(key); vaultEpoch = own.epoch }
            }
        }
        try openScopes(listedIn: own, from: .commit(commit, repo), identity: credentialIdentity)
    }

    /// A change seals and tags under the keys of the state it is made on (Spec/TRANSACTIONS.md §3): when another process
    /// changed a key after this one opened the vault and before it took the lock (a rekey of the vault or of a scope),
    /// the headers of `base` become this process's, opened with its credential; without one (the agent's or a session's
    /// keys) the change stops before it writes anything.
    /// - Throws: `VaultError.rekeyedMeanwhile`; as `unlock(asOf:repo:)`.
    func holdKeys(of base: String, repo: GitRepository) throws {
        if try holdsKeys(of: base, repo: repo) { return }
        try unlock(asOf: base, repo: repo)
        guard try holdsKeys(of: base, repo: repo) else { throw VaultError.rekeyedMeanwhile }
    }

    /// Whether each key held is of the epoch `base`'s header gives its domain (a scope `base` no longer lists seals
    /// nothing: its key does not count).
    private func holdsKeys(of base: String, repo: GitRepository) throws -> Bool {
        guard let bytes = try Vault.git({ try repo.blob(at: base, path: VaultHeader.relativePath) }) else { return true }
        let own: VaultHeader
        do { own = try VaultHeader.parse(bytes) } catch let e as CoreError { throw VaultError.header(e) }
        if vaultKeyIfHeld != nil, own.epoch != vaultEpoch { return false }
        for (id, held) in scopeKeys where own.scopes[id] != nil {
            if let s = try scopeHeader(id, listedIn: own, from: .commit(base, repo)), s.epoch != held.epoch { return false }
        }
        return true
    }

    /// The keys this process holds per domain, with the earlier ones it keeps.
    /// - Throws: `VaultError.file` when the record of earlier keys cannot be read.
    func heldKeys() throws -> [String: [EpochKey]] {
        var held = try previousKeys()
        if let k = vaultKeyIfHeld { held[Domain.vault, default: []].append(EpochKey(epoch: vaultEpoch, key: k)) }
        for (id, keys) in scopeKeys { held[id, default: []].append(EpochKey(epoch: keys.epoch, key: keys.key)) }
        return held
    }

    /// The remote-tracking ref whose commit contains `rev` (it arrived by `git fetch`/`git pull`), if any.
    private func remoteRefContaining(_ rev: String, repo: GitRepository) throws -> (ref: String, remote: String)? {
        // (A read error is an error, never "not fetched": that answer decides whether the commit is judged as fetched.)
        for ref in try Vault.git({ try repo.references(matching: "refs/remotes/*") }) where try Vault.git({ try repo.contains(ref.commit, rev) }) {
            let parts = ref.name.split(separator: "/")
            return (ref.name, parts.count >= 3 ? String(parts[2]) : ref.name)
        }
        return nil
    }

    /// A commit git made on top of `parent` (authentic) re-applied as this replica's change (Spec/MERGE.md §12): each
    /// entry it changed is set field by field and moved, each it removed is removed, each it added is added; its other
    /// changes (headers, state records, `.gitattributes`) are refused. Returns the new commit on top of `rev`.
    private func reapply(_ rev: String, on parent: String, repo: GitRepository) throws -> String {
        let changes = try Vault.git { try repo.changes(from: parent, to: rev) }
        for c in changes where EntryPath(filePath: c.path) == nil && StateRecord.domain(ofPath: c.path) == nil {
            throw VaultError.commitMadeWithGitRefused(commit: rev, file: c.path, problem: .foreignFile)
        }
        let reader = SnapshotReader(repo: repo)
        var keys: [String: SecretBytes] = [:]
        if let k = vaultKeyIfHeld { keys[Domain.vault] = k }
        for (id, s) in scopeKeys { keys[id] = s.key }
        let before = try reader.read(parent, keys: keys, remote: nil)
        let after: VaultSnapshot
        do { after = try reader.read(rev, keys: keys, remote: nil) }
        catch VaultError.entry(let path, let e) { throw VaultError.commitMadeWithGitRefused(commit: rev, file: path, problem: .entry(e)) }
        let change = try nextChange(after: try stateRecords(at: parent, repo: repo))
        let oldByID = Dictionary(before.entryList.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newByID = Dictionary(after.entryList.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var result: [Entry] = []
        for (id, new) in newByID {
            guard var entry = oldByID[id] else {
                // Added (or brought back) with git: a new version of this replica's, seen by none before.
                var e = new
                e.record(change)
                result.append(e)
                continue
            }
            if entry.isIdentical(to: new) { result.append(entry); continue }
            for name in Set(entry.fields.keys).union(new.fields.keys).sorted() where entry.fields[name]?.value != new.fields[name]?.value {
                do { try entry.set(name, new.fields[name]?.value, change: change) } catch let e as CoreError {
                    throw VaultError.commitMadeWithGitRefused(commit: rev, file: new.path.filePath, problem: .entry(e))
                }
            }
            entry.move(to: new.path, change: change)
            result.append(entry)
        }
        // Sealed under the keys of their places in the parent's header (plain git cannot change headers here).
        var puts: [GitTreeChange] = []
        for e in result {
            let d = before.header.domain(of: e.path)
            guard let key = keys[d] else { throw VaultError.noKeyFor(path: e.path.string, scope: before.header.scopes[d]) }
            if let old = after.entries[e.path.filePath], old.entry.isIdentical(to: e) { continue }
            let bytes: [UInt8]
            do { bytes = try EntryCipher(vaultKey: key).seal(e) } catch let err as CoreError { throw VaultError.entry(path: e.path.string, err) }
            puts.append(.put(path: e.path.filePath, blob: try Vault.git { try repo.writeBlob(bytes) }))
        }
        var tree = try Vault.git { try repo.tree(from: rev, applying: puts) }
        // State records of every domain, with this change's event.
        let source = CommitTree(repo: repo, tree: tree)
        var records: [GitTreeChange] = []
        let old = try stateRecords(at: parent, repo: repo)
        for d in [Domain.vault] + before.header.scopes.keys.sorted() {
            guard let key = keys[d] else { continue }
            let id = try DomainTree.id(domain: d, scopes: before.header.scopes, source: source)
            if old[d]?.tree == id { continue }
            var clock = old[d]?.clock ?? .empty
            clock.advance(to: change.dot)
            for e in result where before.header.domain(of: e.path) == d { clock = clock.joined(e.clock) }
            let epoch = d == Domain.vault ? before.header.epoch : before.scopeHeaders[d]?.epoch ?? 1
            let record = StateRecord(vaultID: header.vaultID, domain: d, epoch: epoch, clock: clock, tree: id)
            do {
                let bytes = try record.authenticated(by: try VaultAuthenticator(vaultKey: key)).serialized()
                records.append(.put(path: StateRecord.relativePath(domain: d), blob: try Vault.git { try repo.writeBlob(bytes) }))
            } catch let e as CoreError { throw VaultError.header(e) }
        }
        tree = try Vault.git { try repo.tree(fromTree: tree, applying: records) }
        try recordUsedEvents(change.dot.counter)
        return try Vault.git { try repo.writeCommit(tree: tree, parents: [rev], message: "Take in a commit made with git", authentication: nil) }
    }
}
