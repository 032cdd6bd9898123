// The vault as users see it: entries in a store, every change one git commit, keys from a passphrase or session.
import Foundation
import TresorCore
import TresorGit

/// An open vault. Listing needs no key; reading and writing entries need `unlock`.
public final class Vault {
    /// Absolute path of the vault root.
    public let root: String
    public let store: EntryStore
    public internal(set) var header: VaultHeader
    private var openedRepository: GitRepository?
    /// Set by `clone` when it made the directory, so a failed clone can remove it.
    var createdDirectory = false
    private var vaultKey: SecretBytes?
    private var cipher: EntryCipher?

    init(root: String, header: VaultHeader, repo: GitRepository?) {
        self.root = root
        self.store = EntryStore(root: root)
        self.header = header
        self.openedRepository = repo
    }

    var openedRepositoryIfAny: GitRepository? { openedRepository }

    /// The git repository, opened on first use: reading entries works on a plain copy of a vault
    /// without `.git`; changing them does not.
    public func repository() throws -> GitRepository {
        if let openedRepository { return openedRepository }
        guard FileSystem.kind(root + "/.git") == .directory else { throw VaultError.notARepository(root) }
        let repo = try Vault.git { try GitRepository.open(at: root) }
        openedRepository = repo
        // A sync killed after moving HEAD but before updating the files is finished first, so no
        // command ever commits the old files on top of the new HEAD (Spec/MERGE.md §13.2).
        try finishInterruptedSync()
        return repo
    }

    // MARK: Creating and opening

    /// Creates a vault in `directory` (new or empty): header, git repository, first commit.
    /// - Throws: `VaultError.alreadyAVault`, `.directoryNotEmpty`, `.git`, `.io`.
    public static func create(at directory: String, passphrase: SecretBytes, level: KDFLevel) throws -> Vault {
        let root = absolutePath(directory)
        if FileSystem.kind(root + "/" + VaultHeader.relativePath) == .file { throw VaultError.alreadyAVault(root) }
        switch FileSystem.kind(root) {
        case .missing:
            do { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
            catch { throw VaultError.io("cannot create \"\(root)\": \(error.localizedDescription)") }
        case .directory:
            guard FileSystem.list(root).isEmpty else { throw VaultError.directoryNotEmpty(root) }
        default: throw VaultError.io("\"\(root)\" is not a directory")
        }
        let (header, key) = try VaultHeader.create(passphrase: passphrase, level: level)
        let store = EntryStore(root: root)
        do { try store.writeHeader(header.serialized()) } catch let e as CoreError { throw VaultError.header(e) }
        let repo = try git { try GitRepository.create(at: root) }
        chmod(root + "/.git", 0o700)
        try SyncSetup.writeAttributes(root: root)
        try SyncSetup.configure(repo)
        try git { try repo.commit(message: "Initialize vault", adding: [VaultHeader.relativePath, SyncSetup.attributesFile], removing: []) }
        let vault = Vault(root: root, header: header, repo: repo)
        try vault.unlock(vaultKey: key)
        return vault
    }

    /// Opens the vault at `directory`. - Throws: `VaultError.notAVault`, `.header`, `.git`.
    public static func open(at directory: String) throws -> Vault {
        let root = absolutePath(directory)
        let store = EntryStore(root: root)
        guard FileSystem.kind(root) == .directory, FileSystem.kind(store.absolute(VaultHeader.relativePath)) != .missing else {
            throw VaultError.notAVault(root)
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
    }

    /// Uses a vault key obtained elsewhere (a session).
    public func unlock(vaultKey key: SecretBytes) throws {
        vaultKey = key
        do { cipher = try EntryCipher(vaultKey: key) } catch { throw VaultError.session("session key has the wrong length") }
    }

    public var isUnlocked: Bool { cipher != nil }

    /// The vault key, for creating a session. Only after `unlock`.
    public func currentVaultKey() throws -> SecretBytes {
        guard let vaultKey else { throw VaultError.session("vault is locked") }
        return vaultKey
    }

    func requireCipher() throws -> EntryCipher {
        guard let cipher else { throw VaultError.session("vault is locked") }
        return cipher
    }

    /// Re-wraps the vault key under a new passphrase; entries are untouched. Commits "Change passphrase".
    public func changePassphrase(to newPassphrase: SecretBytes, level: KDFLevel) throws {
        _ = try repository()
        let key = try currentVaultKey()
        do {
            header = try header.rewrapped(vaultKey: key, newPassphrase: newPassphrase, level: level)
            try store.writeHeader(header.serialized())
        } catch let e as CoreError { throw VaultError.header(e) }
        try commit("Change passphrase", adding: [VaultHeader.relativePath])
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

    func commit(_ message: String, adding: [String] = [], removing: [String] = []) throws {
        let repo = try repository()
        try Vault.git { _ = try repo.commit(message: message, adding: adding, removing: removing) }
    }

    static func git<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as GitError { throw VaultError.git(e) }
    }

    /// Commits of the vault, newest first, optionally only those touching one entry.
    public func history(of path: EntryPath? = nil, limit: Int? = nil) throws -> [GitCommit] {
        let repo = try repository()
        return try Vault.git { try repo.log(path: path?.filePath, limit: limit) }
    }
}
