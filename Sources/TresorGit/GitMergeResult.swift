// The outcome of a three-way tree merge: the merged index, its conflicts, and how to resolve them.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One path the merge could not decide, with the file as it was at each side (`nil` where the
/// file did not exist: both sides added it, or one side deleted it while the other changed it).
package struct GitConflict: Sendable, Equatable {
    /// A file version taking part in a conflict.
    package struct Version: Sendable, Equatable {
        /// The blob's hex id.
        package var id: String
        package var contents: [UInt8]
    }

    package var path: String
    /// The common ancestor's version (index stage 1).
    package var ancestor: Version?
    /// Our version (stage 2).
    package var ours: Version?
    /// Their version (stage 3).
    package var theirs: Version?
}

/// A merged tree still in memory: clean paths are merged, conflicted ones wait for
/// `write(_:at:)` or `remove(_:)`. Pass it to `GitRepository.commitMerge` when no conflict is left.
///
/// Renames are not detected: a moved file is a deletion plus an addition, so every conflict
/// concerns one path.
package final class GitMergeResult {
    let repository: GitRepository
    /// An in-memory index owned by no repository (libgit2's merge output).
    let index: GitHandle

    /// The conflicts not yet resolved, sorted by path.
    package private(set) var conflicts: [GitConflict] = []

    init(repository: GitRepository, index: GitHandle) throws {
        self.repository = repository
        self.index = index
        conflicts = try readConflicts()
    }

    /// Whether any conflict is left.
    package var hasConflicts: Bool { !conflicts.isEmpty }

    /// Every path of the merged result that is not in conflict, sorted.
    package func paths() -> [String] {
        index.withPointer { idx in
            (0..<git_index_entrycount(idx)).compactMap { number in
                guard let entry = git_index_get_byindex(idx, number), git_index_entry_stage(entry) == 0,
                      let path = entry.pointee.path else { return nil }
                return String(cString: path)
            }.sorted()
        }
    }

    /// The merged contents of `path`, or `nil` if it is absent or still in conflict.
    package func contents(at path: String) throws -> [UInt8]? {
        guard let entry = index.withPointer({ git_index_get_bypath($0, path, 0)?.pointee }) else { return nil }
        return try repository.blobContents(entry.id)
    }

    /// Sets `path` to `contents` in the merged result (a new blob in the object database),
    /// resolving its conflict if it has one. Throws `GitError.invalidPath`.
    package func write(_ contents: [UInt8], at path: String) throws {
        let relative = try GitRepository.validated(path)
        let blobID = try GitRepository.oid(try repository.writeBlob(contents))
        // A stage-0 entry does not clear stages 1–3, so drop the conflict first.
        try clearConflict(relative)
        var entry = git_index_entry()
        entry.mode = UInt32(GIT_FILEMODE_BLOB.rawValue)
        entry.id = blobID
        entry.file_size = UInt32(truncatingIfNeeded: contents.count)
        try relative.withCString { cPath in
            entry.path = cPath
            _ = try index.withPointer { try check(git_index_add($0, &entry), .resolveConflict(path: relative)) }
        }
        resolved(relative)
    }

    /// Removes `path` from the merged result, resolving its conflict if it has one.
    package func remove(_ path: String) throws {
        let relative = try GitRepository.validated(path)
        try clearConflict(relative)
        try index.withPointer { try check(git_index_remove($0, relative, 0), .resolveConflict(path: relative),
                  allowing: [GIT_ENOTFOUND.code]) }
        git_error_clear()
        resolved(relative)
    }

    /// Forgets the conflict at `path`, whose stages 1–3 were just removed; the others are unchanged.
    /// (Reading every remaining conflict's three blobs again after each resolution made merging n
    /// conflicting entries cost n² blob reads.)
    private func resolved(_ path: String) {
        conflicts.removeAll { $0.path.utf8.elementsEqual(path.utf8) }  // bytes: git paths are bytes
    }

    /// Writes the merged tree to the object database and returns its id.
    /// - Throws: `GitError.unresolvedConflicts` while conflicts are left.
    package func writeTree() throws -> String {
        guard !hasConflicts else { throw GitError.unresolvedConflicts(paths: conflicts.map(\.path)) }
        var treeID = git_oid()
        try index.withPointer { idx in
            try repository.withRepo { try check(git_index_write_tree_to(&treeID, idx, $0), .writeTree) }
        }
        return treeID.hex
    }

    private func clearConflict(_ path: String) throws {
        try index.withPointer { try check(git_index_conflict_remove($0, path), .resolveConflict(path: path), allowing: [GIT_ENOTFOUND.code]) }
        git_error_clear()
    }

    private func readConflicts() throws -> [GitConflict] {
        guard index.withPointer({ git_index_has_conflicts($0) }) != 0 else { return [] }
        let iterator = try GitHandle(.merge, free: git_index_conflict_iterator_free) { out in
            index.withPointer { git_index_conflict_iterator_new(&out, $0) }
        }
        var conflicts: [GitConflict] = []
        while true {
            var ancestor: UnsafePointer<git_index_entry>?
            var ours: UnsafePointer<git_index_entry>?
            var theirs: UnsafePointer<git_index_entry>?
            let result = try iterator.withPointer {
                try check(git_index_conflict_next(&ancestor, &ours, &theirs, $0), .merge, allowing: [GIT_ITEROVER.code])
            }
            if result == GIT_ITEROVER.code { break }
            guard let path = [ancestor, ours, theirs].lazy.compactMap({ $0?.pointee.path }).first else { continue }
            conflicts.append(GitConflict(
                path: String(cString: path),
                ancestor: try version(ancestor), ours: try version(ours), theirs: try version(theirs)
            ))
        }
        git_error_clear()
        return conflicts.sorted { $0.path < $1.path }
    }

    private func version(_ entry: UnsafePointer<git_index_entry>?) throws -> GitConflict.Version? {
        guard let entry else { return nil }
        return GitConflict.Version(id: entry.pointee.id.hex, contents: try repository.blobContents(entry.pointee.id))
    }
}
