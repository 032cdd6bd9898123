// Listing a commit's tree with modes and blob ids, reading blobs by id, the index and whole-tree checkouts.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One entry of a commit's tree, as stored (nothing is checked out).
package struct GitTreeEntry: Sendable, Equatable {
    package enum Kind: Sendable, Equatable { case file, executable, symlink, submodule, other }
    /// Path with `/` separators, relative to the root.
    package var path: String
    package var kind: Kind
    /// The object's hex id (a blob for files and links).
    package var id: String
}

private final class TreeCollector {
    var entries: [GitTreeEntry] = []
}

extension GitRepository {
    /// Every non-directory entry of the tree of commit `rev`, sorted by path.
    /// Throws `GitError.unknownRevision` if `rev` names no commit.
    package func treeEntries(at rev: String) throws -> [GitTreeEntry] {
        try treeEntries(of: tree(of: commit(forRevision: rev)), context: rev)
    }

    /// Every non-directory entry of the tree `treeID`, sorted by path.
    package func treeEntries(ofTree treeID: String) throws -> [GitTreeEntry] {
        var oid = try Self.oid(treeID)
        let tree = try GitHandle(.readTree(treeID), owner: self, free: git_tree_free) { out in
            withRepo { git_tree_lookup(&out, $0, &oid) }
        }
        return try treeEntries(of: tree, context: treeID)
    }

    private func treeEntries(of tree: GitHandle, context: String) throws -> [GitTreeEntry] {
        let collector = TreeCollector()
        let payload = Unmanaged.passUnretained(collector).toOpaque()
        try tree.withPointer { treePointer in
            _ = try check(
                git_tree_walk(treePointer, GIT_TREEWALK_PRE, { root, entry, payload in
                    guard let entry, let payload else { return 0 }
                    let kind: GitTreeEntry.Kind
                    switch git_tree_entry_filemode(entry) {
                    case GIT_FILEMODE_TREE: return 0
                    case GIT_FILEMODE_BLOB: kind = .file
                    case GIT_FILEMODE_BLOB_EXECUTABLE: kind = .executable
                    case GIT_FILEMODE_LINK: kind = .symlink
                    case GIT_FILEMODE_COMMIT: kind = .submodule
                    default: kind = .other
                    }
                    let collector = Unmanaged<TreeCollector>.fromOpaque(payload).takeUnretainedValue()
                    let prefix = root.map { String(cString: $0) } ?? ""
                    collector.entries.append(GitTreeEntry(path: prefix + String(cString: git_tree_entry_name(entry)), kind: kind,
                                                          id: git_tree_entry_id(entry).pointee.hex))
                    return 0
                }, payload),
                .readTree(context)
            )
        }
        return collector.entries.sorted { GitIndexFile.precedes($0.path, $1.path) }
    }

    /// The names directly inside folder `folder` ("" for the root) of commit `rev`, each with whether it
    /// is a folder; empty when there is no such folder. Reads only the trees on the way.
    package func folderNames(at rev: String, folder: String) throws -> [(name: String, isFolder: Bool)] {
        let root = try tree(of: commit(forRevision: rev))
        let tree: GitHandle
        if folder.isEmpty {
            tree = root
        } else {
            guard let entry = try root.withPointer({ treePointer in
                try GitHandle(ifFound: .readTree(folder), owner: self, free: git_tree_entry_free) {
                    git_tree_entry_bypath(&$0, treePointer, folder)
                }
            }), let sub = try entry.withPointer({ e -> GitHandle? in
                guard git_tree_entry_type(e) == GIT_OBJECT_TREE else { return nil }
                return try GitHandle(.readTree(folder), owner: self, free: git_tree_free) { out in
                    withRepo { git_tree_lookup(&out, $0, git_tree_entry_id(e)) }
                }
            }) else { return [] }
            tree = sub
        }
        return tree.withPointer { t in
            (0..<git_tree_entrycount(t)).compactMap { index in
                guard let e = git_tree_entry_byindex(t, index) else { return nil }
                return (String(cString: git_tree_entry_name(e)), git_tree_entry_type(e) == GIT_OBJECT_TREE)
            }
        }
    }

    /// The size in bytes of the blob `id`, without reading it.
    package func blobSize(id: String) throws -> Int {
        var oid = try GitRepository.oid(id)
        let blob = try GitHandle(.readObject(id: id), owner: self, free: git_blob_free) { out in
            withRepo { git_blob_lookup(&out, $0, &oid) }
        }
        return blob.withPointer { Int(git_blob_rawsize($0)) }
    }

    /// The contents of the blob `id`.
    package func blob(id: String) throws -> [UInt8] {
        try blobContents(try GitRepository.oid(id))
    }

    static func oid(_ hex: String) throws -> git_oid {
        var oid = git_oid()
        try check(git_oid_fromstr(&oid, hex), .resolve(revision: hex))
        return oid
    }

    /// The commit `rev` names. Throws `GitError.unknownRevision`.
    package func commitInfo(_ rev: String) throws -> GitCommit {
        Self.describe(try commit(forRevision: rev))
    }
}

extension GitRepository {
    /// Brings the index entries of `paths` in line with the work tree (a file there is staged as it is,
    /// a missing one is removed), so `git status` stays clean after the work tree was updated to HEAD.
    /// - Throws: `GitError.locked` when another process holds `.git/index.lock`; nothing is written then.
    ///
    /// `knownBlobs` gives, for paths whose work-tree file the caller has just written from (or checked
    /// against) a blob, that blob's id: such a file is staged from its `lstat` data and the id, without
    /// reading and hashing it again.
    /// `inPlace` false: always through libgit2 (the tests compare both ways).
    package func refreshIndex(paths: [String], knownBlobs: [String: String] = [:], inPlace: Bool = true) throws {
        if try refreshIndexInPlace(paths: paths, knownBlobs: knownBlobs, inPlace: inPlace) { return }
        let index = try GitHandle(.readIndex, owner: self, free: git_index_free) { out in
            withRepo { git_repository_index(&out, $0) }
        }
        try index.withPointer { idx in
            try check(git_index_read(idx, 0), .readIndex)  // opening read it; 0 rereads only if it changed since
            for path in paths {
                let relative = try Self.validated(path)
                // lstat(2) itself (TresorGit does not see TresorCore's FileSystem): a file that is not there, or not a
                // regular file, is unstaged, as git does.
                var st = stat()
                if lstat(workdir + "/" + relative, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                    if let blob = knownBlobs[path] {
                        try stage(idx, relative, blob: blob, st)
                    } else {
                        try check(git_index_add_bypath(idx, relative), .stage(path: relative))
                    }
                } else {
                    try check(git_index_remove_bypath(idx, relative), .unstage(path: relative))
                }
            }
            try writeIndex(idx)
        }
    }

    /// `refreshIndex` by editing git's index file for `paths` alone (`GitIndexFile`), under git's lock file as git
    /// takes it, when every path is a file whose blob is known or is to be unstaged and the index is one
    /// `GitIndexFile` edits. Returns false, having written nothing, when it is not (libgit2 then does the work), or
    /// `inPlace` is false.
    func refreshIndexInPlace(paths: [String], knownBlobs: [String: String], inPlace: Bool = true) throws -> Bool {
        guard inPlace else { return false }
        var changes: [String: [UInt8]?] = [:]
        for path in paths {
            let relative = try Self.validated(path)
            var st = stat()
            if lstat(workdir + "/" + relative, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                guard let blob = knownBlobs[path] else { return false }
                let id = try Self.oid(blob)
                changes[relative] = GitIndexFile.entry(path: relative, blob: withUnsafeBytes(of: id.id) { Array($0) }, stat: st)
            } else {
                changes[relative] = .some(nil)
            }
        }
        let gitDir = withRepo { String(cString: git_repository_path($0)) }
        let indexPath = gitDir + "index", lockPath = gitDir + "index.lock"
        let lock = Glibc.open(lockPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard lock >= 0 else {
            if errno == EEXIST { throw GitError.locked(path: ".git/index.lock") }
            throw GitError.system(errno: errno, operation: .writeIndex)
        }
        var locked = true
        defer { if locked { close(lock); unlink(lockPath) } }
        guard let index = GitIndexFile.map(indexPath) else { return false }
        let written = try index.write(changes, to: lock) { path, blob in
            var st = stat()
            guard lstat(workdir + "/" + path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
            return (try? hashFile(workdir + "/" + path)) == blob
        }
        guard written else { return false }
        close(lock)
        locked = false
        try Self.renameTemporary(lockPath, to: indexPath, operation: .writeIndex)
        return true
    }

    /// For each of `paths` whose work-tree file git's index records as unchanged, the blob id the index gives
    /// it: the file is a regular file with the size, modification and change times and inode of its index
    /// entry (git does not compare the device either), and was not modified in or after the moment the
    /// index was written (git's rule for "racily clean" entries, which it hashes again). Other paths are
    /// left out, for the caller to hash.
    package func indexedBlobIDs(of paths: [String]) throws -> [String: String] {
        let index = try GitHandle(.readIndex, owner: self, free: git_index_free) { out in
            withRepo { git_repository_index(&out, $0) }
        }
        // stat(2) and lstat(2) themselves (TresorGit does not see TresorCore's FileSystem), as questions: any failure
        // leaves the path out, for the caller to hash.
        var indexStat = stat()
        guard stat(withRepo { String(cString: git_repository_path($0)) } + "index", &indexStat) == 0 else { return [:] }
        func before(_ t: timespec, _ limit: timespec) -> Bool {
            t.tv_sec < limit.tv_sec || (t.tv_sec == limit.tv_sec && t.tv_nsec < limit.tv_nsec)
        }
        return try index.withPointer { idx in
            try check(git_index_read(idx, 0), .readIndex)
            var clean: [String: String] = [:]
            for path in paths {
                guard let entry = git_index_get_bypath(idx, path, 0)?.pointee else { continue }
                var st = stat()
                guard lstat(workdir + "/" + path, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                      entry.file_size == UInt32(truncatingIfNeeded: st.st_size),
                      entry.mtime.seconds == Int32(truncatingIfNeeded: st.st_mtim.tv_sec),
                      entry.mtime.nanoseconds == UInt32(truncatingIfNeeded: st.st_mtim.tv_nsec),
                      entry.ctime.seconds == Int32(truncatingIfNeeded: st.st_ctim.tv_sec),
                      entry.ctime.nanoseconds == UInt32(truncatingIfNeeded: st.st_ctim.tv_nsec),
                      entry.ino == UInt32(truncatingIfNeeded: st.st_ino),
                      before(st.st_mtim, indexStat.st_mtim), before(st.st_ctim, indexStat.st_mtim) else { continue }
                clean[path] = entry.id.hex
            }
            return clean
        }
    }

    /// An index entry for a regular, non-executable file holding blob `blob`, with its stat data as git
    /// records it (times, device, inode, owner, size truncated to 32 bits).
    private func stage(_ idx: OpaquePointer, _ relative: String, blob: String, _ st: stat) throws {
        var entry = git_index_entry()
        entry.ctime.seconds = Int32(truncatingIfNeeded: st.st_ctim.tv_sec)
        entry.ctime.nanoseconds = UInt32(truncatingIfNeeded: st.st_ctim.tv_nsec)
        entry.mtime.seconds = Int32(truncatingIfNeeded: st.st_mtim.tv_sec)
        entry.mtime.nanoseconds = UInt32(truncatingIfNeeded: st.st_mtim.tv_nsec)
        entry.dev = UInt32(truncatingIfNeeded: st.st_rdev)  // as libgit2 records it (git ignores it)
        entry.ino = UInt32(truncatingIfNeeded: st.st_ino)
        entry.mode = UInt32(GIT_FILEMODE_BLOB.rawValue)
        entry.uid = UInt32(truncatingIfNeeded: st.st_uid)
        entry.gid = UInt32(truncatingIfNeeded: st.st_gid)
        entry.file_size = UInt32(truncatingIfNeeded: st.st_size)
        entry.id = try Self.oid(blob)
        try relative.withCString { name in
            entry.path = name
            try check(git_index_add(idx, &entry), .stage(path: relative))
        }
    }

    /// Makes the index match HEAD's tree (stat information is rebuilt by git later).
    /// - Throws: `GitError.locked` when `.git/index.lock` exists.
    func resetIndexToHead() throws {
        let index = try GitHandle(.readIndex, owner: self, free: git_index_free) { out in
            withRepo { git_repository_index(&out, $0) }
        }
        try index.withPointer { idx in
            if let head = try headCommit() {
                let tree = try tree(of: head)
                try tree.withPointer { try check(git_index_read_tree(idx, $0), .readIndex) }
            } else {
                try check(git_index_clear(idx), .writeIndex)
            }
            try writeIndex(idx)
        }
    }

    private func writeIndex(_ idx: OpaquePointer) throws {
        let result = git_index_write(idx)
        if result == GIT_ELOCKED.code {
            git_error_clear()
            throw GitError.locked(path: ".git/index.lock")
        }
        try check(result, .writeIndex)
    }

    /// Makes the whole work tree and index match HEAD, overwriting local changes (files 0600, folders
    /// 0700). For a fresh clone; callers must know nothing uncommitted is there to lose.
    /// `progress` hears of the files written (done, total).
    package func checkoutHead(progress: ((Int, Int) -> Void)? = nil) throws {
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), .checkout)
        options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue
        // The work tree holds secrets (encrypted, but names and sizes are private too): 0600 files, 0700 folders.
        options.file_mode = 0o600
        options.dir_mode = 0o700
        // Files are written as their blobs hold them: no filter (line ends, ident) a configuration could ask for, and no
        // look-up of attributes for each file to find one.
        options.disable_filters = 1
        let box = CheckoutProgressBox(progress)
        if progress != nil {
            options.progress_payload = Unmanaged.passUnretained(box).toOpaque()
            options.progress_cb = { _, done, total, payload in
                guard let payload else { return }
                Unmanaged<CheckoutProgressBox>.fromOpaque(payload).takeUnretainedValue().report?(Int(done), Int(total))
            }
        }
        _ = try withExtendedLifetime(box) {
            try withRepo { try check(git_checkout_head($0, &options), .checkout) }
        }
    }
}

/// Carries a checkout's progress closure through libgit2's payload pointer.
private final class CheckoutProgressBox {
    let report: ((Int, Int) -> Void)?
    init(_ report: ((Int, Int) -> Void)?) { self.report = report }
}

/// The kind of a git object.
package enum GitObjectKind: Sendable, Equatable { case commit, tree, blob, tag, other }

/// One entry of a tree object exactly as stored: the name's bytes (unchecked), the mode and the object id.
package struct GitRawTreeEntry: Sendable, Equatable {
    package var name: [UInt8]
    package var mode: UInt32
    package var id: String
}

extension GitRepository {
    /// The kind and size of object `id`, without reading its contents.
    package func objectHeader(_ id: String) throws -> (kind: GitObjectKind, size: Int) {
        var oid = try Self.oid(id)
        let odb = try GitHandle(.openObjectDatabase, owner: self, free: git_odb_free) { out in
            withRepo { git_repository_odb(&out, $0) }
        }
        var size = 0
        var type = GIT_OBJECT_INVALID
        try odb.withPointer { _ = try check(git_odb_read_header(&size, &type, $0, &oid), .readObject(id: id)) }
        let kind: GitObjectKind
        switch type {
        case GIT_OBJECT_COMMIT: kind = .commit
        case GIT_OBJECT_TREE: kind = .tree
        case GIT_OBJECT_BLOB: kind = .blob
        case GIT_OBJECT_TAG: kind = .tag
        default: kind = .other
        }
        return (kind, size)
    }

    /// The entries of tree object `id`, parsed from its raw bytes: names are reported as stored (with a
    /// `/`, empty, duplicated, out of order), which libgit2's own tree reader refuses or hides.
    /// - Throws: `GitError.malformedTree` for bytes that are not a tree; `.libgit2` if the object is missing
    ///   or is larger than `limit` bytes.
    package func rawTree(_ id: String, limit: Int) throws -> [GitRawTreeEntry] {
        let (kind, size) = try objectHeader(id)
        guard kind == .tree else { throw GitError.malformedTree(id: id, reason: .notATree) }
        guard size <= limit else { throw GitError.malformedTree(id: id, reason: .tooLarge(limit: limit)) }
        let bytes = try rawObject(id)
        var entries: [GitRawTreeEntry] = []
        var i = 0
        while i < bytes.count {
            var mode: UInt32 = 0
            var digits = 0
            // git writes modes without leading zeros; `040000` is what git fsck --strict calls zeroPaddedFilemode.
            guard i < bytes.count, bytes[i] != 0x30 else { throw GitError.malformedTree(id: id, reason: .zeroPaddedMode) }
            while i < bytes.count, bytes[i] != 0x20 {
                guard (0x30...0x37).contains(bytes[i]), digits < 7 else { throw GitError.malformedTree(id: id, reason: .modeNotOctal) }
                mode = mode << 3 | UInt32(bytes[i] - 0x30)
                digits += 1
                i += 1
            }
            guard digits > 0, i < bytes.count else { throw GitError.malformedTree(id: id, reason: .truncatedEntry) }
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != 0 { i += 1 }
            guard i < bytes.count else { throw GitError.malformedTree(id: id, reason: .truncatedEntry) }
            let name = Array(bytes[start..<i])
            i += 1
            guard i + 20 <= bytes.count else { throw GitError.malformedTree(id: id, reason: .truncatedEntry) }
            let hex = Self.hex(bytes[i..<(i + 20)])
            i += 20
            entries.append(GitRawTreeEntry(name: name, mode: mode, id: hex))
        }
        return entries
    }

    /// The raw bytes of object `id` as stored (no parsing by libgit2).
    /// - Throws: `.libgit2` if the object is missing.
    func rawObject(_ id: String) throws -> [UInt8] {
        var oid = try Self.oid(id)
        let odb = try GitHandle(.openObjectDatabase, owner: self, free: git_odb_free) { out in
            withRepo { git_repository_odb(&out, $0) }
        }
        let object = try GitHandle(.readObject(id: id), owner: self, free: git_odb_object_free) { out in
            odb.withPointer { git_odb_read(&out, $0, &oid) }
        }
        return object.withPointer { o in
            let n = git_odb_object_size(o)
            guard n > 0, let data = git_odb_object_data(o) else { return [] }
            return Array(UnsafeRawBufferPointer(start: data, count: n))
        }
    }

    /// Lowercase hex of `bytes` (an object id). By table: Foundation's `String(format:)` per byte was a fifth
    /// of a sync that checks 1,000 incoming entries.
    static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
