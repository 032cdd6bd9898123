// The one place where library errors become what a person reads: a message, `hint:` lines and an exit code.
import Foundation
import Tresor

/// A message for the terminal: first line, then hints; with the exit code scripts see.
struct ErrorReport {
    var message: String
    var code: Int32

    static func of(_ error: Error) -> ErrorReport? {
        switch error {
        case let e as VaultError: return ErrorReport(message: e.message, code: e.exitCode)
        case let e as CoreError: return ErrorReport(message: e.errorDescription ?? "\(e)", code: ExitStatus.error)
        case let e as GitError: return ErrorReport(message: e.message, code: ExitStatus.error)
        case let e as CLIError: return ErrorReport(message: e.message, code: e.code)
        case let e as GeneratorError: return ErrorReport(message: e.errorDescription ?? "\(e)", code: ExitStatus.error)
        case let e as InterchangeError: return ErrorReport(message: e.message, code: e.exitCode)
        default: return nil
        }
    }
}

extension VaultError {
    var exitCode: Int32 {
        switch self {
        case .wrongPassphrase, .session, .agent, .rekeyedElsewhere, .header(.notARecipient), .noKeyFor, .needsVaultKey: return ExitStatus.auth
        case .entryNotFound, .entryRemoved: return ExitStatus.notFound
        case .entryExists, .caseCollision, .alreadyAVault, .directoryNotEmpty: return ExitStatus.exists
        default: return ExitStatus.error
        }
    }

    var message: String {
        let q = Output.quoted
        switch self {
        case .notAVault(let d) where FileSystem.kind(d) == .missing:
            return "the vault directory \(q(d)) does not exist\nhint: run 'tresor init' to make a vault there, 'tresor clone URL' to copy one, or point --vault / TRESOR_VAULT at yours"
        case .notAVault(let d):
            return "\(q(d)) is not a Tresor vault (no .tresor/vault.json)\nhint: run 'tresor init', or point --vault / TRESOR_VAULT at a vault"
        case .readOnly(let d, let p, let code):
            return "the vault \(q(d)) can be read but not changed by you: \(q(p)) is not writable (\(String(cString: strerror(code))))"
                + "\nhint: check the owner and permissions of the vault folder and its .git (or whether it is on a read-only mount); reading commands such as 'tresor show' still work"
        case .interruptedClone(let d):
            return "\(q(d)) holds a clone that was interrupted before it finished\nhint: run the same 'tresor clone URL DIR' again; it starts over"
        case .notARepository(let d):
            return "\(q(d)) is a copy of a vault without its git repository: it can be read but not changed\nhint: work on a clone of the vault's repository to change it"
        case .notAVaultRemote(let url):
            return "the remote \(q(url)) is not a Tresor vault (no .tresor/vault.json); nothing was kept"
        case .alreadyAVault(let d): return "\(q(d)) is already a Tresor vault"
        case .directoryNotEmpty(let d): return "\(q(d)) exists and is not empty\nhint: choose a new or empty directory"
        case .notADirectory(let p): return "\(q(p)) is not a directory"
        case .entryNotFound(let p, let s):
            return "no entry \(q(p))" + (s.isEmpty ? "\nhint: 'tresor ls' lists entries" : "\nhint: did you mean " + s.map(q).joined(separator: ", ") + "?")
        case .entryRemoved(let p, let commit, let summary, let date):
            let when = Timestamp(date).description.prefix(10)
            if summary.hasPrefix("Move \(p) to ") {
                let to = String(summary.dropFirst("Move \(p) to ".count))
                return "no entry \(q(p)): it was moved to \(q(to)) in \(commit.prefix(8)) (\(when))\nhint: 'tresor show \(Output.escaped(to))'"
            }
            return "no entry \(q(p)): it was removed in \(commit.prefix(8)) (\(when), \(q(summary)))"
                + "\nhint: 'tresor restore \(Output.escaped(p))' brings it back; 'tresor log \(Output.escaped(p))' shows its history"
        case .entryExists(let p): return "entry \(q(p)) already exists\nhint: use --force to replace it, or 'tresor edit'"
        case .caseCollision(let p, let e):
            return "\(q(p)) differs only by case from existing \(q(e)); such names collide on macOS and Windows\nhint: use the existing name or a different one"
        case .invalidPath(let p, let r): return "invalid entry path \(q(p)): \(r)"
        case .sameEntry(let p): return "\(q(p)) is already there; nothing changed"
        case .nothingChanged(let p): return "nothing changed in \(q(p))"
        case .entry(let p, let e): return "entry \(q(p)): \(e.errorDescription ?? "\(e)")"
        case .changedOutsideTresor(let p):
            return "\(q(p)) was changed outside tresor and this change would overwrite it; nothing was changed\nhint: 'git -C VAULT diff' shows it; commit it with git, or 'git checkout -- FILE' to drop it"
        case .header(let e): return "vault header \(VaultHeader.relativePath): \(e.errorDescription ?? "\(e)")"
        case .wrongPassphrase: return "wrong passphrase"
        case .formatTooOld(let v, let r):
            return "this needs a vault of format version \(r) or later; this one has version \(v)\nhint: run 'tresor upgrade' (replicas follow when they sync; older tresor versions cannot read it afterwards)"
        case .rekeyedElsewhere(let remote):
            return "the vault key of this replica and of \(q(remote)) differ (a rekey) and this process has no passphrase or identity to open the other one\nhint: run 'tresor sync' again with the passphrase or --identity rather than a session"
        case .vaultLocked: return "the vault is locked\nhint: give the passphrase, or run 'tresor unlock'"
        case .noKeyFor(let p, let scope?):
            return "cannot open \(q(p)): it is in the scope \(q(scope)), whose key you do not hold\nhint: a member of \(q(scope)) can add you: 'tresor member add --scope \(scope) NAME PUBLIC-KEY'"
        case .noKeyFor(let p, nil):
            return "cannot open \(q(p)): it is outside the scopes you hold, under the vault key\nhint: a member of the vault can add you: 'tresor member add NAME PUBLIC-KEY'"
        case .needsVaultKey:
            return "this needs the vault key, and you hold only the keys of scopes\nhint: a member of the vault can do it, or add you: 'tresor member add NAME PUBLIC-KEY'"
        case .noSuchScope(let f): return "no scope \(q(f))\nhint: 'tresor scope ls' lists the scopes"
        case .scopeNests(let f, let o):
            return "cannot make a scope of \(q(f)): the scope \(q(o)) is that folder, inside it or around it (scopes do not nest)"
        case .scopeHeader(let p, let e): return "scope header \(p): \(e.errorDescription ?? "\(e)")"
        case .gitMergeInScopedVault:
            return "this vault has scopes (format version 4): tresor does not take in merges made with git; nothing was committed\nhint: undo the merge ('git reset --hard ORIG_HEAD') and run 'tresor sync', which merges such histories"
        case .scopeConflict(let p, let scope?):
            return "both this replica and the remote changed \(q(p)), which is in the scope \(q(scope)), whose key you do not hold: it cannot be merged here; nothing was changed\nhint: a member of \(q(scope)) must sync first; then sync again"
        case .scopeConflict(let p, nil):
            return "both this replica and the remote changed \(q(p)), which is under the vault key, which you do not hold: it cannot be merged here; nothing was changed\nhint: a member of the vault must sync first; then sync again"
        case .mergedUnderKeyNotHeld(let p, let scope?, let remote, let added):
            let way = added
                ? "move it out of that folder ('tresor mv \(Output.escaped(p)) NEW-PATH') and sync again, or ask a member of \(q(scope)) to add you"
                : "note your changes since the last sync, drop them ('git reset --hard refs/remotes/\(remote)/main'; they stay in 'git reflog'), run 'tresor sync', and ask a member of \(q(scope)) to make them (or to add you)"
            return "\(q(p)) would be merged into the scope \(q(scope)), whose key you do not hold (one side made the scope around it): it cannot be written there; nothing was changed\nhint: \(way)"
        case .mergedUnderKeyNotHeld(let p, nil, let remote, _):
            return "\(q(p)) would be merged under the vault key, which you do not hold (its scope was removed on one side): it cannot be written there; nothing was changed\nhint: note your changes since the last sync, drop them ('git reset --hard refs/remotes/\(remote)/main'; they stay in 'git reflog'), run 'tresor sync', and ask a holder of the vault key to make them"
        case .unrelatedHistories(let remote):
            return "the history of \(q(remote)) shares no commit with this vault's: a vault with scopes does not merge unrelated histories; nothing was changed\nhint: check the remote's URL ('tresor remote ls'); if the remote was rewritten, clone it afresh and compare"
        case .closedScopeMadeConcurrentWithEdits(let remote, let scope):
            return "the closed scope \(q(scope)) was made here while \(q(remote)) changed entries in its folder under the vault key: tresor cannot take those changes into a closed scope; nothing was changed\nhint: undo the scope here ('git reset --hard HEAD~1' if it is the last commit), run 'tresor sync', then make the scope again"
        case .unreadAcrossKeys(let p, let scope):
            let key = scope.map { "the key of the scope \(q($0))" } ?? "the vault key"
            return "\(q(p)) comes from one side sealed under \(key), which you do not hold, and the merged vault puts it under another key: it cannot be re-encrypted here; nothing was changed\nhint: sync with a credential that opens it (--identity, if a scope's member), or let a holder of that key sync first"
        case .rekeyConcurrentWithEdits(let remote, let scope, true):
            let what = scope.map { "the scope \(q($0)) was" } ?? "the vault key was"
            return "\(what) rekeyed here while \(q(remote)) changed files under the key before: tresor cannot merge that; nothing was changed\nhint: undo the rekey here ('git reset --hard HEAD~1' if it is the last commit), run 'tresor sync', then rekey again (or remove the member again)"
        case .rekeyConcurrentWithEdits(let remote, let scope, false):
            let what = scope.map { "the scope \(q($0)) was" } ?? "the vault key was"
            return "\(what) rekeyed on \(q(remote)) while this replica changed files under the key before: tresor cannot merge that; nothing was changed\nhint: your changes since the last sync cannot go across the rekey: note them, drop them ('git reset --hard refs/remotes/\(remote)/main'; they stay in 'git reflog'), run 'tresor sync' and make them again"
        case .session(let problem): return problem.message
        case .agent(let problem): return problem.message
        case .git(let e): return e.message
        case .unknownRevision(let rev): return "no commit \(q(rev))\nhint: 'tresor log PATH' lists an entry's commits"
        case .hostileRemote(let file, let problem):
            if case .downgrade = problem {
                return "refusing \(q(file)) from the remote: \(problem.message)\nhint: nothing was merged; the local vault is unchanged. If this replica upgraded the vault since it last synced (the first 'tresor scope create' does), the remote still has commits from before: undo the upgrade here ('git reset --hard HEAD~1' if it is the last commit), run 'tresor sync', then make it again"
            }
            return "refusing \(q(file)) from the remote: \(problem.message)\nhint: nothing was merged; the local vault is unchanged"
        case .foreignCommits(let commits):
            let list = commits.prefix(5).map { c in
                "  \(c.id.prefix(12)) \(Output.escaped(c.summary))" + (c.paths.isEmpty ? "" : ": changes " + c.paths.prefix(5).map(q).joined(separator: ", ")
                    + (c.paths.count > 5 ? " and \(c.paths.count - 5) more" : ""))
            }.joined(separator: "\n")
            return "refusing the remote's commits: no holder of the vault key made \(commits.count == 1 ? "this commit" : "these commits")\n\(list)"
                + "\nhint: nothing was merged; the local vault is unchanged. If a replica of yours made them with plain git, run any tresor command there and sync it again"
        case .commitMadeWithGitRefused(let commit, let file, let problem):
            return "the commit \(commit.prefix(12)) made with git is not a sound vault: \(q(file)): \(problem.message)"
                + "\nhint: tresor will not authenticate it, so other replicas would refuse it; undo it with git (for example 'git reset --hard HEAD~1')"
        case .unauthenticatedCommitsFetched(let ref, let commits):
            let shortRef = ref.hasPrefix("refs/remotes/") ? String(ref.dropFirst("refs/remotes/".count)) : ref
            let list = commits.prefix(10).map { c in
                "  \(c.id.prefix(12)) \(Output.escaped(c.summary))" + (c.paths.isEmpty ? "" : ": changes " + c.paths.prefix(5).map(q).joined(separator: ", "))
            }.joined(separator: "\n")
            return "git brought in commits from \(q(shortRef)) that no holder of the vault key made; tresor will not authenticate them:\n\(list)"
                + "\nhint: undo the pull with git (for example 'git reset --hard ORIG_HEAD'); 'tresor sync' checks what the remote holds"
        case .pushFailedAfterMerge(let remote, let merged, let e):
            let what = merged.isEmpty ? "the remote's changes were merged" : "the remote's changes were merged (\(merged.count) entr\(merged.count == 1 ? "y" : "ies") changed here)"
            return "\(what) and committed here, but pushing to \(q(remote)) failed: \(VaultError.git(e).message)"
                + "\nhint: nothing is lost; run 'tresor sync' again to push the merge"
        case .remoteKeptMoving(let remote, let attempts):
            return "the remote \(q(remote)) kept changing during \(attempts) attempts\nhint: run 'tresor sync' again"
        case .mergeDidNotVerify(let p): return "the merged entry \(q(p)) did not verify; nothing was committed"
        case .differentEntriesAtOnePath(let p):
            return "both sides hold a different entry at \(q(p))\nhint: run 'tresor sync', which keeps both"
        case .lockTimeout(let holder, let seconds):
            return "another tresor command is still changing the vault after \(Int(seconds)) seconds (\(holder.description))"
                + "\nhint: wait for it to finish and try again; TRESOR_LOCK_TIMEOUT sets how long to wait"
        case .io(let path, let code): return "\(q(path)): \(String(cString: strerror(code)))"
        case .file(_, let e): return e.errorDescription ?? "\(e)"
        case .pwnedPasswords(let path, let problem):
            switch problem {
            case .missing: return "no Pwned Passwords file or folder at \(q(path))"
            case .unreadable: return "cannot read the Pwned Passwords data \(q(path))"
            case .malformed(let offset):
                return "\(q(path)) is not a Pwned Passwords SHA-1 file: bad line at byte \(offset)\nhint: use the SHA-1 version ordered by hash (HASH:COUNT lines), or a folder of its range files"
            case .notSHA1: return "\(q(path)) holds NTLM hashes, not SHA-1\nhint: use the SHA-1 version of Pwned Passwords"
            case .incompleteFolder:
                return "the Pwned Passwords folder \(q(path)) lacks range files\nhint: download all 1,048,576 range files, or use the single ordered file"
            }
        }
    }
}

extension GitError {
    var message: String {
        switch self {
        case .localRemoteMissing(let path):
            return "the remote \(Output.quoted(path)) does not exist: no such file or directory"
                + "\nhint: check the path; a new remote can be an empty bare repository (git init --bare PATH)"
        case .localRemoteNotARepository(let path):
            return "the remote \(Output.quoted(path)) is not a git repository"
                + "\nhint: point the remote at a vault's repository or an empty bare repository (git init --bare)"
        default:
            return errorDescription ?? "\(self)"
        }
    }
}

extension RemoteProblem {
    var message: String {
        switch self {
        case .symlink: return "it is a symbolic link"
        case .executable: return "it is an executable file"
        case .submodule: return "it is a submodule"
        case .strangeMode(let mode): return String(format: "it has the file mode %o, which a vault never holds", mode)
        case .tooLarge(let limit): return "it is larger than \(limit) bytes"
        case .nameGitRefuses: return "git itself refuses that name (empty, \".\", \"..\", \".git\", or with \"/\" or NUL in it)"
        case .foreignFile: return "a vault holds only entries, .tresor/vault.json and .gitattributes"
        case .duplicateName: return "the name appears twice, or out of order, in its folder"
        case .tooDeep(let limit): return "folders deeper than an entry path can be (\(limit) levels)"
        case .tooManyFiles(let limit): return "more than \(limit) files"
        case .sameFileTwice(let other): return "the same file as \(Output.quoted(other)): an entry names one path inside, so a copy is a trick"
        case .attributesChanged: return "it is not the .gitattributes tresor writes (it decides which merge driver git runs)"
        case .entry(let e): return e.errorDescription ?? "\(e)"
        case .header(let e): return e.errorDescription ?? "\(e)"
        case .downgrade(let v): return "a vault header of format version \(v), older than this vault's"
        case .damagedTree(let why): return "a damaged tree: \(why)"
        }
    }
}

extension SessionProblem {
    var message: String {
        switch self {
        case .notAToken: return "the session variable does not hold a session token\nhint: run 'tresor unlock' (the agent), or 'eval \"$(tresor unlock --env)\"'"
        case .noSession: return "no session for this vault (locked or never unlocked)\nhint: run 'tresor unlock' (the agent), or 'eval \"$(tresor unlock --env)\"'"
        case .expired(let t): return "the session expired at \(t)\nhint: run 'tresor unlock' again"
        case .wrongToken: return "the session token does not open this vault's session\nhint: run 'tresor unlock' (the agent), or 'eval \"$(tresor unlock --env)\"' again"
        case .directoryNotPrivate(let d): return "session directory \(Output.quoted(d)) is not a directory private to this user (expected mode 0700)"
        case .cannotWrite(let p, let why): return "cannot write the session file \(Output.quoted(p)): \(why)"
        }
    }
}

extension AgentProblem {
    var message: String {
        switch self {
        case .notRunning(let socket): return "no agent answers at \(Output.quoted(socket))\nhint: run 'tresor unlock'"
        case .directoryNotPrivate(let d):
            return "the agent's directory \(Output.quoted(d)) is not a directory private to you (expected your own, mode 0700)\nhint: remove it, or set TRESOR_AGENT_SOCKET to a path in a private directory"
        case .socket(let e):
            if e.call == .pathTooLong {
                return "the agent's socket path \(Output.quoted(e.path)) is longer than \(KeyAgent.maximumSocketPathBytes) bytes\nhint: set TRESOR_AGENT_SOCKET to a shorter path"
            }
            return "the agent's socket \(Output.quoted(e.path)): \(e.call.rawValue): \(e.errno == 0 ? "the connection closed" : String(cString: strerror(e.errno)))"
        case .badReply(let socket): return "the agent at \(Output.quoted(socket)) gave an answer tresor does not understand\nhint: 'tresor lock --all' ends it"
        case .formatTooOld(let v):
            return "the agent keeps keys only for vaults of format version 2 or later (this one has version \(v), whose header is not authenticated)\nhint: run 'tresor upgrade', or use 'eval \"$(tresor unlock --env)\"'"
        case .alreadyRunning(let socket): return "an agent already serves \(Output.quoted(socket))"
        }
    }
}

extension LockHolder {
    var description: String {
        switch (pid, command) {
        case (let pid?, let command?): return "process \(pid), \(Output.escaped(command))"
        case (let pid?, nil): return "process \(pid)"
        default: return "another process"
        }
    }
}

extension VaultWarning {
    var message: String {
        switch self {
        case .workTreeNotUpdated(let p, let why):
            return "the change is committed, but \(Output.quoted(p)) in the vault folder could not be updated yet (\(why))\nhint: the next tresor command finishes it"
        case .indexNotUpdated(let lock):
            return "the change is committed, but git's index was not refreshed because \(Output.quoted(lock)) exists\nhint: the next tresor command refreshes it once git is done; remove the file if no git process is running"
        }
    }
}

extension VaultNotice {
    var message: String {
        switch self {
        case .adoptedCommitsMadeWithGit(let count, let remerged):
            return "Checked and authenticated \(count) commit\(count == 1 ? "" : "s") made with git"
                + (remerged ? "; git's merge was merged again by tresor's rules (git's result is kept under refs/tresor/git-merge/)." : ".")
        }
    }
}

extension CheckProblem {
    var message: String {
        switch kind {
        case .listing(let p): return p.message
        case .unreadable(.entry(_, let e)): return e.errorDescription ?? "\(e)"
        case .unreadable(let e): return e.message
        case .duplicateID(let id, let other):
            return "same entry id \(id) as \(Output.quoted(other)) (copied outside tresor?)\nhint: 'tresor cp' gives a copy its own id"
        case .caseCollision(let other): return "differs only by case from \(Output.quoted(other)); they collide on macOS and Windows"
        case .permissions(let mode, let expected):
            return String(format: "permissions %04o let other users read it (expected %04o)\nhint: 'tresor fsck --fix-permissions'", mode, expected)
        case .notCommitted: return "not committed\nhint: changes made outside tresor are not synced; commit or remove them"
        case .temporaryFile: return "left over from an interrupted write; it holds nothing stored\nhint: the next change to an entry in this folder removes it, or delete it"
        case .gitLock(let age):
            return "a git lock file, \(Int(age)) seconds old\nhint: if no git process is running it was left by a crash; tresor removes ref locks older than 10 seconds and index.lock after an hour, or delete it"
        case .unfinishedTransaction: return "a change whose work-tree files are not all written yet\nhint: the next tresor command finishes it"
        }
    }
}
