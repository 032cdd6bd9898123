// The vault as users see it: entries in a store, every change one git commit, keys from a passphrase or session.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore
import TresorGit

/// An open vault. Listing needs no key; reading and writing entries need `unlock`. Every change goes
/// through `transaction` (Spec/TRANSACTIONS.md).
///
/// Not `Sendable`: one `Vault` is used by one task, thread or actor at a time. Several `Vault`s on one folder, in one
/// process or many, are safe: each change takes the vault's lock file (docs/library.md "Concurrency").
public final class Vault {
    /// Absolute path of the vault root.
    public let root: String
    let store: EntryStore
    /// The header as the work tree has it (re-read after changes).
    package internal(set) var header: VaultHeader
    private var openedRepository: GitRepository?
    /// Set by `clone` when it made the directory, so a failed clone can remove it.
    var createdDirectory = false
    private var vaultKey: SecretBytes?
    /// What unlocked the vault in this process (passphrase or identity), if not a session: what opens the
    /// new key when a sync meets a vault rekeyed elsewhere. Set it to offer one after unlocking otherwise.
    package var credential: KeyCredential?
    /// Set by a sync that merged two concurrent rekeys where this replica removed a member the other rekey
    /// kept: the sync rekeys again before it pushes.
    var pendingRekey = false
    /// Keys between this replica's and a fetched rekeyed header's, when it missed several rekeys: for reading
    /// the fetched history (newest last).
    var historyKeys: [SecretBytes] = []
    private(set) var cipher: EntryCipher?
    private(set) var authenticator: VaultAuthenticator?
    /// The keys of the scopes this process opened (scope id → key), Spec/FORMAT.md §3.12.4.
    var scopeKeys: [String: ScopeKeys] = [:]
    /// Scopes (id → folder) whose header has a slot for this process's identity that a replica without the vault key
    /// has not accepted (Spec/FORMAT.md §3.12.6): left closed until `acceptScope`.
    package internal(set) var offeredScopes: [String: String] = [:]

    /// How long a change waits for another process's change to finish, in seconds.
    public var lockTimeout: TimeInterval = 20
    /// Called once when a change has to wait for the vault lock, with the process that holds it.
    public var onLockWait: ((LockHolder) -> Void)?
    private var cachedDeviceID: String?
    var cachedReplicaID: String?
    /// The epoch of the vault key held (Spec/FORMAT.md §11.5).
    var vaultEpoch: UInt64 = 1
    /// What the changes made so far could not finish and left to the next command (their commits exist).
    public internal(set) var warnings: [VaultWarning] = []
    /// Things worth telling that went well (commits made with git taken in, a remote that went back).
    public internal(set) var notices: [VaultNotice] = []

    init(root: String, header: VaultHeader, repo: GitRepository?) {
        self.root = root
        self.store = EntryStore(root: root)
        self.header = header
        self.openedRepository = repo
    }

    /// The git repository, opened on first use: reading entries works on a plain copy of a vault
    /// without `.git`; changing them does not. - Throws: `VaultError.notARepository`, `.git`.
    func repository() throws -> GitRepository {
        if let openedRepository { return openedRepository }
        guard FileSystem.kind(root + "/.git") == .directory else { throw VaultError.notARepository(directory: root) }
        let repo: GitRepository
        do { repo = try GitRepository.open(at: root) }
        catch GitError.notARepository { throw VaultError.notARepository(directory: root) }
        catch let e as GitError { throw VaultError.git(e) }
        openedRepository = repo
        return repo
    }

    // MARK: Creating and opening

    /// Creates a vault in `directory` (new or empty): header, git repository, first commit.
    /// - Throws: `VaultError.alreadyAVault`, `.directoryNotEmpty`, `.notADirectory`, `.git`, `.io`.
    public static func create(at directory: String, passphrase: SecretBytes, level: KDFLevel) throws -> Vault {
        let root = absolutePath(directory)
        if FileSystem.kind(root + "/" + VaultHeader.relativePath) == .file { throw VaultError.alreadyAVault(directory: root) }
        switch FileSystem.kind(root) {
        case .missing:
            var current = ""
            for part in root.split(separator: "/") {
                current += "/" + part
                try Vault.io { try FileSystem.makeDirectory(current, existingIsFine: true) }
            }
        case .directory:
            try removeAbandonedInit(root)
            guard FileSystem.list(root).isEmpty else { throw VaultError.directoryNotEmpty(directory: root) }
        default: throw VaultError.notADirectory(path: root)
        }
        let repo = try git { try GitRepository.create(at: root) }
        try Vault.io { try FileSystem.setMode(root + "/.git", 0o700) }
        try SyncSetup.configure(repo)
        // The header is made in the first transaction: its slot carries that change's dot (Spec/FORMAT.md §11.4).
        let placeholder = VaultHeader(vaultID: UUID().uuidString.lowercased(), keySlots: [], otherSlots: [], unknownMembers: [:])
        let vault = Vault(root: root, header: placeholder, repo: repo)
        try vault.transaction { txn in
            let (unsigned, key) = try VaultHeader.create(passphrase: passphrase, level: level, change: txn.change)
            let header = try VaultAuthenticator(vaultKey: key).authenticated(unsigned)
            txn.putHeader(header)
            txn.putFile(SyncSetup.attributesFile, Array(SyncSetup.attributes.utf8))
            txn.newVaultKey = key
            txn.message = "Initialize vault"
        }
        try vault.reloadHeader()
        try vault.unlock(vaultKey: try vault.currentVaultKey())
        vault.credential = .passphrase(passphrase)
        return vault
    }

    /// A directory holding only the `.git` of an `init` that was killed before its first commit is
    /// emptied, so `init` can start again.
    private static func removeAbandonedInit(_ root: String) throws {
        // (A `.git` that does not open as a repository is not one tresor began: left alone, and `init` refuses the
        // folder as not empty. One whose HEAD cannot be read is an error, never "no commit yet": that would remove it.)
        guard FileSystem.list(root) == [".git"], let repo = try? GitRepository.open(at: root),
              try Vault.git({ try repo.headCommitID() }) == nil else { return }
        try? FileManager.default.removeItem(atPath: root + "/.git")  // (one that stays is refused as not empty, next)
    }

    /// Readies the git layer on another thread, for a command that will commit or sync: its start-up (the system's
    /// CA bundle, parsed) then overlaps the command's own work before its first use of git.
    package static func prepareGitInBackground() {
        GitRepository.prepareInBackground(defaults: libgit2DefaultsFolder())
    }

    /// When `openLibraries` opens the git library: now, only if `prepareGitInBackground` began (whose start on another
    /// thread may be opening it while a passphrase is asked), or on its first use.
    package enum GitLibraryOpening { case now, ifPreparing, onFirstUse }

    /// Opens on this thread now the libraries a command goes on to use, before it changes anything or a program changes
    /// the terminal (echo off, pinentry's dialog, the full screen): libsodium, which every unlock and every change
    /// uses, the git library as `git` says, and with `crypto` libcrypto (one-time codes, other managers' files). Each
    /// is opened on its first use (Sources/CLateBinding), and a missing one ends the program (exit 127) wherever that is.
    package static func openLibraries(git: GitLibraryOpening, crypto: Bool = false) {
        Sodium.ensureInitialized()
        if crypto { LibCrypto.open() }
        switch git {
        case .now: GitRepository.openLibrary(onlyIfStarted: false)
        case .ifPreparing: GitRepository.openLibrary(onlyIfStarted: true)
        case .onFirstUse: break
        }
    }

    /// The folder of the data file libgit2/config (libgit2's defaults inside tresor: a delta search of one neighbour),
    /// when libgit2 can be pointed at it safely: an absolute path without `:` or `$` (libgit2 splits its search paths at
    /// `:` and expands `$PATH`), and the folder and the file, which libgit2 reads again at each repository it opens, not
    /// writable by anyone but their owner, root or this user. Else nil: libgit2's own defaults, only slower.
    static func libgit2DefaultsFolder() -> String? {
        guard let folder = DataFiles.folder(holding: "libgit2/config"), folder.hasPrefix("/"),
              !folder.contains(":"), !folder.contains("$") else { return nil }
        for path in [folder, folder + "/config"] {
            guard let st = try? FileSystem.status(path, followingLinks: true), st.st_uid == 0 || st.st_uid == getuid(),
                  st.st_mode & 0o022 == 0 else { return nil }
        }
        return folder
    }

    /// Opens the vault at `directory`. - Throws: `VaultError.notAVault` (also when there is no such directory),
    /// `.interruptedClone`, `.header`.
    public static func open(at directory: String) throws -> Vault {
        let root = absolutePath(directory)
        let store = EntryStore(root: root)
        if FileSystem.kind(root + "/" + cloneMarker) == .file { throw VaultError.interruptedClone(directory: root) }
        guard FileSystem.kind(root) == .directory, FileSystem.kind(store.absolute(VaultHeader.relativePath)) != .missing else {
            throw VaultError.notAVault(directory: root)
        }
        let header: VaultHeader
        do { header = try VaultHeader.parse(try store.readHeader()) } catch let e as CoreError { throw VaultError.header(e) }
        return Vault(root: root, header: header, repo: nil)
    }

    static func absolutePath(_ p: String) -> String {
        let expanded = PathName.expandingTilde(p)
        let abs = expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
        return PathName.standardized(abs)
    }

    // MARK: Keys

    /// Derives the vault key from the passphrase (Argon2id). - Throws: `VaultError.wrongPassphrase`.
    public func unlock(passphrase: SecretBytes) throws {
        do { try unlock(vaultKey: try header.unlock(passphrase: passphrase)) }
        catch CoreError.wrongPassphrase { throw VaultError.wrongPassphrase }
        catch let e as CoreError { throw VaultError.header(e) }
        credential = .passphrase(passphrase)
    }

    /// Unlocks with an identity whose public key has a recipient key slot (Spec/FORMAT.md §3.8).
    /// - Throws: `VaultError.header(.notARecipient)` when the identity is not a member,
    ///   `.header(.authenticationFailed)` for a changed slot, `.header(.headerNotAuthentic)`.
    public func unlock(identity: Identity) throws {
        let source: ScopeHeaderSource
        do { source = try useVaultKey(try header.unlock(identity: identity)) }
        catch CoreError.notARecipient where header.version >= FormatVersion.scopedHeader {
            // A scope-only member (Spec/FORMAT.md §3.12.4): the scopes it is a member of, or no key at all.
            try openScopes(listedIn: header, from: .workTree, identity: identity)
            // A scope offered but not accepted yet counts: `scope accept` needs this unlock.
            guard !scopeKeys.isEmpty || !offeredScopes.isEmpty else { throw VaultError.header(.notARecipient) }
            credential = .identity(identity)
            return
        } catch let e as CoreError { throw VaultError.header(e) }
        if header.version >= FormatVersion.scopedHeader { try openScopes(listedIn: header, from: source, identity: identity) }
        credential = .identity(identity)
    }

    /// Uses a vault key obtained elsewhere (a session). A version 2 header must then verify with it.
    /// - Throws: `VaultError.session(.wrongToken)` for a key of the wrong length; `.header(.headerNotAuthentic)`
    ///   when the header was changed by someone without the key.
    public func unlock(vaultKey key: SecretBytes) throws {
        let source = try useVaultKey(key)
        if header.version >= FormatVersion.scopedHeader { try openScopes(listedIn: header, from: source, identity: nil) }
    }

    /// Makes `key` this process's vault key once the header verifies under it, and returns where the scope headers of the
    /// header in use are: the work tree, or the state this replica last accepted when the work tree's header is not
    /// under the key (a merge git made left its header there, a rekey's perhaps: the merge is taken in against that
    /// state, `adoptCommitsMadeWithGit`).
    private func useVaultKey(_ key: SecretBytes) throws -> ScopeHeaderSource {
        let newCipher: EntryCipher, newAuthenticator: VaultAuthenticator
        do { newCipher = try EntryCipher(vaultKey: key); newAuthenticator = try VaultAuthenticator(vaultKey: key) }
        catch { throw VaultError.session(.wrongToken) }
        var accepted: String?
        do { try newAuthenticator.verify(header) } catch let e as CoreError {
            guard let (own, commit) = acceptedHeader(), (try? newAuthenticator.verify(own)) != nil else { throw VaultError.header(e) }
            header = own
            accepted = commit
        }
        newCipher.readsVersion1 = header.version < FormatVersion.header
        cipher = newCipher
        authenticator = newAuthenticator
        vaultKey = key
        vaultEpoch = header.epoch
        return try accepted.map { .commit($0, try repository()) } ?? .workTree
    }

    /// Uses the keys of a session (`Session.keys`): the vault key as `unlock(vaultKey:)` does, then each scope key
    /// whose scope the vault header lists and whose scope header is authentic under it (Spec/FORMAT.md §3.12.4); a
    /// key of a scope removed or rekeyed since the session began is left out.
    /// - Throws: as `unlock(vaultKey:)`; `VaultError.session(.wrongToken)` when no key of the session opens anything.
    package func unlock(session: SessionKeys) throws {
        if let key = session.vaultKey { try unlock(vaultKey: key) }
        for (id, key) in session.scopeKeys.sorted(by: { $0.key < $1.key }) where scopeKeys[id] == nil && header.scopes[id] != nil {
            guard let s = try? scopeHeader(id), let keys = try? ScopeKeys(key, epoch: s.epoch), (try? keys.authenticator.verify(s)) != nil else { continue }
            scopeKeys[id] = keys
        }
        guard vaultKey != nil || !scopeKeys.isEmpty else { throw VaultError.session(.wrongToken) }
    }

    /// Uses `key` from now on without checking the header against it (a rekey or a sync that took in a
    /// rekey, which checked it themselves).
    func useKey(_ key: SecretBytes) throws {
        do { cipher = try EntryCipher(vaultKey: key); authenticator = try VaultAuthenticator(vaultKey: key) }
        catch { throw VaultError.session(.wrongToken) }
        vaultKey = key
    }

    func requireAuthenticator() throws -> VaultAuthenticator {
        guard let authenticator else { throw scopeKeys.isEmpty ? VaultError.vaultLocked : VaultError.needsVaultKey }
        return authenticator
    }

    /// The identity this process unlocked with, if that was its credential.
    var credentialIdentity: Identity? { if case .identity(let i) = credential { i } else { nil } }

    /// Whether any key is held: the vault key, or the keys of some scopes.
    public var isUnlocked: Bool { cipher != nil || !scopeKeys.isEmpty }

    /// Whether this process holds the vault key (a scope-only member does not, Spec/FORMAT.md §3.12.4).
    public var holdsVaultKey: Bool { cipher != nil }

    /// The vault key, for creating a session. Only after `unlock`. - Throws: `VaultError.vaultLocked`.
    public func currentVaultKey() throws -> SecretBytes {
        guard let vaultKey else { throw scopeKeys.isEmpty ? VaultError.vaultLocked : VaultError.needsVaultKey }
        return vaultKey
    }

    func requireCipher() throws -> EntryCipher {
        guard let cipher else { throw scopeKeys.isEmpty ? VaultError.vaultLocked : VaultError.needsVaultKey }
        return cipher
    }

    /// Re-wraps the vault key under a new passphrase, replacing every passphrase key slot by one
    /// (Spec/FORMAT.md §3.5, §11.4); entries are untouched. Commits "Change passphrase".
    /// - Returns: how many other passphrase slots were removed with the one that opened (their
    ///   passphrases no longer open the vault).
    @discardableResult
    public func changePassphrase(to newPassphrase: SecretBytes, level: KDFLevel) throws -> Int {
        let key = try currentVaultKey()
        let authenticator = try requireAuthenticator()
        let removed = try transaction { txn -> Int in
            let header = try txn.header()
            do { txn.putHeader(try authenticator.authenticated(try header.rewrapped(vaultKey: key, newPassphrase: newPassphrase, level: level, change: txn.change))) }
            catch let e as CoreError { throw VaultError.header(e) }
            txn.message = "Change passphrase"
            return header.keySlots.count - 1
        }
        try reloadHeader()
        // The new passphrase is what this process opens a header rekeyed elsewhere with from now on.
        if case .passphrase = credential { credential = .passphrase(newPassphrase) }
        return removed
    }

    /// Re-reads `.tresor/vault.json` after the work tree changed (the epoch of the key held follows it when it verifies).
    /// The vault header of the last state this replica accepted (`refs/tresor/verified`), when it differs from the work
    /// tree's (a merge made with git not taken in yet).
    func acceptedHeader() -> (VaultHeader, commit: String)? {
        guard let repo = try? repository(), let verified = repo.resolve(Vault.verifiedRef),
              let bytes = try? repo.blob(at: verified, path: VaultHeader.relativePath),
              let header = try? VaultHeader.parse(bytes) else { return nil }
        return (header, verified)
    }

    func reloadHeader() throws {
        do { header = try VaultHeader.parse(try store.readHeader()) } catch let e as CoreError { throw VaultError.header(e) }
        if let authenticator, (try? authenticator.verify(header)) != nil { vaultEpoch = header.epoch }
    }

    // MARK: Device identity

    /// This clone's device id, the `origin` of fields it writes (kept in `.git/tresor/device`, never committed).
    /// Reading it changes nothing on disk: a clone without one gets a new id in memory, and the first
    /// transaction that commits writes it down (`persistDeviceID`).
    public var deviceID: String {
        if let cachedDeviceID { return cachedDeviceID }
        // (An id that cannot be read gives one in memory here; `persistDeviceID`, which would write it, stops instead.)
        let id = (try? Vault.readDeviceID(root)) ?? UUID().uuidString.lowercased()
        cachedDeviceID = id
        return id
    }

    /// The device id recorded in `root`, nil when there is none (or not one). - Throws: `CoreError` when the file is there
    /// and cannot be read.
    static func readDeviceID(_ root: String) throws -> String? {
        guard let bytes = try FileSystem.readIfPresent(root + "/.git/tresor/device", limit: 100),
              let s = String(bytes: bytes, encoding: .utf8) else { return nil }
        let id = s.trimming(.whitespacesAndNewlines)
        return Envelope.isCanonicalUUID(id) ? id : nil
    }

    /// Writes this clone's device id to `.git/tresor/device` if it is not there yet (inside the vault lock).
    func persistDeviceID() throws {
        // Another process wrote one meanwhile: that one is the clone's id from now on (never overwritten).
        if let stored = try Vault.readDeviceID(root) { cachedDeviceID = stored; return }
        let id = deviceID
        try FileSystem.makeDirectories(".git/tresor", under: root)
        try FileSystem.writeAtomically(Array((id + "\n").utf8), to: root + "/.git/tresor/device")
    }

    // MARK: Git

    static func git<T>(_ body: () throws -> T, file: String = #fileID, line: Int = #line) throws -> T {
        do { return try body() } catch let e as GitError {
            if ProcessInfo.processInfo.environment["TRESOR_TRACE"] != nil { StandardStream.write(2, "git error at \(file):\(line): \(e)\n") }
            throw VaultError.git(e)
        }
    }

    /// `body`, a `FileSystem.Failure` it throws turned into `VaultError.io` (its path and errno).
    @discardableResult
    static func io<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as FileSystem.Failure { throw VaultError.io(path: e.path, errno: e.errno) }
    }

    /// Commits of the vault, newest first, optionally only those touching one entry.
    public func history(of path: EntryPath? = nil, limit: Int? = nil) throws -> [GitCommit] {
        let repo = try repository()
        return try Vault.git { try repo.log(path: path?.filePath, limit: limit) }
    }
}
