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
}

/// Named points where a test can make sync stop as if killed (`TRESOR_FAILPOINT=name`).
enum Failpoint {
    static func hit(_ name: String) {
        if ProcessInfo.processInfo.environment["TRESOR_FAILPOINT"] == name { _exit(137) }
    }
}

extension Vault {
    static let remoteBranch = "main"

    /// Syncs with `remote`: Spec/MERGE.md §13. Needs `unlock`.
    /// - Throws: `VaultError.git` (unreachable, authentication), `.hostileRemote`, `.header(.differentVault)`,
    ///   `.sync` (uncommitted changes, remote kept moving). The local vault is unchanged on every error
    ///   raised before the merge commit.
    public func sync(remote: String = "origin", credentials: GitCredentials = .standard(), maxRounds: Int = 4) throws -> SyncOutcome {
        let cipher = try requireCipher()
        let repo = try repository()
        store.removeStaleTemporaryFiles()
        let dirty = try Vault.git { try repo.uncommittedPaths() }.filter { !$0.hasPrefix(".git/") }
        guard dirty.isEmpty else {
            throw VaultError.sync("uncommitted changes in the vault: " + dirty.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") +
                                  "\nhint: changes are committed by tresor itself; 'tresor fsck' lists these, move them away or commit them with git")
        }
        var outcome = SyncOutcome(remote: remote)
        let tracking = GitRepository.trackingRef(remote: remote)
        while outcome.rounds < maxRounds {
            outcome.rounds += 1
            try Vault.git { try repo.fetch(remote: remote, credentials: credentials) }
            Failpoint.hit("after-fetch")
            guard let ours = try Vault.git({ try repo.headCommitID() }) else { throw VaultError.sync("the vault has no commits") }
            guard let theirs = repo.resolve(tracking) else {
                if try push(repo, remote, credentials) { outcome.pushed = true; outcome.initializedRemote = true; return outcome }
                continue
            }
            if ours == theirs { return outcome }
            let base = try Vault.git { try repo.mergeBase(ours, theirs) }
            if base == theirs {
                if try push(repo, remote, credentials) { outcome.pushed = true; return outcome }
                continue
            }
            let reader = SnapshotReader(repo: repo, cipher: cipher, vaultID: header.vaultID)
            // Everything the remote brings is checked before anything changes, on both paths below;
            // a fast-forward does not decrypt again what this replica already holds at the same path.
            let local = base == ours ? Set(try Vault.git { try repo.treeEntries(at: ours) }.map { $0.path + "\u{0}" + $0.id }) : []
            let theirsSnap = try reader.read(theirs, skippingUnchanged: local)
            let recovery = "refs/tresor/pre-sync/" + Vault.refStamp()
            try Vault.git { try repo.setRef(name: recovery, to: ours) }
            outcome.recoveryRef = recovery
            try beginSync(target: theirs)
            if base == ours {
                Failpoint.hit("before-fast-forward")
                try Vault.git { try repo.fastForward(to: theirs) }
                outcome.fastForwarded = true
            } else {
                let snapshots = (try base.map { try reader.read($0) }, try reader.read(ours), theirsSnap)
                let merged = try mergeDiverged(repo: repo, cipher: cipher, base: base, ours: ours, theirs: theirs,
                                               snapshots: snapshots, remote: remote)
                outcome.mergedEntries = merged.changed
                outcome.resolutions += merged.resolutions
            }
            endSync()
            outcome.pulled = true
            let slotsBefore = Set(header.keySlots.map(\.id))
            try reloadHeader()
            outcome.passphraseChanged = slotsBefore.isDisjoint(with: header.keySlots.map(\.id))
            Failpoint.hit("before-push")
            if base == ours { return outcome }
            if try push(repo, remote, credentials) { outcome.pushed = true; return outcome }
        }
        throw VaultError.sync("the remote \"\(remote)\" kept changing during \(maxRounds) attempts\nhint: run 'tresor sync' again")
    }

    /// Pushes main; false when the remote moved meanwhile (fetch and merge again).
    private func push(_ repo: GitRepository, _ remote: String, _ credentials: GitCredentials) throws -> Bool {
        do { try repo.push(remote: remote, credentials: credentials); return true }
        catch GitError.pushRejected, GitError.notFastForward { return false }
        catch let e as GitError { throw VaultError.git(e) }
    }

    static func refStamp() -> String {
        let t = Timestamp.now().description   // 2026-11-21T18:40:00.123Z
        return t.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "").replacingOccurrences(of: ".", with: "")
    }

    // MARK: Interrupted syncs

    private var syncMarker: String { root + "/.git/tresor/sync-target" }

    /// Records that HEAD is about to move to `target` (merge commits go beyond it, see `finishInterruptedSync`).
    private func beginSync(target: String) throws {
        try FileSystem.makeDirectories(".git/tresor", under: root)
        try FileSystem.writeAtomically(Array((target + "\n").utf8), to: syncMarker)
    }

    private func endSync() { unlink(syncMarker) }

    /// If a sync was killed after moving HEAD but before the work tree followed, finish the checkout:
    /// the work tree then only differs from HEAD by what the sync itself was writing.
    func finishInterruptedSync() throws {
        guard FileSystem.kind(syncMarker) == .file, let repo = openedRepositoryIfAny else { return }
        let target = (try? FileSystem.read(syncMarker, limit: 100)).map { String(decoding: $0, as: UTF8.self) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if let head = try Vault.git({ try repo.headCommitID() }), let targetID = repo.resolve(target) {
            let reached = try head == targetID || Vault.git { try repo.mergeBase(head, targetID) } == targetID
            if reached { try Vault.git { try repo.finishCheckout() } }
        }
        endSync()
        try reloadHeader()
    }

    /// Re-reads `.tresor/vault.json` after the work tree changed under us.
    func reloadHeader() throws {
        do { header = try VaultHeader.parse(try store.readHeader()) } catch let e as CoreError { throw VaultError.header(e) }
    }
}
