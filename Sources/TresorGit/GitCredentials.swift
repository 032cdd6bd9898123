// Credentials for remotes (ssh-agent, ssh key files, https tokens) and the libgit2 callbacks that offer them.
internal import CGit2
import Foundation

/// What to offer a remote that asks who we are. Each method is tried at most once per operation.
///
/// For ssh: the agent (if `useSSHAgent`), then each key file that exists, as the user named in
/// the URL or `sshUsername`; a server that keeps asking gets at most 6 answers per operation.
/// For https: `httpsUsername` and `httpsToken`. Host keys are checked by libgit2 against
/// `$HOME/.ssh/known_hosts`. Printing the value never shows the token.
public struct GitCredentials: Sendable, Equatable, CustomStringConvertible {
    public var useSSHAgent: Bool
    /// Private key files, tried in order; `<file>.pub` is used when present.
    public var sshKeyFiles: [String]
    /// The ssh user when the URL names none (`git@host:…` names `git`).
    public var sshUsername: String
    public var httpsUsername: String?
    public var httpsToken: String?

    public init(
        useSSHAgent: Bool = true,
        sshKeyFiles: [String] = [],
        sshUsername: String = "git",
        httpsUsername: String? = nil,
        httpsToken: String? = nil
    ) {
        self.useSSHAgent = useSSHAgent
        self.sshKeyFiles = sshKeyFiles
        self.sshUsername = sshUsername
        self.httpsUsername = httpsUsername
        self.httpsToken = httpsToken
    }

    /// The usual sources: ssh-agent when `SSH_AUTH_SOCK` is set, `~/.ssh/id_ed25519` and `~/.ssh/id_ecdsa`, and
    /// `TRESOR_GIT_USERNAME` / `TRESOR_GIT_TOKEN` for https.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: String? = nil
    ) -> GitCredentials {
        // $HOME first, as ssh does; NSHomeDirectory() reads the password database on Linux.
        let home = home ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return GitCredentials(
            useSSHAgent: environment["SSH_AUTH_SOCK"].map { !$0.isEmpty } ?? false,
            sshKeyFiles: ["id_ed25519", "id_ecdsa"].map { home + "/.ssh/" + $0 },
            httpsUsername: environment["TRESOR_GIT_USERNAME"],
            httpsToken: environment["TRESOR_GIT_TOKEN"]
        )
    }

    /// Never offers anything; for remotes that need no authentication.
    public static let none = GitCredentials(useSSHAgent: false)

    public var description: String {
        "GitCredentials(agent: \(useSSHAgent), keys: \(sshKeyFiles), user: \(sshUsername), "
            + "https: \(httpsUsername ?? "-")/\(httpsToken == nil ? "-" : "<token>"))"
    }
}

/// State shared with the C callbacks of one network operation, passed as their payload.
final class RemoteSession {
    /// Upper bound on credential callback calls, however many methods are configured.
    static let maxCredentialCalls = 6

    let credentials: GitCredentials
    let url: String
    private var triedAgent = false
    private var triedKeys = 0
    private var triedPassword = false
    private var calls = 0
    private(set) var tried: [String] = []
    /// Whether every credential offered so far was an RSA key file.
    private var onlyRSAKeysTried = false
    /// Refs the remote refused during a push, with its reason.
    var rejections: [(ref: String, status: String)] = []

    init(credentials: GitCredentials, url: String) {
        self.credentials = credentials
        self.url = url
    }

    /// Runs `body` with remote callbacks wired to this session, which stays alive until `body` returns.
    func withCallbacks<R>(_ body: (git_remote_callbacks) throws -> R) throws -> R {
        try body(try callbacks())
    }

    /// Remote callbacks wired to this session; valid while `self` is alive.
    private func callbacks() throws -> git_remote_callbacks {
        var callbacks = git_remote_callbacks()
        try check(git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), "preparing remote callbacks")
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        callbacks.credentials = { out, _, usernameFromURL, allowed, payload in
            guard let out, let payload else { return GIT_EAUTH.code }
            let session = Unmanaged<RemoteSession>.fromOpaque(payload).takeUnretainedValue()
            return session.offer(out, usernameFromURL.map { String(cString: $0) }, allowed)
        }
        // Defer to libgit2's own checks: known_hosts for ssh, the CA store for https.
        callbacks.certificate_check = { _, _, _, _ in GIT_PASSTHROUGH.code }
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
        guard calls <= Self.maxCredentialCalls else { return nil }
        let user = userFromURL ?? credentials.sshUsername
        // ssh asks for the user name alone first when the URL has none.
        if allowed == .username {
            return .username(user)
        }
        if allowed.contains(.sshKey) {
            if credentials.useSSHAgent, !triedAgent {
                triedAgent = true
                tried.append("ssh-agent")
                onlyRSAKeysTried = false
                return .sshAgent(user: user)
            }
            let keys = credentials.sshKeyFiles.filter { FileManager.default.fileExists(atPath: $0) }
            if triedKeys < keys.count {
                let key = keys[triedKeys]
                triedKeys += 1
                onlyRSAKeysTried = (tried.isEmpty || onlyRSAKeysTried) && Self.isRSAKey(key)
                tried.append(key)
                let publicKey = FileManager.default.fileExists(atPath: key + ".pub") ? key + ".pub" : nil
                return .sshKey(user: user, privateKey: key, publicKey: publicKey)
            }
        }
        if allowed.contains(.password), !triedPassword,
           let name = credentials.httpsUsername, let token = credentials.httpsToken {
            triedPassword = true
            tried.append("TRESOR_GIT_USERNAME/TRESOR_GIT_TOKEN")
            onlyRSAKeysTried = false
            return .password(user: name, token: token)
        }
        return nil
    }

    /// Whether a key file holds an RSA key, judged by its `.pub` or a PEM header.
    static func isRSAKey(_ path: String) -> Bool {
        if let publicKey = try? String(contentsOfFile: path + ".pub", encoding: .utf8) {
            return publicKey.hasPrefix("ssh-rsa ")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: handle.readData(ofLength: 64), as: UTF8.self)
        return head.hasPrefix("-----BEGIN RSA PRIVATE KEY-----")
    }

    /// Turns a failure of a network operation into the error a user can act on.
    func classify(_ error: Error, remote: String) -> Error {
        guard case let GitError.libgit2(code, message, _) = error else { return error }
        switch code {
        // libssh2 1.10 signs RSA only with SHA-1, which current servers refuse: either this
        // message (after repeated attempts) or a plain refusal of every RSA key offered.
        case _ where message.contains("list of SSH authentication methods"),
             GIT_EAUTH.code where onlyRSAKeysTried:
            return GitError.unsupportedSSHKey(url: url)
        case GIT_EAUTH.code:
            return GitError.authenticationFailed(url: url, reason: message)
        case GIT_ECERTIFICATE.code:
            return GitError.hostKeyRejected(url: url)
        case GIT_ENONFASTFORWARD.code:
            return GitError.pushRejected(remote: remote, reason: "the remote has commits that are not here")
        // The remote answered, but with objects that do not parse: not a network problem.
        case _ where message.contains("failed to parse") || message.contains("corrupt") || message.contains("invalid object"):
            return GitError.malformedTree(id: "", reason: message)
        default:
            // A local path fails the same way whether it is missing or not a repository: say which.
            if let path = RemoteSession.localPath(of: url) {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return GitError.localRemoteMissing(path: path) }
                if !isDirectory.boolValue || !RemoteSession.looksLikeRepository(path) { return GitError.localRemoteNotARepository(path: path) }
            }
            return GitError.unreachable(url: url, reason: message)
        }
    }

    /// The file-system path a remote URL names: a `file://` URL, or a path that is neither a URL nor
    /// scp-style `[user@]host:path` (a ":" before the first "/", as git decides); nil for a network remote.
    static func localPath(of url: String) -> String? {
        if url.hasPrefix("file://") {
            let rest = String(url.dropFirst("file://".count))
            return (rest.removingPercentEncoding ?? rest)
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
