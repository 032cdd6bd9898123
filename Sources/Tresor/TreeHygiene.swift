// The shape a vault's tree may have, checked on the raw tree objects before anything from elsewhere is used.
import Foundation
import TresorCore
import TresorGit

/// Why a file or commit from a remote was refused (Spec/MERGE.md §13.3). Nothing was merged.
public enum RemoteProblem: Equatable, Sendable {
    case symlink
    case executable
    case submodule
    /// A mode git does not write for files or folders.
    case strangeMode(UInt32)
    case tooLarge(limit: Int)
    /// A name git itself refuses or hides: empty, `.`, `..`, `.git` in any case, containing `/` or NUL.
    case nameGitRefuses
    /// A name that is neither an entry, a folder of entries, nor one of the vault's own files.
    case foreignFile
    /// The same name twice in one folder, or names out of git's order.
    case duplicateName
    case tooDeep(limit: Int)
    case tooManyFiles(limit: Int)
    /// The same file content at a second path (an entry names one path inside; a copy can only be a trick).
    case sameFileTwice(other: String)
    /// `.gitattributes` differs from the one tresor writes (it decides which merge driver git runs).
    case attributesChanged
    /// An entry file that does not open or names another path.
    case entry(CoreError)
    /// The vault header does not parse, is not this vault's, or is older than allowed.
    case header(CoreError)
    /// A version 1 header arriving at a version 2 vault.
    case downgrade(version: Int)
    /// A tree object that does not parse.
    case damagedTree(reason: String)
}

/// A commit that was not made by a holder of the vault key, with the paths it changes.
public struct ForeignCommit: Equatable, Sendable {
    public var id: String
    public var summary: String
    public var paths: [String]
}

/// Walks a commit's tree through the raw tree objects and refuses anything a vault never holds.
struct TreeHygiene {
    /// Entries an incoming tree may hold.
    static let maxFiles = 200_000
    /// Folders on the way to an entry file (an entry path has at most 16 components).
    static let maxDepth = EntryPath.maxDepth
    static let maxTreeBytes = 64 << 20

    let repo: GitRepository

    /// Every file of commit `rev`'s tree (vault-relative path → blob id), after checking the rules of
    /// Spec/MERGE.md §13.3 on every name, mode and size. - Throws: `VaultError.hostileRemote`.
    func files(of rev: String) throws -> [(path: String, blob: String)] {
        let root = try Vault.git { try repo.treeEntriesID(of: rev) }
        var out: [(path: String, blob: String)] = []
        var seenBlobs: [String: String] = [:]
        try walk(tree: root, folder: [], into: &out, seenBlobs: &seenBlobs)
        return out
    }

    private func refuse(_ path: String, _ problem: RemoteProblem) -> VaultError {
        .hostileRemote(file: path, problem: problem)
    }

    private func walk(tree: String, folder: [String], into out: inout [(path: String, blob: String)],
                      seenBlobs: inout [String: String]) throws {
        let here = folder.joined(separator: "/")
        let entries: [GitRawTreeEntry]
        do { entries = try repo.rawTree(tree, limit: Self.maxTreeBytes) }
        catch GitError.malformedTree(_, let reason) { throw refuse(here.isEmpty ? "/" : here, .damagedTree(reason: reason)) }
        catch let e as GitError { throw VaultError.git(e) }
        var previous: [UInt8]?
        for entry in entries {
            let shown = String(decoding: entry.name, as: UTF8.self)
            let path = here.isEmpty ? shown : here + "/" + shown
            let isTree = entry.mode == 0o40000
            // git's tree order: names compared as bytes, a folder as if it ended in "/".
            let key = entry.name + (isTree ? [0x2F] : [])
            if let previous, !previous.lexicographicallyPrecedes(key) { throw refuse(path, .duplicateName) }
            previous = key
            let name = entry.name
            if name.isEmpty || name == [0x2E] || name == [0x2E, 0x2E] || name.contains(0) || name.contains(0x2F)
                || String(decoding: name, as: UTF8.self).lowercased() == ".git" {
                throw refuse(path, .nameGitRefuses)
            }
            switch entry.mode {
            case 0o40000:
                try checkFolderName(name, path: path, depth: folder.count)
                try walk(tree: entry.id, folder: folder + [shown], into: &out, seenBlobs: &seenBlobs)
            case 0o100644:
                try checkFile(path, depth: folder.count)
                let size = try Vault.git { try repo.objectHeader(entry.id) }
                guard size.kind == .blob else { throw refuse(path, .strangeMode(entry.mode)) }
                guard size.size <= Envelope.maxFileBytes else { throw refuse(path, .tooLarge(limit: Envelope.maxFileBytes)) }
                if let other = seenBlobs[entry.id] { throw refuse(path, .sameFileTwice(other: other)) }
                seenBlobs[entry.id] = path
                out.append((path, entry.id))
                guard out.count <= Self.maxFiles else { throw refuse(path, .tooManyFiles(limit: Self.maxFiles)) }
            case 0o120000: throw refuse(path, .symlink)
            case 0o100755: throw refuse(path, .executable)
            case 0o160000: throw refuse(path, .submodule)
            default: throw refuse(path, .strangeMode(entry.mode))
            }
        }
    }

    /// A folder is `.tresor` at the top, or a folder an entry path can have.
    private func checkFolderName(_ name: [UInt8], path: String, depth: Int) throws {
        if depth == 0, name == Array(EntryStore.metadataDirectory.utf8) { return }
        guard depth + 1 < Self.maxDepth else { throw refuse(path, .tooDeep(limit: Self.maxDepth)) }
        // A valid component, byte for byte NFC, not ending in .json (Spec/FORMAT.md §4.2).
        guard let component = String(validating: name, as: UTF8.self), let p = try? EntryPath(component + "/x"),
              p.components.count == 2, Array(p.components[0].utf8) == name else { throw refuse(path, .foreignFile) }
    }

    /// A file is the header, `.gitattributes`, or an entry file at a valid entry path.
    private func checkFile(_ path: String, depth: Int) throws {
        if path == VaultHeader.relativePath || path == SyncSetup.attributesFile { return }
        // A scope header (Spec/FORMAT.md §3.12.2); the snapshot checks that the vault header lists it.
        if ScopeHeader.scopeID(ofPath: path) != nil { return }
        if path.hasPrefix(EntryStore.metadataDirectory + "/") { throw refuse(path, .foreignFile) }
        guard EntryPath(filePath: path) != nil else { throw refuse(path, .foreignFile) }
    }
}
