// Recording commits and reading what HEAD and older commits contain.
internal import CGit2
import Foundation

extension GitRepository {
    /// Stages exactly the given work-tree-relative files and records one commit on HEAD.
    ///
    /// Files in `adding` must exist and are added as they are now; paths in `removing` are taken
    /// out of the index (the caller deletes the files). Other index entries are left alone. The
    /// first commit has no parent; afterwards HEAD's branch moves to the new commit and the index
    /// is written to disk, so `git status` stays clean.
    /// - Returns: the new commit's hex id.
    /// - Throws: `GitError.invalidPath`, `GitError.fileNotFound` for a bad path;
    ///   `GitError.nothingToCommit` when `allowEmpty` is false and the tree equals the parent's;
    ///   `GitError.libgit2` if HEAD moved meanwhile or the signature is invalid.
    @discardableResult
    public func commit(
        message: String,
        adding: [String],
        removing: [String] = [],
        signature: GitSignature? = nil,
        allowEmpty: Bool = false
    ) throws -> String {
        let index = try GitHandle("opening the index", owner: self, free: git_index_free) {
            git_repository_index(&$0, raw)
        }
        defer { withExtendedLifetime(index) {} }
        // Start from the file on disk, not from changes an earlier failed call left in memory.
        try check(git_index_read(index.pointer, 1), "reading the index")
        // The commit must be HEAD plus exactly the listed paths. If the index does not match HEAD
        // (a commit whose index write failed, an interrupted checkout, something staged by hand),
        // start from HEAD's tree instead, or the commit would silently undo or add other files.
        if let head = try headCommit() {
            defer { withExtendedLifetime(head) {} }
            var current = git_oid()
            try check(git_index_write_tree(&current, index.pointer), "reading the index")
            if let headTree = git_commit_tree_id(head.pointer), !headTree.pointee.isSame(as: current) {
                let tree = try tree(of: head)
                defer { withExtendedLifetime(tree) {} }
                try check(git_index_read_tree(index.pointer, tree.pointer), "resetting the index to HEAD")
            }
        }
        for path in adding {
            let relative = try Self.validated(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: workdir + "/" + relative, isDirectory: &isDirectory),
                  !isDirectory.boolValue else {
                throw GitError.fileNotFound(path: relative)
            }
            try check(git_index_add_bypath(index.pointer, relative), "staging \"\(relative)\"")
        }
        for path in removing {
            let relative = try Self.validated(path)
            try check(git_index_remove_bypath(index.pointer, relative), "unstaging \"\(relative)\"")
        }

        var treeID = git_oid()
        try check(git_index_write_tree(&treeID, index.pointer), "writing the tree")
        let parent = try headCommit()
        defer { withExtendedLifetime(parent) {} }
        if !allowEmpty {
            if let parent, let parentTree = git_commit_tree_id(parent.pointer), parentTree.pointee.isSame(as: treeID) {
                throw GitError.nothingToCommit
            }
            if parent == nil, git_index_entrycount(index.pointer) == 0 {
                throw GitError.nothingToCommit
            }
        }
        let id = try createCommit(
            tree: treeID, parents: parent.map { [$0] } ?? [], message: message,
            signature: signature ?? defaultSignature(), updating: "HEAD"
        )
        try check(git_index_write(index.pointer), "writing the index")
        return id.hex
    }

    /// Writes a commit object and, if `ref` is given, moves that ref (through HEAD: its branch).
    func createCommit(
        tree treeID: git_oid, parents: [GitHandle], message: String, signature: GitSignature, updating ref: String?
    ) throws -> git_oid {
        var treeID = treeID
        let tree = try GitHandle("reading the new tree", owner: self, free: git_tree_free) {
            git_tree_lookup(&$0, raw, &treeID)
        }
        defer { withExtendedLifetime(tree) {} }
        let stamp = try SignatureHandle(signature)
        var text = git_buf()
        defer { git_buf_dispose(&text) }
        try check(git_message_prettify(&text, message, 0, CChar(UInt8(ascii: "#"))), "cleaning up the message")
        var parentPointers: [OpaquePointer?] = parents.map { $0.pointer }
        var id = git_oid()
        try check(
            git_commit_create(&id, raw, ref, stamp.pointer, stamp.pointer, nil, text.ptr, tree.pointer,
                              parentPointers.count, &parentPointers),
            "creating the commit"
        )
        return id
    }

    /// The id of the commit HEAD points to, or `nil` on an unborn branch (no commit yet).
    public func headCommitID() throws -> String? {
        try headCommit().map { git_commit_id($0.pointer).pointee.hex }
    }

    /// HEAD's commit, or `nil` on an unborn branch.
    func headCommit() throws -> GitHandle? {
        var id = git_oid()
        let result = try check(git_reference_name_to_id(&id, raw, "HEAD"), "reading HEAD",
                               allowing: [GIT_ENOTFOUND.code, GIT_EUNBORNBRANCH.code])
        guard result == 0 else {
            git_error_clear()
            return nil
        }
        return try lookupCommit(id)
    }

    func lookupCommit(_ id: git_oid) throws -> GitHandle {
        var id = id
        return try GitHandle("reading commit \(id.hex)", owner: self, free: git_commit_free) {
            git_commit_lookup(&$0, raw, &id)
        }
    }

    /// The commit `rev` names: anything `git rev-parse` accepts ("HEAD~2", a hex id, a branch).
    func commit(forRevision rev: String) throws -> GitHandle {
        do {
            let object = try GitHandle("resolving \"\(rev)\"", owner: self, free: git_object_free) {
                git_revparse_single(&$0, raw, rev)
            }
            defer { withExtendedLifetime(object) {} }
            return try GitHandle("resolving \"\(rev)\" to a commit", owner: self, free: git_commit_free) {
                git_object_peel(&$0, object.pointer, GIT_OBJECT_COMMIT)
            }
        } catch GitError.libgit2(let code, _, _)
                    where [GIT_ENOTFOUND, GIT_EINVALIDSPEC, GIT_EAMBIGUOUS, GIT_EPEEL].map(\.code).contains(code) {
            throw GitError.unknownRevision(rev)
        }
    }

    func tree(of commit: GitHandle) throws -> GitHandle {
        try GitHandle("reading a commit's tree", owner: self, free: git_tree_free) {
            git_commit_tree(&$0, commit.pointer)
        }
    }

    /// The bytes of the file at `path` in commit `rev`, or `nil` if no file is there.
    /// Throws `GitError.unknownRevision` if `rev` names no commit.
    public func blob(at rev: String, path: String) throws -> [UInt8]? {
        let tree = try tree(of: commit(forRevision: rev))
        defer { withExtendedLifetime(tree) {} }
        guard let entry = try GitHandle(ifFound: "finding \"\(path)\"", owner: self, free: git_tree_entry_free, acquire: {
            git_tree_entry_bypath(&$0, tree.pointer, path)
        }), git_tree_entry_type(entry.pointer) == GIT_OBJECT_BLOB else {
            return nil
        }
        defer { withExtendedLifetime(entry) {} }
        return try blobContents(git_tree_entry_id(entry.pointer).pointee)
    }

    func blobContents(_ id: git_oid) throws -> [UInt8] {
        var id = id
        let blob = try GitHandle("reading blob \(id.hex)", owner: self, free: git_blob_free) {
            git_blob_lookup(&$0, raw, &id)
        }
        defer { withExtendedLifetime(blob) {} }
        let size = Int(git_blob_rawsize(blob.pointer))
        guard size > 0, let bytes = git_blob_rawcontent(blob.pointer) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    /// Every file path in HEAD's tree, sorted, with `/` separators; empty on an unborn branch.
    public func trackedPaths() throws -> [String] {
        guard let head = try headCommit() else { return [] }
        let tree = try tree(of: head)
        defer { withExtendedLifetime(tree) {} }
        let collector = PathCollector()
        try withExtendedLifetime(collector) {
            _ = try check(
                git_tree_walk(tree.pointer, GIT_TREEWALK_PRE, { root, entry, payload in
                    guard let entry, let payload, git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return 0 }
                    let collector = Unmanaged<PathCollector>.fromOpaque(payload).takeUnretainedValue()
                    let prefix = root.map { String(cString: $0) } ?? ""
                    collector.paths.append(prefix + String(cString: git_tree_entry_name(entry)))
                    return 0
                }, Unmanaged.passUnretained(collector).toOpaque()),
                "listing the files of HEAD"
            )
        }
        return collector.paths.sorted()
    }

    /// A relative path with `/` separators that stays inside the work tree.
    static func validated(_ path: String) throws -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !path.contains("\0") else {
            throw GitError.invalidPath(path)
        }
        return path
    }
}

/// Payload box for the tree walk callback.
private final class PathCollector {
    var paths: [String] = []
}
