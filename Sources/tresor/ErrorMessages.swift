// Where library errors become what a person reads: a message, `hint:` lines and an exit code (the words for the
// core's, git's and the importers' errors and the acceptance rule's refusals are in CoreError+Messages,
// GitError+Messages, Interchange+Messages and AcceptanceRefusal+Messages).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// A message for the terminal: first line, then hints; with the exit code scripts see.
struct ErrorReport {
    var message: String
    var code: Int32

    static func of(_ error: Error) -> ErrorReport? {
        switch error {
        case let e as VaultError: return ErrorReport(message: e.message, code: e.exitCode)
        case let e as CoreError: return ErrorReport(message: e.message, code: ExitStatus.error)
        case let e as GitError: return ErrorReport(message: e.message, code: ExitStatus.error)
        case let e as CLIError: return ErrorReport(message: e.message, code: e.code)
        case let e as GeneratorError: return ErrorReport(message: e.message, code: ExitStatus.error)
        case let e as InterchangeError: return ErrorReport(message: e.message, code: e.exitCode)
        case let e as IntegrationError: return ErrorReport(message: e.message, code: e.exitCode)
        case let e as FileSystem.Failure: return ErrorReport(message: "\(Output.quoted(e.path)): \(String(cString: strerror(e.errno)))", code: ExitStatus.error)
        default: return nil
        }
    }
}

extension VaultError {
    var exitCode: Int32 {
        switch self {
        case .wrongPassphrase, .session, .agent, .rekeyedElsewhere, .rekeyedMeanwhile, .header(.notARecipient), .noKeyFor, .needsVaultKey, .removedFromVault: return ExitStatus.auth
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
        case .invalidPath(let p, let rule): return "invalid entry path \(q(p)): \(rule.message)"
        case .sameEntry(let p): return "\(q(p)) is already there; nothing changed"
        case .nothingChanged(let p): return "nothing changed in \(q(p))"
        case .entry(let p, let e): return "entry \(q(p)): \(e.message)"
        case .changedOutsideTresor(let p):
            return "\(q(p)) was changed outside tresor and this change would overwrite it; nothing was changed\nhint: 'git -C VAULT diff' shows it; commit it with git, or 'git checkout -- FILE' to drop it"
        case .header(let e): return "vault header \(VaultHeader.relativePath): \(e.message)"
        case .wrongPassphrase: return "wrong passphrase"
        case .formatTooOld(let v, let r):
            return "this vault is in format \(v); this tresor works with format \(r)\nhint: run 'tresor upgrade' to convert it (one commit); every replica converts its own copy the same way and they sync as before; older tresor versions cannot read it afterwards"
        case .rekeyedElsewhere(let remote):
            return "the vault key of this replica and of \(q(remote)) differ (a rekey) and this process has no passphrase or identity to open the other one\nhint: run 'tresor sync' again with the passphrase or --identity rather than a session"
        case .rekeyedMeanwhile:
            return "another tresor process changed the vault's keys (a rekey) after this one unlocked it; nothing was changed\nhint: run the command again"
        case .vaultLocked: return "the vault is locked\nhint: give the passphrase, or run 'tresor unlock'"
        case .noKeyFor(let p, let scope?):
            return "cannot open \(q(p)): it is in the scope \(q(scope)), whose key you do not hold\nhint: a member of \(q(scope)) can add you: 'tresor member add --scope \(scope) NAME PUBLIC-KEY'"
        case .noKeyFor(let p, nil):
            return "cannot open \(q(p)): it is outside the scopes you hold, under the vault key\nhint: a member of the vault can add you: 'tresor member add NAME PUBLIC-KEY'"
        case .earlierVersionNotOpened(let p):
            return "the earlier version of \(q(p)) opens under no key this replica holds (it was sealed under the key of a scope removed since, or before this replica had the vault); nothing was changed\nhint: 'tresor log \(Output.escaped(p))' shows its versions; a replica that held that key can restore it"
        case .needsVaultKey:
            return "this needs the vault key, and you hold only the keys of scopes\nhint: a member of the vault can do it, or add you: 'tresor member add NAME PUBLIC-KEY'"
        case .noSuchScope(let f): return "no scope \(q(f))\nhint: 'tresor scope ls' lists the scopes"
        case .scopeNests(let f, let o):
            return "cannot make a scope of \(q(f)): the scope \(q(o)) is that folder, inside it or around it (scopes do not nest)"
        case .scopeHeader(let p, let e): return "scope header \(p): \(e.message)"
        case .domainConflict(let remote, let path, let scope):
            let key = scope.map { "the key of the scope \(q($0))" } ?? "the vault key"
            let what = path.map { "\(q($0)) cannot be joined without \(key)" } ?? "this replica and \(q(remote)) both changed what is under \(key)"
            return "\(what), which you do not hold; nothing was changed\nhint: a holder of that key must sync first (or sync here with '--identity FILE' of one); then sync again"
        case .removedFromVault(let remote, let byPassphrase):
            if byPassphrase {
                return "the vault was rekeyed on \(q(remote)) with a passphrase that is not this one: this passphrase opens nothing written since; nothing was changed\nhint: sync with the new passphrase (ask whoever changed it)"
            }
            return "you were removed from this vault: \(q(remote)) holds a new key that your identity does not open; nothing was changed\nhint: ask a member to add you again ('tresor member add NAME PUBLIC-KEY'); what this replica holds stays readable to you"
        case .session(let problem): return problem.message
        case .agent(let problem): return problem.message
        case .git(let e): return e.message
        case .unknownRevision(let rev): return "no commit \(q(rev))\nhint: 'tresor log PATH' lists an entry's commits"
        case .refusedRemote(let remote, let refusal):
            return "refusing what \(q(remote)) holds: \(refusal.message)\nhint: nothing was taken; the local vault is unchanged." + refusal.hint(remote: remote)
        case .entryContent(let remote, let file, let e):
            return "refusing what \(q(remote)) holds: \(q(file)) does not open as an entry of this vault: \(e.message)"
                + "\nhint: nothing was taken; a key holder's replica wrote it. 'tresor sync --repair-remote' puts this replica's state back on the remote"
        case .remoteFormatOlder(let remote, let version):
            return "\(q(remote)) holds this vault in format \(version) with changes this replica does not have; this tresor joins format \(FormatVersion.header) only; nothing was changed\nhint: on a replica that holds those changes, run 'tresor upgrade' and sync; then sync here"
        case .commitMadeWithGitRefused(let commit, let file, let problem):
            return "the commit \(commit.prefix(12)) made with git is not a sound vault: \(q(file)): \(problem.message)"
                + "\nhint: tresor will not take it in, so other replicas would refuse it; undo it with git (for example 'git reset --hard HEAD~1')"
        case .unauthenticatedCommitsFetched(let ref, let refusal):
            let shortRef = ref.hasPrefix("refs/remotes/") ? String(ref.dropFirst("refs/remotes/".count)) : ref
            return "git brought in a state from \(q(shortRef)) that tresor refuses: \(refusal.message)"
                + "\nhint: undo the pull with git (for example 'git reset --hard ORIG_HEAD'); 'tresor sync' checks what the remote holds"
        case .pushFailedAfterMerge(let remote, let merged, let e):
            let what = merged.isEmpty ? "the remote's changes were merged" : "the remote's changes were merged (\(merged.count) entr\(merged.count == 1 ? "y" : "ies") changed here)"
            return "\(what) and committed here, but pushing to \(q(remote)) failed: \(VaultError.git(e).message)"
                + "\nhint: nothing is lost; run 'tresor sync' again to push the merge"
        case .remoteKeptMoving(let remote, let attempts, let seconds):
            return "the remote \(q(remote)) changed between each fetch and push for \(Int(seconds)) seconds (\(attempts) attempts); nothing is lost: this replica's changes are committed here\nhint: run 'tresor sync' again later, or give it longer with --retry-time SECONDS"
        case .mergeDidNotVerify(let p): return "the merged entry \(q(p)) did not verify; nothing was committed"
        case .differentEntriesAtOnePath(let p):
            return "both sides hold a different entry at \(q(p))\nhint: run 'tresor sync', which keeps both"
        case .lockTimeout(let holder, let seconds):
            return "another tresor command is still changing the vault after \(Int(seconds)) seconds (\(holder.description))"
                + "\nhint: wait for it to finish and try again; TRESOR_LOCK_TIMEOUT sets how long to wait"
        case .io(let path, let code): return "\(q(path)): \(String(cString: strerror(code)))"
        case .file(_, let e): return e.message
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

extension IntegrationError {
    var exitCode: Int32 {
        switch self {
        case .noSuchField, .sshKey(_, _, .missing): return ExitStatus.notFound
        default: return ExitStatus.error
        }
    }

    var message: String {
        let q = Output.quoted
        switch self {
        case .invalidReference(let r, let problem):
            let why: String
            switch problem {
            case .scheme: why = "a reference starts with tresor://"
            case .tooShort: why = "a reference names an entry and a field: tresor://FOLDER/ENTRY/FIELD"
            case .emptyComponent: why = "it has an empty component (// or a / at the end)"
            case .percentEncoding: why = "a % must be followed by two hexadecimal digits (write % itself as %25)"
            case .notUTF8: why = "its percent-encoded bytes are not UTF-8 text"
            case .path(let rule): why = "the entry path is not valid: \(rule.message)"
            case .field(let name, let rule): why = rule.message(name)
            }
            return "invalid reference \(q(r)): \(why)\nhint: tresor://Email/gmail/password names the field password of Email/gmail; write % as %25 and a / in a field name as %2F"
        case .noSuchField(let r, let p, let f, let available):
            return "\(Output.escaped(r)): entry \(q(p)) has no field \(q(f))" + (available.isEmpty ? "" : "\nhint: it has " + available.map(Output.escaped).joined(separator: ", "))
        case .unusableValue(let r, .nulByte):
            return "\(Output.escaped(r)): the value holds a NUL byte, which an environment variable cannot hold"
        case .sshKey(let p, let f, let problem):
            let field = "the field \(q(f)) of \(q(p))"
            switch problem {
            case .missing:
                return "entry \(q(p)) has no field \(q(f))\nhint: put the key in with 'tresor edit \(Output.escaped(p)) --set-file \(Output.escaped(f))=~/.ssh/id_ed25519', or name the field with --field"
            case .notOpenSSH(true):
                return "\(field) holds a PEM private key; tresor adds keys in the OpenSSH format\nhint: convert a copy with 'ssh-keygen -p -o -f FILE' and store that"
            case .notOpenSSH(false):
                return "\(field) does not hold an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----)"
            case .encrypted(let cipher):
                return "the key in \(field) is protected by a passphrase (\(Output.escaped(cipher))), which tresor does not decrypt\nhint: the vault already encrypts it: store the key without a passphrase ('ssh-keygen -p -N \"\" -f COPY' on a copy in a private directory such as /dev/shm, then remove the copy)"
            case .unsupportedType(let t):
                return "the key in \(field) is of type \(q(t)); tresor adds ed25519, ECDSA and RSA keys"
            case .keyCount(let n): return "\(field) holds \(n) keys; tresor adds a key file holding one"
            case .malformed: return "the key in \(field) is damaged (its OpenSSH encoding does not parse)"
            }
        case .browserFile(let f, let problem):
            switch problem {
            case .fileExtension: return "\(q(f)) is not a file name tresor lists (they end in .gpg)"
            case .noHost: return "\(q(f)) is not a file name tresor lists (HOST/ENTRY.gpg)"
            case .path(let rule?): return "\(q(f)) names no entry: \(rule.message)"
            case .path(nil): return "\(q(f)) names no entry: bad percent-encoding"
            case .notUnderHost(let p): return "the entry \(q(p)) has no URL on the host \(q(f.split(separator: "/").first.map(String.init) ?? ""))"
            case .notServed(let p): return "the entry \(q(p)) is not given to the browser (no password, or a password or user name of several lines)"
            case .otp(let e): return "the one-time code secret of \(q(f)) is not valid: \(e.message)"
            }
        case .sshAgentUnavailable(nil, _):
            return "no ssh agent: SSH_AUTH_SOCK is not set\nhint: start one with 'eval \"$(ssh-agent)\"'"
        case .sshAgentUnavailable(let s?, let e):
            return "cannot reach the ssh agent at \(q(s)): \(String(cString: strerror(e)))\nhint: is the agent running? 'eval \"$(ssh-agent)\"' starts one"
        case .sshAgentProtocol(let s): return "the ssh agent at \(q(s)) broke off or answered something unexpected"
        case .sshAgentRefused(let s, .add):
            return "the ssh agent at \(q(s)) refused the key\nhint: an agent that does not support --lifetime or --confirm refuses keys with them"
        case .sshAgentRefused(let s, .remove):
            return "the ssh agent at \(q(s)) does not hold this key"
        }
    }
}

extension RemoteProblem {
    var message: String {
        switch self {
        case .symlink: return "it is a symbolic link"
        case .executable: return "it is an executable file"
        case .submodule: return "it is a submodule"
        case .strangeMode(let mode): return String(printf: "it has the file mode %o, which a vault never holds", mode)
        case .tooLarge(let limit): return "it is larger than \(limit) bytes"
        case .nameGitRefuses: return "git itself refuses that name (empty, \".\", \"..\", \".git\", or with \"/\" or NUL in it)"
        case .foreignFile: return "a vault holds only entries, .tresor/vault.json and .gitattributes"
        case .duplicateName: return "the name appears twice, or out of order, in its folder"
        case .tooDeep(let limit): return "folders deeper than an entry path can be (\(limit) levels)"
        case .tooManyFiles(let limit): return "more than \(limit) files"
        case .sameFileTwice(let other): return "the same file as \(Output.quoted(other)): an entry names one path inside, so a copy is a trick"
        case .attributesChanged: return "it is not the .gitattributes tresor writes (it decides which merge driver git runs)"
        case .entry(let e): return e.message
        case .header(let e): return e.message
        case .downgrade(let v): return "a vault header of format version \(v), older than this vault's"
        case .damagedTree(let problem): return "a damaged tree: \(problem.message)"
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
        case .cannotWrite(let p, let e): return "cannot write the session file \(Output.quoted(p)): \(e.message)"
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
            // The cause's own hints are left out: the next command finishes the change.
            let cause = why.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            return "the change is committed, but \(Output.quoted(p)) in the vault folder could not be updated yet (\(cause))\nhint: the next tresor command finishes it"
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
        case .remoteWentBack(let remote, let back):
            let what = back.domain == "vault" ? "the vault" : "the scope \(Output.quoted(back.domain))"
            return "the remote \(Output.quoted(remote)) went back: \(what) is older there than what this replica last took from it; "
                + "what git brought was joined with this replica's state\nhint: 'tresor sync' publishes it over the remote"
        }
    }
}

extension StoreProblem {
    var message: String {
        switch kind {
        case .invalidName: return "file name is not a valid entry path (see Spec/FORMAT.md §4)"
        case .symbolicLink: return "symbolic link (never followed)"
        case .notRegularFile: return "not a regular file"
        }
    }
}

extension CheckProblem {
    var message: String {
        switch kind {
        case .listing(let p): return p.message
        case .unreadable(.entry(_, let e)): return e.message
        case .unreadable(let e): return e.message
        case .duplicateID(let id, let other):
            return "same entry id \(id) as \(Output.quoted(other)) (copied outside tresor?)\nhint: 'tresor cp' gives a copy its own id"
        case .caseCollision(let other): return "differs only by case from \(Output.quoted(other)); they collide on macOS and Windows"
        case .permissions(let mode, let expected):
            return String(printf: "permissions %04o let other users read it (expected %04o)\nhint: 'tresor fsck --fix-permissions'", mode, expected)
        case .notCommitted: return "not committed\nhint: changes made outside tresor are not synced; commit or remove them"
        case .temporaryFile: return "left over from an interrupted write; it holds nothing stored\nhint: the next change to an entry in this folder removes it, or delete it"
        case .gitLock(let age):
            return "a git lock file, \(Int(age)) seconds old\nhint: if no git process is running it was left by a crash; tresor removes ref locks older than 10 seconds and index.lock after an hour, or delete it"
        case .unfinishedTransaction: return "a change whose work-tree files are not all written yet\nhint: the next tresor command finishes it"
        }
    }
}
