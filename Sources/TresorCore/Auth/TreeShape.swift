// The shape a version 5 tree may have: names, modes, order, sizes and which files (Spec/AUTH.md rules tree-shape, foreign-file).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Rules `tree-shape` and `foreign-file` of Spec/AUTH.md §5.2 on every entry of every tree of a tip.
package enum TreeShape {
    /// Files a tree may hold.
    package static let maxFiles = 200_000
    /// Folders on the way to an entry file (an entry path has at most 16 components).
    package static let maxDepth = EntryPath.maxDepth

    /// Checks every item (Spec/AUTH.md §5.2). - Throws: `AcceptanceRefusal`.
    package static func check(_ items: [TipTree.Item]) throws {
        var previous: [[String]: [UInt8]] = [:]
        var count = 0
        // A folder with a name git refuses is refused naming the first file in it (the offending file), or itself when
        // it holds none.
        var refusedFolder: String?
        for item in items {
            let path = item.path
            func refuse(_ rule: AcceptanceRule, _ finding: AcceptanceRefusal.Finding) -> AcceptanceRefusal { AcceptanceRefusal(rule, path: path, finding) }
            if let folder = refusedFolder {
                guard EntryPath.isInside(path, folder: folder) else { throw AcceptanceRefusal(.treeShape, path: folder, .nameGitRefuses(folder: nil)) }
                if item.mode != 0o40000 { throw refuse(.treeShape, .nameGitRefuses(folder: folder)) }
                continue
            }
            let name = item.name
            // git's tree order: names compared as bytes, a folder as if it ended in "/"; no name twice.
            let key = name + (item.mode == 0o40000 ? [0x2F] : [])
            if let p = previous[item.folder], !p.lexicographicallyPrecedes(key) { throw refuse(.treeShape, .nameOutOfOrder) }
            previous[item.folder] = key
            if name.isEmpty || name == [0x2E] || name == [0x2E, 0x2E] || name.contains(0) || name.contains(0x2F)
                || String(decoding: name, as: UTF8.self).lowercased() == ".git" {
                if item.mode == 0o40000 { refusedFolder = path; continue }
                throw refuse(.treeShape, .nameGitRefuses(folder: nil))
            }
            switch item.mode {
            case 0o40000:
                try checkFolder(name, folder: item.folder, path: path)
            case 0o100644:
                guard item.size <= Envelope.maxFileBytes else { throw refuse(.treeShape, .fileTooLarge(limit: Envelope.maxFileBytes)) }
                count += 1
                guard count <= maxFiles else { throw refuse(.treeShape, .tooManyFiles(limit: maxFiles)) }
                guard isVaultFile(path) else { throw refuse(.foreignFile, .fileNoDomainGoverns) }
            case 0o120000: throw refuse(.treeShape, .symbolicLink)
            case 0o100755: throw refuse(.treeShape, .executable)
            case 0o160000: throw refuse(.treeShape, .submodule)
            default: throw refuse(.treeShape, .mode(UInt32(item.mode)))
            }
        }
        if let folder = refusedFolder { throw AcceptanceRefusal(.treeShape, path: folder, .nameGitRefuses(folder: nil)) }
    }

    /// A folder is `.tresor` at the top, `scopes` or `state` in it, or a folder an entry path can have.
    static func checkFolder(_ name: [UInt8], folder: [String], path: String) throws {
        if folder.isEmpty, name == Array(EntryStore.metadataDirectory.utf8) { return }
        if folder == [EntryStore.metadataDirectory] {
            guard name == Array("scopes".utf8) || name == Array("state".utf8) else {
                throw AcceptanceRefusal(.foreignFile, path: path, .folderNoDomainGoverns)
            }
            return
        }
        if folder.first == EntryStore.metadataDirectory { throw AcceptanceRefusal(.foreignFile, path: path, .folderNoDomainGoverns) }
        guard folder.count + 1 < maxDepth else { throw AcceptanceRefusal(.treeShape, path: path, .foldersTooDeep(limit: maxDepth - 1)) }
        // A valid component, byte for byte NFC, not ending in .json (Spec/FORMAT.md §4.2).
        guard let component = String(validating: name, as: UTF8.self), let p = try? EntryPath(component + "/x"),
              p.components.count == 2, Array(p.components[0].utf8) == name else {
            throw AcceptanceRefusal(.foreignFile, path: path, .folderNoEntryPathCanHave)
        }
    }

    /// `.gitattributes`, the vault header, a scope header, a state record, or an entry file (Spec/FORMAT.md §11.7).
    static func isVaultFile(_ path: String) -> Bool {
        if path == ".gitattributes" || path == VaultHeader.relativePath { return true }
        if ScopeHeader.scopeID(ofPath: path) != nil || StateRecord.domain(ofPath: path) != nil { return true }
        if EntryPath.isInside(path, folder: EntryStore.metadataDirectory) { return false }
        return EntryPath(filePath: path) != nil
    }
}
