// Which commits a holder of the vault key made, and taking in commits made on this replica with plain git.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// Whether two snapshots hold the same entries (decrypted, by path) and the same header.
    func sameVault(_ a: VaultSnapshot, _ b: VaultSnapshot) -> Bool {
        a.header == b.header && a.entries.count == b.entries.count
            && a.entries.allSatisfy { path, value in b.entries[path]?.entry == value.entry }
    }

    /// Whether commit `rev` carries a tag that verifies with this vault's key (Spec/FORMAT.md §7.1).
    /// The tag fields are read as Spec/FORMAT.md §3.12.6 says, which for a commit with the one field `tresor-auth` is §7.1.
    func isAuthentic(_ rev: String, repo: GitRepository) -> Bool {
        if header.version >= FormatVersion.scopedHeader { return isAuthenticByKeys(rev, repo: repo) }
        guard let authenticator, let raw = try? repo.rawCommit(rev) else { return false }
        let (content, found) = CommitTags.split(raw)
        guard let fields = found, let value = fields[CommitTags.vaultField] else { return false }
        return authenticator.verifyCommit(content: content, fields: Array(fields.keys), value: value)
    }

    /// Spec/FORMAT.md §3.12.6 for one commit of a version 4 vault: every file it changes (against every parent) whose
    /// governing key this process holds is covered by a valid tag of that key. What other keys govern cannot be checked
    /// here (a scope-only member's commit carries no vault tag; a holder of the vault key alone passes it on).
    /// `successors`: scope keys that replaced a held one by a rekey of that scope (Spec/FORMAT.md §3.12.5), whose tags
    /// count as the held key's. `opened`: keys of scopes new to this process that a sync is about to open (held from
    /// here on, so checked on every fetched commit: from the scope's creation onward).
    /// `vaultKeys`: the keys of a rekey of the vault key followed by this sync (Spec/FORMAT.md §3.11); empty: the key held.
    func isAuthenticByKeys(_ rev: String, repo: GitRepository, successors: [String: ScopeKeys] = [:],
                           opened: [String: ScopeKeys] = [:], vaultKeys: [VaultAuthenticator] = []) -> Bool {
        guard let raw = try? repo.rawCommit(rev), let info = try? repo.commitInfo(rev) else { return false }
        let (content, found) = CommitTags.split(raw)
        guard let fields = found else { return false }
        let names = Array(fields.keys)
        func headerAt(_ r: String) -> VaultHeader? {
            guard let id = try? repo.blobID(at: r, path: VaultHeader.relativePath), (try? repo.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
                  let bytes = try? repo.blob(id: id) else { return nil }
            return try? VaultHeader.parse(bytes)
        }
        let headers = ([rev] + info.parents).map(headerAt)
        var valid: Set<String> = []
        // Across a rekey of the vault key that this sync follows (`vaultKeys`: the key held, the keys of the rekeys since,
        // the new one): the tag must verify under the key the commit's own vault header is authentic under, so a holder of
        // a key before a rekey cannot add commits on top of it.
        let vaultAuthenticator = vaultKeys.isEmpty ? authenticator : headers[0].flatMap { h in vaultKeys.first { (try? $0.verify(h)) != nil } }
        if let vaultAuthenticator, let v = fields[CommitTags.vaultField], vaultAuthenticator.verifyCommit(content: content, fields: names, value: v) {
            valid.insert(CommitTags.vaultField)
        }
        let held = scopeKeys.merging(opened) { a, _ in a }
        for (id, keys) in held {
            let field = CommitTags.field(scopeID: id)
            guard let v = fields[field] else { continue }
            var candidates = [keys.authenticator]
            if let next = successors[id] {
                // Across a rekey of the scope that this sync follows: the key the commit's own scope header is authentic
                // under, so a holder of the key before the rekey cannot add commits on top of it.
                let path = ScopeHeader.relativePath(scopeID: id)
                let own = (try? repo.blobID(at: rev, path: path)).flatMap { $0 }
                    .flatMap { blob in (try? repo.blobSize(id: blob)) ?? Int.max <= 1 << 20 ? try? repo.blob(id: blob) : nil }
                    .flatMap { try? ScopeHeader.parse($0) }
                candidates = [keys.authenticator, next.authenticator].filter { a in own.map { (try? a.verify($0)) != nil } ?? false }
            }
            if candidates.contains(where: { $0.verifyCommit(content: content, fields: names, value: v) }) { valid.insert(field) }
        }
        // A merge taking one side's file unchanged needs no tag for it, unless that side's header put it under another key.
        let scopeMaps = headers.map { $0?.scopes ?? [:] }
        var parents: [(scopes: [String: String], changed: Set<String>)] = []
        for (i, parent) in info.parents.enumerated() {
            guard let paths = try? repo.changes(from: parent, to: rev).map(\.path) else { return false }
            parents.append((scopeMaps[i + 1], Set(paths)))
        }
        guard let required = try? CommitKeyRule.requiredFields(scopes: scopeMaps[0], parents: parents, files: {
            try ([rev] + info.parents).reduce(into: Set<String>()) { $0.formUnion(try repo.treeEntries(at: $1).map(\.path)) }
        }) else { return false }
        for field in required.values.reduce(into: Set<String>(), { $0.formUnion($1) }) {
            let isHeld = field == CommitTags.vaultField ? authenticator != nil : held[String(field.dropFirst(CommitTags.vaultField.count + 1))] != nil
            if isHeld, !valid.contains(field) { return false }
        }
        return true
    }

    /// The header version commit `rev` holds (2 when it cannot be read: the strict assumption).
    func headerVersion(at rev: String, repo: GitRepository) -> Int {
        guard let id = try? repo.blobID(at: rev, path: VaultHeader.relativePath),
              (try? repo.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
              let bytes = try? repo.blob(id: id), let h = try? VaultHeader.parse(bytes) else { return 2 }
        return h.version
    }

    // MARK: The newest format this replica has held

    static let formatMarkPath = ".git/tresor/format"

    /// The highest header version any commit reachable from `tip` holds, up to `stopAt` (a walk of the history
    /// that ends at the first header of version `stopAt` or more).
    func highestHeaderVersion(from tip: String, stopAt: Int, repo: GitRepository) throws -> Int {
        var queue = [tip], seen: Set<String> = [], highest = 0
        while let rev = queue.popLast() {
            guard seen.insert(rev).inserted else { continue }
            highest = max(highest, headerVersion(at: rev, repo: repo))
            if highest >= stopAt { return highest }
            queue += try Vault.git { try repo.commitInfo(rev) }.parents
        }
        return highest
    }

    /// The highest vault format this replica has held (`.git/tresor/format`, local, never committed or
    /// fetched): a header of a lower version arriving later, by sync or by plain git, is a downgrade. A
    /// replica without the file (made before it existed) learns it once from its history. Runs under the lock.
    func knownFormatVersion(_ repo: GitRepository) throws -> Int {
        let file = root + "/" + Vault.formatMarkPath
        var known = 0
        if let bytes = try? FileSystem.read(file, limit: 16), let v = Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) {
            known = v
        } else if let head = try Vault.git({ try repo.headCommitID() }) {
            known = try highestHeaderVersion(from: head, stopAt: FormatVersion.header, repo: repo)
        }
        let now = max(known, header.version)
        if now != known || FileSystem.kind(file) != .file { try recordFormatVersion(now) }
        return now
    }

    func recordFormatVersion(_ version: Int) throws {
        do {
            try FileSystem.makeDirectories(".git/tresor", under: root)
            try FileSystem.writeAtomically(Array("\(version)\n".utf8), to: root + "/" + Vault.formatMarkPath)
        } catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.formatMarkPath, e) }
    }

    /// The commits reachable from `tip` that no key holder vouched for: the walk stops at authentic commits
    /// (their tag binds every ancestor through the ids), at commits reachable from `known`, and at commits
    /// of the format 1 era (before the vault was upgraded, nothing was authenticated). Newest first.
    func foreignCommits(from tip: String, known: String?, repo: GitRepository) throws -> [ForeignCommit] {
        var queue = [tip], seen: Set<String> = [], found: [ForeignCommit] = []
        while let rev = queue.first {
            queue.removeFirst()
            guard seen.insert(rev).inserted, found.count < 50 else { continue }
            if isAuthentic(rev, repo: repo) || headerVersion(at: rev, repo: repo) < 2 { continue }
            if let known, (try? repo.contains(known, rev)) == true { continue }
            let info = try Vault.git { try repo.commitInfo(rev) }
            let paths = (try? repo.changes(from: info.parents.first, to: rev).map(\.path)) ?? []
            found.append(ForeignCommit(id: rev, summary: info.summary, paths: paths))
            queue += info.parents
        }
        return found
    }

    /// Refuses a fetched tip that no key holder made, naming the commits and what they change. Vaults of
    /// format 1 (local and fetched) have no tags: nothing to check until `upgrade`.
    func requireAuthentic(incoming tip: String, ours: String?, repo: GitRepository, known: Int? = nil) throws {
        guard max(header.version, known ?? 0) >= 2 || headerVersion(at: tip, repo: repo) >= 2 else { return }
        guard !isAuthentic(tip, repo: repo) else { return }
        // Another vault's commits are not ours for a plainer reason: say that one.
        if let id = try? repo.blobID(at: tip, path: VaultHeader.relativePath), (try? repo.blobSize(id: id)) ?? Int.max <= Envelope.maxFileBytes,
           let other = (try? repo.blob(id: id)).flatMap({ try? VaultHeader.parse($0) }), other.vaultID != header.vaultID {
            throw VaultError.header(.differentVault(ours: header.vaultID, theirs: other.vaultID))
        }
        var foreign = try foreignCommits(from: tip, known: ours, repo: repo)
        if foreign.isEmpty { foreign = [ForeignCommit(id: tip, summary: (try? repo.commitInfo(tip).summary) ?? "", paths: [])] }
        throw VaultError.foreignCommits(foreign)
    }

    /// The last commit whose history this replica checked by the per-key rule with the keys this process holds (local,
    /// never pushed): one ref per set of keys, since what one set checked says nothing for keys it did not hold.
    var verifiedRef: String {
        let names = (cipher != nil ? ["vault"] : []) + scopeKeys.keys.sorted()
        var hash: UInt64 = 0xcbf29ce484222325  // FNV-1a of the key names (ids, not key material)
        for byte in names.joined(separator: ",").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return "refs/tresor/verified/" + String(hash, radix: 16)
    }

    /// Spec/FORMAT.md §3.12.6 on this replica (version 4): every commit since the last one checked (`verifiedRef`), not
    /// only HEAD, must pass the per-key rule for the keys this process holds, since a tag under one key vouches for
    /// nothing under another. Commits that arrived by plain git (`git pull`) and break it are refused; when all pass,
    /// HEAD becomes the last one checked. Commits made here with git are left to the adoption that follows.
    /// - Throws: `VaultError.unauthenticatedCommitsFetched`.
    func checkKeyRule(_ repo: GitRepository) throws {
        guard let head = try Vault.git({ try repo.headCommitID() }) else { return }
        let hidden = repo.resolve(verifiedRef).map { [$0] } ?? []
        var broken: [ForeignCommit] = []
        for c in try Vault.git({ try repo.commits(from: [head], excluding: hidden) }).prefix(10000) {
            guard headerVersion(at: c.id, repo: repo) >= FormatVersion.scopedHeader, !isAuthenticByKeys(c.id, repo: repo) else { continue }
            let paths = (try? repo.changes(from: c.parents.first, to: c.id).map(\.path)) ?? []
            broken.append(ForeignCommit(id: c.id, summary: c.summary, paths: paths))
            if broken.count >= 50 { break }
        }
        guard !broken.isEmpty else {
            try Vault.git { try repo.setRef(name: verifiedRef, to: head) }
            return
        }
        for ref in try Vault.git({ try repo.references(matching: "refs/remotes/*") }) {
            let arrived = broken.filter { (try? repo.contains(ref.commit, $0.id)) == true }
            if !arrived.isEmpty { throw VaultError.unauthenticatedCommitsFetched(ref: ref.name, commits: arrived) }
        }
    }

    /// Takes in commits made on this replica with plain git (`git commit`, `git pull` through the drivers)
    /// that tresor has not authenticated yet: checks HEAD like content from a remote, re-merges a merge git
    /// made with tresor's rules (git's own result stays under `refs/tresor/git-merge/…`), and commits an
    /// authenticated commit on top, so other replicas accept them (Spec/TRANSACTIONS.md §3, Spec/MERGE.md §13.4).
    /// Runs under the vault lock. Without the key it does nothing; the next command with the key does it.
    func adoptCommitsMadeWithGit(_ repo: GitRepository) throws {
        if header.version >= FormatVersion.scopedHeader, cipher != nil || !scopeKeys.isEmpty {
            try checkKeyRule(repo)
            if cipher == nil { return }  // a scope-only member vouches for nothing outside its scopes: it adopts nothing
        }
        guard let cipher, let authenticator else { return }
        let known = try knownFormatVersion(repo)
        guard known >= 2, let head = try Vault.git({ try repo.headCommitID() }), !isAuthentic(head, repo: repo) else { return }
        // A header older than this replica has held: a downgrade (a version 1 header authenticates nothing).
        let version = headerVersion(at: head, repo: repo)
        guard version >= known else {
            throw VaultError.commitMadeWithGitRefused(commit: head, file: VaultHeader.relativePath, problem: .downgrade(version: version))
        }
        let foreign = try foreignCommits(from: head, known: nil, repo: repo)
        guard !foreign.isEmpty else { return }
        // Only commits made here are taken in. What git fetched from a remote (git pull) and no key holder
        // made is what sync refuses: it must not become authentic by arriving through plain git.
        let fetched = try Vault.git { try repo.references(matching: "refs/remotes/*") }
        for ref in fetched {
            let arrived = foreign.filter { (try? repo.contains(ref.commit, $0.id)) == true }
            if !arrived.isEmpty { throw VaultError.unauthenticatedCommitsFetched(ref: ref.name, commits: arrived) }
        }
        let reader = SnapshotReader(repo: repo, cipher: cipher, authenticator: authenticator, local: header)
        reader.scopeKeys = scopeKeys
        do { _ = try reader.readIncoming(head, minimumGeneration: 0) }
        catch VaultError.hostileRemote(let file, let problem) {
            throw VaultError.commitMadeWithGitRefused(commit: head, file: file, problem: problem)
        }
        var tree = try Vault.git { try repo.treeEntriesID(of: head) }
        var remerged = false
        let info = try Vault.git { try repo.commitInfo(head) }
        if info.parents.count == 2 {
            // Not in a vault with scopes: there every commit is checked by the per-key rule (Spec/FORMAT.md §3.12.6), so a
            // tagged commit on top would not make git's untagged merge acceptable elsewhere; `tresor sync` merges instead.
            guard header.version < FormatVersion.scopedHeader else { throw VaultError.gitMergeInScopedVault }
            let (ours, theirs) = (info.parents[0], info.parents[1])
            let base = try Vault.git { try repo.mergeBase(ours, theirs) }
            let merged = try mergeDiverged(repo: repo, cipher: cipher, base: base, ours: ours, theirs: theirs,
                                           snapshots: (try base.map { try reader.read($0) }, try reader.read(ours), try reader.read(theirs)),
                                           remote: "the merge made with git")
            let ownTree = try Vault.git { try repo.treeEntriesID(of: merged.commit) }
            // Different bytes (fresh nonces) are not a different merge: only a different decrypted result is.
            if ownTree != tree, try !sameVault(reader.read(head), reader.read(merged.commit)) {
                try Vault.git { try repo.setRef(name: "refs/tresor/git-merge/" + Vault.refStamp(), to: head) }
                tree = ownTree
                remerged = true
            }
        }
        let message = "Authenticate \(foreign.count) commit\(foreign.count == 1 ? "" : "s") made with git"
            + (remerged ? ", merged again by tresor's rules" : "")
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: [head], message: message, authentication: try commitAuthentication()) }
        let paths = try Vault.git { try repo.changes(from: head, to: commit) }.map(\.path)
        try publish(repo, from: head, to: commit, paths: paths, reflog: "tresor: authenticate", knownStale: false)
        notices.append(.adoptedCommitsMadeWithGit(count: foreign.count, remerged: remerged))
        try reloadHeader()
    }
}
