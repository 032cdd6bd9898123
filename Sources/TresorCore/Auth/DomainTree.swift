// The git tree of one domain's files, whose id a state record binds (Spec/FORMAT.md §11.6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a git tree object.
package struct RawTreeEntry: Sendable, Equatable {
    package var name: [UInt8]
    package var mode: UInt32
    /// 40 lowercase hex digits.
    package var id: String
    package init(name: [UInt8], mode: UInt32, id: String) { self.name = name; self.mode = mode; self.id = id }
}

/// Where `DomainTree` reads tree objects from: the entries of the tree at a folder of a commit (nil when there is no
/// such folder).
package protocol TreeSource {
    func entries(of folder: [String]) throws -> [RawTreeEntry]?
}

/// Spec/FORMAT.md §11.6: the id of a domain's tree, rebuilding only the trees on the way to what is left out.
package enum DomainTree {
    /// The git id of a tree holding `entries` (sorted here into git's order).
    package static func treeID(_ entries: [RawTreeEntry]) throws -> String {
        var content: [UInt8] = []
        for e in entries.sorted(by: { gitOrder($0) .lexicographicallyPrecedes(gitOrder($1)) }) {
            guard let id = StateRecord.hexBytes(e.id), id.count == 20 else { throw CoreError.malformed(.member(.gitTree, name: "id", expected: .objectID)) }
            content += Array(String(e.mode, radix: 8).utf8) + [0x20] + e.name + [0] + id
        }
        let object = Array("tree \(content.count)\u{0}".utf8) + content
        return Hex.lower(object.withUnsafeBytes { LibCrypto.digest(.sha1, $0) })
    }

    static func gitOrder(_ e: RawTreeEntry) -> [UInt8] { e.name + (e.mode == 0o40000 ? [0x2F] : []) }

    /// The id of domain `domain`'s tree in the commit `source` reads, under a vault header whose scopes are `scopes`.
    /// - Throws: what `source` throws; `CoreError.malformed` for a bad object id.
    package static func id(domain: String, scopes: [String: String], source: TreeSource) throws -> String {
        if domain == Domain.vault {
            var removed: [[String]] = [[EntryStore.metadataDirectory, "state"], [EntryStore.metadataDirectory, "scopes"]]
            removed += scopes.values.map(EntryPath.split)
            return try build([], removed: removed, source: source) ?? treeID([])
        }
        guard let folder = scopes[domain] else { throw CoreError.malformed(.mismatch(.noSuchScope(domain))) }
        var entries: [RawTreeEntry] = []
        let parts = EntryPath.split(folder)
        if let e = try source.entries(of: Array(parts.dropLast()))?.first(where: { $0.mode == 0o40000 && $0.name == Array(parts.last!.utf8) }) {
            entries.append(RawTreeEntry(name: Array("entries".utf8), mode: 0o40000, id: e.id))
        }
        if let h = try source.entries(of: [EntryStore.metadataDirectory, "scopes"])?.first(where: { $0.name == Array((domain + ".json").utf8) }) {
            entries.append(RawTreeEntry(name: Array("header".utf8), mode: 0o100644, id: h.id))
        }
        return try treeID(entries)
    }

    /// The tree of `folder` without the `removed` folders; nil when nothing is left.
    private static func build(_ folder: [String], removed: [[String]], source: TreeSource) throws -> String? {
        var out: [RawTreeEntry] = []
        for e in try source.entries(of: folder) ?? [] {
            let path = folder + [String(decoding: e.name, as: UTF8.self)]
            if e.mode == 0o40000 {
                if removed.contains(path) { continue }
                if removed.contains(where: { $0.count > path.count && Array($0.prefix(path.count)) == path }) {
                    if let id = try build(path, removed: removed, source: source) { out.append(RawTreeEntry(name: e.name, mode: e.mode, id: id)) }
                    continue
                }
            }
            out.append(e)
        }
        return out.isEmpty ? nil : try treeID(out)
    }
}

extension TipTree: TreeSource {
    /// The entries of the tree at `folder`, as the tip's items list them.
    package func entries(of folder: [String]) throws -> [RawTreeEntry]? {
        let found = items.filter { $0.folder == folder }.map { RawTreeEntry(name: $0.name, mode: $0.mode, id: $0.id) }
        if found.isEmpty && !folder.isEmpty { return nil }
        return found
    }
}

/// The trees of a set of files given as path → blob id (a commit about to be written).
package final class FileMapTree: TreeSource {
    private var files: [[String]: [RawTreeEntry]] = [:]
    private var folders: [[String]: Set<String>] = [:]
    private var ids: [[String]: String] = [:]

    package init(_ blobs: [String: String]) {
        for (path, blob) in blobs {
            let parts = EntryPath.split(path)
            let folder = Array(parts.dropLast())
            files[folder, default: []].append(RawTreeEntry(name: Array(parts.last!.utf8), mode: 0o100644, id: blob))
            for i in 0..<folder.count { folders[Array(folder.prefix(i)), default: []].insert(folder[i]) }
            if folders[folder] == nil { folders[folder] = [] }
        }
        if folders[[]] == nil { folders[[]] = [] }
    }

    package func entries(of folder: [String]) throws -> [RawTreeEntry]? {
        guard let subfolders = folders[folder] else { return nil }
        var out = files[folder] ?? []
        for name in subfolders { out.append(RawTreeEntry(name: Array(name.utf8), mode: 0o40000, id: try id(of: folder + [name]))) }
        return out
    }

    private func id(of folder: [String]) throws -> String {
        if let known = ids[folder] { return known }
        let id = try DomainTree.treeID(try entries(of: folder) ?? [])
        ids[folder] = id
        return id
    }
}
