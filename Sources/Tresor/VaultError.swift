// Errors of the vault layer: each case carries the data a caller needs (paths, revisions, errno), never prose.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// Every failure the `Tresor` module reports. Callers turn them into messages; the cases say what failed
/// and where, not how to phrase it.
public enum VaultError: Error, Equatable, Sendable {
    // Opening and creating
    /// No `.tresor/vault.json` in `directory` (or no such directory).
    case notAVault(directory: String)
    /// A change needs to write in the vault (`path` first: its lock file) and cannot (`errno` is EACCES, EPERM or
    /// EROFS): the vault can be read but not changed by this user.
    case readOnly(directory: String, path: String, errno: Int32)
    /// A copy of a vault without its `.git`: readable, not changeable.
    case notARepository(directory: String)
    /// The remote has no vault header.
    case notAVaultRemote(url: String)
    /// `create` found a vault in `directory` already.
    case alreadyAVault(directory: String)
    /// A `clone` into `directory` was killed before it finished; cloning again replaces what it left.
    case interruptedClone(directory: String)
    /// `create` or `clone` into a `directory` that holds files.
    case directoryNotEmpty(directory: String)
    /// `path` exists and is not a directory.
    case notADirectory(path: String)

    // Entries
    /// No entry at `path`; `suggestions` are existing paths close to it.
    case entryNotFound(path: String, suggestions: [String])
    /// No entry at `path` now, but the vault's history has one: `commit` (its one-line `summary`, its `date`) is the
    /// last commit that touched it — its removal, or its move elsewhere.
    case entryRemoved(path: String, commit: String, summary: String, date: Date)
    /// An entry already exists at `path`.
    case entryExists(path: String)
    /// `path` differs from the existing `existing` only by case or Unicode normalisation.
    case caseCollision(path: String, existing: String)
    /// A path typed by a person that breaks `rule` of Spec/FORMAT.md §4.2.
    case invalidPath(path: String, rule: EntryPath.Rule)
    /// A move or copy onto the entry itself.
    case sameEntry(path: String)
    /// A change that changes nothing.
    case nothingChanged(path: String)
    /// A failure reading or writing one entry.
    case entry(path: String, CoreError)
    /// The work-tree file at `path` differs from the last commit, and this change would overwrite it.
    case changedOutsideTresor(path: String)

    // Keys and sessions
    /// A failure with `.tresor/vault.json`.
    case header(CoreError)
    /// The passphrase opens no key slot of the vault.
    case wrongPassphrase
    /// The vault's header has format `version`; this needs `required` (`upgrade`).
    case formatTooOld(version: Int, required: Int)
    /// The fetched vault and this replica are under different keys of one rekey chain (a rekey on either side)
    /// and no passphrase or identity was at hand to open the other key (the vault was unlocked with a session).
    case rekeyedElsewhere(remote: String)
    /// Another process changed a key of the vault (a rekey) after this one unlocked it, and this process has no
    /// passphrase or identity to open the new one (it holds the agent's or a session's keys): nothing was changed.
    case rekeyedMeanwhile
    /// An operation that needs the vault key ran before `unlock`.
    case vaultLocked
    /// The entry at `path` is sealed under a key this process does not hold: the key of the scope at folder `scope`,
    /// or the vault key when `scope` is nil (a scope-only member, Spec/FORMAT.md §3.12.4).
    case noKeyFor(path: String, scope: String?)
    /// An earlier version of the entry at `path` (restore) opens under no key this replica holds or keeps: it was sealed
    /// under the key of a scope removed since, or under a key from before this replica had the vault.
    case earlierVersionNotOpened(path: String)
    /// What was asked needs the vault key, and this process holds only scope keys (a scope-only member).
    case needsVaultKey
    /// No scope has the folder `folder`.
    case noSuchScope(folder: String)
    /// A scope at `folder` cannot be made: `other` is that folder, inside it, or around it (no nested scopes).
    case scopeNests(folder: String, other: String)
    /// A scope header (`path`) that does not parse, does not belong here, or is not authentic.
    case scopeHeader(path: String, CoreError)
    /// Both this replica and `remote` changed a domain this process cannot read (the scope at folder `scope`, or the
    /// vault domain when nil) since they last agreed, or an entry (`path`) would end in such a domain: only a holder of
    /// that key can join them (Spec/MERGE.md §4.2, §4.4); refused before anything changed.
    case domainConflict(remote: String, path: String?, scope: String?)
    /// The remote holds a newer key of the vault that this replica's credential does not open: the member was removed
    /// (`byPassphrase`: the passphrase was replaced with a rekey elsewhere).
    case removedFromVault(remote: String, byPassphrase: Bool)
    /// A session token could not give the keys.
    case session(SessionProblem)
    /// The key agent could not be used (README "The agent").
    case agent(AgentProblem)

    // Git and sync
    /// A git operation failed (libgit2 code and class inside).
    case git(GitError)
    /// A revision (`--at`) that names no commit.
    case unknownRevision(String)
    /// The state `remote` holds (or a clone's source) is refused by a rule of the acceptance function (Spec/AUTH.md §5);
    /// nothing was taken.
    case refusedRemote(remote: String, AcceptanceRefusal)
    /// An entry file of a state the acceptance rule took does not open at its path (Spec/AUTH.md §6): a faulty key
    /// holder's replica; nothing was taken.
    case entryContent(remote: String, file: String, CoreError)
    /// The remote holds an older format than this replica (1–4), with changes this replica does not have.
    case remoteFormatOlder(remote: String, version: Int)
    /// A commit made on this replica with plain git breaks the vault's rules; tresor will not take it in.
    case commitMadeWithGitRefused(commit: String, file: String, problem: RemoteProblem)
    /// A state that no key holder made came in through plain git (`git pull`/`git fetch`, reachable from the
    /// remote-tracking `ref`); tresor will not take it in.
    case unauthenticatedCommitsFetched(ref: String, AcceptanceRefusal)
    /// The remote's changes were merged and committed here, then pushing the result failed; the merge stays
    /// (the next sync pushes it). `mergedEntries`: the entries the merge changed here.
    case pushFailedAfterMerge(remote: String, mergedEntries: [String], GitError)
    /// The remote moved between each fetch and push for `seconds` (`attempts` attempts); nothing is lost.
    case remoteKeptMoving(remote: String, attempts: Int, seconds: Double)
    /// A merged entry did not decrypt to what the merge decided; nothing was committed.
    case mergeDidNotVerify(path: String)
    /// git's merge driver was given two different entries at one path (only sync can keep both).
    case differentEntriesAtOnePath(path: String)

    // Transactions and files
    /// The vault lock stayed busy for `seconds`.
    case lockTimeout(holder: LockHolder, seconds: Double)
    /// A file-system call on `path` failed with `errno`.
    case io(path: String, errno: Int32)
    /// Reading or writing a file that is not an entry failed (the error names the file).
    case file(path: String, CoreError)
    /// A Have I Been Pwned "Pwned Passwords" file or folder that cannot be used.
    case pwnedPasswords(path: String, PwnedPasswordsProblem)
}

/// Why a session could not be used or started (README "Sessions").
public enum SessionProblem: Equatable, Sendable {
    /// `TRESOR_SESSION` does not hold a token.
    case notAToken
    /// No session file for this vault: locked, or never unlocked.
    case noSession
    /// The session ended at that time.
    case expired(at: Timestamp)
    /// The token does not open this vault's session file.
    case wrongToken
    /// The session directory is not a 0700 directory of this user.
    case directoryNotPrivate(String)
    /// The session file (or its directory) at `path` could not be written.
    case cannotWrite(path: String, CoreError)
}
