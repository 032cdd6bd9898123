// A git repository with a work tree: creating, opening, configuration and the default signature.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A non-bare git repository, driven through libgit2 (no `git` executable is needed).
///
/// Not thread-safe: use one instance from one thread at a time.
package final class GitRepository {
    let handle: GitHandle
    /// The in-memory backend of `writingObjectsAsOnePack` while it runs: blobs go straight into it.
    var openPack: UnsafeMutablePointer<git_odb_backend>?
    /// The commits written while `openPack` is set: the pack holds what they reach that is new.
    var packedCommits: [git_oid] = []
    /// The absolute path of the work tree, without a trailing slash.
    package let workdir: String

    /// Runs `body` with the `git_repository` pointer.
    func withRepo<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try handle.withPointer(body)
    }

    /// Whether this is a bare repository (no work tree; `workdir` is empty).
    let isBare: Bool

    private init(handle: GitHandle, allowBare: Bool = false) throws {
        self.handle = handle
        isBare = handle.withPointer { git_repository_is_bare($0) != 0 }
        if isBare, allowBare {
            workdir = ""
            return
        }
        let dir: String? = handle.withPointer { repo in
            guard git_repository_is_bare(repo) == 0 else { return nil }
            return git_repository_workdir(repo).map { String(cString: $0) }
        }
        guard let dir else {
            let path = handle.withPointer { git_repository_path($0).map { String(cString: $0) } } ?? "?"
            throw GitError.notARepository(path: path)
        }
        var path = dir
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        workdir = path
    }

    /// Creates a new non-bare repository whose work tree is `path` (made if missing), with HEAD
    /// on the unborn branch `main`.
    /// Throws `GitError.alreadyExists` if `path` already holds a repository.
    package static func create(at path: String) throws -> GitRepository {
        try GitRepository(handle: initialize(at: path, bare: false))
    }

    /// Creates an empty bare repository at `path` (a remote to push to), HEAD on the unborn `main`.
    /// Throws `GitError.alreadyExists` if `path` already holds a repository.
    package static func createBare(at path: String) throws {
        _ = try initialize(at: path, bare: true)
    }

    /// A new bare repository at `path` that borrows every object of this one (git's alternates) but keeps
    /// the objects it fetches to itself: a place to check what a remote sends before any of it enters this
    /// repository. It knows this repository's HEAD and what its remotes were last seen holding, so a fetch into it
    /// downloads only what is new (a path's transport hides only the commits these refs name, not their history: HEAD
    /// alone, when it holds changes not pushed yet, would have it send everything).
    package func makeQuarantine(at path: String) throws -> GitRepository {
        _ = try Self.initialize(at: path, bare: true)
        // The object database reads its alternates when it opens: write them, then open.
        let objects = withRepo { String(cString: git_repository_path($0)) } + "objects"
        try FileManager.default.createDirectory(atPath: path + "/objects/info", withIntermediateDirectories: true)
        try Self.writeScratchFile(path + "/objects/info/alternates", objects + "\n")
        let quarantine = try Self.openBare(at: path)
        if let head = try headCommitID() { try quarantine.setScratchRef(name: "refs/tresor/have", to: head) }
        for (n, seen) in try references(matching: "refs/remotes/*").enumerated() {
            try quarantine.setScratchRef(name: "refs/tresor/have-remote-\(n)", to: seen.commit)
        }
        return quarantine
    }

    /// Points `name` (under `refs/`) of this quarantine at the commit `rev`, as `setRef` does but without a reflog and
    /// without making it durable: a quarantine that a crash leaves is removed, never read (libgit2 makes each ref and
    /// its folder durable, two `fsync`s a ref). - Throws: as `setRef`; `GitError.system` if the file cannot be written.
    package func setScratchRef(name: String, to rev: String) throws {
        guard name.hasPrefix("refs/"), !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw GitError.libgit2(code: GIT_EINVALIDSPEC.code, message: nil, operation: .moveReference(name))
        }
        let id = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee.hex }
        let file = withRepo { String(cString: git_repository_path($0)) } + name
        let folder = String(file[..<file.lastIndex(of: "/")!])
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        catch { throw GitError.system(errno: EIO, operation: .moveReference(name)) }
        try Self.writeScratchFile(file, id + "\n")
    }

    /// Writes `text` to `path` through a temporary file renamed over it, without `fsync` (a quarantine's own files).
    private static func writeScratchFile(_ path: String, _ text: String) throws {
        try writeFile(path, Array(text.utf8), durable: false, operation: .takeInObjects(path: path))
    }

    /// Writes `bytes` to `path` through a temporary file beside it renamed over it; `durable`: the file's data is
    /// made durable (`fsync`) before the rename (its folder's entry is not: the caller syncs the folder). `mode`: the
    /// file's permissions.
    static func writeFile(_ path: String, _ bytes: [UInt8], durable: Bool, mode: mode_t = 0o600, operation: GitError.Operation) throws {
        let temporary = try writeTemporaryFile(for: path, bytes, durable: durable, mode: mode, operation: operation)
        try renameTemporary(temporary, to: path, operation: operation)
    }

    /// The first half of `writeFile`: `bytes` in `path` + `temporarySuffix` (a crash's leftover there replaced).
    static func writeTemporaryFile(for path: String, _ bytes: [UInt8], durable: Bool, mode: mode_t,
                                   operation: GitError.Operation) throws -> String {
        let temporary = path + temporarySuffix
        unlink(temporary)  // (a crash's leftover, perhaps read-only)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw GitError.system(errno: errno, operation: operation) }
        var code = writeAll(fd, bytes)
        if code == 0, durable, fsync(fd) != 0 { code = errno }
        Glibc.close(fd)
        guard code == 0 else { unlink(temporary); throw GitError.system(errno: code, operation: operation) }
        return temporary
    }

    /// The second half of `writeFile`: `temporary` renamed over `path` (removed if that fails).
    static func renameTemporary(_ temporary: String, to path: String, operation: GitError.Operation) throws {
        guard Glibc.rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw GitError.system(errno: e, operation: operation)
        }
    }

    /// Writes all of `bytes` to `fd` (again after an interruption or a partial write); 0, or the errno of the failure.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = Glibc.write(fd, b.baseAddress! + done, b.count - done)
                if n < 0 { if errno == EINTR { continue }; return errno }
                done += n
            }
            return 0
        }
    }

    /// The whole of the regular file at `path` (not followed if a link; never blocking on a FIFO) and its status, when
    /// it is no larger than `limit`; nil when it cannot be read whole, for a caller that then leaves the file to libgit2.
    static func readRegularFile(_ path: String, limit: Int) -> (bytes: [UInt8], status: stat)? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let whole = bytes.withUnsafeMutableBytes { b -> Bool in
            var done = 0
            while done < b.count {
                let n = Glibc.read(fd, b.baseAddress! + done, b.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return whole ? (bytes, st) : nil
    }

    /// What `writeTemporaryFile` adds to a file's name.
    static let temporarySuffix = ".tresor-tmp"

    /// Readies libgit2 on another thread, for a process that will use a repository soon: the first use then waits only
    /// for what is left of it. `defaults`: a folder whose file `config` is libgit2's lowest configuration level.
    package static func prepareInBackground(defaults folder: String? = nil) {
        if let folder { Libgit2.readDefaults(from: folder) }
        Libgit2.initializeInBackground()
    }

    /// Opens libgit2 on this thread before the terminal is changed (`Libgit2.open(onlyIfStarted:)`).
    package static func openLibrary(onlyIfStarted: Bool) {
        Libgit2.open(onlyIfStarted: onlyIfStarted)
    }

    /// Opens a bare repository (a quarantine). Throws `GitError.notARepository`.
    static func openBare(at path: String) throws -> GitRepository {
        Libgit2.ensureInitialized()
        let handle = try GitHandle(.openRepository(path: path), free: git_repository_free) {
            git_repository_open_ext(&$0, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue | GIT_REPOSITORY_OPEN_BARE.rawValue, nil)
        }
        return try GitRepository(handle: handle, allowBare: true)
    }

    /// The repository at `path` when it is a bare one (the remote of a push to a path), else nil.
    static func openIfBare(at path: String) -> GitRepository? {
        Libgit2.ensureInitialized()
        let handle = try? GitHandle(.openRepository(path: path), free: git_repository_free) {
            git_repository_open_ext(&$0, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
        }
        guard let handle, let repo = try? GitRepository(handle: handle, allowBare: true), repo.isBare else { return nil }
        return repo
    }

    private static func initialize(at path: String, bare: Bool) throws -> GitHandle {
        Libgit2.ensureInitialized()
        var options = git_repository_init_options()
        try check(git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)),
                  .createRepository(path: path))
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
            | (bare ? GIT_REPOSITORY_INIT_BARE.rawValue : 0)
        do {
            return try "main".withCString { head in
                options.initial_head = head
                return try GitHandle(.createRepository(path: path), free: git_repository_free) {
                    git_repository_init_ext(&$0, path, &options)
                }
            }
        } catch GitError.libgit2(let code, _, _) where code == GIT_EEXISTS.code {
            throw GitError.alreadyExists(path: path)
        }
    }

    /// Opens the repository whose work tree is `path`. Parent directories are not searched.
    /// Throws `GitError.notARepository` if there is none (or it is bare), `GitError.notOwned` if
    /// another user owns it.
    package static func open(at path: String) throws -> GitRepository {
        Libgit2.ensureInitialized()
        do {
            let handle = try GitHandle(.openRepository(path: path), free: git_repository_free) {
                git_repository_open_ext(&$0, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
            }
            return try GitRepository(handle: handle)
        } catch GitError.libgit2(let code, _, _) where code == GIT_ENOTFOUND.code {
            throw GitError.notARepository(path: path)
        } catch GitError.libgit2(let code, _, _) where code == GIT_EOWNER.code {
            throw GitError.notOwned(path: path)
        }
    }

    // MARK: Configuration

    /// Sets `key` (such as `user.name`) in the repository's own `.git/config`.
    /// Throws `GitError.libgit2` for an invalid key or an unwritable file.
    package func setConfig(_ key: String, _ value: String) throws {
        let config = try GitHandle(.readConfiguration(key: nil), owner: self, free: git_config_free) { out in
            withRepo { git_repository_config(&out, $0) }
        }
        let local = try GitHandle(.readConfiguration(key: nil), owner: self, free: git_config_free) { out in
            config.withPointer { git_config_open_level(&out, $0, GIT_CONFIG_LEVEL_LOCAL) }
        }
        try local.withPointer { try check(git_config_set_string($0, key, value), .writeConfiguration(key: key)) }
    }

    /// The value of `key` as git sees it (repository, then global and system files), or `nil` if it
    /// is unset or unreadable.
    package func config(_ key: String) -> String? {
        try? configValue(key)
    }

    private func configValue(_ key: String) throws -> String? {
        let snapshot = try GitHandle(.readConfiguration(key: nil), owner: self, free: git_config_free) { out in
            withRepo { git_repository_config_snapshot(&out, $0) }
        }
        return try snapshot.withPointer { config in
            var value: UnsafePointer<CChar>?
            let found = try check(git_config_get_string(&value, config, key), .readConfiguration(key: key), allowing: [GIT_ENOTFOUND.code])
            guard found == 0, let value else {
                git_error_clear()
                return nil
            }
            return String(cString: value)
        }
    }

    /// The author and committer for new commits: `user.name` and `user.email` from git's
    /// configuration, else "Tresor" and "tresor@<host name>".
    func defaultSignature() -> GitSignature {
        Self.signature(name: config("user.name"), email: config("user.email"))
    }

    /// The signature for configured `name` and `email`, with the fallbacks for missing values.
    static func signature(name: String?, email: String?) -> GitSignature {
        GitSignature(name: cleaned(name) ?? "Tresor", email: cleaned(email) ?? "tresor@" + hostName())
    }

    /// Drops the characters libgit2 refuses in signatures; `nil` if nothing is left.
    private static func cleaned(_ value: String?) -> String? {
        guard let value else { return nil }
        let kept = GitStrings.trimming(value.filter { !"<>\n\r\0".contains($0) }, GitStrings.isWhitespace)
        return kept.isEmpty ? nil : kept
    }

    /// The host name reduced to characters that are valid in an email domain.
    static func hostName(_ raw: String = ProcessInfo.processInfo.hostName) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        let host = GitStrings.trimming(String(raw.lowercased().filter { allowed.contains($0) }), { $0 == "." || $0 == "-" })
        return host.isEmpty ? "localhost" : host
    }
}
