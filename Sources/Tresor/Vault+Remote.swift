// Remotes and clones: a vault copied from a remote is checked entry by entry before it is used.
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

extension Vault {
    /// Clones `url` into `directory` (new or empty): fetches the remote's `main` but checks out nothing.
    /// The result is locked; call `completeClone` after `unlock` (it checks every file before anything is
    /// written to the work tree) and `discardClone` if that fails.
    /// - Throws: `VaultError.directoryNotEmpty`, `.git` (unreachable, authentication), `.notAVaultRemote`, `.header`.
    public static func clone(url: String, to directory: String, credentials: GitCredentials = .standard(),
                             progress: VaultProgressHandler? = nil) throws -> Vault {
        let root = absolutePath(directory)
        let existed = FileSystem.kind(root) != .missing
        // What a killed clone left (its marker is still there) is cloned again from the start.
        if existed, FileSystem.kind(root + "/" + cloneMarker) == .file { removeClone(root, keepDirectory: true) }
        if existed, !FileSystem.list(root).isEmpty { throw VaultError.directoryNotEmpty(directory: root) }
        do {
            let repo = try git { try GitRepository.create(at: root) }
            try Vault.io {
                try FileSystem.setMode(root, 0o700)
                try FileSystem.setMode(root + "/.git", 0o700)
            }
            do {
                try FileSystem.makeDirectories(".git/tresor", under: root)
                try FileSystem.writeAtomically(Array("clone in progress\n".utf8), to: root + "/" + cloneMarker)
            } catch let e as CoreError { throw VaultError.file(path: root + "/" + cloneMarker, e) }
            try git { try repo.addRemote(name: "origin", url: remoteURL(url)) }
            try receive(into: repo, root: root, credentials: credentials, progress: progress)
            // So the git CLI's `git pull` and `git status` know the upstream too.
            try git { try repo.setConfig("branch.main.remote", "origin") }
            try git { try repo.setConfig("branch.main.merge", "refs/heads/main") }
            try configurePull(repo)
            guard let tip = try git({ try repo.commitID(of: incomingRef("origin")) }),
                  let headerID = try git({ try repo.blobID(at: tip, path: VaultHeader.relativePath) }) else {
                throw VaultError.notAVaultRemote(url: url)
            }
            guard try git({ try repo.blobSize(id: headerID) }) <= Envelope.maxFileBytes else {
                throw VaultError.refusedRemote(remote: "origin", AcceptanceRefusal(.treeShape, path: VaultHeader.relativePath, .fileTooLarge(limit: 1 << 20)))
            }
            let header: VaultHeader
            do { header = try VaultHeader.parse(try git { try repo.blob(id: headerID) }) } catch let e as CoreError { throw VaultError.header(e) }
            try SyncSetup.configure(repo)
            let vault = Vault(root: root, header: header, repo: repo)
            vault.createdDirectory = !existed
            return vault
        } catch {
            removeClone(root, keepDirectory: existed)
            throw error
        }
    }

    /// A clone's first fetch: into a quarantine, as a sync's (Spec/MERGE.md §11), and from there only what the remote's
    /// `main` reaches, once it is whole, into `incomingRef("origin")`. A repository on this machine gives its pack files,
    /// each read through the quarantine's indexer; any other remote, or one that cannot be read so, is fetched from.
    /// A remote without `main` leaves the ref unset.
    private static func receive(into repo: GitRepository, root: String, credentials: GitCredentials, progress: VaultProgressHandler?) throws {
        let url = try git { try repo.url(ofRemote: "origin") }
        let path = root + "/.git/tresor/incoming-clone-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var quarantine = try git { try repo.makeQuarantine(at: path) }
        let copy = try git { try quarantine.copyPacks(ofLocalRepository: url, into: quarantineRef, progress: progress.git) }
        if copy == .stopped {
            // (What a copy that stopped took stays out: the fetch starts from an empty quarantine.)
            try? FileManager.default.removeItem(atPath: path)
            quarantine = try git { try repo.makeQuarantine(at: path) }
        }
        if copy != .copied {
            try git { try quarantine.fetch(url: url, into: quarantineRef, credentials: credentials, remoteName: "origin", progress: progress.git) }
        }
        guard let tip = try git({ try quarantine.commitID(of: quarantineRef) }) else { return }  // (no `main` there: not a vault, said next)
        try git { try repo.takeInObjects(ofQuarantineAt: path, commit: tip, into: incomingRef("origin"), remoteName: "origin") }
    }

    /// Finishes a clone after `unlock`: the fetched state must pass the acceptance rule (Spec/AUTH.md §5) with the keys
    /// opened from it and an empty trust record (a first contact trusts what it is given, as any first clone does), and
    /// every entry of every domain it holds must open at its place (§6); only then is it made the branch and checked out
    /// (files 0600, folders 0700); `progress` hears of the entries checked.
    /// - Throws: `VaultError.refusedRemote`, `.entryContent`, `.header`, `.git`.
    public func completeClone(progress: VaultProgressHandler? = nil) throws {
        let repo = try repository()
        guard let tip = try Vault.git({ try repo.commitID(of: Vault.incomingRef("origin")) }) else { return }
        let reader = SnapshotReader(repo: repo)
        reader.progress = progress
        if header.version == FormatVersion.header {
            let tree = try reader.tipTree(tip, remote: "origin")
            let verdicts: [String: DomainVerdict]
            do {
                verdicts = try Acceptance.decide(tip: tree, vaultID: header.vaultID, held: try heldKeys(), opened: [:], trust: TrustRecord(), local: [:])
            } catch let refusal as AcceptanceRefusal { throw VaultError.refusedRemote(remote: "origin", refusal) }
            _ = try reader.read(tip, keys: verdicts.compactMapValues { $0.verified ? $0.key : nil }, remote: "origin")
        } else {
            // A vault of an older format (1–4): cloned to be converted (`tresor upgrade`); its entries must open.
            let cipher = try requireCipher()
            for f in try Vault.git({ try repo.treeEntries(at: tip) }) {
                guard let p = EntryPath(filePath: f.path), header.scope(containing: p) == nil else { continue }
                do { _ = try cipher.openVersion1(try Vault.git { try repo.blob(id: f.id) }, expectedPath: p, dot: Dot(replica: "0000000000000000", counter: 1)) }
                catch let e as CoreError { throw VaultError.entryContent(remote: "origin", file: f.path, e) }
            }
        }
        try Vault.git { try repo.moveBranch(from: nil, to: tip, log: "tresor: clone") }
        Failpoint.hit("clone-branch-moved")
        try Vault.git { try repo.checkoutHead(progress: progress.map { report in { report(.files(done: $0, total: $1)) } }) }
        try Vault.git { try repo.setRef(name: GitRepository.trackingRef(remote: "origin"), to: tip) }
        try Vault.git { try repo.setRef(name: Vault.verifiedRef, to: tip) }
        try Vault.git { try repo.deleteRef(name: Vault.incomingRef("origin")) }
        try Vault.privatizeTree(root)
        try reloadHeader()
        if header.version == FormatVersion.header { try recordTrust(remote: "origin", states: try stateRecords(at: tip, repo: repo)) }
        // Until the marker is gone the folder is an interrupted clone: a marker that stays is an error.
        try Vault.io { try FileSystem.remove(root + "/" + Vault.cloneMarker) }
    }

    /// Present from the start of `clone` until `completeClone` is done: a folder holding it is an
    /// interrupted clone, not a vault (`open` says so; `clone` starts it again).
    static let cloneMarker = ".git/tresor/clone-incomplete"

    /// Removes a clone that failed its checks.
    public func discardClone() {
        Vault.removeClone(root, keepDirectory: !createdDirectory)
    }

    static func removeClone(_ root: String, keepDirectory: Bool) {
        // (What cannot be removed stays; the next clone into the folder refuses it as not empty, naming it.)
        if keepDirectory {
            for name in FileSystem.list(root) { try? FileManager.default.removeItem(atPath: root + "/" + name) }
        } else {
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    /// Files 0600 and folders 0700 in a fresh checkout (git checks files out 0644). - Throws: `VaultError.io` for a file
    /// or folder whose permissions cannot be set (it would stay readable by others).
    static func privatizeTree(_ root: String) throws {
        try Vault.io { try FileSystem.setMode(root + "/.git", 0o700) }
        // Depth first, links not followed; the top-level .git is left as git made it.
        var folders = [root]
        while let dir = folders.popLast() {
            for (name, kind) in FileSystem.entries(dir) where !(dir == root && name == ".git") {
                let p = dir + "/" + name
                switch kind {
                case .directory: try Vault.io { try FileSystem.setMode(p, 0o700) }; folders.append(p)
                case .file: try Vault.io { try FileSystem.setMode(p, 0o600) }
                default: continue
                }
            }
        }
    }

    /// Adds a remote. - Throws: `VaultError.git` (exists, bad URL).
    public func addRemote(name: String, url: String) throws {
        let repo = try repository()
        try Vault.git { try repo.addRemote(name: name, url: Vault.remoteURL(url)) }
        // The first remote becomes the branch's upstream, so the git CLI's `git pull` and `git status` know it.
        if repo.config("branch.main.remote") == nil {
            try Vault.git { try repo.setConfig("branch.main.remote", name) }
            try Vault.git { try repo.setConfig("branch.main.merge", "refs/heads/main") }
        }
        try Vault.configurePull(repo)
    }

    /// `git pull` merges (through tresor's merge driver) rather than stopping at git's question of how to reconcile
    /// divergent branches; a person's own choice in the repository's config is kept.
    static func configurePull(_ repo: GitRepository) throws {
        if repo.config("pull.rebase") == nil, repo.config("pull.ff") == nil {
            try Vault.git { try repo.setConfig("pull.rebase", "false") }
        }
    }

    /// Local paths become absolute, so the remote still works from another directory; URLs and
    /// scp-style `host:path` stay as they are.
    static func remoteURL(_ url: String) -> String {
        if url.contains("://") { return url }
        let beforeSlash = url.split(separator: "/", maxSplits: 1).first ?? ""
        if beforeSlash.contains(":") && !url.hasPrefix(".") { return url }
        return absolutePath(url)
    }

    /// Sets files to 0600 and folders to 0700 (git checks files out with the umask, usually 0644).
    package func fixPermissions() throws {
        try Vault.privatizeTree(root)
    }

    /// Removes the remote `name` from the repository's configuration.
    /// - Throws: `VaultError.git` (no such remote).
    public func removeRemote(name: String) throws {
        let repo = try repository()
        try Vault.git { try repo.removeRemote(name: name) }
    }

    /// The repository's remotes (name and URL), in git's order.
    /// - Throws: `VaultError.git`.
    public func remotes() throws -> [GitRemote] {
        let repo = try repository()
        return try Vault.git { try repo.remotes() }
    }
}
