// Reading history and state: the commit log, what a commit changed, and uncommitted paths.
internal import CGit2
import Foundation

extension GitRepository {
    /// Commits reachable from HEAD, newest first (topological order, ties broken by time).
    ///
    /// With `path`, only commits that changed that file (or directory) are listed: a commit with
    /// one parent is listed if the path's content differs from its parent's; a root commit if the
    /// path exists in it; a merge commit only if the path differs from *every* parent, that is,
    /// when the merge itself produced new content (as `git log -- path` does by default). The
    /// commits that brought changes in from either side are listed on their own.
    /// - Parameter limit: at most this many commits, counted after filtering by `path`.
    /// - Returns: an empty list on an unborn branch.
    public func log(path: String? = nil, limit: Int? = nil) throws -> [GitCommit] {
        guard try headCommit() != nil else { return [] }
        let walk = try GitHandle("starting a history walk", owner: self, free: git_revwalk_free) {
            git_revwalk_new(&$0, raw)
        }
        defer { withExtendedLifetime(walk) {} }
        try check(git_revwalk_sorting(walk.pointer, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue),
                  "sorting history")
        try check(git_revwalk_push_head(walk.pointer), "walking history from HEAD")
        var commits: [GitCommit] = []
        var id = git_oid()
        while try check(git_revwalk_next(&id, walk.pointer), "walking history", allowing: [GIT_ITEROVER.code]) == 0 {
            if let limit, commits.count >= limit { break }
            let commit = try lookupCommit(id)
            defer { withExtendedLifetime(commit) {} }
            if let path, try !changes(path, in: commit) { continue }
            commits.append(Self.describe(commit))
        }
        git_error_clear()
        return commits
    }

    /// Whether `commit` changed `path`, by the rule documented on `log(path:limit:)`.
    private func changes(_ path: String, in commit: GitHandle) throws -> Bool {
        let mine = try entryID(path, in: commit)
        let count = git_commit_parentcount(commit.pointer)
        guard count > 0 else { return mine != nil }
        for number in 0..<count {
            let parent = try GitHandle("reading a parent commit", owner: self, free: git_commit_free) {
                git_commit_parent(&$0, commit.pointer, number)
            }
            defer { withExtendedLifetime(parent) {} }
            let theirs = try entryID(path, in: parent)
            let same = switch (mine, theirs) {
            case (nil, nil): true
            case let (a?, b?): a.isSame(as: b)
            default: false
            }
            if same { return false }
        }
        return true
    }

    /// The object id stored at `path` in `commit`'s tree, `nil` if absent.
    private func entryID(_ path: String, in commit: GitHandle) throws -> git_oid? {
        let tree = try tree(of: commit)
        defer { withExtendedLifetime(tree) {} }
        let entry = try GitHandle(ifFound: "finding \"\(path)\"", owner: self, free: git_tree_entry_free) {
            git_tree_entry_bypath(&$0, tree.pointer, path)
        }
        defer { withExtendedLifetime(entry) {} }
        return entry.map { git_tree_entry_id($0.pointer).pointee }
    }

    /// Copies a commit's fields into a `GitCommit`.
    static func describe(_ commit: GitHandle) -> GitCommit {
        let pointer = commit.pointer
        let (author, date) = GitSignature.from(git_commit_author(pointer))
        return GitCommit(
            id: git_commit_id(pointer).pointee.hex,
            parents: (0..<git_commit_parentcount(pointer)).map { git_commit_parent_id(pointer, $0).pointee.hex },
            author: author,
            date: date,
            message: git_commit_message(pointer).map { String(cString: $0) } ?? "",
            summary: git_commit_summary(pointer).map { String(cString: $0) } ?? ""
        )
    }

    /// The paths commit `id` changed relative to its first parent (every file for a root commit),
    /// sorted by path. Moves without content change are reported as `.renamed(from:)`.
    /// Throws `GitError.unknownRevision` if `id` names no commit.
    public func changes(in id: String) throws -> [GitChange] {
        let commit = try commit(forRevision: id)
        defer { withExtendedLifetime(commit) {} }
        let newTree = try tree(of: commit)
        defer { withExtendedLifetime(newTree) {} }
        var oldTree: GitHandle?
        if git_commit_parentcount(commit.pointer) > 0 {
            let parent = try GitHandle("reading the parent commit", owner: self, free: git_commit_free) {
                git_commit_parent(&$0, commit.pointer, 0)
            }
            defer { withExtendedLifetime(parent) {} }
            oldTree = try tree(of: parent)
        }
        let diff = try GitHandle("comparing trees", owner: self, free: git_diff_free) {
            git_diff_tree_to_tree(&$0, raw, oldTree?.pointer, newTree.pointer, nil)
        }
        defer { withExtendedLifetime(diff) {} }
        var find = git_diff_find_options()
        try check(git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION)), "preparing rename detection")
        find.flags = GIT_DIFF_FIND_RENAMES.rawValue | GIT_DIFF_FIND_EXACT_MATCH_ONLY.rawValue
        try check(git_diff_find_similar(diff.pointer, &find), "detecting renames")

        var changes: [GitChange] = []
        for number in 0..<git_diff_num_deltas(diff.pointer) {
            guard let delta = git_diff_get_delta(diff.pointer, number)?.pointee else { continue }
            let old = delta.old_file.path.map { String(cString: $0) } ?? ""
            let new = delta.new_file.path.map { String(cString: $0) } ?? old
            switch delta.status {
            case GIT_DELTA_ADDED: changes.append(GitChange(path: new, kind: .added))
            case GIT_DELTA_DELETED: changes.append(GitChange(path: old, kind: .deleted))
            case GIT_DELTA_RENAMED: changes.append(GitChange(path: new, kind: .renamed(from: old)))
            case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE: changes.append(GitChange(path: new, kind: .modified))
            default: continue
            }
        }
        return changes.sorted { $0.path < $1.path }
    }

    /// Paths whose index or work-tree state differs from HEAD, untracked files included and
    /// ignored ones excluded; sorted, relative, with `/` separators.
    public func uncommittedPaths() throws -> [String] {
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), "preparing a status check")
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        let list = try GitHandle("reading the work tree status", owner: self, free: git_status_list_free) {
            git_status_list_new(&$0, raw, &options)
        }
        defer { withExtendedLifetime(list) {} }
        var paths = Set<String>()
        for number in 0..<git_status_list_entrycount(list.pointer) {
            guard let entry = git_status_byindex(list.pointer, number)?.pointee else { continue }
            for delta in [entry.head_to_index, entry.index_to_workdir].compactMap({ $0?.pointee }) {
                for file in [delta.old_file, delta.new_file] {
                    if let path = file.path { paths.insert(String(cString: path)) }
                }
            }
        }
        return paths.sorted()
    }
}
