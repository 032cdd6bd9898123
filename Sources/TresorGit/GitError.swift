// The git layer's one error type, and the one place where libgit2 return codes become Swift errors.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Failures of the git layer. Cases carry data (paths, remotes, libgit2's code and text, what was being done);
/// the front end words them.
public enum GitError: Error, Equatable, Sendable {
    /// There is no git repository whose work tree is `path`.
    case notARepository(path: String)
    /// `create(at:)` found a repository already there.
    case alreadyExists(path: String)
    /// `clone` needs a missing or empty directory.
    case destinationNotEmpty(path: String)
    /// The repository at `path` belongs to another user and libgit2 refuses to open it.
    case notOwned(path: String)
    /// A path given to `commit` does not exist in the work tree.
    case fileNotFound(path: String)
    /// A path is absolute, leaves the work tree, or is otherwise unusable in the index.
    case invalidPath(String)
    /// The commit would record the same tree as its parent.
    case nothingToCommit
    /// A revision string that names no commit.
    case unknownRevision(String)
    /// An operation that rewrites the work tree found local changes it would overwrite.
    case uncommittedChanges(paths: [String])
    /// A merge still has conflicted paths.
    case unresolvedConflicts(paths: [String])
    /// No remote of that name.
    case remoteNotFound(String)
    /// `fastForward(to:)` was asked to move to a commit that does not contain HEAD.
    case notFastForward(String)
    /// A remote of that name already exists.
    case remoteExists(String)
    /// The remote could not be reached (network, DNS, refused connection, missing repository): libgit2's `message`,
    /// and the `~/.ssh/config` options tresor does not follow that were set for the host (`ProxyJump`, …).
    case unreachable(url: String, message: String?, optionsNotFollowed: [String])
    /// A remote that is a local path (or `file://` URL) names nothing that exists.
    case localRemoteMissing(path: String)
    /// A remote that is a local path names a file or directory that is not a git repository.
    case localRemoteNotARepository(path: String)
    /// The remote refused every credential we could offer (libgit2's `message`).
    case authenticationFailed(url: String, message: String?)
    /// libssh2 could not use the key (typically an RSA key against a modern server).
    case unsupportedSSHKey(url: String)
    /// No key file of a type libssh2 can use was found, only these.
    case unusableSSHKeys(url: String, keys: [UnusableKey])
    /// The server's host key is unknown or does not match `~/.ssh/known_hosts`.
    case hostKeyRejected(url: String)
    /// The remote refused the push.
    case pushRejected(remote: String, reason: PushRefusal)
    /// The branch was not where a compare-and-swap expected it: someone moved it meanwhile.
    case branchMoved(branch: String)
    /// Another process holds a git lock file (relative to the work tree, e.g. `.git/index.lock`).
    case locked(path: String)
    /// A tree object whose bytes do not parse (`id` empty when libgit2 found it while fetching).
    case malformedTree(id: String, reason: TreeProblem)
    /// HEAD is not a symbolic reference to a branch.
    case detachedHead
    /// Any other libgit2 failure: libgit2's `code` and `message` (nil when it gave none), and what was being done.
    case libgit2(code: Int32, message: String?, operation: Operation)
    /// A system call failed with `errno` while the git layer did `operation` itself (not through libgit2).
    case system(errno: Int32, operation: Operation)

    /// A key file libssh2 cannot use.
    public struct UnusableKey: Equatable, Sendable {
        /// The key types libssh2 cannot use.
        public enum Kind: String, Equatable, Sendable {
            /// A DSA key (`ssh-dss`).
            case dsa
            /// A FIDO security key (`sk-…`).
            case fido
        }
        /// The key file.
        public var path: String
        /// Its type.
        public var kind: Kind
        /// The key file at `path`, of type `kind`.
        public init(path: String, kind: Kind) { self.path = path; self.kind = kind }
    }

    /// Why a push was refused.
    public enum PushRefusal: Equatable, Sendable {
        /// The remote has commits that are not here (not a fast-forward).
        case notFastForward
        /// The remote's branch moved after it was read (the lease broke).
        case remoteMoved
        /// The remote refused these references, with its status text for each.
        case refused([RefStatus])
    }

    /// The remote's answer for one reference of a push.
    public struct RefStatus: Equatable, Sendable {
        /// The reference pushed (`refs/heads/main`).
        public var ref: String
        /// The remote's own text.
        public var status: String
        /// The remote's `status` for `ref`.
        public init(ref: String, status: String) { self.ref = ref; self.status = status }
    }

    /// Why the bytes of a tree object do not parse.
    public enum TreeProblem: Equatable, Sendable {
        /// The object is not a tree.
        case notATree
        /// Larger than `limit` bytes.
        case tooLarge(limit: Int)
        /// A mode with a leading zero.
        case zeroPaddedMode
        /// A mode that is not octal.
        case modeNotOctal
        /// The object ends inside an entry.
        case truncatedEntry
        /// libgit2 could not parse what the remote sent (its message).
        case unparsable(String)
    }

    /// What the git layer was doing when libgit2 failed.
    public enum Operation: Equatable, Sendable {
        /// Opening the repository at `path`.
        case openRepository(path: String)
        /// Creating a repository at `path`.
        case createRepository(path: String)
        /// Reading the configuration (the value of `key`, when given).
        case readConfiguration(key: String?)
        /// Setting `key` in the repository's configuration.
        case writeConfiguration(key: String)
        /// Opening, reading or resetting the index.
        case readIndex
        /// Writing the index.
        case writeIndex
        /// Adding the file at `path` to the index.
        case stage(path: String)
        /// Removing the file at `path` from the index.
        case unstage(path: String)
        /// Updating the work tree.
        case checkout
        /// Reading the work tree's status.
        case status
        /// Opening the object database.
        case openObjectDatabase
        /// Reading the object `id`.
        case readObject(id: String)
        /// Storing a file's content as a blob.
        case storeFile
        /// Hashing the file at `path`.
        case hashFile(path: String)
        /// Building or writing a pack.
        case writePack
        /// Compressing an object for a pack (the code is zlib's status).
        case compressObject
        /// Moving the objects a quarantine at `path` received into the repository.
        case takeInObjects(path: String)
        /// Reading a tree (by id or path; nil: an empty or a commit's tree).
        case readTree(String?)
        /// Building or writing a tree.
        case writeTree
        /// Reading a commit (nil: a parent).
        case readCommit(String?)
        /// Reading HEAD.
        case readHead
        /// Resolving a revision (or an object id) to a commit.
        case resolve(revision: String)
        /// Making a commit (its message, signature and object).
        case createCommit
        /// Setting or moving a reference.
        case moveReference(String)
        /// Deleting a reference.
        case removeReference(String)
        /// Listing references.
        case listReferences
        /// Merging two commits or listing the merge's conflicts.
        case merge
        /// Finding the merge base of two commits.
        case mergeBase(String, String)
        /// Finding whether the first commit descends from the second.
        case compareCommits(String, String)
        /// Resolving the conflict at `path` in a merge's index.
        case resolveConflict(path: String)
        /// Walking history (from this tip, when given).
        case walkHistory(from: String?)
        /// Comparing two trees (and detecting renames).
        case compareTrees
        /// Adding a remote of that name.
        case addRemote(String)
        /// Looking up the remote of that name.
        case lookUpRemote(String)
        /// Removing the remote of that name.
        case removeRemote(String)
        /// Listing the remotes.
        case listRemotes
        /// Fetching (from this remote, when known).
        case fetch(remote: String?)
        /// Connecting (to this remote, when known).
        case connect(remote: String?)
        /// Pushing (to this remote, when known).
        case push(remote: String?)
    }
}

/// The one funnel for libgit2 return codes: a negative `result` becomes `GitError.libgit2` with
/// libgit2's last error message and what was being done, unless it is one of the codes in `allowing`, which the caller
/// handles itself. Returns `result` so callers can use non-negative values (counts, booleans).
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> GitError.Operation, allowing: Set<Int32> = []) throws -> Int32 {
    guard result < 0, !allowing.contains(result) else { return result }
    throw GitError.libgit2(code: result, message: lastErrorMessage(), operation: operation())
}

/// libgit2's thread-local message for the last failure (nil when it set none), cleared after reading.
func lastErrorMessage() -> String? {
    defer { git_error_clear() }
    guard let error = git_error_last(), let text = error.pointee.message else { return nil }
    let message = GitStrings.trimming(String(cString: text), GitStrings.isWhitespaceOrNewline)
    return message.isEmpty ? nil : message
}

extension git_error_code {
    /// The code as `Int32`, the type libgit2 functions return.
    var code: Int32 { rawValue }
}
