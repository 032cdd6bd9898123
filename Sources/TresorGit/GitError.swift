// The git layer's one error type, and the one place where libgit2 return codes become Swift errors.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Failures of the git layer. Messages start lowercase, end without a period, and carry a
/// `hint:` line when the user has a next step.
public enum GitError: LocalizedError, Equatable, Sendable {
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
    /// The remote could not be reached (network, DNS, refused connection, missing repository).
    case unreachable(url: String, reason: String)
    /// A remote that is a local path (or `file://` URL) names nothing that exists.
    case localRemoteMissing(path: String)
    /// A remote that is a local path names a file or directory that is not a git repository.
    case localRemoteNotARepository(path: String)
    /// The remote refused every credential we could offer.
    case authenticationFailed(url: String, reason: String)
    /// libssh2 could not use the key (typically an RSA key against a modern server).
    case unsupportedSSHKey(url: String)
    /// No key file of a type libssh2 can use was found, only these (DSA or FIDO keys, with their type).
    case unusableSSHKeys(url: String, keys: [String])
    /// The server's host key is unknown or does not match `~/.ssh/known_hosts`.
    case hostKeyRejected(url: String)
    /// The remote refused the push, usually because it has commits we have not merged.
    case pushRejected(remote: String, reason: String)
    /// The branch was not where a compare-and-swap expected it: someone moved it meanwhile.
    case branchMoved(branch: String)
    /// Another process holds a git lock file (relative to the work tree, e.g. `.git/index.lock`).
    case locked(path: String)
    /// A tree object whose bytes do not parse.
    case malformedTree(id: String, reason: String)
    /// Any other libgit2 failure: `context` says what we were doing, `message` is libgit2's text.
    case libgit2(code: Int32, message: String, context: String)

    public var errorDescription: String? {
        switch self {
        case .notARepository(let path):
            return "no git repository at \"\(path)\""
                + "\nhint: check the path, or create the vault there first"
        case .alreadyExists(let path):
            return "a git repository already exists at \"\(path)\""
                + "\nhint: open it instead, or choose an empty directory"
        case .destinationNotEmpty(let path):
            return "cannot clone into \"\(path)\": the directory is not empty"
                + "\nhint: choose a new or empty directory"
        case .notOwned(let path):
            return "the repository at \"\(path)\" is owned by another user"
                + "\nhint: run as the owner, or change the owner of the directory"
        case .fileNotFound(let path):
            return "cannot stage \"\(path)\": no such file in the work tree"
        case .invalidPath(let path):
            return "invalid path \"\(path)\": paths must be relative and stay inside the work tree"
        case .nothingToCommit:
            return "nothing to commit: the tree is the same as the last commit's"
        case .unknownRevision(let rev):
            return "unknown revision \"\(rev)\""
        case .uncommittedChanges(let paths):
            return "the work tree has uncommitted changes: " + Self.list(paths)
                + "\nhint: commit or remove them, then try again"
        case .unresolvedConflicts(let paths):
            return "the merge still has conflicts: " + Self.list(paths)
                + "\nhint: resolve or remove every conflicted path before committing"
        case .remoteNotFound(let name):
            return "no remote named \"\(name)\""
                + "\nhint: add it first"
        case .notFastForward(let rev):
            return "cannot fast-forward to \"\(rev)\": HEAD has commits it does not contain"
                + "\nhint: merge instead"
        case .remoteExists(let name):
            return "a remote named \"\(name)\" already exists"
                + "\nhint: remove it first, or choose another name"
        case .unreachable(let url, let reason):
            return "cannot reach \"\(url)\": \(reason)"
                + "\nhint: check the URL and your network connection"
        case .localRemoteMissing(let path):
            return "the remote \"\(path)\" does not exist"
        case .localRemoteNotARepository(let path):
            return "the remote \"\(path)\" is not a git repository"
        case .authenticationFailed(let url, let reason):
            return "authentication to \"\(url)\" failed: \(reason)"
                + "\nhint: start ssh-agent with your key or add ~/.ssh/id_ed25519; for https, let git's credential"
                + " helper store the credential, or set TRESOR_GIT_USERNAME and TRESOR_GIT_TOKEN"
        case .unsupportedSSHKey(let url):
            return "the ssh server at \"\(url)\" refused the RSA key: libssh2 signs RSA keys only with SHA-1"
                + " (ssh-rsa), which OpenSSH 8.8 and later refuse by default"
                + "\nhint: use an ed25519 key (ssh-keygen -t ed25519) or ssh-agent"
        case .unusableSSHKeys(let url, let keys):
            return "no usable ssh key for \"\(url)\": " + keys.joined(separator: ", ")
                + " cannot be used (libssh2 supports ed25519, ECDSA and RSA keys, not DSA or FIDO security keys)"
                + "\nhint: use an ed25519 key (ssh-keygen -t ed25519) or ssh-agent"
        case .hostKeyRejected(let url):
            return "the host key of \"\(url)\" is unknown or has changed"
                + "\nhint: connect once with ssh to check it and add it to ~/.ssh/known_hosts"
        case .pushRejected(let remote, let reason):
            return "push to \"\(remote)\" was rejected: \(reason)"
                + "\nhint: fetch and merge the remote changes, then push again"
        case .branchMoved(let branch):
            return "\"\(branch)\" moved while this change was being made; nothing was changed"
                + "\nhint: run the command again"
        case .locked(let path):
            return "\"\(path)\" exists: another git process is working in this repository"
                + "\nhint: wait for it to finish; if none is running, the file was left by a crash and can be removed"
        case .malformedTree(let id, let reason):
            return "tree \(id) is damaged: \(reason)"
        case .libgit2(_, let message, let context):
            return "\(context): \(message)"
        }
    }

    private static func list(_ paths: [String]) -> String {
        let shown = paths.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
        return paths.count > 5 ? shown + " and \(paths.count - 5) more" : shown
    }
}

/// The one funnel for libgit2 return codes: a negative `result` becomes `GitError.libgit2` with
/// libgit2's last error message, unless it is one of the codes in `allowing`, which the caller
/// handles itself. Returns `result` so callers can use non-negative values (counts, booleans).
@discardableResult
func check(_ result: Int32, _ context: @autoclosure () -> String, allowing: Set<Int32> = []) throws -> Int32 {
    guard result < 0, !allowing.contains(result) else { return result }
    throw GitError.libgit2(code: result, message: lastErrorMessage(code: result), context: context())
}

/// libgit2's thread-local message for the last failure, cleared after reading.
func lastErrorMessage(code: Int32) -> String {
    defer { git_error_clear() }
    guard let error = git_error_last(), let text = error.pointee.message else {
        return "libgit2 error \(code)"
    }
    let message = GitStrings.trimming(String(cString: text), GitStrings.isWhitespaceOrNewline)
    return message.isEmpty ? "libgit2 error \(code)" : message
}

extension git_error_code {
    /// The code as `Int32`, the type libgit2 functions return.
    var code: Int32 { rawValue }
}
