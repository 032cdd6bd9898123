// The vault directory: where entry files and the header live, and how they are found (Spec/FORMAT.md §4).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Something wrong with a file in the vault tree, found while listing.
public struct StoreProblem: Equatable, Sendable {
    /// Why a file ending in `.json` is not listed as an entry.
    public enum Kind: Equatable, Sendable {
        /// Its name is not a valid entry path (Spec/FORMAT.md §4).
        case invalidName
        /// A symbolic link, never followed.
        case symbolicLink
        /// Neither a regular file nor a folder (a pipe, a socket, a device).
        case notRegularFile
    }

    /// Vault-relative file path.
    public let file: String
    /// What is wrong with it.
    public let kind: Kind
}

/// Entry files under a vault root. Knows the layout, not the keys.
package struct EntryStore: Sendable {
    /// Absolute path of the vault root (the git work tree).
    package let root: String
    package static let metadataDirectory = ".tresor"

    package init(root: String) { self.root = root }

    package func absolute(_ relative: String) -> String { root + "/" + relative }

    /// Every entry path in the tree, sorted, with the problems met on the way (`entryListing()`).
    package func entryPaths() -> (paths: [EntryPath], problems: [StoreProblem]) {
        let listing = entryListing()
        return (listing.paths, listing.problems)
    }

    /// Refuses a path whose parent directories include a link or a non-directory.
    func checkParents(_ p: EntryPath) throws {
        var rel = ""
        for part in p.components.dropLast() {
            rel = rel.isEmpty ? part : rel + "/" + part
            switch FileSystem.kind(absolute(rel)) {
            case .directory, .missing: continue
            case .symlink: throw CoreError.symlink(rel)
            default: throw CoreError.io(.notADirectory(path: rel))
            }
        }
    }

    /// What is at the entry's file: missing, file, symlink, …
    package func kind(of p: EntryPath) -> FileKind { FileSystem.kind(absolute(p.filePath)) }

    /// The bytes of an entry file. - Throws: `CoreError.symlink`, `.io`, `.malformed` (too large).
    package func readEntryFile(_ p: EntryPath) throws -> [UInt8] {
        try checkParents(p)
        return try FileSystem.read(absolute(p.filePath), limit: Envelope.maxFileBytes)
    }

    /// Writes an entry file atomically, creating its folders (0700).
    package func writeEntryFile(_ bytes: [UInt8], for p: EntryPath) throws {
        try checkParents(p)
        try FileSystem.makeDirectories(p.folder, under: root)
        try FileSystem.writeAtomically(bytes, to: absolute(p.filePath))
    }

    /// Removes an entry file and any folders it leaves empty.
    func removeEntryFile(_ p: EntryPath) throws {
        try checkParents(p)
        guard kind(of: p) == .file else { throw CoreError.io(.noEntryFile(path: p.filePath)) }
        try FileSystem.removeFile(p.filePath, under: root)
    }

    /// An existing file or folder whose name differs from one of `p`'s components only by case or by
    /// Unicode normalisation (such names collide on macOS and Windows checkouts; Spec/FORMAT.md §4.3).
    /// The exact match compares bytes: Swift's `==` would take a decomposed name for the same name.
    package func caseCollision(for p: EntryPath) -> String? {
        var rel = ""
        let parts = p.components
        for (i, part) in parts.enumerated() {
            let want = i == parts.count - 1 ? part + EntryPath.fileExtension : part
            let dir = rel.isEmpty ? root : absolute(rel)
            let names = FileSystem.list(dir)
            if names.contains(where: { $0.utf8.elementsEqual(want.utf8) }) { rel = rel.isEmpty ? want : rel + "/" + want; continue }
            if let other = names.first(where: { $0.lowercased() == want.lowercased() }) {
                return rel.isEmpty ? other : rel + "/" + other
            }
            return nil
        }
        return nil
    }

    /// Whether a vault-relative path is a temporary file of an atomic write (`.NAME.tmp-XXXXXXXX`).
    package static func isTemporary(_ relative: String) -> Bool {
        let name = EntryPath.split(relative).last ?? relative
        return name.hasPrefix(".") && name.contains(".tmp-")
    }

    /// Removes temporary files that interrupted writes left behind and that are older than a minute
    /// (younger ones may belong to a write in progress). Their rename never happened, so nothing
    /// stored is in them. Returns the removed vault-relative paths.
    @discardableResult
    func removeStaleTemporaryFiles(olderThan seconds: Int = 60) -> [String] {
        var removed: [String] = []
        func walk(_ rel: String) {
            for name in FileSystem.list(rel.isEmpty ? root : absolute(rel)) where name != ".git" {
                let r = rel.isEmpty ? name : rel + "/" + name
                let path = absolute(r)
                switch FileSystem.kind(path) {
                case .directory where !name.hasPrefix(".") || name == EntryStore.metadataDirectory: walk(r)
                case .file where EntryStore.isTemporary(r):
                    // (Tidying, file by file: one that cannot be looked at or removed stays, and is not listed.)
                    if let st = try? FileSystem.status(path), time(nil) - st.st_mtim.tv_sec > seconds,
                       (try? FileSystem.remove(path)) != nil { removed.append(r) }
                default: continue
                }
            }
        }
        walk("")
        return removed
    }

    /// Reads `.tresor/vault.json`.
    package func readHeader() throws -> [UInt8] {
        let meta = absolute(EntryStore.metadataDirectory)
        if FileSystem.kind(meta) == .symlink { throw CoreError.symlink(EntryStore.metadataDirectory) }
        return try FileSystem.read(absolute(VaultHeader.relativePath), limit: 1 << 20)
    }

    /// Writes `.tresor/vault.json` atomically.
    func writeHeader(_ bytes: [UInt8]) throws {
        try FileSystem.makeDirectories(EntryStore.metadataDirectory, under: root)
        try FileSystem.writeAtomically(bytes, to: absolute(VaultHeader.relativePath))
    }
}

extension String.UTF8View {
    /// True if the bytes end with `suffix` (a byte test, unlike `hasSuffix`, which compares Characters).
    func elementsEqualSuffix(_ suffix: String.UTF8View) -> Bool {
        let contiguous = withContiguousStorageIfAvailable { bytes in
            suffix.withContiguousStorageIfAvailable { end in bytes.count >= end.count && bytes[(bytes.count - end.count)...].elementsEqual(end) }
        }
        return (contiguous ?? nil) ?? (count >= suffix.count && self.suffix(suffix.count).elementsEqual(suffix))
    }
}
