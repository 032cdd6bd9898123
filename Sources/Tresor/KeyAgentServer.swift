// The key agent itself: one process per user serving keys on a Unix socket, with idle and hard timeouts.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// The agent's loop. Only processes of the same user are answered (`SO_PEERCRED`); keys live in `SecretBytes`
/// (locked memory, zeroed when dropped). It returns — and the process ends — when it holds no keys (after `lock`,
/// or when the last ones timed out), when its socket is removed or replaced (logind removes `$XDG_RUNTIME_DIR` when
/// the user's last login session ends), or, before any key arrived, after `startGrace` seconds.
package enum KeyAgentServer {
    private struct Held {
        var keys: SessionKeys
        var idle: Double
        var lastUse: Double
        var deadline: Double
    }

    private struct Name: Hashable {
        var vaultID: String
        var root: String
    }

    /// Seconds since boot, counting time asleep (`CLOCK_BOOTTIME`): a laptop that slept through a timeout finds its
    /// keys gone when it wakes.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_BOOTTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Serves requests at `socketPath` until there is nothing left to serve (see above).
    /// - Throws: `VaultError.agent(.alreadyRunning)` when another agent serves the socket; `.agent(.socket)` when it
    ///   cannot listen; `.agent(.directoryNotPrivate)`.
    package static func serve(socketPath: String, startGrace: TimeInterval = 10) throws {
        let agent = KeyAgent(socketPath: socketPath)
        try agent.prepareDirectory()
        // One agent per socket: the lock is held for the agent's life and dropped by the kernel when it ends.
        let lockPath = socketPath + ".lock"
        let lock: Int32
        do { lock = try FileSystem.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o600) }
        catch { throw VaultError.agent(.socket(SocketError(call: .bind, path: lockPath, errno: error.errno))) }
        defer { FileSystem.close(lock) }
        do { guard try FileSystem.tryLock(lock, path: lockPath) else { throw VaultError.agent(.alreadyRunning(socket: socketPath)) } }
        catch let e as FileSystem.Failure { throw VaultError.agent(.socket(SocketError(call: .bind, path: lockPath, errno: e.errno))) }
        // Holding the lock, a socket file left there is a dead agent's.
        do { try FileSystem.removeIfPresent(socketPath) }
        catch { throw VaultError.agent(.socket(SocketError(call: .bind, path: socketPath, errno: error.errno))) }
        let listener: UnixSocket
        do { listener = try UnixSocket.listen(at: socketPath) } catch let e as SocketError { throw VaultError.agent(.socket(e)) }
        // (The socket as made here; one that cannot be looked at is never taken for this agent's, and is left for the
        // next agent, which removes it under the lock.)
        let mine = try? FileSystem.status(socketPath)
        func stillMine() -> Bool {
            guard let mine, let st = try? FileSystem.status(socketPath) else { return false }
            return st.st_ino == mine.st_ino && st.st_dev == mine.st_dev
        }
        var store: [Name: Held] = [:]
        let started = now()
        var everHeld = false
        defer {
            store.removeAll()
            if stillMine() { _ = try? FileSystem.removeIfPresent(socketPath) }  // (on the way out: nothing to tell)
        }
        while true {
            let t = now()
            store = store.filter { !expired($0.value, at: t) }
            if store.isEmpty && (everHeld || t - started >= startGrace) { return }
            if !stillMine() { return }
            // Wake at the next expiry, and at least every second to see whether the socket is still there.
            let next = store.values.map { h in min(h.deadline, h.idle > 0 ? h.lastUse + h.idle : .infinity) }.min() ?? .infinity
            // (One client's failure is that client's: no connection, another user, a bad or lost message. Each is
            // dropped, or refused, and the agent serves the next.)
            guard let client = try? listener.accept(timeout: max(0.01, min(1, next - t))) else { continue }
            client.setTimeout(2)
            guard let uid = try? client.peerUserID(), uid == getuid() else { continue }
            guard let request = try? AgentMessage.read(from: client) else {
                try? AgentMessage(.refused).write(to: client)
                continue
            }
            let reply = answer(request, store: &store, now: now())
            if request.kind == .put { everHeld = true }
            try? reply.write(to: client)
        }
    }

    private static func expired(_ h: Held, at t: Double) -> Bool {
        t >= h.deadline || (h.idle > 0 && t - h.lastUse >= h.idle)
    }

    private static func answer(_ request: AgentMessage, store: inout [Name: Held], now t: Double) -> AgentMessage {
        let name = Name(vaultID: request.vaultID, root: request.root)
        switch request.kind {
        case .put:
            guard !name.vaultID.isEmpty, !name.root.isEmpty, request.vaultKey != nil || !request.scopeKeys.isEmpty,
                  let remaining = request.remainingSeconds, remaining > 0 else { return AgentMessage(.refused) }
            store[name] = Held(keys: SessionKeys(vaultKey: request.vaultKey, scopeKeys: request.scopeKeys),
                               idle: Double(request.idleSeconds ?? 0), lastUse: t, deadline: t + Double(remaining))
            return AgentMessage(.ok)
        case .get:
            guard var held = store[name], !expired(held, at: t) else { return AgentMessage(.none) }
            held.lastUse = t
            store[name] = held
            var reply = AgentMessage(.ok)
            reply.vaultKey = held.keys.vaultKey
            reply.scopeKeys = held.keys.scopeKeys
            reply.idleSeconds = UInt64(held.idle)
            reply.remainingSeconds = UInt64(max(1, (held.deadline - t).rounded()))
            return reply
        case .replace:
            guard var held = store[name], !expired(held, at: t) else { return AgentMessage(.none) }
            guard request.vaultKey != nil || !request.scopeKeys.isEmpty else { return AgentMessage(.refused) }
            held.keys = SessionKeys(vaultKey: request.vaultKey, scopeKeys: request.scopeKeys)
            held.lastUse = t
            store[name] = held
            return AgentMessage(.ok)
        case .check:
            guard let held = store[name], !expired(held, at: t) else { return AgentMessage(.none) }
            return AgentMessage(.ok)
        case .drop:
            return store.removeValue(forKey: name) == nil ? AgentMessage(.none) : AgentMessage(.ok)
        case .dropAll:
            var reply = AgentMessage(.ok)
            reply.count = UInt64(store.count)
            store.removeAll()
            return reply
        case .ok, .none, .refused:
            return AgentMessage(.refused)
        }
    }
}
