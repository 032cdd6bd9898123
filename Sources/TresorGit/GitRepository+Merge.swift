// Merging histories: merge bases, three-way tree merges, fast-forwards of a fresh clone and extra refs.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension GitRepository {
    /// The commit id `rev` names (a hex id, "HEAD~1", "main", "refs/remotes/origin/main"),
    /// or `nil` if it names no commit, or if the repository cannot be read: for callers to whom both mean the same (a
    /// check then made the long way). Where the answer decides trust, `commitID(of:)` tells the two apart.
    package func resolve(_ rev: String) -> String? {
        (try? commitID(of: rev)) ?? nil
    }

    /// The commit id `rev` names, nil if it names no commit. - Throws: `GitError` when the repository cannot be read.
    package func commitID(of rev: String) throws -> String? {
        let commit: GitHandle
        do { commit = try self.commit(forRevision: rev) } catch GitError.unknownRevision { return nil }
        return commit.withPointer { git_commit_id($0).pointee.hex }
    }

    /// The best common ancestor of two commits, or `nil` if their histories share none.
    /// Throws `GitError.unknownRevision` if either names no commit.
    package func mergeBase(_ a: String, _ b: String) throws -> String? {
        var one = try commit(forRevision: a).withPointer { git_commit_id($0).pointee }
        var two = try commit(forRevision: b).withPointer { git_commit_id($0).pointee }
        var base = git_oid()
        let result = try withRepo {
            try check(git_merge_base(&base, $0, &one, &two), .mergeBase(a, b),
                      allowing: [GIT_ENOTFOUND.code])
        }
        guard result == 0 else {
            git_error_clear()
            return nil
        }
        return base.hex
    }

    /// Whether commit `descendant` contains commit `ancestor` (equal commits count).
    package func contains(_ descendant: String, _ ancestor: String) throws -> Bool {
        var d = try commit(forRevision: descendant).withPointer { git_commit_id($0).pointee }
        var a = try commit(forRevision: ancestor).withPointer { git_commit_id($0).pointee }
        if d.isSame(as: a) { return true }
        return try withRepo { try check(git_graph_descendant_of($0, &d, &a), .compareCommits(descendant, ancestor)) } == 1
    }

    /// Merges the trees of `ours` and `theirs` against `base` (`nil` for unrelated histories:
    /// then both sides count as added). Nothing on disk changes except new objects.
    /// Throws `GitError.unknownRevision` for a revision that names no commit.
    package func mergeTrees(base: String?, ours: String, theirs: String) throws -> GitMergeResult {
        let baseTree = try base.map { try tree(of: commit(forRevision: $0)) }
        let ourTree = try tree(of: commit(forRevision: ours))
        let theirTree = try tree(of: commit(forRevision: theirs))
        var options = git_merge_options()
        try check(git_merge_options_init(&options, UInt32(GIT_MERGE_OPTIONS_VERSION)), .merge)
        // No rename detection: each conflict then concerns exactly one path.
        options.flags = 0
        let handles = [baseTree, ourTree, theirTree].compactMap { $0 }
        let index = try GitHandle(.merge, free: git_index_free) { out in
            withRepo { repo in
                withPointers(handles) { p in
                    baseTree == nil ? git_merge_trees(&out, repo, nil, p[0], p[1], &options)
                                    : git_merge_trees(&out, repo, p[0], p[1], p[2], &options)
                }
            }
        }
        return try GitMergeResult(repository: self, index: index)
    }

    /// Moves HEAD's branch forward to `rev` and checks out the whole tree, overwriting the work tree.
    /// For a fresh clone (an unborn branch, or no local changes to keep).
    /// - Throws: `GitError.notFastForward` if `rev` does not contain HEAD.
    func fastForward(to rev: String) throws {
        let target = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee.hex }
        let head = try headCommitID()
        if let head {
            if head == target { return }
            guard try contains(target, head) else { throw GitError.notFastForward(rev) }
        }
        try moveBranch(from: head, to: target, log: "fast-forward to \(target)")
        try checkoutHead()
    }

    /// Points the reference `name` (which must start with `refs/`, e.g.
    /// `refs/tresor/pre-sync/20240101T120000Z`) at the commit `rev` names, replacing any old value.
    /// Throws `GitError.unknownRevision`, or `GitError.libgit2` for an invalid name.
    package func setRef(name: String, to rev: String) throws {
        guard name.hasPrefix("refs/") else {
            throw GitError.libgit2(code: GIT_EINVALIDSPEC.code, message: nil, operation: .moveReference(name))
        }
        var id = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee }
        _ = try GitHandle(.moveReference(name), owner: self, free: git_reference_free) { out in
            withRepo { git_reference_create(&out, $0, name, &id, 1, "tresor: set \(name)") }
        }
    }

    /// Deletes the reference `name` if it exists.
    package func deleteRef(name: String) throws {
        let result = try withRepo { try check(git_reference_remove($0, name), .removeReference(name), allowing: [GIT_ENOTFOUND.code]) }
        if result != 0 { git_error_clear() }
    }

    /// The references whose names match `glob` (e.g. `refs/remotes/*`), with the commit each points at
    /// (symbolic references resolved; references that name no commit are left out).
    package func references(matching glob: String) throws -> [(name: String, commit: String)] {
        let iterator = try GitHandle(.listReferences, owner: self, free: git_reference_iterator_free) { out in
            withRepo { git_reference_iterator_glob_new(&out, $0, glob) }
        }
        var found: [(name: String, commit: String)] = []
        while true {
            var ref: OpaquePointer?
            let code = iterator.withPointer { git_reference_next(&ref, $0) }
            if code == GIT_ITEROVER.code { git_error_clear(); break }
            try check(code, .listReferences)
            defer { git_reference_free(ref) }
            let name = String(cString: git_reference_name(ref))
            if let commit = resolve(name) { found.append((name, commit)) }
        }
        return found.sorted { $0.name < $1.name }
    }
}
