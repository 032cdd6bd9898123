// Recording commits in the object database (blobs, trees built from a base tree, commits, compare-and-swap
// branch moves) and reading what HEAD and older commits contain.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// How a commit is authenticated: extra header fields whose values are computed from the commit's content without them.
package struct GitCommitAuthentication {
    /// The fields (name, value) for a commit content; written after the `committer` line in this order.
    package var fields: ([UInt8]) throws -> [(name: String, value: String)]
    package init(field: String, tag: @escaping ([UInt8]) throws -> String) { self.fields = { [(field, try tag($0))] } }
    package init(fields: @escaping ([UInt8]) throws -> [(name: String, value: String)]) { self.fields = fields }
}

/// One change to a tree: a regular file at `path` (a blob already in the object database), or no file there.
package enum GitTreeChange: Sendable, Equatable {
    case put(path: String, blob: String)
    case remove(path: String)

    package var path: String {
        switch self {
        case .put(let path, _), .remove(let path): return path
        }
    }
}

extension GitRepository {
    /// Stores `bytes` as a blob and returns its hex id. Nothing else changes.
    package func writeBlob(_ bytes: [UInt8]) throws -> String {
        if let openPack { return try writeBlobIntoOpenPack(openPack, bytes).hex }
        var id = git_oid()
        try withRepo { repo in
            try bytes.withUnsafeBytes { buffer in
                _ = try check(git_blob_create_from_buffer(&id, repo, buffer.baseAddress, buffer.count), .storeFile)
            }
        }
        return id.hex
    }

    /// The tree of commit `rev` (`nil`: the empty tree) with `changes` applied, written to the object
    /// database; returns the new tree's id. Folders that become empty disappear. Costs one tree per folder
    /// on each changed path, whatever the size of the rest of the tree.
    /// - Throws: `GitError.invalidPath`, `GitError.unknownRevision`.
    package func tree(from rev: String?, applying changes: [GitTreeChange]) throws -> String {
        try updatedTree(try rev.map { try tree(of: commit(forRevision: $0)) } ?? emptyTree(), changes)
    }

    /// The tree `id` with `changes` applied, written to the object database (as `tree(from:applying:)`).
    package func tree(fromTree id: String, applying changes: [GitTreeChange]) throws -> String {
        var oid = try Self.oid(id)
        let base = try GitHandle(.readTree(id), owner: self, free: git_tree_free) { out in withRepo { git_tree_lookup(&out, $0, &oid) } }
        return try updatedTree(base, changes)
    }

    private func updatedTree(_ base: GitHandle, _ changes: [GitTreeChange]) throws -> String {
        let sorted = try changes.sorted { GitIndexFile.precedes($0.path, $1.path) }.map { change -> (git_tree_update_t, git_oid, String) in
            let path = try Self.validated(change.path)
            switch change {
            case .put(_, let blob): return (GIT_TREE_UPDATE_UPSERT, try Self.oid(blob), path)
            case .remove: return (GIT_TREE_UPDATE_REMOVE, git_oid(), path)
            }
        }
        let paths: [UnsafeMutablePointer<CChar>?] = sorted.map { strdup($0.2) }
        defer { paths.forEach { free($0) } }
        var updates = sorted.enumerated().map { index, change in
            git_tree_update(action: change.0, id: change.1, filemode: GIT_FILEMODE_BLOB, path: paths[index])
        }
        var id = git_oid()
        try withRepo { repo in
            try base.withPointer { tree in
                _ = try check(git_tree_create_updated(&id, repo, tree, updates.count, &updates), .writeTree)
            }
        }
        return id.hex
    }

    private func emptyTree() throws -> GitHandle {
        let builder = try GitHandle(.writeTree, owner: self, free: git_treebuilder_free) { out in
            withRepo { git_treebuilder_new(&out, $0, nil) }
        }
        var id = git_oid()
        try builder.withPointer { _ = try check(git_treebuilder_write(&id, $0), .writeTree) }
        return try GitHandle(.readTree(nil), owner: self, free: git_tree_free) { out in
            withRepo { git_tree_lookup(&out, $0, &id) }
        }
    }

    /// Writes a commit object with the given tree and parents; no ref moves. Returns its id.
    /// With `authentication`, the commit carries an extra header field whose value `tag` computes from
    /// the commit's content without that field (what `authenticationField(of:)` gives back).
    package func writeCommit(tree treeID: String, parents: [String], message: String, signature: GitSignature? = nil,
                            authentication: GitCommitAuthentication? = nil) throws -> String {
        var oid = try Self.oid(treeID)
        let tree = try GitHandle(.readTree(treeID), owner: self, free: git_tree_free) { out in
            withRepo { git_tree_lookup(&out, $0, &oid) }
        }
        let parentHandles = try parents.map { try commit(forRevision: $0) }
        let stamp = try SignatureHandle(signature ?? defaultSignature())
        var text = git_buf()
        defer { git_buf_dispose(&text) }
        try check(git_message_prettify(&text, message, 0, CChar(UInt8(ascii: "#"))), .createCommit)
        var id = git_oid()
        try withPointers(parentHandles) { parentPointers in
            try withRepo { repo in
                try tree.withPointer { treePointer in
                    try stamp.withPointer { who in
                        guard let authentication else {
                            var pointers: [OpaquePointer?] = parentPointers
                            _ = try check(git_commit_create(&id, repo, nil, who, who, nil, text.ptr, treePointer, pointers.count, &pointers),
                                          .createCommit)
                            return
                        }
                        var content = git_buf()
                        defer { git_buf_dispose(&content) }
                        var constPointers: [OpaquePointer?] = parentPointers
                        try check(git_commit_create_buffer(&content, repo, who, who, nil, text.ptr, treePointer, constPointers.count, &constPointers),
                                  .createCommit)
                        let bytes = Array(UnsafeRawBufferPointer(start: content.ptr, count: content.size))
                        let fields = try authentication.fields(bytes)
                        if fields.count == 1 {
                            try check(git_commit_create_with_signature(&id, repo, content.ptr, fields[0].value, fields[0].name), .createCommit)
                        } else {
                            id = try writeObject(Self.inserting(fields, into: bytes), repo: repo)
                        }
                    }
                }
            }
        }
        if openPack != nil { packedCommits.append(id) }
        return id.hex
    }

    /// `content` with a `name value` line per field after its `committer` line (where libgit2 puts a signature).
    static func inserting(_ fields: [(name: String, value: String)], into content: [UInt8]) -> [UInt8] {
        var lineStart = 0
        while lineStart < content.count {
            let lineEnd = content[lineStart...].firstIndex(of: 0x0A) ?? content.count
            if lineEnd == lineStart { break }
            if content[lineStart..<lineEnd].starts(with: Array("committer ".utf8)) {
                let at = min(lineEnd + 1, content.count)
                return Array(content[..<at]) + fields.flatMap { Array("\($0.name) \($0.value)\n".utf8) } + Array(content[at...])
            }
            lineStart = lineEnd + 1
        }
        return content
    }

    private func writeObject(_ bytes: [UInt8], repo: OpaquePointer) throws -> git_oid {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repo), .openObjectDatabase)
        defer { git_odb_free(odb) }
        var id = git_oid()
        try bytes.withUnsafeBytes { buffer in
            _ = try check(git_odb_write(&id, odb, buffer.baseAddress, buffer.count, GIT_OBJECT_COMMIT), .createCommit)
        }
        return id
    }

    /// The raw content of commit `rev` (what git hashes after `commit <size>\0`). - Throws: `GitError.unknownRevision`.
    package func rawCommit(_ rev: String) throws -> [UInt8] {
        let id = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee }
        return try rawObject(id.hex)
    }

    /// The value of the extra header field `field` of commit `rev`, and the commit's content without it
    /// (the bytes an authentication tag covers); nil if the commit has no such field in its header.
    /// The raw commit is parsed here, not by libgit2 (whose signature reader also finds a `field` line in
    /// the message, so a field moved there would keep verifying under a new commit id): the field must be
    /// a single line of the header, before the first empty line, and must occur there once.
    /// - Throws: `GitError.unknownRevision`.
    package func authenticationField(_ field: String, of rev: String) throws -> (value: String, content: [UInt8])? {
        let id = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee }
        let bytes = try rawObject(id.hex)
        let prefix = Array((field + " ").utf8)
        var found: (start: Int, end: Int)?
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            if lineEnd == lineStart { break }  // the empty line: the message follows
            if bytes[lineStart..<lineEnd].starts(with: prefix) {
                guard found == nil else { return nil }  // twice: not a tag this code wrote
                found = (lineStart, min(lineEnd + 1, bytes.count))
            } else if let f = found, f.end == lineStart, bytes[lineStart] == 0x20 {
                return nil  // a continuation line: not a tag this code wrote
            }
            lineStart = lineEnd + 1
        }
        guard let f = found else { return nil }
        let value = String(decoding: bytes[(f.start + prefix.count)..<(f.end - 1)], as: UTF8.self)
        return (value, Array(bytes[..<f.start] + bytes[f.end...]))
    }

    /// Moves the branch HEAD names (`refs/heads/main`) from `old` (`nil`: the branch does not exist yet) to
    /// `new` as one compare-and-swap: git's ref lock, then the check that the branch still is `old`.
    /// - Throws: `GitError.branchMoved` if it is not `old` any more; `GitError.locked` when another
    ///   process holds the ref's lock file.
    package func moveBranch(from old: String?, to new: String, log message: String) throws {
        try moveRef(try headBranch(), from: old, to: new, log: message)
    }

    /// Moves the ref `branch` from `old` (`nil`: it does not exist yet) to `new` as one compare-and-swap (see `moveBranch`).
    func moveRef(_ branch: String, from old: String?, to new: String, log message: String) throws {
        var target = try Self.oid(new)
        let result: Int32 = try withRepo { repo in
            var out: OpaquePointer?
            defer { git_reference_free(out) }
            if let old {
                var expected = try Self.oid(old)
                return git_reference_create_matching(&out, repo, branch, &target, 1, &expected, message)
            }
            return git_reference_create(&out, repo, branch, &target, 0, message)
        }
        switch result {
        case 0: return
        case GIT_EMODIFIED.code, GIT_EEXISTS.code:
            git_error_clear()
            throw GitError.branchMoved(branch: branch)
        case GIT_ELOCKED.code:
            git_error_clear()
            throw GitError.locked(path: ".git/" + branch + ".lock")
        default:
            try check(result, .moveReference(branch))
        }
    }

    /// The branch HEAD points to (`refs/heads/main`), even while it has no commit.
    func headBranch() throws -> String {
        let head = try GitHandle(.readHead, owner: self, free: git_reference_free) { out in
            withRepo { git_reference_lookup(&out, $0, "HEAD") }
        }
        guard let branch = head.withPointer({ git_reference_symbolic_target($0).map { String(cString: $0) } }) else {
            throw GitError.detachedHead
        }
        return branch
    }

    /// The id of the commit HEAD points to, or `nil` on an unborn branch (no commit yet).
    package func headCommitID() throws -> String? {
        var id = git_oid()
        let result = try withRepo { try check(git_reference_name_to_id(&id, $0, "HEAD"), .readHead,
                                              allowing: [GIT_ENOTFOUND.code, GIT_EUNBORNBRANCH.code]) }
        guard result == 0 else {
            git_error_clear()
            return nil
        }
        return id.hex
    }

    /// HEAD's commit, or `nil` on an unborn branch.
    func headCommit() throws -> GitHandle? {
        try headCommitID().map { try commit(forRevision: $0) }
    }

    func lookupCommit(_ id: git_oid) throws -> GitHandle {
        var id = id
        return try GitHandle(.readCommit(id.hex), owner: self, free: git_commit_free) { out in
            withRepo { git_commit_lookup(&out, $0, &id) }
        }
    }

    /// The commit `rev` names: anything `git rev-parse` accepts ("HEAD~2", a hex id, a branch).
    func commit(forRevision rev: String) throws -> GitHandle {
        do {
            let object = try GitHandle(.resolve(revision: rev), owner: self, free: git_object_free) { out in
                withRepo { git_revparse_single(&out, $0, rev) }
            }
            return try GitHandle(.resolve(revision: rev), owner: self, free: git_commit_free) { out in
                object.withPointer { git_object_peel(&out, $0, GIT_OBJECT_COMMIT) }
            }
        } catch GitError.libgit2(let code, _, _)
                    where [GIT_ENOTFOUND, GIT_EINVALIDSPEC, GIT_EAMBIGUOUS, GIT_EPEEL].map(\.code).contains(code) {
            throw GitError.unknownRevision(rev)
        }
    }

    func tree(of commit: GitHandle) throws -> GitHandle {
        try GitHandle(.readTree(nil), owner: self, free: git_tree_free) { out in
            commit.withPointer { git_commit_tree(&out, $0) }
        }
    }

    /// The blob id of the file at `path` in commit `rev`, or `nil` if no file is there.
    /// Throws `GitError.unknownRevision` if `rev` names no commit.
    package func blobID(at rev: String, path: String) throws -> String? {
        let tree = try tree(of: commit(forRevision: rev))
        return try tree.withPointer { treePointer in
            guard let entry = try GitHandle(ifFound: .readTree(path), owner: self, free: git_tree_entry_free, acquire: {
                git_tree_entry_bypath(&$0, treePointer, path)
            }) else { return nil }
            return entry.withPointer { e in
                git_tree_entry_type(e) == GIT_OBJECT_BLOB ? git_tree_entry_id(e).pointee.hex : nil
            }
        }
    }

    /// The bytes of the file at `path` in commit `rev`, or `nil` if no file is there.
    /// Throws `GitError.unknownRevision` if `rev` names no commit.
    package func blob(at rev: String, path: String) throws -> [UInt8]? {
        try blobID(at: rev, path: path).map { try blob(id: $0) }
    }

    func blobContents(_ id: git_oid) throws -> [UInt8] {
        var id = id
        let blob = try GitHandle(.readObject(id: id.hex), owner: self, free: git_blob_free) { out in
            withRepo { git_blob_lookup(&out, $0, &id) }
        }
        return blob.withPointer { b in
            let size = Int(git_blob_rawsize(b))
            guard size > 0, let bytes = git_blob_rawcontent(b) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: size))
        }
    }

    /// The blob id git would give the file at `path` (absolute), without storing it; a symbolic link there is an
    /// error (`ELOOP`), as is a file whose size changes while it is read (`EAGAIN`). A file of up to `inMemoryUpTo`
    /// bytes (every file of a vault) is read whole and hashed by OpenSSL; a larger one by libgit2, in pieces.
    package func hashFile(_ path: String, inMemoryUpTo limit: Int = 16 << 20) throws -> String {
        if let id = try PackFileWriter.blobID(ofFile: path, upTo: limit) { return id.hex }
        var id = git_oid()
        try check(git_odb_hashfile(&id, path, GIT_OBJECT_BLOB), .hashFile(path: path))
        return id.hex
    }

    /// Every file path in HEAD's tree, sorted, with `/` separators; empty on an unborn branch.
    func trackedPaths() throws -> [String] {
        guard let head = try headCommitID() else { return [] }
        return try treeEntries(at: head).map(\.path)
    }

    /// Stages exactly the given work-tree files on top of HEAD's tree and records one commit: a
    /// convenience over `writeBlob`, `tree(from:applying:)`, `writeCommit` and `moveBranch` for callers
    /// that keep their files in the work tree. Files in `adding` must exist; paths in `removing` are
    /// taken out (the caller deletes the files). The index is refreshed for those paths afterwards.
    /// - Returns: the new commit's hex id.
    /// - Throws: `GitError.invalidPath`, `.fileNotFound`; `.nothingToCommit` when `allowEmpty` is false
    ///   and the tree equals the parent's; `.branchMoved` if HEAD moved meanwhile.
    @discardableResult
    package func commit(
        message: String, adding: [String], removing: [String] = [], signature: GitSignature? = nil, allowEmpty: Bool = false
    ) throws -> String {
        var changes: [GitTreeChange] = []
        for path in adding {
            let relative = try Self.validated(path)
            var st = stat()
            guard stat(workdir + "/" + relative, &st) == 0, st.st_mode & S_IFMT != S_IFDIR,
                  let data = FileManager.default.contents(atPath: workdir + "/" + relative) else {
                throw GitError.fileNotFound(path: relative)
            }
            changes.append(.put(path: relative, blob: try writeBlob([UInt8](data))))
        }
        for path in removing { changes.append(.remove(path: try Self.validated(path))) }
        let parent = try headCommitID()
        let treeID = try tree(from: parent, applying: changes)
        if !allowEmpty {
            if let parent, try treeEntriesID(of: parent) == treeID { throw GitError.nothingToCommit }
            if parent == nil, try treeEntries(ofTree: treeID).isEmpty { throw GitError.nothingToCommit }
        }
        let id = try writeCommit(tree: treeID, parents: parent.map { [$0] } ?? [], message: message, signature: signature)
        try moveBranch(from: parent, to: id, log: "commit: " + (message.split(separator: "\n").first.map(String.init) ?? ""))
        try refreshIndex(paths: changes.map(\.path))
        return id
    }

    /// The tree id of commit `rev`.
    package func treeEntriesID(of rev: String) throws -> String {
        try commit(forRevision: rev).withPointer { git_commit_tree_id($0).pointee.hex }
    }

    /// A relative path with `/` separators that stays inside the work tree.
    static func validated(_ path: String) throws -> String {
        // By byte, as git reads a path: every `/` separates (a combining mark after one does not hide it), and
        // `.git` in any case of its ASCII letters (no other character lowercases to one of them).
        func componentIsBad(_ c: Substring.UTF8View) -> Bool {
            switch c.count {
            case 0: return true
            case 1, 2: return c.allSatisfy { $0 == 0x2E }
            case 4: return c.first == 0x2E && zip(c.dropFirst(), [0x67, 0x69, 0x74] as [UInt8]).allSatisfy { $0 | 0x20 == $1 }
            default: return false
            }
        }
        let u = path.utf8
        guard !u.isEmpty, u.first != 0x2F, !u.contains(0),
              !u.split(separator: 0x2F, omittingEmptySubsequences: false).contains(where: componentIsBad) else {
            throw GitError.invalidPath(path)
        }
        return path
    }
}

/// Calls `body` with the pointers of `handles`, all kept alive until it returns.
@discardableResult
func withPointers<R>(_ handles: [GitHandle], _ body: ([OpaquePointer?]) throws -> R) rethrows -> R {
    func go(_ index: Int, _ collected: [OpaquePointer?]) throws -> R {
        guard index < handles.count else { return try body(collected) }
        return try handles[index].withPointer { try go(index + 1, collected + [$0]) }
    }
    return try go(0, [])
}
