// A fetched tip as the acceptance rule sees it: every tree entry in tree order, and the bytes of its small files (Spec/AUTH.md §5).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything `Acceptance.decide` reads of a tip: no git, no network (Spec/AUTH.md §5 *inputs*).
package struct TipTree: Sendable {
    /// One entry of one tree object, as the object lists it.
    package struct Item: Sendable, Equatable {
        /// The folder's components from the root (empty for the root tree).
        package var folder: [String]
        /// The name's raw bytes.
        package var name: [UInt8]
        package var mode: UInt32
        /// The object id (40 hex digits).
        package var id: String
        /// The blob's size in bytes (0 for a folder).
        package var size: Int
        package init(folder: [String], name: [UInt8], mode: UInt32, id: String, size: Int) {
            self.folder = folder; self.name = name; self.mode = mode; self.id = id; self.size = size
        }

        /// The path from the root, the name decoded as UTF-8 (invalid bytes replaced: such a name is refused anyway).
        package var path: String {
            let n = String(decoding: name, as: UTF8.self)
            return folder.isEmpty ? n : folder.joined(separator: "/") + "/" + n
        }
    }

    /// Every entry of every tree, each tree's entries in the order the tree object lists them, folders before their content.
    package var items: [Item]
    /// Path → bytes of `.tresor/vault.json`, `.tresor/scopes/*.json` and `.tresor/state/*.json`.
    package var smallFiles: [String: [UInt8]]

    package init(items: [Item], smallFiles: [String: [UInt8]]) { self.items = items; self.smallFiles = smallFiles }

    /// The files (mode 100644) with their blob ids and sizes.
    package var files: [TreeFile] {
        items.filter { $0.mode == 0o100644 }.map { TreeFile(path: $0.path, blob: $0.id, mode: $0.mode, size: $0.size) }
    }

    /// Whether a path is one whose bytes `smallFiles` must hold.
    package static func isSmallFile(_ path: String) -> Bool {
        path == VaultHeader.relativePath || ScopeHeader.scopeID(ofPath: path) != nil || StateRecord.domain(ofPath: path) != nil
    }
}
