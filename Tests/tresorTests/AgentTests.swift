// The key agent: unlock once, and every process of the user — shells, scripts, git's hooks — uses the keys; two copies
// of one vault held apart; stale keys after a rekey dropped and asked again; lock, timeouts, and the agent's end.
import Foundation
import XCTest

final class AgentTests: SyncTestCase {
    /// No passphrase anywhere: only the agent can open the vault.
    let locked: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": "none"]
    var socket: String { dir + "/run/tresor/agent.sock" }

    /// `tresor ARGS` with nothing but the agent to unlock.
    func withAgent(_ args: String..., stdin: String? = nil) throws -> CLIResult {
        try tresor(args, stdin: stdin, extraEnv: locked)
    }

    /// The agent's pid for this test's socket, if one runs.
    func agentPid() -> Int32? {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { continue }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.count >= 4, words[1] == "agent", words.last == socket { return pid }
        }
        return nil
    }

    func waitUntil(_ what: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(), Date() < deadline { usleep(20_000) }
        XCTAssertTrue(condition(), "waited for \(what)", file: file, line: line)
    }

    func testUnlockOnceAndEveryProcessUsesTheKeysWithoutEval() throws {
        try sampleVault()
        XCTAssertEqual(try withAgent("show", "Email/gmail").code, 3, "locked before unlock")
        let unlock = try ok("unlock")
        XCTAssertEqual(unlock.stdout, "", "nothing to eval")
        XCTAssertTrue(unlock.stderr.contains("every tresor command of yours uses the agent for 8 hours (1 hour without use)"), unlock.stderr)
        // The socket's folder is private, the socket the user's own.
        var st = stat()
        XCTAssertEqual(lstat(dir + "/run/tresor", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        XCTAssertEqual(lstat(socket, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(st.st_mode & 0o077, 0)
        XCTAssertNotNil(agentPid())
        // Another process, a script in another shell, and git (textconv for `git log -p`) all use it; none asks.
        XCTAssertEqual(try withAgent("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
        XCTAssertEqual(try withAgent("edit", "Email/gmail", "--set", "username=alice.agent").code, 0)
        let script = try run("/bin/bash", ["--norc", "--noprofile", "-c", "'\(CLITestCase.binary)' grep alice.agent && '\(CLITestCase.binary)' show Social/github --field pin"],
                             stdin: nil, extraEnv: locked)
        XCTAssertEqual(script.code, 0, script.stderr)
        XCTAssertEqual(script.stdout, "Email/gmail: username: alice.agent\n4711\n")
        let patch = try run("/usr/bin/git", ["-C", vaultDir, "log", "-p", "-1"], stdin: nil, extraEnv: locked)
        XCTAssertTrue(patch.stdout.contains("+username: alice.agent"), patch.stdout + patch.stderr)
        // Unlocking again asks for nothing and changes nothing.
        let again = try withAgent("unlock")
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("is unlocked already"), again.stderr)
    }

    func testTwoCopiesOfOneVaultAreUnlockedAndLockedApart() throws {
        try setUpReplicas("B")
        // A clone has the vault's id: the agent keeps each copy's keys under its own path.
        try on("A", "unlock")
        XCTAssertEqual(try attempt("A", "show", "Email/gmail", "--field", "password", env: locked).stdout, "first-secret\n")
        XCTAssertEqual(try attempt("B", "show", "Email/gmail", env: locked).code, 3, "B is another copy: not unlocked by A's unlock")
        try on("B", "unlock")
        XCTAssertEqual(try attempt("B", "show", "Email/gmail", "--field", "password", env: locked).stdout, "first-secret\n")
        // A copy reached through a symbolic link is the same copy.
        try FileManager.default.createSymbolicLink(atPath: dir + "/link-to-A", withDestinationPath: replica("A"))
        XCTAssertEqual(try tresor(["show", "Email/gmail", "--vault", dir + "/link-to-A", "--field", "password"], extraEnv: locked).stdout, "first-secret\n")
        // Locking one leaves the other unlocked.
        XCTAssertTrue(try on("A", "lock").stderr.contains("Locked"))
        XCTAssertEqual(try attempt("A", "show", "Email/gmail", env: locked).code, 3)
        XCTAssertEqual(try attempt("B", "show", "Email/gmail", "--field", "password", env: locked).stdout, "first-secret\n")
    }

    func testARekeyGivesTheAgentTheNewKeysAndStaleKeysAreAskedAgain() throws {
        try sampleVault()
        try ok("unlock")
        // rekey and member rm change the keys: the agent gets the new ones at once.
        let rekey = try ok("rekey")
        XCTAssertFalse(rekey.stderr.contains("session"), rekey.stderr)
        let after = try withAgent("show", "Email/gmail", "--field", "password")
        XCTAssertEqual(after.code, 0, after.stderr)
        XCTAssertFalse(after.stderr.contains("no longer open"), after.stderr)
        try ok(["identity", "new", dir + "/phone"])
        let phone = try ok(["identity", "show", dir + "/phone"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try ok("member", "add", "phone", phone)
        try ok("member", "rm", "phone")
        XCTAssertEqual(try withAgent("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
        // A rekey the agent did not hear of (made with the agent turned off, as on another replica): the held keys no
        // longer open the header; they are dropped, the passphrase is asked again, and the agent holds the new keys.
        try tresor(["rekey"], extraEnv: ["TRESOR_AGENT": "off"])
        let stale = try tresor(["show", "Email/gmail", "--field", "password"])
        XCTAssertEqual(stale.code, 0, stale.stderr)
        XCTAssertTrue(stale.stderr.contains("no longer open it"), stale.stderr)
        XCTAssertTrue(stale.stderr.contains("The agent holds the new keys."), stale.stderr)
        XCTAssertEqual(try withAgent("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
        // Without a way to ask, stale keys are still dropped and the command says why it cannot go on.
        try tresor(["rekey"], extraEnv: ["TRESOR_AGENT": "off"])
        let refused = try withAgent("show", "Email/gmail")
        XCTAssertEqual(refused.code, 3)
        XCTAssertTrue(refused.stderr.contains("no longer open it") && refused.stderr.contains("no terminal to ask"), refused.stderr)
        XCTAssertEqual(try withAgent("show", "Email/gmail").code, 3)
    }

    func testAnUnlockRightAfterALockReachesANewAgent() throws {
        // `lock` drops the agent's last keys and it ends; an `unlock` at that moment can reach the ending agent, which
        // closes the connection: the keys must still end up in an agent (a new one), every time.
        try sampleVault()
        for round in 0..<8 {
            try ok("unlock")
            try ok("lock")
            let unlock = try ok("unlock")
            XCTAssertFalse(unlock.stderr.contains("warning"), "round \(round): \(unlock.stderr)")
            XCTAssertEqual(try withAgent("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n", "round \(round)")
        }
    }

    func testASyncThatTakesInARekeyGivesTheAgentTheNewKeys() throws {
        try setUpReplicas("B")
        try on("B", "unlock")
        try on("A", "rekey")
        try on("A", "sync")
        // B's agent keys are the old ones; its sync opens the new header with the passphrase and refreshes the agent.
        let sync = try on("B", "sync")
        XCTAssertTrue(sync.stdout.contains("rekeyed on another replica"), sync.stdout)
        let show = try attempt("B", "show", "Email/gmail", "--field", "password", env: locked)
        XCTAssertEqual(show.stdout, "first-secret\n", show.stderr)
        XCTAssertFalse(show.stderr.contains("no longer open"), show.stderr)
    }

    func testARekeyTakenInByGitPullsHookGivesTheAgentTheNewKeys() throws {
        try setUpReplicas("B")
        try on("B", "unlock")
        try on("A", "rekey")
        try on("A", "sync")
        // B pulls with plain git: its hook takes the rekey in (with the passphrase file the environment names) and the
        // agent holds the new keys, so a command with no passphrase at hand needs nothing more.
        let pull = try run("/usr/bin/git", ["-C", replica("B"), "pull", "-q", "--ff-only", "origin", "main"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(pull.code, 0, pull.stderr)
        let show = try attempt("B", "show", "Email/gmail", "--field", "password", env: locked)
        XCTAssertEqual(show.stdout, "first-secret\n", show.stderr)
        XCTAssertFalse(show.stderr.contains("no longer open"), show.stderr)
    }

    func testLockAllEndsTheAgentAndRemovingTheRuntimeDirectoryEndsItToo() throws {
        try sampleVault()
        try ok(["init", "--kdf", "minimum", "--vault", dir + "/second"])
        try ok("unlock")
        try ok(["unlock", "--vault", dir + "/second"])
        let pid = try XCTUnwrap(agentPid())
        XCTAssertTrue(try ok("lock", "--all").stderr.contains("the agent dropped the keys of 2 vaults"))
        waitUntil("the agent to end") { kill(pid, 0) != 0 }
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket))
        XCTAssertEqual(try withAgent("show", "Email/gmail").code, 3)
        XCTAssertTrue(try ok("lock").stderr.contains("was not unlocked"))
        // Logging out removes $XDG_RUNTIME_DIR: the agent sees its socket gone and ends.
        try ok("unlock")
        let second = try XCTUnwrap(agentPid())
        try FileManager.default.removeItem(atPath: dir + "/run/tresor")
        waitUntil("the agent to end with its runtime directory") { kill(second, 0) != 0 }
    }

    func testIdleAndHardTimeoutsDropTheKeys() throws {
        try sampleVault()
        // Idle: 0.6 seconds without use. (A use is expected to succeed only when it ended within the timeout counted
        // from before the unlock: on a loaded machine a command can take longer than the timeout itself.)
        var start = Date()
        try ok("unlock", "--idle", "0.01")
        let first = try withAgent("show", "Email/gmail")
        if Date().timeIntervalSince(start) < 0.6 { XCTAssertEqual(first.code, 0) }
        usleep(1_200_000)
        XCTAssertEqual(try withAgent("show", "Email/gmail").code, 3, "dropped after the idle timeout")
        // Hard: gone after 1.2 seconds even while in use.
        start = Date()
        try ok("unlock", "--timeout", "0.02", "--idle", "0")
        for _ in 0..<3 {
            let use = try withAgent("show", "Email/gmail")
            if Date().timeIntervalSince(start) < 1.2 { XCTAssertEqual(use.code, 0) }
            usleep(300_000)
        }
        usleep(600_000)
        XCTAssertEqual(try withAgent("show", "Email/gmail").code, 3, "dropped after the hard timeout")
        // With nothing left to hold, the agent has ended.
        waitUntil("the agent to end") { agentPid() == nil }
    }

    /// The agent answers only processes of its own user (`SO_PEERCRED`): root reaching another user's socket gets
    /// nothing, even for a vault root can read.
    func testAnotherUsersProcessGetsNoKeys() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, to run the agent as a second user") }
        let nobody = "65534"
        let home = dir + "/nobody"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chown(home, 65534, 65534)
        chmod(dir, 0o755)
        try write("correct horse battery staple\n", to: home + "/pass")
        chown(home + "/pass", 65534, 65534)
        let asNobody = ["/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", CLITestCase.binary]
        let env: [String: String?] = ["HOME": home, "XDG_RUNTIME_DIR": nil, "TRESOR_AGENT_SOCKET": home + "/agent/agent.sock",
                                      "TRESOR_VAULT": home + "/vault", "TRESOR_PASSPHRASE_FILE": home + "/pass"]
        func nobodyRuns(_ args: [String]) throws -> CLIResult { try run(asNobody[0], Array(asNobody.dropFirst()) + args, stdin: nil, extraEnv: env) }
        XCTAssertEqual(try nobodyRuns(["init", "--kdf", "minimum"]).code, 0)
        XCTAssertEqual(try nobodyRuns(["add", "Web/x", "--no-password", "--username", "nobody-user"]).code, 0)
        let unlocked = try nobodyRuns(["unlock"])
        XCTAssertEqual(unlocked.code, 0, unlocked.stderr)
        var lockedEnv = env
        lockedEnv["TRESOR_PASSPHRASE_FILE"] = .some(nil)
        lockedEnv["TRESOR_PINENTRY"] = "none"
        XCTAssertEqual(try run(asNobody[0], Array(asNobody.dropFirst()) + ["show", "Web/x"], stdin: nil, extraEnv: lockedEnv).code, 0,
                       "the owner's own processes get the keys")
        // Root can read nobody's vault and reach the socket, but the agent does not answer another user.
        let root = try tresor(["show", "Web/x"], extraEnv: lockedEnv)
        XCTAssertEqual(root.code, 3, root.stderr)
        XCTAssertFalse(root.stdout.contains("nobody-user"), root.stdout)
        XCTAssertEqual(try nobodyRuns(["lock", "--all"]).code, 0)
    }
}
