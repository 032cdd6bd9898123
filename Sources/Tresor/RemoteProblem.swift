// Why a file or commit made with plain git was refused, and a commit no key holder made.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// Why a file or commit from a remote was refused (Spec/MERGE.md §13.3). Nothing was merged.
public enum RemoteProblem: Equatable, Sendable {
    /// A symbolic link (git mode 120000).
    case symlink
    /// An executable file (git mode 100755).
    case executable
    /// A submodule (a commit inside the tree).
    case submodule
    /// A mode git does not write for files or folders.
    case strangeMode(UInt32)
    /// A file larger than `limit` bytes.
    case tooLarge(limit: Int)
    /// A name git itself refuses or hides: empty, `.`, `..`, `.git` in any case, containing `/` or NUL.
    case nameGitRefuses
    /// A name that is neither an entry, a folder of entries, nor one of the vault's own files.
    case foreignFile
    /// The same name twice in one folder, or names out of git's order.
    case duplicateName
    /// Folders nested deeper than `limit`.
    case tooDeep(limit: Int)
    /// More than `limit` files in the tree.
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
    case damagedTree(GitError.TreeProblem)
}

/// A commit that was not made by a holder of the vault key, with the paths it changes.
public struct ForeignCommit: Equatable, Sendable {
    /// The commit id (hexadecimal).
    public var id: String
    /// The first line of the commit's message.
    public var summary: String
    /// The vault-relative paths the commit changes.
    public var paths: [String]
}

