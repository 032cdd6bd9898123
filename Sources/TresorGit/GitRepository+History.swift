// Reading history and state: the commit log, what a commit changed, and uncommitted paths.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// `scanning`: look at no more than that many commits, newest first by time (for a quick answer on a long history).
    package func log(path: String? = nil, limit: Int? = nil, scanning: Int? = nil) throws -> [GitCommit] {
        guard try headCommitID() != nil else { return [] }
        return try walk(from: ["HEAD"], hiding: [], limit: limit, scanning: scanning) { commit in
            if let path, try !changes(path, in: commit) { return .skip }
            return .take
        }
    }

    /// Commits reachable from `tips` but not from `hidden`, newest first (git's `tips ^hidden`).
    package func commits(from tips: [String], excluding hidden: [String]) throws -> [GitCommit] {
        try walk(from: tips, hiding: hidden, limit: nil) { _ in .take }
    }

    private enum WalkDecision { case take, skip }

    private func walk(from tips: [String], hiding hidden: [String], limit: Int?, scanning: Int? = nil,
                      _ decide: (GitHandle) throws -> WalkDecision) throws -> [GitCommit] {
        let walk = try GitHandle(.walkHistory(from: nil), owner: self, free: git_revwalk_free) { out in
            withRepo { git_revwalk_new(&out, $0) }
        }
        return try walk.withPointer { w in
            // A topological order needs the whole graph first; a bounded scan goes by time and stops early.
            try check(git_revwalk_sorting(w, scanning == nil ? GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue : GIT_SORT_TIME.rawValue), .walkHistory(from: nil))
            for tip in tips {
                var id = try commit(forRevision: tip).withPointer { git_commit_id($0).pointee }
                try check(git_revwalk_push(w, &id), .walkHistory(from: tip))
            }
            for rev in hidden {
                var id = try commit(forRevision: rev).withPointer { git_commit_id($0).pointee }
                try check(git_revwalk_hide(w, &id), .walkHistory(from: nil))
            }
            var commits: [GitCommit] = []
            var id = git_oid()
            var scanned = 0
            while commits.count < (limit ?? Int.max), scanned < (scanning ?? Int.max),
                  try check(git_revwalk_next(&id, w), .walkHistory(from: nil), allowing: [GIT_ITEROVER.code]) == 0 {
                scanned += 1
                let commit = try lookupCommit(id)
                if try decide(commit) == .take { commits.append(Self.describe(commit)) }
            }
            git_error_clear()
            return commits
        }
    }

    /// Whether `commit` changed `path`, by the rule documented on `log(path:limit:)`.
    private func changes(_ path: String, in commit: GitHandle) throws -> Bool {
        let mine = try entryID(path, in: commit)
        let count = commit.withPointer { git_commit_parentcount($0) }
        guard count > 0 else { return mine != nil }
        for number in 0..<count {
            let parent = try GitHandle(.readCommit(nil), owner: self, free: git_commit_free) { out in
                commit.withPointer { git_commit_parent(&out, $0, number) }
            }
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
        let entry = try tree.withPointer { t in
            try GitHandle(ifFound: .readTree(path), owner: self, free: git_tree_entry_free) {
                git_tree_entry_bypath(&$0, t, path)
            }
        }
        return entry?.withPointer { git_tree_entry_id($0).pointee }
    }

    /// Copies a commit's fields into a `GitCommit`.
    static func describe(_ commit: GitHandle) -> GitCommit {
        commit.withPointer { pointer in
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
    }

    /// The paths commit `id` changed relative to its first parent (every file for a root commit),
    /// sorted by path. Moves without content change are reported as `.renamed(from:)`.
    /// Throws `GitError.unknownRevision` if `id` names no commit.
    package func changes(in id: String) throws -> [GitChange] {
        let parent = try commitInfo(id).parents.first
        return try changes(from: parent, to: id, detectRenames: true)
    }

    /// The paths whose file differs between commits `old` (`nil`: nothing) and `new`, sorted by path.
    /// With `detectRenames`, moves without content change are reported as `.renamed(from:)`.
    package func changes(from old: String?, to new: String, detectRenames: Bool = false) throws -> [GitChange] {
        let newTree = try tree(of: commit(forRevision: new))
        let oldTree = try old.map { try tree(of: commit(forRevision: $0)) }
        let diff = try GitHandle(.compareTrees, owner: self, free: git_diff_free) { out in
            withRepo { repo in
                newTree.withPointer { n in
                    if let oldTree { return oldTree.withPointer { o in git_diff_tree_to_tree(&out, repo, o, n, nil) } }
                    return git_diff_tree_to_tree(&out, repo, nil, n, nil)
                }
            }
        }
        return try diff.withPointer { d in
            if detectRenames {
                var find = git_diff_find_options()
                try check(git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION)), .compareTrees)
                find.flags = GIT_DIFF_FIND_RENAMES.rawValue | GIT_DIFF_FIND_EXACT_MATCH_ONLY.rawValue
                try check(git_diff_find_similar(d, &find), .compareTrees)
            }
            var changes: [GitChange] = []
            for number in 0..<git_diff_num_deltas(d) {
                guard let delta = git_diff_get_delta(d, number)?.pointee else { continue }
                let oldPath = delta.old_file.path.map { String(cString: $0) } ?? ""
                let newPath = delta.new_file.path.map { String(cString: $0) } ?? oldPath
                switch delta.status {
                case GIT_DELTA_ADDED: changes.append(GitChange(path: newPath, kind: .added))
                case GIT_DELTA_DELETED: changes.append(GitChange(path: oldPath, kind: .deleted))
                case GIT_DELTA_RENAMED: changes.append(GitChange(path: newPath, kind: .renamed(from: oldPath)))
                case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE: changes.append(GitChange(path: newPath, kind: .modified))
                default: continue
                }
            }
            return changes.sorted { GitIndexFile.precedes($0.path, $1.path) }
        }
    }

    /// Paths whose index or work-tree state differs from HEAD, untracked files included and
    /// ignored ones excluded; sorted, relative, with `/` separators. Walks the whole work tree.
    package func uncommittedPaths() throws -> [String] {
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), .status)
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        let list = try GitHandle(.status, owner: self, free: git_status_list_free) { out in
            withRepo { git_status_list_new(&out, $0, &options) }
        }
        return list.withPointer { l in
            var paths = Set<String>()
            for number in 0..<git_status_list_entrycount(l) {
                guard let entry = git_status_byindex(l, number)?.pointee else { continue }
                for delta in [entry.head_to_index, entry.index_to_workdir].compactMap({ $0?.pointee }) {
                    for file in [delta.old_file, delta.new_file] {
                        if let path = file.path { paths.insert(String(cString: path)) }
                    }
                }
            }
            return paths.sorted()
        }
    }
}
