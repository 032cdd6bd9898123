// Credentials for remotes (ssh-agent, ssh key files, https tokens) and the libgit2 callbacks that offer them.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What to offer a remote that asks who we are. Each method is tried at most once per operation.
///
/// For ssh: the `IdentityFile`s `~/.ssh/config` names for the host, then the agent (if `useSSHAgent`), then each
/// key file that exists, RSA keys last, as the user named in the URL, the config or `sshUsername`; DSA and FIDO
/// (`sk-`) keys, which libssh2 cannot use, are skipped. A server that keeps asking gets at most 6 answers per
/// operation. Host aliases of `sshConfig` are resolved before connecting.
/// For https: git's credential helpers (`git credential fill`, when `useGitCredentialHelper`), then
/// `httpsUsername` and `httpsToken`; what worked is approved to the helpers, what the server refused rejected.
/// Host keys are checked by libgit2 against `$HOME/.ssh/known_hosts`. Printing the value never shows the token.
public struct GitCredentials: Sendable, Equatable, CustomStringConvertible {
    public var useSSHAgent: Bool
    /// Private key files, tried in order; `<file>.pub` is used when present.
    public var sshKeyFiles: [String]
    /// The ssh user when neither the URL nor the ssh config names one (`git@host:…` names `git`).
    public var sshUsername: String
    /// Host aliases, users, ports and identity files (`~/.ssh/config`).
    package var sshConfig: SSHConfig
    /// Ask `git credential fill` for https credentials before `httpsUsername`/`httpsToken`.
    public var useGitCredentialHelper: Bool
    public var httpsUsername: String?
    public var httpsToken: String?
    /// CA certificates for https (git's `GIT_SSL_CAINFO` and `GIT_SSL_CAPATH`); nil: the system's.
    public var sslCAFile: String?
    public var sslCAPath: String?

    package init(
        useSSHAgent: Bool = true,
        sshKeyFiles: [String] = [],
        sshUsername: String = "git",
        sshConfig: SSHConfig = SSHConfig(),
        useGitCredentialHelper: Bool = false,
        httpsUsername: String? = nil,
        httpsToken: String? = nil,
        sslCAFile: String? = nil,
        sslCAPath: String? = nil
    ) {
        self.useSSHAgent = useSSHAgent
        self.sshKeyFiles = sshKeyFiles
        self.sshUsername = sshUsername
        self.sshConfig = sshConfig
        self.useGitCredentialHelper = useGitCredentialHelper
        self.httpsUsername = httpsUsername
        self.httpsToken = httpsToken
        self.sslCAFile = sslCAFile
        self.sslCAPath = sslCAPath
    }

    /// The default key files of OpenSSH, in the order offered: RSA last (servers often refuse how libssh2
    /// signs with it), DSA and FIDO keys only to name them when nothing else is there.
    public static let defaultKeyNames = ["id_ed25519", "id_ecdsa", "id_ed25519_sk", "id_ecdsa_sk", "id_dsa", "id_rsa"]

    /// The usual sources: `~/.ssh/config`, ssh-agent when `SSH_AUTH_SOCK` is set, the default key files in
    /// `~/.ssh`, git's credential helpers and `TRESOR_GIT_USERNAME` / `TRESOR_GIT_TOKEN` for https.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: String? = nil
    ) -> GitCredentials {
        // $HOME first, as ssh does; then the password database.
        let home = home ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? GitStrings.homeDirectory()
        return GitCredentials(
            useSSHAgent: environment["SSH_AUTH_SOCK"].map { !$0.isEmpty } ?? false,
            sshKeyFiles: defaultKeyNames.map { home + "/.ssh/" + $0 },
            sshConfig: SSHConfig.load(home: home),
            useGitCredentialHelper: true,
            httpsUsername: environment["TRESOR_GIT_USERNAME"],
            httpsToken: environment["TRESOR_GIT_TOKEN"],
            sslCAFile: environment["GIT_SSL_CAINFO"].flatMap { $0.isEmpty ? nil : $0 },
            sslCAPath: environment["GIT_SSL_CAPATH"].flatMap { $0.isEmpty ? nil : $0 }
        )
    }

    /// Never offers anything; for remotes that need no authentication.
    public static let none = GitCredentials(useSSHAgent: false)

    public var description: String {
        "GitCredentials(agent: \(useSSHAgent), keys: \(sshKeyFiles), user: \(sshUsername), helper: \(useGitCredentialHelper), "
            + "https: \(httpsUsername ?? "-")/\(httpsToken == nil ? "-" : "<token>"))"
    }
}

/// State shared with the C callbacks of one network operation, passed as their payload.
final class RemoteSession {
    /// Upper bound on credential callback calls, however many methods are configured.
    static let maxCredentialCalls = 6

    let credentials: GitCredentials
    /// The URL as configured (errors name it).
    let url: String
    /// The URL to connect to: `url` with `~/.ssh/config` applied.
    let connectURL: String
    /// Key files in the order offered, and whether the agent and the default files may be used at all.
    private let keyFiles: [String]
    private let useAgent: Bool
    /// ssh config keywords for this host that tresor does not follow (named when the host cannot be reached).
    private let notFollowed: [String]
    private var triedAgent = false
    private var triedKeys = 0
    private var triedHelper = false
    private var triedPassword = false
    private var calls = 0
    private(set) var tried: [String] = []
    /// Key files not offered because libssh2 cannot use their type, with the type.
    private(set) var skippedKeys: [(path: String, kind: SSHKeyKind)] = []
    /// Whether an RSA key file was offered, and whether any other key file was.
    private var triedRSAKey = false
    private var triedOtherKey = false
    /// The https credential offered last, and whether it came from git's helpers: only a helper's own
    /// credential is approved to them after success or rejected when asked again. A token from the
    /// environment is never handed to a helper (a `store` helper would write it to disk in plain text).
    private var offeredPassword: GitCredentialHelper.Credential?
    private var offeredFromHelper = false
    /// Refs the remote refused during a push, with its reason.
    var rejections: [(ref: String, status: String)] = []
    /// A leased push: the commit the remote's `main` must hold for the push to go on (`.some(nil)`: no `main` yet).
    var lease: String??
    /// Set when the remote's `main` was not the leased commit: the push was not sent.
    var leaseBroken = false
    /// Told how many objects have been received or sent.
    let progress: GitProgressHandler?

    init(credentials: GitCredentials, url: String, progress: GitProgressHandler? = nil) {
        self.credentials = credentials
        self.url = url
        self.progress = progress
        let resolved = credentials.sshConfig.resolve(url: url)
        connectURL = resolved?.url ?? url
        let configured = resolved?.host.identityFiles ?? []
        let identitiesOnly = resolved?.host.identitiesOnly ?? false
        useAgent = credentials.useSSHAgent && !identitiesOnly
        notFollowed = resolved?.host.notFollowed ?? []
        var files: [String] = []
        for file in configured + (identitiesOnly ? [] : credentials.sshKeyFiles) where !files.contains(file) {
            files.append(file)
        }
        keyFiles = files
        useCertificates(for: connectURL)
    }

    /// Tells libgit2 the CA certificates of `credentials` when `url` may speak TLS: only http(s) does (http too, as a
    /// server may send it on to https).
    func useCertificates(for url: String) {
        guard credentials.sslCAFile != nil || credentials.sslCAPath != nil, url.lowercased().hasPrefix("http") else { return }
        Libgit2.useCertificates(file: credentials.sslCAFile, path: credentials.sslCAPath)
    }

    /// The user for ssh: the URL's, else the ssh config's, else `sshUsername`.
    private var sshUser: String? { credentials.sshConfig.resolve(url: url)?.host.user }

    /// Runs `body` with remote callbacks wired to this session, which stays alive until `body` returns;
    /// then tells git's credential helpers about an https credential that worked.
    func withCallbacks<R>(_ body: (git_remote_callbacks) throws -> R) throws -> R {
        let result = try body(try callbacks())
        if let offered = offeredPassword, offeredFromHelper { GitCredentialHelper.approve(offered, url: connectURL) }
        return result
    }

    /// Remote callbacks wired to this session; valid while `self` is alive.
    private func callbacks() throws -> git_remote_callbacks {
        var callbacks = git_remote_callbacks()
        try check(git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), .connect(remote: nil))
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        callbacks.credentials = { out, _, usernameFromURL, allowed, payload in
            guard let out, let payload else { return GIT_EAUTH.code }
            let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
            return session.offer(out, usernameFromURL.map { String(cString: $0) }, allowed)
        }
        if progress != nil {
            callbacks.transfer_progress = { stats, payload in
                guard let stats, let payload else { return 0 }
                let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
                session.progress?(GitTransferProgress(direction: .receiving, objects: Int(stats.pointee.received_objects),
                                                      totalObjects: Int(stats.pointee.total_objects), bytes: Int(stats.pointee.received_bytes)))
                return 0
            }
            callbacks.push_transfer_progress = { current, total, bytes, payload in
                guard let payload else { return 0 }
                let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
                session.progress?(GitTransferProgress(direction: .sending, objects: Int(current), totalObjects: Int(total), bytes: Int(bytes)))
                return 0
            }
        }
        // Defer to libgit2's own checks: known_hosts for ssh, the CA store for https.
        callbacks.certificate_check = { _, _, _, _ in GIT_PASSTHROUGH.code }
        if lease != nil {
            callbacks.push_negotiation = { updates, count, payload in
                guard let payload else { return -1 }
                let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
                guard let expected = session.lease, let updates else { return 0 }
                for i in 0..<count {
                    guard let u = updates[i] else { continue }
                    guard let dst = u.pointee.dst_refname, String(cString: dst) == GitRepository.mainBranch else { continue }
                    let current = u.pointee.src.hex
                    let isZero = current.allSatisfy { $0 == "0" }
                    if (expected == nil && !isZero) || (expected != nil && current != expected) {
                        session.leaseBroken = true
                        git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "the remote's main moved since it was fetched")
                        return -1
                    }
                }
                return 0
            }
        }
        callbacks.push_update_reference = { ref, status, payload in
            guard let payload, let status else { return 0 }
            let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
            session.rejections.append((ref.map { String(cString: $0) } ?? "?", String(cString: status)))
            return 0
        }
        return callbacks
    }

    /// Fills `out` with the next credential from `nextOffer`; `GIT_EAUTH` (with a message set for
    /// `git_error_last`) when none is left. The constructors' own negative results are handed
    /// back to libgit2, which reports them.
    private func offer(
        _ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>, _ userFromURL: String?, _ allowed: UInt32
    ) -> Int32 {
        switch nextOffer(userFromURL: userFromURL, allowed: CredentialKinds(rawValue: allowed)) {
        case .username(let user):
            return git_credential_username_new(out, user)
        case .sshAgent(let user):
            return git_credential_ssh_key_from_agent(out, user)
        case .sshKey(let user, let privateKey, let publicKey):
            return git_credential_ssh_key_new(out, user, publicKey, privateKey, nil)
        case .password(let user, let token):
            return git_credential_userpass_plaintext_new(out, user, token)
        case nil:
            let message = tried.isEmpty ? "no credentials to offer" : "the server refused " + tried.joined(separator: ", ")
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), message)
            return GIT_EAUTH.code
        }
    }

    /// The credential to offer next, each method at most once, or `nil` to give up.
    func nextOffer(userFromURL: String?, allowed: CredentialKinds) -> CredentialOffer? {
        calls += 1
        // Asked again after an https credential: the server refused it.
        if let refused = offeredPassword {
            offeredPassword = nil
            if offeredFromHelper { GitCredentialHelper.reject(refused, url: connectURL) }
        }
        guard calls <= Self.maxCredentialCalls else { return nil }
        let user = userFromURL ?? sshUser ?? credentials.sshUsername
        // ssh asks for the user name alone first when the URL has none.
        if allowed == .username {
            return .username(user)
        }
        if allowed.contains(.sshKey) {
            if useAgent, !triedAgent {
                triedAgent = true
                tried.append("ssh-agent")
                return .sshAgent(user: user)
            }
            if let key = nextKeyFile() {
                tried.append(key)
                if SSHKeyKind(path: key) == .rsa { triedRSAKey = true } else { triedOtherKey = true }
                let publicKey = FileManager.default.fileExists(atPath: key + ".pub") ? key + ".pub" : nil
                return .sshKey(user: user, privateKey: key, publicKey: publicKey)
            }
        }
        if allowed.contains(.password) {
            if credentials.useGitCredentialHelper, !triedHelper {
                triedHelper = true
                if let found = GitCredentialHelper.fill(url: connectURL, username: userFromURL) {
                    tried.append("the credential from git's credential helper")
                    offeredPassword = found
                    offeredFromHelper = true
                    return .password(user: found.username, token: found.password)
                }
            }
            if !triedPassword, let name = credentials.httpsUsername, let token = credentials.httpsToken {
                triedPassword = true
                tried.append("TRESOR_GIT_USERNAME/TRESOR_GIT_TOKEN")
                offeredPassword = GitCredentialHelper.Credential(username: name, password: token)
                offeredFromHelper = false
                return .password(user: name, token: token)
            }
        }
        return nil
    }

    /// The next existing key file of a type libssh2 can use, RSA keys after all others; the others are
    /// remembered in `skippedKeys`.
    private func nextKeyFile() -> String? {
        let existing = keyFiles.filter { FileManager.default.fileExists(atPath: $0) }
        let kinds = existing.map { SSHKeyKind(path: $0) }
        if triedKeys == 0 {
            skippedKeys = zip(existing, kinds).filter { $0.1 == .dsa || $0.1 == .fido }.map { ($0.0, $0.1) }
        }
        let usable = zip(existing, kinds).filter { $0.1 == .usable }.map(\.0) + zip(existing, kinds).filter { $0.1 == .rsa }.map(\.0)
        guard triedKeys < usable.count else { return nil }
        triedKeys += 1
        return usable[triedKeys - 1]
    }

    /// Turns a failure of a network operation into the error a user can act on.
    func classify(_ error: Error, remote: String) -> Error {
        guard case let GitError.libgit2(code, libgit2Message, _) = error else { return error }
        let message = libgit2Message ?? ""
        switch code {
        // libssh2 1.10 signs RSA only with SHA-1, which current servers refuse: either this
        // message (after repeated attempts) or a plain refusal when RSA keys were the only key files offered.
        case _ where message.contains("list of SSH authentication methods"),
             GIT_EAUTH.code where triedRSAKey && !triedOtherKey:
            return GitError.unsupportedSSHKey(url: url)
        case GIT_EAUTH.code where !triedRSAKey && !triedOtherKey && !skippedKeys.isEmpty:
            return GitError.unusableSSHKeys(url: url, keys: skippedKeys.map { GitError.UnusableKey(path: $0.path, kind: $0.kind == .dsa ? .dsa : .fido) })
        case GIT_EAUTH.code:
            return GitError.authenticationFailed(url: url, message: libgit2Message)
        case GIT_ECERTIFICATE.code:
            return GitError.hostKeyRejected(url: url)
        case GIT_ENONFASTFORWARD.code:
            return GitError.pushRejected(remote: remote, reason: .notFastForward)
        // The remote answered, but with objects that do not parse: not a network problem.
        case _ where message.contains("failed to parse") || message.contains("corrupt") || message.contains("invalid object"):
            return GitError.malformedTree(id: "", reason: .unparsable(message))
        default:
            // A local path fails the same way whether it is missing or not a repository: say which.
            if let path = RemoteSession.localPath(of: url) {
                // stat(2) itself (TresorGit does not see TresorCore's FileSystem), as a question about a failure already
                // reported: nothing there to stat is "missing".
                var st = stat()
                guard stat(path, &st) == 0 else { return GitError.localRemoteMissing(path: path) }
                if st.st_mode & S_IFMT != S_IFDIR || !RemoteSession.looksLikeRepository(path) { return GitError.localRemoteNotARepository(path: path) }
            }
            return GitError.unreachable(url: url, message: libgit2Message, optionsNotFollowed: notFollowed)
        }
    }

    /// The file-system path a remote URL names: a `file://` URL, or a path that is neither a URL nor
    /// scp-style `[user@]host:path` (a ":" before the first "/", as git decides); nil for a network remote.
    static func localPath(of url: String) -> String? {
        if url.hasPrefix("file://") {
            let rest = String(url.dropFirst("file://".count))
            return (GitStrings.percentDecoded(rest) ?? rest)
        }
        if url.contains("://") { return nil }
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return nil }
        return url
    }

    /// A bare repository, or a work tree with `.git`, as far as its files show.
    static func looksLikeRepository(_ path: String) -> Bool {
        let fm = FileManager.default
        if fm.fileExists(atPath: path + "/.git") { return true }
        return fm.fileExists(atPath: path + "/HEAD") && fm.fileExists(atPath: path + "/objects")
    }
}

/// The credential types a server accepts, as libgit2's `allowed_types` bits.
struct CredentialKinds: OptionSet {
    let rawValue: UInt32
    static let username = CredentialKinds(rawValue: GIT_CREDENTIAL_USERNAME.rawValue)
    static let sshKey = CredentialKinds(rawValue: GIT_CREDENTIAL_SSH_KEY.rawValue)
    static let password = CredentialKinds(rawValue: GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue)
}

/// One credential to hand to libgit2.
enum CredentialOffer: Equatable {
    case username(String)
    case sshAgent(user: String)
    case sshKey(user: String, privateKey: String, publicKey: String?)
    case password(user: String, token: String)
}
