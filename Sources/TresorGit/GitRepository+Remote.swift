// Remotes: adding and listing them, cloning, and fetching and pushing the main branch.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A configured remote.
public struct GitRemote: Sendable, Equatable {
    public var name: String
    public var url: String

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

extension GitRepository {
    /// The one branch Tresor syncs.
    package static let mainBranch = "refs/heads/main"

    /// The remote-tracking ref that `fetch(remote:credentials:)` updates, e.g. `refs/remotes/origin/main`.
    package static func trackingRef(remote: String) -> String {
        "refs/remotes/\(remote)/main"
    }

    /// Adds a remote with git's usual fetch refspec. Throws `GitError.remoteExists`, or
    /// `GitError.libgit2` for an invalid name or URL.
    package func addRemote(name: String, url: String) throws {
        do {
            _ = try GitHandle(.addRemote(name), owner: self, free: git_remote_free) { out in
                withRepo { git_remote_create(&out, $0, name, url) }
            }
        } catch GitError.libgit2(let code, _, _) where code == GIT_EEXISTS.code {
            throw GitError.remoteExists(name)
        }
    }

    /// Removes a remote and its remote-tracking refs. Throws `GitError.remoteNotFound`.
    package func removeRemote(name: String) throws {
        let result = try withRepo { try check(git_remote_delete($0, name), .removeRemote(name), allowing: [GIT_ENOTFOUND.code]) }
        if result == GIT_ENOTFOUND.code {
            git_error_clear()
            throw GitError.remoteNotFound(name)
        }
    }

    /// The configured remotes, sorted by name.
    package func remotes() throws -> [GitRemote] {
        var names = git_strarray()
        try withRepo { _ = try check(git_remote_list(&names, $0), .listRemotes) }
        return try takeStrArray(&names).sorted().map { name in
            GitRemote(name: name, url: try remoteURL(lookupRemote(name)))
        }
    }

    func lookupRemote(_ name: String) throws -> GitHandle {
        guard let remote = try GitHandle(ifFound: .lookUpRemote(name), owner: self, free: git_remote_free, acquire: { out in
            withRepo { git_remote_lookup(&out, $0, name) }
        }) else {
            throw GitError.remoteNotFound(name)
        }
        return remote
    }

    private func remoteURL(_ remote: GitHandle) -> String {
        remote.withPointer { git_remote_url($0).map { String(cString: $0) } } ?? ""
    }

    /// Downloads the remote's `main` into the ref `destination` (default `refs/remotes/<remote>/main`);
    /// nothing else changes: not the local branch, the work tree, or any other ref (the fetch goes through
    /// an anonymous remote with the remote's URL, so git's opportunistic tracking-ref updates cannot touch
    /// `refs/remotes/…` before the caller has checked what arrived). A remote without `main` (still
    /// empty) is not an error: then `destination` is left as it was.
    /// - Throws: `GitError.remoteNotFound`, `.unreachable`, `.authenticationFailed`,
    ///   `.unsupportedSSHKey` or `.hostKeyRejected`.
    package func fetch(remote name: String = "origin", into destination: String? = nil,
                      credentials: GitCredentials = .standard(), progress: GitProgressHandler? = nil) throws {
        try fetch(url: try url(ofRemote: name), into: destination ?? Self.trackingRef(remote: name), credentials: credentials,
                  remoteName: name, progress: progress)
    }

    /// The URL of the remote `name`. Throws `GitError.remoteNotFound`.
    package func url(ofRemote name: String) throws -> String {
        try lookupRemote(name).withPointer { git_remote_url($0).map { String(cString: $0) } } ?? ""
    }

    /// Downloads the ref `source` (default `main`) of the repository at `url` into the ref `destination`;
    /// nothing else changes. The errors name `remoteName`; `progress` hears of the objects received.
    package func fetch(url: String, ref source: String = mainBranch, into destination: String, credentials: GitCredentials,
                      remoteName name: String, progress: GitProgressHandler? = nil) throws {
        let session = RemoteSession(credentials: credentials, url: url, progress: progress)
        let anonymous = try GitHandle(.fetch(remote: name), owner: self, free: git_remote_free) { out in
            withRepo { git_remote_create_anonymous(&out, $0, session.connectURL) }
        }
        var options = git_fetch_options()
        try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), .fetch(remote: nil))
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.update_fetchhead = 0
        try session.withCallbacks { callbacks in
            options.callbacks = callbacks
            try withStrArray(["+\(source):\(destination)"]) { refspecs in
                do {
                    try anonymous.withPointer { _ = try check(git_remote_fetch($0, &refspecs, &options, nil), .fetch(remote: name)) }
                } catch {
                    throw session.classify(error, remote: name)
                }
            }
        }
    }

    /// The commit the remote's `main` names, read from its ref advertisement alone (one round trip; nothing is
    /// downloaded), nil when the remote has no `main`.
    /// - Throws: the errors of `fetch`.
    package func remoteMain(url: String, credentials: GitCredentials, remoteName name: String) throws -> String? {
        let session = RemoteSession(credentials: credentials, url: url)
        let anonymous = try GitHandle(.connect(remote: name), owner: self, free: git_remote_free) { out in
            withRepo { git_remote_create_anonymous(&out, $0, session.connectURL) }
        }
        return try session.withCallbacks { callbacks in
            var callbacks = callbacks
            do {
                return try anonymous.withPointer { remote -> String? in
                    _ = try check(git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, nil, nil), .connect(remote: name))
                    defer { git_remote_disconnect(remote) }
                    var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
                    var count = 0
                    _ = try check(git_remote_ls(&heads, &count, remote), .connect(remote: name))
                    for i in 0..<count {
                        guard let head = heads?[i], let refName = head.pointee.name, String(cString: refName) == Self.mainBranch else { continue }
                        return head.pointee.oid.hex
                    }
                    return nil
                }
            } catch {
                throw session.classify(error, remote: name)
            }
        }
    }

    /// Sends the local `main` to the remote's `main` and updates the remote-tracking ref. With `lease`, the push goes
    /// on only while the remote's `main` is that commit (`.some(nil)`: while it has none), and may then replace any
    /// history (a forced push that cannot overwrite what arrived since); without it the push is never forced.
    /// - Throws: `GitError.pushRejected` if the remote has commits we lack, refuses the update (libgit2 reports the latter
    ///   only through a callback: `git_remote_push` still returns 0), or moved away from the lease;
    ///   `.unknownRevision` if there is nothing to push; the errors of `fetch`.
    package func push(remote name: String = "origin", credentials: GitCredentials = .standard(), lease: String?? = nil,
                     progress: GitProgressHandler? = nil) throws {
        let remote = try lookupRemote(name)
        guard let head = resolve(Self.mainBranch) else { throw GitError.unknownRevision("main") }
        if let lease, let path = RemoteSession.localPath(of: remoteURL(remote)), let target = Self.openIfBare(at: path) {
            try push(into: target, name: name, head: head, lease: lease, progress: progress)
            return
        }
        try send(remote, name: name, refspec: "\(lease != nil ? "+" : "")\(Self.mainBranch):\(Self.mainBranch)", lease: lease,
                 credentials: credentials, progress: progress)
    }

    /// A leased push to a bare repository on this machine. libgit2's transport for a path checks the lease against the
    /// refs it read on connecting, copies the objects, then overwrites the remote's ref without comparing it again: a
    /// push that landed meanwhile was lost. Here the objects `head` reaches that the lease's commit does not go into the
    /// remote as one pack (`objectsToPush`, written by `PackFileWriter` on every core, each object's id checked against
    /// its bytes as libgit2's indexer did), then `main` moves by git's ref lock with the lease compared under it, as
    /// `git receive-pack` does over the other transports.
    private func push(into target: GitRepository, name: String, head: String, lease: String?, progress: GitProgressHandler?) throws {
        let packs = target.withRepo { String(cString: git_repository_path($0)) } + "objects/pack"
        let (objects, bases) = try objectsToPush(head: head, lease: lease, remote: name)
        var bytes = 0
        if !objects.isEmpty {
            let pack = try PackFileWriter.pack(objects, bases: bases, checkingIDs: true)
            try target.store(pack, in: packs, mode: 0o444)
            bytes = pack.bytes.count
        }
        progress?(GitTransferProgress(direction: .sending, objects: objects.count, totalObjects: objects.count, bytes: bytes))
        do { try target.moveRef(Self.mainBranch, from: lease, to: head, log: "push") }
        catch GitError.branchMoved, GitError.locked { throw GitError.pushRejected(remote: name, reason: .remoteMoved) }
    }

    /// The objects a repository that holds the commit `lease` and everything it reaches lacks to hold `head`: the commits
    /// `head` reaches and `lease` does not, and of each of their trees every tree and blob that is not, with the same id,
    /// at the same path of `lease`'s tree (a tree equal to the lease's there holds nothing new; one moved elsewhere is
    /// sent again, which is harmless). Without `lease`, or when this repository lacks it, everything `head` reaches.
    /// `bases`: each tree's delta base, the one sent before it at the same path (the next version of that folder, chains
    /// of at most 10), as git's own packs keep the versions of a folder.
    func objectsToPush(head: String, lease: String?, remote name: String) throws
        -> (objects: [(id: git_oid, type: git_object_t, data: [UInt8])], bases: [Int: Int]) {
        try withRepo { repo in
            var objects: [(id: git_oid, type: git_object_t, data: [UInt8])] = []
            var bases: [Int: Int] = [:], lastAtPath: [String: (index: Int, depth: Int)] = [:]
            var seen = Set<String>()
            var odb: OpaquePointer?, walk: OpaquePointer?
            try check(git_repository_odb(&odb, repo), .push(remote: name))
            defer { git_odb_free(odb); git_revwalk_free(walk) }
            func add(_ id: git_oid) throws {
                var id = id, object: OpaquePointer?
                try check(git_odb_read(&object, odb, &id), .readObject(id: id.hex))
                defer { git_odb_object_free(object) }
                objects.append((id, git_odb_object_type(object), Array(UnsafeRawBufferPointer(
                    start: git_odb_object_data(object), count: git_odb_object_size(object)))))
            }
            func lookupTree(_ id: git_oid) throws -> OpaquePointer? {
                var id = id, tree: OpaquePointer?
                try check(git_tree_lookup(&tree, repo, &id), .readTree(id.hex))
                return tree
            }
            // `id`, the tree at `path`, against `base`, the lease's tree there (nil: none there).
            func addTree(_ id: git_oid, at path: String, against base: git_oid?) throws {
                if let base, Self.same(id, base) { return }
                guard seen.insert(id.hex).inserted else { return }
                if let last = lastAtPath[path], last.depth < 10 {
                    bases[objects.count] = last.index
                    lastAtPath[path] = (objects.count, last.depth + 1)
                } else {
                    lastAtPath[path] = (objects.count, 0)
                }
                try add(id)
                let tree = try lookupTree(id)
                defer { git_tree_free(tree) }
                let baseTree = try base.map(lookupTree)
                defer { if let baseTree { git_tree_free(baseTree) } }
                for i in 0..<git_tree_entrycount(tree) {
                    guard let entry = git_tree_entry_byindex(tree, i), let child = git_tree_entry_id(entry)?.pointee else { continue }
                    let other = baseTree.flatMap { git_tree_entry_byname($0, git_tree_entry_name(entry)) }
                    if let other, let otherID = git_tree_entry_id(other)?.pointee, Self.same(child, otherID) { continue }
                    switch git_tree_entry_type(entry) {
                    case GIT_OBJECT_TREE:
                        try addTree(child, at: path + "/" + String(cString: git_tree_entry_name(entry)),
                                    against: other.flatMap { git_tree_entry_type($0) == GIT_OBJECT_TREE ? git_tree_entry_id($0)?.pointee : nil })
                    case GIT_OBJECT_BLOB:
                        if seen.insert(child.hex).inserted { try add(child) }
                    default: continue  // (a submodule's commit is not stored here)
                    }
                }
            }
            try check(git_revwalk_new(&walk, repo), .push(remote: name))
            var tip = try Self.oid(head)
            try check(git_revwalk_push(walk, &tip), .push(remote: name))
            var leaseTree: git_oid?
            if let lease, var have = try? Self.oid(lease) {
                var commit: OpaquePointer?
                if git_commit_lookup(&commit, repo, &have) == 0 {
                    defer { git_commit_free(commit) }
                    if git_revwalk_hide(walk, &have) == 0 { leaseTree = git_commit_tree_id(commit).pointee } else { git_error_clear() }
                } else {
                    git_error_clear()
                }
            }
            var next = git_oid()
            while true {
                let code = git_revwalk_next(&next, walk)
                if code == GIT_ITEROVER.rawValue { break }
                try check(code, .push(remote: name))
                try add(next)
                var commit: OpaquePointer?
                try check(git_commit_lookup(&commit, repo, &next), .readCommit(next.hex))
                defer { git_commit_free(commit) }
                try addTree(git_commit_tree_id(commit).pointee, at: "", against: leaseTree)
            }
            return (objects, bases)
        }
    }

    private static func same(_ a: git_oid, _ b: git_oid) -> Bool {
        withUnsafeBytes(of: a.id) { x in withUnsafeBytes(of: b.id) { y in x.elementsEqual(y) } }
    }

    /// Pushes `refspec` to `remote` (see `push`).
    private func send(_ remote: GitHandle, name: String, refspec: String, lease: String??, credentials: GitCredentials,
                      progress: GitProgressHandler?) throws {
        let session = RemoteSession(credentials: credentials, url: remoteURL(remote), progress: progress)
        // libgit2 pushes to the push URL when there is one (`remote.<name>.pushurl`, or `pushInsteadOf`).
        if let pushURL = remote.withPointer({ git_remote_pushurl($0).map { String(cString: $0) } }) { session.useCertificates(for: pushURL) }
        if session.connectURL != session.url {
            // This push only: the configured URL (an ssh alias) stays as the user wrote it.
            try remote.withPointer { _ = try check(git_remote_set_instance_url($0, session.connectURL), .connect(remote: name)) }
        }
        var options = git_push_options()
        try check(git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)), .push(remote: nil))
        options.pb_parallelism = 0  // the pack's delta search on every core (libgit2's default is one thread)
        session.lease = lease
        try session.withCallbacks { callbacks in
            options.callbacks = callbacks
            try withStrArray([refspec]) { refspecs in
                do {
                    try remote.withPointer { _ = try check(git_remote_push($0, &refspecs, &options), .push(remote: name)) }
                } catch {
                    if session.leaseBroken { throw GitError.pushRejected(remote: name, reason: .remoteMoved) }
                    throw session.classify(error, remote: name)
                }
            }
        }
        if !session.rejections.isEmpty {
            throw GitError.pushRejected(remote: name, reason: .refused(session.rejections.map { GitError.RefStatus(ref: $0.ref, status: $0.status) }))
        }
    }

    /// Clones `url` into `path` (which must be missing or empty) as remote "origin", with `main`
    /// checked out when the remote has it; an empty remote gives a repository on an unborn
    /// `main`. On failure, whatever was created is removed again.
    /// - Throws: `GitError.destinationNotEmpty`, and the errors of `fetch`.
    package static func clone(
        url: String, to path: String, credentials: GitCredentials = .standard(), progress: GitProgressHandler? = nil
    ) throws -> GitRepository {
        let files = FileManager.default
        let existed = files.fileExists(atPath: path)
        if existed, (try? files.contentsOfDirectory(atPath: path).isEmpty) != true {
            throw GitError.destinationNotEmpty(path: path)
        }
        do {
            let repo = try create(at: path)
            try repo.addRemote(name: "origin", url: url)
            try repo.fetch(remote: "origin", credentials: credentials, progress: progress)
            // So the git CLI's `git pull` and `git status` know the upstream too.
            try repo.setConfig("branch.main.remote", "origin")
            try repo.setConfig("branch.main.merge", mainBranch)
            if let tip = repo.resolve(trackingRef(remote: "origin")) {
                try repo.fastForward(to: tip)
            }
            return repo
        } catch {
            try? files.removeItem(atPath: existed ? path + "/.git" : path)
            throw error
        }
    }
}
