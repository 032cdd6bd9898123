// The key agent at the library level: its server on a thread, the client's requests, copies kept apart, bad messages.
import Foundation
@testable import Tresor
@testable import TresorCore
import XCTest

final class KeyAgentTests: VaultTestCase {
    var socketPath: String { dir + "/run/agent.sock" }

    /// Serves on a thread until the agent has nothing left (then the thread ends); returns when it answers.
    func startServer(startGrace: TimeInterval = 10) throws -> Thread {
        let path = socketPath
        let thread = Thread { try? KeyAgentServer.serve(socketPath: path, startGrace: startGrace) }
        thread.start()
        let deadline = Date().addingTimeInterval(5)
        while !KeyAgent(socketPath: path).isRunning, Date() < deadline { usleep(5_000) }
        XCTAssertTrue(KeyAgent(socketPath: path).isRunning)
        return thread
    }

    func waitUntilStopped(_ thread: Thread, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(5)
        while !thread.isFinished, Date() < deadline { usleep(10_000) }
        XCTAssertTrue(thread.isFinished, "the agent did not end", file: file, line: line)
    }

    func testKeysGoInComeOutForTheSameCopyOnlyAndAreDropped() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        try vault.add(try entry("Email/gmail", ["password": "agent-held"]))
        let thread = try startServer()
        let agent = KeyAgent(socketPath: socketPath)
        XCTAssertNil(try agent.keys(for: vault), "nothing held yet")
        try agent.put(vault, idle: 0, timeout: 60)
        // The socket's folder and the socket are private.
        var st = stat()
        XCTAssertEqual(lstat(dir + "/run", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        XCTAssertEqual(lstat(socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o077, 0)

        // Another process's view of the same copy opens with the held keys; they are checked against the header.
        let other = try Vault.open(at: vault.root)
        let held = try XCTUnwrap(try agent.keys(for: other))
        XCTAssertEqual(held.idle, 0)
        XCTAssertTrue(held.remaining > 50 && held.remaining <= 60, "\(held.remaining)")
        try other.unlock(session: held.keys)
        XCTAssertEqual(try other.read(try EntryPath("Email/gmail")).fields["password"]?.value, .text("agent-held"))

        // A copy of the same vault (same id) elsewhere is another copy: nothing for it.
        try FileManager.default.copyItem(atPath: vault.root, toPath: dir + "/copy")
        let copy = try Vault.open(at: dir + "/copy")
        XCTAssertEqual(copy.header.vaultID, vault.header.vaultID)
        XCTAssertNil(try agent.keys(for: copy))
        XCTAssertFalse(try agent.drop(copy))
        XCTAssertTrue(agent.holdsKeys(for: vault))

        // Replacing keeps the timeouts; dropping the last copy ends the agent.
        XCTAssertTrue(try agent.replaceKeys(of: vault))
        XCTAssertFalse(try agent.replaceKeys(of: try { let c = try Vault.open(at: dir + "/copy"); try c.unlock(passphrase: passphrase); return c }()))
        XCTAssertTrue(try agent.drop(vault))
        XCTAssertNil(try agent.keys(for: vault))
        waitUntilStopped(thread)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "the socket goes with the agent")
    }

    /// An agent that closes a connection without answering (it was stopping: its last keys had gone) is an agent that
    /// does not run: no keys, no error. (A dropped last copy raced the next request so, one run in a few hundred.)
    func testAnAgentThatClosesWithoutAnsweringIsNotRunning() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let listener = try UnixSocket.listen(at: socketPath)
        let closer = Thread {
            for _ in 0..<2 {
                guard let connection = try? listener.accept(timeout: 5) else { return }
                connection.close()
            }
        }
        closer.start()
        XCTAssertNil(try KeyAgent(socketPath: socketPath).keys(for: vault))
        XCTAssertThrowsError(try KeyAgent(socketPath: socketPath).put(vault, idle: 0, timeout: 60)) { error in
            guard case VaultError.agent(.notRunning) = error else { return XCTFail("\(error)") }
        }
        waitUntilStopped(closer)
        listener.close()
    }

    func testTheIdleAndHardTimeoutsDropKeys() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let second = try makeVault("second")
        try second.unlock(passphrase: passphrase)
        let thread = try startServer()
        let agent = KeyAgent(socketPath: socketPath)
        try agent.put(vault, idle: 1, timeout: 60)
        try agent.put(second, idle: 0, timeout: 3)
        usleep(500_000)
        XCTAssertNotNil(try agent.keys(for: vault), "used within the idle time")
        usleep(700_000)
        // 0.7 s since the last use: held; asking whether it is held does not count as a use.
        XCTAssertTrue(agent.holdsKeys(for: vault))
        usleep(500_000)
        XCTAssertNil(try agent.keys(for: vault), "1.2 s without use")
        XCTAssertNotNil(try agent.keys(for: second), "no idle timeout, and before the hard one")
        usleep(1_600_000)
        XCTAssertNil(try agent.keys(for: second), "past the hard timeout")
        waitUntilStopped(thread)
    }

    func testABadMessageIsRefusedAndTheAgentServesOn() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let thread = try startServer()
        let agent = KeyAgent(socketPath: socketPath)
        try agent.put(vault, idle: 0, timeout: 60)
        for garbage: [UInt8] in [[0, 0, 0, 3, 9, 9, 9], [0, 0, 0, 4, 1, 0x47, 1, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF]] {
            let raw = try UnixSocket.connect(to: socketPath)
            raw.setTimeout(2)
            try raw.write(SecretBytes(copying: garbage))
            let reply = try? AgentMessage.read(from: raw)
            XCTAssertTrue(reply == nil || reply?.kind == .refused, "\(garbage)")
        }
        XCTAssertNotNil(try agent.keys(for: vault), "still serving, still holding")
        XCTAssertEqual(try agent.dropAll(), 1)
        waitUntilStopped(thread)
    }

    func testTheAgentEndsWhenItsSocketIsRemovedAndOnlyOneServesASocket() throws {
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        let thread = try startServer()
        XCTAssertThrowsError(try KeyAgentServer.serve(socketPath: socketPath)) { XCTAssertEqual($0 as? VaultError, .agent(.alreadyRunning(socket: socketPath))) }
        try KeyAgent(socketPath: socketPath).put(vault, idle: 0, timeout: 60)
        try FileManager.default.removeItem(atPath: dir + "/run")
        waitUntilStopped(thread)
    }

    func testAFolderSomeoneElseCouldEnterIsRefused() throws {
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let vault = try makeVault()
        try vault.unlock(passphrase: passphrase)
        XCTAssertThrowsError(try KeyAgent(socketPath: socketPath).put(vault, idle: 0, timeout: 60)) {
            XCTAssertEqual($0 as? VaultError, .agent(.directoryNotPrivate(dir + "/run")))
        }
        XCTAssertThrowsError(try KeyAgentServer.serve(socketPath: socketPath)) {
            XCTAssertEqual($0 as? VaultError, .agent(.directoryNotPrivate(dir + "/run")))
        }
    }

    func testMessagesRoundTripKeysExactly() throws {
        var m = AgentMessage(.put)
        m.vaultID = "0123456789abcdef0123456789abcdef"
        m.root = "/home/alice/.tresor"
        m.vaultKey = SecretBytes.random(count: 32)
        let scope = "00000000-0000-4000-8000-000000000001"
        m.scopeKeys[scope] = SecretBytes.random(count: 32)
        m.idleSeconds = 3600
        m.remainingSeconds = 28800
        let wire = m.encoded()
        let body = wire.withBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[4...])) }
        let back = try AgentMessage.parse(body)
        XCTAssertEqual(back.kind, .put)
        XCTAssertEqual(back.vaultID, m.vaultID)
        XCTAssertEqual(back.root, m.root)
        XCTAssertTrue(try XCTUnwrap(back.vaultKey).constantTimeEquals(m.vaultKey!))
        XCTAssertTrue(try XCTUnwrap(back.scopeKeys[scope]).constantTimeEquals(m.scopeKeys[scope]!))
        XCTAssertEqual(back.idleSeconds, 3600)
        XCTAssertEqual(back.remainingSeconds, 28800)
        // A key of the wrong length, or a field running past the end, is refused.
        XCTAssertThrowsError(try AgentMessage.parse(SecretBytes(copying: [1, 0x50, 3, 0, 2, 1, 2])))
        XCTAssertThrowsError(try AgentMessage.parse(SecretBytes(copying: [1, 0x50, 1, 0, 9, 0x41])))
        XCTAssertThrowsError(try AgentMessage.parse(SecretBytes(copying: [2, 0x50])), "an unknown version")
    }
}
