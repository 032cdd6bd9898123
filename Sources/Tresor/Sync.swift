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
        let cipher = try requireCipher()
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
            let step = try syncStep(repo: repo, quarantine: quarantine, quarantinePath: quarantinePath, cipher: cipher,
                                    remote: remote, incoming: incoming, outcome: &outcome, progress: progress)
            try? repo.deleteRef(name: incoming)
            switch step {
            case .done: return outcome
            case .fetchAgain: continue
            case .push(let initializing):
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
        // Only commits a holder of the vault key made are taken; then every file of the fetched tip is
        // checked, in the quarantine, before anything changes here. A fast-forward does not decrypt again
        // what this replica already holds at the same path.
        try requireAuthentic(incoming: theirs, ours: ours, repo: quarantine, known: try knownFormatVersion(repo))
        let checker = SnapshotReader(repo: quarantine, cipher: cipher, authenticator: try requireAuthenticator(), local: header)
        checker.progress = progress
        let local = base == ours ? Set(try Vault.git { try repo.treeEntries(at: ours) }.map { $0.path + "\u{0}" + $0.id }) : []
        let minimum = try base.flatMap { try checker.readHeader($0) }.map { $0.version >= 2 ? $0.generation : 0 } ?? 0
        let theirsSnap = try checker.readIncoming(theirs, skippingUnchanged: local, minimumGeneration: minimum)
        // Everything passed: copy the objects in (a local fetch from the quarantine) and go on here.
        try Vault.git { try repo.fetch(url: quarantinePath, ref: Vault.quarantineRef, into: incoming, credentials: .none, remoteName: remote) }
        let reader = SnapshotReader(repo: repo, cipher: cipher, authenticator: try requireAuthenticator(), local: header)
        let target: String
        if base == ours {
            Failpoint.hit("before-fast-forward")
            target = theirs
            outcome.fastForwarded = true
        } else {
            let snapshots = (try base.map { try reader.read($0) }, try reader.read(ours), theirsSnap)
            let merged = try mergeDiverged(repo: repo, cipher: cipher, base: base, ours: ours, theirs: theirs,
                                           snapshots: snapshots, remote: remote)
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
        return base == ours ? .done : .push(initializing: false)
    }

    /// The work-tree files at `paths` must be what commit `rev` has: the update would overwrite them.
    private func requireUnchangedWorkTree(_ repo: GitRepository, at rev: String, paths: [String]) throws {
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
    private func push(_ repo: GitRepository, _ remote: String, _ credentials: GitCredentials, _ progress: VaultProgressHandler?) throws -> Bool {
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
