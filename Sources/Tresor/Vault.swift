// The vault as users see it: entries in a store, every change one git commit, keys from a passphrase or session.
import Foundation
import TresorCore
import TresorGit

/// An open vault. Listing needs no key; reading and writing entries need `unlock`. Every change goes
/// through `transaction` (Spec/TRANSACTIONS.md).
public final class Vault {
    /// Absolute path of the vault root.
    public let root: String
    let store: EntryStore
    /// The header as the work tree has it (re-read after changes).
    public internal(set) var header: VaultHeader
    private var openedRepository: GitRepository?
    /// Set by `clone` when it made the directory, so a failed clone can remove it.
    var createdDirectory = false
    private var vaultKey: SecretBytes?
    private(set) var cipher: EntryCipher?

    /// How long a change waits for another process's change to finish, in seconds.
    public var lockTimeout: TimeInterval = 20
    /// Called once when a change has to wait for the vault lock, with the process that holds it.
    public var onLockWait: ((LockHolder) -> Void)?
    /// What the changes made so far could not finish and left to the next command (their commits exist).
    public internal(set) var warnings: [VaultWarning] = []

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
        let repo = try Vault.git { try GitRepository.open(at: root) }
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
                if mkdir(current, 0o700) != 0, errno != EEXIST { throw VaultError.io(path: current, errno: errno) }
            }
        case .directory:
            try removeAbandonedInit(root)
            guard FileSystem.list(root).isEmpty else { throw VaultError.directoryNotEmpty(directory: root) }
        default: throw VaultError.notADirectory(path: root)
        }
        let (header, key) = try VaultHeader.create(passphrase: passphrase, level: level)
        let repo = try git { try GitRepository.create(at: root) }
        chmod(root + "/.git", 0o700)
        try SyncSetup.configure(repo)
        let vault = Vault(root: root, header: header, repo: repo)
        try vault.unlock(vaultKey: key)
        try vault.transaction { txn in
            txn.putHeader(header)
            txn.putFile(SyncSetup.attributesFile, Array(SyncSetup.attributes.utf8))
            txn.message = "Initialize vault"
        }
        return vault
    }

    /// A directory holding only the `.git` of an `init` that was killed before its first commit is
    /// emptied, so `init` can start again.
    private static func removeAbandonedInit(_ root: String) throws {
        guard FileSystem.list(root) == [".git"], let repo = try? GitRepository.open(at: root),
              (try? repo.headCommitID()) ?? nil == nil else { return }
        try? FileManager.default.removeItem(atPath: root + "/.git")
    }

    /// Opens the vault at `directory`. - Throws: `VaultError.notAVault`, `.header`.
    public static func open(at directory: String) throws -> Vault {
        let root = absolutePath(directory)
        let store = EntryStore(root: root)
        guard FileSystem.kind(root) == .directory, FileSystem.kind(store.absolute(VaultHeader.relativePath)) != .missing else {
            throw VaultError.notAVault(directory: root)
        }
        let header: VaultHeader
        do { header = try VaultHeader.parse(try store.readHeader()) } catch let e as CoreError { throw VaultError.header(e) }
        return Vault(root: root, header: header, repo: nil)
    }

    static func absolutePath(_ p: String) -> String {
        let expanded = (p as NSString).expandingTildeInPath
        let abs = expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
        return (abs as NSString).standardizingPath
    }

    // MARK: Keys

    /// Derives the vault key from the passphrase (Argon2id). - Throws: `VaultError.wrongPassphrase`.
    public func unlock(passphrase: SecretBytes) throws {
        do { try unlock(vaultKey: try header.unlock(passphrase: passphrase)) }
        catch CoreError.wrongPassphrase { throw VaultError.wrongPassphrase }
        catch let e as CoreError { throw VaultError.header(e) }
    }

    /// Uses a vault key obtained elsewhere (a session). - Throws: `VaultError.session(.wrongToken)` for a
    /// key of the wrong length.
    public func unlock(vaultKey key: SecretBytes) throws {
        do { cipher = try EntryCipher(vaultKey: key) } catch { throw VaultError.session(.wrongToken) }
        vaultKey = key
    }

    public var isUnlocked: Bool { cipher != nil }

    /// The vault key, for creating a session. Only after `unlock`. - Throws: `VaultError.vaultLocked`.
    public func currentVaultKey() throws -> SecretBytes {
        guard let vaultKey else { throw VaultError.vaultLocked }
        return vaultKey
    }

    func requireCipher() throws -> EntryCipher {
        guard let cipher else { throw VaultError.vaultLocked }
        return cipher
    }

    /// Re-wraps the vault key under a new passphrase, replacing every passphrase key slot by one
    /// (Spec/FORMAT.md §3.5); entries are untouched. Commits "Change passphrase".
    /// - Returns: how many other passphrase slots were removed with the one that opened (their
    ///   passphrases no longer open the vault).
    @discardableResult
    public func changePassphrase(to newPassphrase: SecretBytes, level: KDFLevel) throws -> Int {
        let key = try currentVaultKey()
        let removed = try transaction { txn -> Int in
            let header = try txn.header()
            do { txn.putHeader(try header.rewrapped(vaultKey: key, newPassphrase: newPassphrase, level: level)) }
            catch let e as CoreError { throw VaultError.header(e) }
            txn.message = "Change passphrase"
            return header.keySlots.count - 1
        }
        try reloadHeader()
        return removed
    }

    /// Re-reads `.tresor/vault.json` after the work tree changed.
    func reloadHeader() throws {
        do { header = try VaultHeader.parse(try store.readHeader()) } catch let e as CoreError { throw VaultError.header(e) }
    }

    // MARK: Device identity

    /// This clone's device id, the `origin` of fields it writes (kept in `.git/tresor/device`, never committed).
    public lazy var deviceID: String = {
        let dir = root + "/.git/tresor"
        let file = dir + "/device"
        if let bytes = try? FileSystem.read(file, limit: 100), let s = String(bytes: bytes, encoding: .utf8),
           Envelope.isCanonicalUUID(s.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return s.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let id = UUID().uuidString.lowercased()
        try? FileSystem.makeDirectories(".git/tresor", under: root)
        try? FileSystem.writeAtomically(Array((id + "\n").utf8), to: file)
        return id
    }()

    // MARK: Git

    static func git<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as GitError { throw VaultError.git(e) }
    }

    /// Commits of the vault, newest first, optionally only those touching one entry.
    public func history(of path: EntryPath? = nil, limit: Int? = nil) throws -> [GitCommit] {
        let repo = try repository()
        return try Vault.git { try repo.log(path: path?.filePath, limit: limit) }
    }
}
