// Merging histories: merge bases, three-way tree merges, merge commits, fast-forwards and extra refs.
internal import CGit2
import Foundation

extension GitRepository {
    /// The commit id `rev` names (a hex id, "HEAD~1", "main", "refs/remotes/origin/main"),
    /// or `nil` if it names no commit.
    public func resolve(_ rev: String) -> String? {
        guard let commit = try? commit(forRevision: rev) else { return nil }
        return withExtendedLifetime(commit) { git_commit_id(commit.pointer).pointee.hex }
    }

    /// The best common ancestor of two commits, or `nil` if their histories share none.
    /// Throws `GitError.unknownRevision` if either names no commit.
    public func mergeBase(_ a: String, _ b: String) throws -> String? {
        let first = try commit(forRevision: a), second = try commit(forRevision: b)
        defer { withExtendedLifetime((first, second)) {} }
        var one = git_commit_id(first.pointer).pointee
        var two = git_commit_id(second.pointer).pointee
        var base = git_oid()
        let result = try check(git_merge_base(&base, raw, &one, &two), "finding the merge base of \"\(a)\" and \"\(b)\"",
                               allowing: [GIT_ENOTFOUND.code])
        guard result == 0 else {
            git_error_clear()
            return nil
        }
        return base.hex
    }

    /// Merges the trees of `ours` and `theirs` against `base` (`nil` for unrelated histories:
    /// then both sides count as added). Nothing on disk changes except new objects.
    /// Throws `GitError.unknownRevision` for a revision that names no commit.
    public func mergeTrees(base: String?, ours: String, theirs: String) throws -> GitMergeResult {
        let baseTree = try base.map { try tree(of: commit(forRevision: $0)) }
        defer { withExtendedLifetime(baseTree) {} }
        let ourTree = try tree(of: commit(forRevision: ours))
        defer { withExtendedLifetime(ourTree) {} }
        let theirTree = try tree(of: commit(forRevision: theirs))
        defer { withExtendedLifetime(theirTree) {} }
        var options = git_merge_options()
        try check(git_merge_options_init(&options, UInt32(GIT_MERGE_OPTIONS_VERSION)), "preparing to merge")
        // No rename detection: each conflict then concerns exactly one path.
        options.flags = 0
        let index = try GitHandle("merging \"\(theirs)\" into \"\(ours)\"", free: git_index_free) {
            git_merge_trees(&$0, raw, baseTree?.pointer, ourTree.pointer, theirTree.pointer, &options)
        }
        defer { withExtendedLifetime(index) {} }
        return try GitMergeResult(repository: self, index: index)
    }

    /// Records `merge` as a commit with parents `ours` (which must be HEAD) and `theirs`, moves
    /// HEAD's branch to it and updates the work tree and index.
    /// - Returns: the merge commit's hex id.
    /// - Throws: `GitError.unresolvedConflicts` if conflicts are left; `GitError.uncommittedChanges`
    ///   if the work tree differs from HEAD (it would be overwritten); `GitError.libgit2` if
    ///   HEAD is not `ours`.
    @discardableResult
    public func commitMerge(
        message: String, ours: String, theirs: String, merge: GitMergeResult, signature: GitSignature? = nil
    ) throws -> String {
        guard !merge.hasConflicts else { throw GitError.unresolvedConflicts(paths: merge.conflicts.map(\.path)) }
        try requireCleanWorkTree()
        let ourCommit = try commit(forRevision: ours)
        defer { withExtendedLifetime(ourCommit) {} }
        let theirCommit = try commit(forRevision: theirs)
        defer { withExtendedLifetime(theirCommit) {} }
        var treeID = git_oid()
        try check(git_index_write_tree_to(&treeID, merge.index.pointer, raw), "writing the merged tree")
        let id = try createCommit(tree: treeID, parents: [ourCommit, theirCommit], message: message,
                                  signature: signature ?? defaultSignature(), updating: nil)
        let summary = message.split(separator: "\n").first.map(String.init) ?? ""
        try moveBranch(to: id, from: git_commit_id(ourCommit.pointer).pointee, log: "merge: \(summary)")
        try checkoutHead()
        return id.hex
    }

    /// Moves HEAD's branch forward to `rev` and updates the work tree and index. Does nothing
    /// if HEAD already is `rev`; on an unborn branch, makes the branch start at `rev`.
    /// - Throws: `GitError.notFastForward` if `rev` does not contain HEAD;
    ///   `GitError.uncommittedChanges` if the work tree differs from HEAD.
    public func fastForward(to rev: String) throws {
        let target = try commit(forRevision: rev)
        defer { withExtendedLifetime(target) {} }
        let targetID = git_commit_id(target.pointer).pointee
        let head = try headCommit()
        defer { withExtendedLifetime(head) {} }
        let headID = head.map { git_commit_id($0.pointer).pointee }
        if let headID {
            if headID.isSame(as: targetID) { return }
            var descendant = targetID, ancestor = headID
            let isDescendant = try check(git_graph_descendant_of(raw, &descendant, &ancestor),
                                         "checking that \"\(rev)\" contains HEAD")
            guard isDescendant == 1 else { throw GitError.notFastForward(rev) }
        }
        try requireCleanWorkTree()
        try moveBranch(to: targetID, from: headID, log: "fast-forward to \(targetID.hex)")
        try checkoutHead()
    }

    /// Points the reference `name` (which must start with `refs/`, e.g.
    /// `refs/tresor/pre-sync/20240101T120000Z`) at the commit `rev` names, replacing any old value.
    /// Throws `GitError.unknownRevision`, or `GitError.libgit2` for an invalid name.
    public func setRef(name: String, to rev: String) throws {
        guard name.hasPrefix("refs/") else {
            throw GitError.libgit2(code: GIT_EINVALIDSPEC.code, message: "reference names must start with \"refs/\"",
                                   context: "setting \"\(name)\"")
        }
        let target = try commit(forRevision: rev)
        defer { withExtendedLifetime(target) {} }
        var id = git_commit_id(target.pointer).pointee
        _ = try GitHandle("setting \"\(name)\"", owner: self, free: git_reference_free) {
            git_reference_create(&$0, raw, name, &id, 1, "tresor: set \(name)")
        }
    }

    /// Throws `GitError.uncommittedChanges` unless the work tree and index match HEAD.
    private func requireCleanWorkTree() throws {
        let dirty = try uncommittedPaths()
        guard dirty.isEmpty else { throw GitError.uncommittedChanges(paths: dirty) }
    }

    /// Moves the branch HEAD points to from `old` (`nil`: unborn) to `new`, failing if someone
    /// else moved it meanwhile.
    private func moveBranch(to new: git_oid, from old: git_oid?, log message: String) throws {
        let head = try GitHandle("reading HEAD", owner: self, free: git_reference_free) {
            git_reference_lookup(&$0, raw, "HEAD")
        }
        defer { withExtendedLifetime(head) {} }
        guard let target = git_reference_symbolic_target(head.pointer) else {
            throw GitError.libgit2(code: GIT_ERROR.code, message: "HEAD is detached", context: "moving the branch")
        }
        let branch = String(cString: target)
        var new = new
        if var old {
            _ = try GitHandle("moving \"\(branch)\"", owner: self, free: git_reference_free) {
                git_reference_create_matching(&$0, raw, branch, &new, 1, &old, message)
            }
        } else {
            _ = try GitHandle("creating \"\(branch)\"", owner: self, free: git_reference_free) {
                git_reference_create(&$0, raw, branch, &new, 0, message)
            }
        }
    }

    /// Makes the work tree and index match HEAD. FORCE, because HEAD has already moved and SAFE
    /// would compare against the new tree and leave the old files; callers check first that
    /// nothing uncommitted would be lost.
    func checkoutHead() throws {
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), "preparing a checkout")
        options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue
        // The work tree holds secrets (encrypted, but names and sizes are private too): 0600 files, 0700 folders.
        options.file_mode = 0o600
        options.dir_mode = 0o700
        try check(git_checkout_head(raw, &options), "updating the work tree")
    }
}
