// Which tags a version 4 commit must carry: the files it changes and their governing keys (Spec/FORMAT.md §3.12.6).
import Foundation

/// The per-key acceptance rule's pure part. A file's governing key depends on the vault header of the commit it is
/// read at, so a file can be "changed" against a parent without a new blob: when the parent's header puts it under
/// another key (a merge that takes a file unchanged from a branch where no scope covered it brings it in under a
/// key whose holders never tagged it).
public enum CommitKeyRule {
    /// The tag field of the governing key of `path` under a vault header whose scopes are `scopes` (scope id →
    /// folder; empty below version 4 or when the header cannot be read): the scope's for its header file and for entry
    /// files in its folder, the vault key's for everything else.
    public static func governingField(of path: String, scopes: [String: String]) -> String {
        if let id = ScopeHeader.scopeID(ofPath: path) { return CommitTags.field(scopeID: id) }
        if let entry = EntryPath(filePath: path), let id = scopes.first(where: { entry.string.hasPrefix($0.value + "/") })?.key {
            return CommitTags.field(scopeID: id)
        }
        return CommitTags.vaultField
    }

    /// The files a commit changes, each with the fields whose tags it must carry for it (those of the keys a replica
    /// holds must verify). A file is changed against a parent when the parent holds another blob or mode at its path,
    /// or none, or its governing key differs between the parent's header and the commit's; it is changed by the
    /// commit when changed against every parent (every file of a root commit). It needs the tag of its governing key
    /// under the commit's header and under every parent's.
    /// - Parameters:
    ///   - scopes: the scopes of the commit's vault header.
    ///   - parents: for each parent, its header's scopes and the paths whose blob or mode differ between it and the
    ///     commit (present on one side only included).
    ///   - files: every path of the commit's tree and its parents' trees; asked only for a root commit or when a
    ///     parent's scopes differ from the commit's.
    public static func requiredFields(scopes: [String: String], parents: [(scopes: [String: String], changed: Set<String>)],
                                      files: () throws -> Set<String>) rethrows -> [String: Set<String>] {
        var candidates = Set<String>()
        for p in parents { candidates.formUnion(p.changed) }
        if parents.isEmpty || parents.contains(where: { $0.scopes != scopes }) { candidates.formUnion(try files()) }
        var required: [String: Set<String>] = [:]
        for path in candidates {
            let own = governingField(of: path, scopes: scopes)
            let theirs = parents.map { governingField(of: path, scopes: $0.scopes) }
            let changed = zip(parents, theirs).allSatisfy { p, field in p.changed.contains(path) || field != own }
            if changed { required[path] = Set([own] + theirs) }
        }
        return required
    }
}
