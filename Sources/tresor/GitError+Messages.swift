// The words for the git layer's errors: libgit2's code and text, what was being done, and the next step.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

extension GitError {
    var message: String {
        switch self {
        case .localRemoteMissing(let path):
            return "the remote \(Output.quoted(path)) does not exist: no such file or directory"
                + "\nhint: check the path; a new remote can be an empty bare repository (git init --bare PATH)"
        case .localRemoteNotARepository(let path):
            return "the remote \(Output.quoted(path)) is not a git repository"
                + "\nhint: point the remote at a vault's repository or an empty bare repository (git init --bare)"
        case .notARepository(let path):
            return "no git repository at \(Output.quoted(path))\nhint: check the path, or create the vault there first"
        case .alreadyExists(let path):
            return "a git repository already exists at \(Output.quoted(path))\nhint: open it instead, or choose an empty directory"
        case .destinationNotEmpty(let path):
            return "cannot clone into \(Output.quoted(path)): the directory is not empty\nhint: choose a new or empty directory"
        case .notOwned(let path):
            return "the repository at \(Output.quoted(path)) is owned by another user\nhint: run as the owner, or change the owner of the directory"
        case .fileNotFound(let path):
            return "cannot stage \(Output.quoted(path)): no such file in the work tree"
        case .invalidPath(let path):
            return "invalid path \(Output.quoted(path)): paths must be relative and stay inside the work tree"
        case .nothingToCommit:
            return "nothing to commit: the tree is the same as the last commit's"
        case .unknownRevision(let rev):
            return "unknown revision \(Output.quoted(rev))"
        case .uncommittedChanges(let paths):
            return "the work tree has uncommitted changes: " + Self.list(paths) + "\nhint: commit or remove them, then try again"
        case .unresolvedConflicts(let paths):
            return "the merge still has conflicts: " + Self.list(paths) + "\nhint: resolve or remove every conflicted path before committing"
        case .remoteNotFound(let name):
            return "no remote named \(Output.quoted(name))\nhint: add it first"
        case .notFastForward(let rev):
            return "cannot fast-forward to \(Output.quoted(rev)): HEAD has commits it does not contain\nhint: merge instead"
        case .remoteExists(let name):
            return "a remote named \(Output.quoted(name)) already exists\nhint: remove it first, or choose another name"
        case .unreachable(let url, let message, let notFollowed):
            let note = notFollowed.isEmpty ? "" : " (tresor connects directly: \(notFollowed.joined(separator: " and ")) in ~/.ssh/config is not followed)"
            return "cannot reach \(Output.quoted(url))" + (message.map { ": " + Output.escaped($0) } ?? "") + note
                + "\nhint: check the URL and your network connection"
        case .authenticationFailed(let url, let message):
            return "authentication to \(Output.quoted(url)) failed" + (message.map { ": " + Output.escaped($0) } ?? "")
                + "\nhint: start ssh-agent with your key or add ~/.ssh/id_ed25519; for https, let git's credential"
                + " helper store the credential, or set TRESOR_GIT_USERNAME and TRESOR_GIT_TOKEN"
        case .unsupportedSSHKey(let url):
            return "the ssh server at \(Output.quoted(url)) refused the RSA key: libssh2 signs RSA keys only with SHA-1"
                + " (ssh-rsa), which OpenSSH 8.8 and later refuse by default"
                + "\nhint: use an ed25519 key (ssh-keygen -t ed25519) or ssh-agent"
        case .unusableSSHKeys(let url, let keys):
            return "no usable ssh key for \(Output.quoted(url)): "
                + keys.map { "\(Output.quoted($0.path)) (\($0.kind == .dsa ? "DSA" : "FIDO"))" }.joined(separator: ", ")
                + " cannot be used (libssh2 supports ed25519, ECDSA and RSA keys, not DSA or FIDO security keys)"
                + "\nhint: use an ed25519 key (ssh-keygen -t ed25519) or ssh-agent"
        case .hostKeyRejected(let url):
            return "the host key of \(Output.quoted(url)) is unknown or has changed"
                + "\nhint: connect once with ssh to check it and add it to ~/.ssh/known_hosts"
        case .pushRejected(let remote, let reason):
            let why: String
            switch reason {
            case .notFastForward: why = "the remote has commits that are not here"
            case .remoteMoved: why = "the remote moved"
            case .refused(let refs): why = refs.map { "\(Output.escaped($0.ref)): \(Output.escaped($0.status))" }.joined(separator: "; ")
            }
            return "push to \(Output.quoted(remote)) was rejected: \(why)\nhint: fetch and merge the remote changes, then push again"
        case .branchMoved(let branch):
            return "\(Output.quoted(branch)) moved while this change was being made; nothing was changed\nhint: run the command again"
        case .locked(let path):
            return "\(Output.quoted(path)) exists: another git process is working in this repository"
                + "\nhint: wait for it to finish; if none is running, the file was left by a crash and can be removed"
        case .malformedTree(let id, let problem):
            return (id.isEmpty ? "a tree the remote sent is damaged: " : "tree \(id) is damaged: ") + problem.message
        case .detachedHead:
            return "the repository's HEAD is detached: it names a commit, not a branch\nhint: 'git -C VAULT checkout main' puts it back on the vault's branch"
        case .libgit2(let code, let message, let operation):
            return "\(operation.text): " + (message.map(Output.escaped) ?? "libgit2 error \(code)")
        case .system(let errno, let operation):
            return "\(operation.text): " + String(cString: strerror(errno))
        }
    }

    private static func list(_ paths: [String]) -> String {
        let shown = paths.prefix(5).map(Output.quoted).joined(separator: ", ")
        return paths.count > 5 ? shown + " and \(paths.count - 5) more" : shown
    }
}

extension GitError.TreeProblem {
    var message: String {
        switch self {
        case .notATree: return "not a tree object"
        case .tooLarge(let limit): return "larger than \(limit) bytes"
        case .zeroPaddedMode: return "a zero-padded mode"
        case .modeNotOctal: return "a mode that is not octal"
        case .truncatedEntry: return "a truncated entry"
        case .unparsable(let message): return Output.escaped(message)
        }
    }
}

extension GitError.Operation {
    /// What the git layer was doing, after which libgit2's message follows.
    var text: String {
        let q = Output.quoted
        switch self {
        case .openRepository(let path): return "opening the repository at \(q(path))"
        case .createRepository(let path): return "creating a repository at \(q(path))"
        case .readConfiguration(let key?): return "reading \(q(key))"
        case .readConfiguration(nil): return "reading the configuration"
        case .writeConfiguration(let key): return "setting \(q(key))"
        case .readIndex: return "reading the index"
        case .writeIndex: return "writing the index"
        case .stage(let path): return "staging \(q(path))"
        case .unstage(let path): return "unstaging \(q(path))"
        case .checkout: return "updating the work tree"
        case .status: return "reading the work tree status"
        case .openObjectDatabase: return "opening the object database"
        case .readObject(let id): return "reading object \(id)"
        case .storeFile: return "storing a file"
        case .hashFile(let path): return "hashing \(q(path))"
        case .writePack: return "writing a pack"
        case .compressObject: return "compressing an object (zlib)"
        case .takeInObjects(let path): return "taking in the objects received in \(q(path))"
        case .readTree(let tree?): return "reading tree \(q(tree))"
        case .readTree(nil): return "reading a tree"
        case .writeTree: return "writing a tree"
        case .readCommit(let id?): return "reading commit \(id)"
        case .readCommit(nil): return "reading a commit"
        case .readHead: return "reading HEAD"
        case .resolve(let rev): return "resolving \(q(rev))"
        case .createCommit: return "creating the commit"
        case .moveReference(let name): return "moving \(q(name))"
        case .removeReference(let name): return "removing \(q(name))"
        case .listReferences: return "listing references"
        case .merge: return "merging"
        case .mergeBase(let a, let b): return "finding the merge base of \(q(a)) and \(q(b))"
        case .compareCommits(let a, let b): return "comparing \(q(a)) and \(q(b))"
        case .resolveConflict(let path): return "resolving \(q(path)) in the merge"
        case .walkHistory(let tip?): return "walking history from \(q(tip))"
        case .walkHistory(nil): return "walking history"
        case .compareTrees: return "comparing trees"
        case .addRemote(let name): return "adding remote \(q(name))"
        case .lookUpRemote(let name): return "looking up remote \(q(name))"
        case .removeRemote(let name): return "removing remote \(q(name))"
        case .listRemotes: return "listing remotes"
        case .fetch(let name?): return "fetching from \(q(name))"
        case .fetch(nil): return "preparing to fetch"
        case .connect(let name?): return "reaching \(q(name))"
        case .connect(nil): return "preparing to reach a remote"
        case .push(let name?): return "pushing to \(q(name))"
        case .push(nil): return "preparing to push"
        }
    }
}
