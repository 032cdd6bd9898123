// The client side of the key agent: a per-user process that holds unlocked vaults' keys (README "The agent").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// Keys the agent held for a vault copy, and how long it would have kept them.
package struct HeldKeys {
    package var keys: SessionKeys
    /// The idle timeout the keys were put with (0: none).
    package var idle: TimeInterval
    /// Seconds left until the hard timeout.
    package var remaining: TimeInterval
}

/// Why the agent could not be used.
public enum AgentProblem: Equatable, Sendable {
    /// No agent answers at the socket (none started, or it ended).
    case notRunning(socket: String)
    /// The socket's directory exists but is not a 0700 directory of this user (or is a link).
    case directoryNotPrivate(String)
    /// A socket call failed.
    case socket(SocketError)
    /// The agent's reply did not parse, or it refused the request.
    case badReply(socket: String)
    /// The vault's format (version 1) has no authenticated header, so held keys could not be checked on use.
    case formatTooOld(version: Int)
    /// Another agent already serves the socket.
    case alreadyRunning(socket: String)
}

/// Talks to the agent at `socketPath`: one connection per request. Keys are named by the vault's id and the
/// canonical path of its copy, so two copies of one vault (clones share the id) are held apart.
package struct KeyAgent {
    package let socketPath: String

    package init(socketPath: String) { self.socketPath = socketPath }

    /// The longest socket path the system takes.
    package static var maximumSocketPathBytes: Int { UnixSocket.maximumPathBytes }

    /// `$TRESOR_AGENT_SOCKET`; else `$XDG_RUNTIME_DIR/tresor/agent.sock` (the login session's runtime directory,
    /// removed at logout); else `/tmp/tresor-UID/agent.sock`.
    package static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let s = environment["TRESOR_AGENT_SOCKET"], !s.isEmpty { return s }
        if let r = environment["XDG_RUNTIME_DIR"], !r.isEmpty, FileSystem.kind(r) == .directory { return r + "/tresor/agent.sock" }
        return "/tmp/tresor-\(getuid())/agent.sock"
    }

    /// Makes the socket's directory (0700) if it is missing, and checks that it is a directory of this user that
    /// no one else can enter (in /tmp someone else could have made it first).
    /// - Throws: `VaultError.agent(.directoryNotPrivate)`.
    package func prepareDirectory() throws {
        let dir = PathName.deletingLast(socketPath)
        if FileSystem.kind(dir) == .missing {
            do { try FileSystem.makeDirectory(dir, existingIsFine: true) }
            catch { throw VaultError.agent(.socket(SocketError(call: .bind, path: dir, errno: error.errno))) }
        }
        let st = try Vault.io { try FileSystem.status(dir) }
        guard let st, st.st_mode & S_IFMT == S_IFDIR, st.st_uid == getuid(), st.st_mode & 0o077 == 0 else {
            throw VaultError.agent(.directoryNotPrivate(dir))
        }
    }

    /// Waits until no agent holds this socket's lock (an agent ending — it dropped its last keys — can still take a
    /// connection it then closes). Returns whether none holds it within `timeout` seconds.
    package func waitUntilEnded(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // (No lock file to open, or none that can be opened: no agent serves through it.)
            guard let fd = try? FileSystem.open(socketPath + ".lock", O_RDWR | O_CLOEXEC | O_NOFOLLOW) else { return true }
            let free = (try? FileSystem.tryLock(fd, path: socketPath + ".lock")) != false
            FileSystem.close(fd)
            if free { return true }
            if Date() >= deadline { return false }
            usleep(10_000)
        }
    }

    /// Whether an agent answers at the socket.
    package var isRunning: Bool { (try? UnixSocket.connect(to: socketPath)) != nil }  // (any failure to connect: no)

    /// The id and canonical root of a vault copy: what its keys are held under.
    static func copyName(_ vault: Vault) -> (id: String, root: String) {
        // realpath(3), not a system call of its own: a root that cannot be resolved is named as given (absolute already).
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let root = realpath(vault.root, &resolved) != nil ? String(cString: resolved) : vault.root
        return (vault.header.vaultID, root)
    }

    private func request(_ message: AgentMessage) throws -> AgentMessage {
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(to: socketPath) } catch let e as SocketError {
            if e.call == .connect, [ENOENT, ECONNREFUSED, ENOTDIR].contains(e.errno) { throw VaultError.agent(.notRunning(socket: socketPath)) }
            throw VaultError.agent(.socket(e))
        }
        socket.setTimeout(5)
        // The other end must be this user's own agent (a socket someone else put there gets no keys and gives none).
        let uid: UInt32
        do { uid = try socket.peerUserID() } catch let e as SocketError { throw VaultError.agent(.socket(e)) }
        guard uid == getuid() else { throw VaultError.agent(.directoryNotPrivate(PathName.deletingLast(socketPath))) }
        do {
            try message.write(to: socket)
            let reply = try AgentMessage.read(from: socket)
            if reply.kind == .refused { throw VaultError.agent(.badReply(socket: socketPath)) }
            return reply
        } catch let e as SocketError {
            // Closed without an answer (a write that finds the connection gone, a reply that ends before it is whole):
            // the agent stopped between this connection and its answer, when its last keys went. As good as not running.
            if (e.call == .write && [EPIPE, ECONNRESET].contains(e.errno)) || (e.call == .read && [0, ECONNRESET].contains(e.errno)) {
                throw VaultError.agent(.notRunning(socket: socketPath))
            }
            throw VaultError.agent(.socket(e))
        } catch is AgentMessageError {
            throw VaultError.agent(.badReply(socket: socketPath))
        }
    }

    private func message(_ kind: AgentMessage.Kind, for vault: Vault) -> AgentMessage {
        var m = AgentMessage(kind)
        (m.vaultID, m.root) = KeyAgent.copyName(vault)
        return m
    }

    /// The keys the agent holds for this copy of the vault, nil when it holds none (or no agent runs). The caller
    /// checks them against the header (`Vault.unlock(session:)` does).
    /// - Throws: `VaultError.agent` when an agent answers but the exchange fails.
    package func keys(for vault: Vault) throws -> HeldKeys? {
        let reply: AgentMessage
        do { reply = try request(message(.get, for: vault)) } catch VaultError.agent(.notRunning) { return nil }
        guard reply.kind == .ok, reply.vaultKey != nil || !reply.scopeKeys.isEmpty else { return nil }
        return HeldKeys(keys: SessionKeys(vaultKey: reply.vaultKey, scopeKeys: reply.scopeKeys),
                        idle: TimeInterval(reply.idleSeconds ?? 0), remaining: TimeInterval(reply.remainingSeconds ?? 0))
    }

    /// Gives the agent the keys `vault` holds (its vault key if held, and its scope keys), dropped after `idle`
    /// seconds without use (0: never for idleness) and after `timeout` seconds in any case.
    /// - Throws: `VaultError.vaultLocked` when it holds no key, `.agent(.formatTooOld)` for a version 1 vault,
    ///   `.agent` when the agent cannot be reached.
    package func put(_ vault: Vault, idle: TimeInterval, timeout: TimeInterval) throws {
        guard vault.header.version >= 2 else { throw VaultError.agent(.formatTooOld(version: vault.header.version)) }
        try prepareDirectory()
        var m = try keysMessage(.put, of: vault)
        m.idleSeconds = UInt64(max(0, idle.rounded()))
        m.remainingSeconds = UInt64(max(1, timeout.rounded()))
        _ = try request(m)
    }

    /// After a change of keys (a rekey, a member removed, a sync that took in a rekey): if the agent holds keys for
    /// this copy of the vault, they are replaced by the ones `vault` holds now, with the same timeouts. Returns whether
    /// it held any. Nothing is given to an agent that held none, and no agent is started.
    /// - Throws: `VaultError.agent` when an agent answers but the exchange fails.
    @discardableResult
    package func replaceKeys(of vault: Vault) throws -> Bool {
        guard vault.isUnlocked, FileSystem.kind(socketPath) != .missing else { return false }
        try prepareDirectory()
        do { return try request(try keysMessage(.replace, of: vault)).kind == .ok } catch VaultError.agent(.notRunning) { return false }
    }

    private func keysMessage(_ kind: AgentMessage.Kind, of vault: Vault) throws -> AgentMessage {
        var m = message(kind, for: vault)
        m.vaultKey = vault.vaultKeyIfHeld
        for (id, keys) in vault.scopeKeys { m.scopeKeys[id] = keys.key }
        guard m.vaultKey != nil || !m.scopeKeys.isEmpty else { throw VaultError.vaultLocked }
        return m
    }

    /// Whether the agent still holds keys for this copy of the vault; unlike `keys(for:)` this does not count as a
    /// use (a program that watches for `tresor lock` does not keep the keys from timing out).
    package func holdsKeys(for vault: Vault) -> Bool {
        (try? request(message(.check, for: vault)))?.kind == .ok  // (no agent, or no answer: none it could give)
    }

    /// Makes the agent forget this copy's keys. Returns whether it held any.
    @discardableResult
    package func drop(_ vault: Vault) throws -> Bool {
        do { return try request(message(.drop, for: vault)).kind == .ok } catch VaultError.agent(.notRunning) { return false }
    }

    /// Makes the agent forget every key (it then ends). Returns how many vault copies it held.
    @discardableResult
    package func dropAll() throws -> Int {
        do { return Int(try request(AgentMessage(.dropAll)).count ?? 0) } catch VaultError.agent(.notRunning) { return 0 }
    }
}
