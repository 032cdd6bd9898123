// Listing a commit's tree with modes, sizes and blob ids, and reading blobs by id.
internal import CGit2
import Foundation

/// One entry of a commit's tree, as stored (nothing is checked out).
public struct GitTreeEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case file, executable, symlink, submodule, other }
    /// Path with `/` separators, relative to the root.
    public var path: String
    public var kind: Kind
    /// The object's hex id (a blob for files and links).
    public var id: String
}

private final class TreeCollector {
    var entries: [GitTreeEntry] = []
}

extension GitRepository {
    /// Every non-directory entry of the tree of commit `rev`, sorted by path.
    /// Throws `GitError.unknownRevision` if `rev` names no commit.
    public func treeEntries(at rev: String) throws -> [GitTreeEntry] {
        let tree = try tree(of: commit(forRevision: rev))
        defer { withExtendedLifetime(tree) {} }
        let collector = TreeCollector()
        try withExtendedLifetime(collector) {
            _ = try check(
                git_tree_walk(tree.pointer, GIT_TREEWALK_PRE, { root, entry, payload in
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
                }, Unmanaged.passUnretained(collector).toOpaque()),
                "listing the files of \"\(rev)\""
            )
        }
        return collector.entries.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// The size in bytes of the blob `id`, without reading it.
    public func blobSize(id: String) throws -> Int {
        var oid = try GitRepository.oid(id)
        let blob = try GitHandle("reading blob \(id)", owner: self, free: git_blob_free) { git_blob_lookup(&$0, raw, &oid) }
        defer { withExtendedLifetime(blob) {} }
        return Int(git_blob_rawsize(blob.pointer))
    }

    /// The contents of the blob `id`.
    public func blob(id: String) throws -> [UInt8] {
        try blobContents(try GitRepository.oid(id))
    }

    static func oid(_ hex: String) throws -> git_oid {
        var oid = git_oid()
        try check(git_oid_fromstr(&oid, hex), "parsing object id \"\(hex)\"")
        return oid
    }
}

extension GitRepository {
    /// Makes the work tree and index match HEAD, overwriting local changes: finishes a checkout that
    /// was interrupted after HEAD moved. Callers must know nothing uncommitted is there to lose.
    public func finishCheckout() throws {
        try checkoutHead()
    }
}

extension GitRepository {
    /// The commit `rev` names. Throws `GitError.unknownRevision`.
    public func commitInfo(_ rev: String) throws -> GitCommit {
        Self.describe(try commit(forRevision: rev))
    }
}
