// `tresor ssh-add`: keys from the vault into a real ssh-agent, then `ssh` into the test sshd with them.
import Foundation
import TestSupport
import XCTest

final class SSHAddTests: CLITestCase {
    var agentPID: pid_t = 0
    var agentSocket: String { dir + "/agent.sock" }

    override func tearDownWithError() throws {
        stopAgent()
        try super.tearDownWithError()
    }

    /// A real ssh-agent on a private socket; `extra` is its environment (for ssh-askpass).
    func startAgent(_ extra: [String: String] = [:]) throws {
        stopAgent()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-agent") else { throw XCTSkip("needs openssh-client") }
        var e = env
        for (k, v) in extra { e[k] = v }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        let args: [String] = ["/usr/bin/ssh-agent", "-D", "-a", agentSocket]
        let argv = args.map { strdup($0) } + [nil]
        let envp = e.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        guard posix_spawn(&agentPID, "/usr/bin/ssh-agent", &actions, nil, argv, envp) == 0 else { throw XCTSkip("cannot start ssh-agent") }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: agentSocket) {
            guard Date() < deadline else { throw XCTSkip("ssh-agent did not start") }
            usleep(10_000)
        }
        env["SSH_AUTH_SOCK"] = agentSocket
    }

    func stopAgent() {
        guard agentPID > 0 else { return }
        kill(agentPID, SIGTERM)
        var s: Int32 = 0
        waitpid(agentPID, &s, 0)
        agentPID = 0
        try? FileManager.default.removeItem(atPath: agentSocket)
    }

    /// `ssh` to the fixture's sshd with the agent's keys only (no key files, no password, no prompt).
    func ssh(_ fixture: SSHFixture, _ command: String) throws -> CLIResult {
        try write(fixture.knownHostsLine, to: dir + "/known_hosts")
        return try run("/usr/bin/ssh", ["-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=\(dir)/known_hosts",
                                        "-o", "IdentityFile=/dev/null", "-p", "\(fixture.port)", "\(NSUserName())@127.0.0.1", command],
                       stdin: nil, extraEnv: [:])
    }

    func agentList() throws -> String { try run("/usr/bin/ssh-add", ["-l"], stdin: nil, extraEnv: [:]).stdout }

    func fingerprint(_ publicKey: String) throws -> String {
        String(try run("/usr/bin/ssh-keygen", ["-lf", publicKey], stdin: nil, extraEnv: [:]).stdout.split(separator: " ")[1])
    }

    func testKeysFromTheVaultLogInToSSHDAndGoAgain() throws {
        let fixture = try SSHFixture(dir: dir + "/sshd")
        try startAgent()
        try initVault()
        // The fixture's ed25519 key, and an ECDSA and an RSA key: each into the vault, its file removed.
        var keys = [("Servers/ed25519", fixture.clientKey)]
        for type in ["ecdsa", "rsa"] {
            let file = dir + "/sshd/\(type)"
            try runTool("/usr/bin/ssh-keygen", ["-q", "-t", type, "-N", "", "-C", "", "-f", file])
            try fixture.authorize(file, in: dir + "/sshd")
            keys.append(("Servers/\(type)", file))
        }
        for (path, file) in keys {
            try ok("add", path, "--no-password", "--field-file", "ssh-key=\(file)")
            try FileManager.default.removeItem(atPath: file)
        }
        XCTAssertNotEqual(try ssh(fixture, "echo in").code, 0, "no key yet")
        for (path, file) in keys {
            let added = try ok("ssh-add", path)
            let print = try fingerprint(file + ".pub")
            XCTAssertTrue(added.stderr.contains("Added the ssh key of \(path)") && added.stderr.contains(print), added.stderr)
            XCTAssertTrue(try agentList().contains(print), "ssh-add -l lists it")
            let r = try ssh(fixture, "echo logged in")
            XCTAssertEqual(r.code, 0, "\(path): \(r.stderr)")
            XCTAssertEqual(r.stdout, "logged in\n")
            try ok("ssh-add", "-d", path)
            XCTAssertFalse(try agentList().contains(print), "removed from the agent")
            XCTAssertNotEqual(try ssh(fixture, "echo in").code, 0, "\(path): the key is gone")
        }
        // The agent shows the key's comment, or the entry's path when the key has none.
        try ok("ssh-add", "Servers/ed25519")
        try ok("ssh-add", "Servers/rsa")
        XCTAssertTrue(try agentList().contains(" client (ED25519)"))
        XCTAssertTrue(try agentList().contains(" Servers/rsa (RSA)"))
        // --json reports what was done.
        let json = try ok("ssh-add", "-d", "Servers/rsa", "--json").stdout
        XCTAssertTrue(json.contains("\"removed\": true") && json.contains("\"type\": \"ssh-rsa\""), json)
    }

    func testLifetimeAndConfirmationAreTheAgentsConstraints() throws {
        let fixture = try SSHFixture(dir: dir + "/sshd")
        let askpass = dir + "/askpass", asked = dir + "/asked"
        try write("#!/bin/sh\necho \"$1\" >> \(asked)\nexit 0\n", to: askpass)
        chmod(askpass, 0o755)
        try startAgent(["SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"])
        try initVault()
        try ok("add", "Servers/web", "--no-password", "--field-file", "ssh-key=\(fixture.clientKey)")

        // --confirm: each use asks (ssh-askpass); a yes lets ssh in, a no does not.
        let added = try ok("ssh-add", "Servers/web", "--confirm")
        XCTAssertTrue(added.stderr.contains("each use asks for confirmation"), added.stderr)
        XCTAssertEqual(try ssh(fixture, "echo in").code, 0)
        XCTAssertTrue((try? String(contentsOfFile: asked, encoding: .utf8))?.contains("Allow use of key") == true, "the agent asked")
        try write("#!/bin/sh\nexit 1\n", to: askpass)
        XCTAssertNotEqual(try ssh(fixture, "echo in").code, 0, "refused at the question")
        try ok("ssh-add", "-d", "Servers/web")

        // --lifetime: the agent forgets the key by itself.
        let timed = try ok("ssh-add", "Servers/web", "-t", "3")
        XCTAssertTrue(timed.stderr.contains("it expires in 3 seconds"), timed.stderr)
        XCTAssertTrue(try agentList().contains("(ED25519)"))
        let deadline = Date().addingTimeInterval(15)
        while try agentList().contains("(ED25519)") {
            guard Date() < deadline else { return XCTFail("the key did not expire") }
            usleep(100_000)
        }
        for bad in ["0", "1x", "99999999999", "m", "1.5h"] {
            let r = try tresor("ssh-add", "Servers/web", "--lifetime", bad)
            XCTAssertNotEqual(r.code, 0, bad)
            XCTAssertTrue(r.stderr.contains("is not a time"), r.stderr)
        }
    }

    func testKeysTresorCannotAddAreRefusedClearly() throws {
        try startAgent()
        try initVault()
        let k = dir + "/k"
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "secret", "-f", k + "-protected"])
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "", "-f", k + "-pem"])
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", k])
        try ok("add", "S/protected", "--no-password", "--field-file", "ssh-key=\(k)-protected")
        try ok("add", "S/pem", "--no-password", "--field-file", "ssh-key=\(k)-pem")
        try ok("add", "S/text", "--no-password", "--field", "ssh-key=not a key")
        try ok("add", "S/other", "--no-password", "--field-file", "private=\(k)")
        // A damaged key: one base64 character of its body changed.
        var damaged = try String(contentsOfFile: k, encoding: .utf8).split(separator: "\n").map(String.init)
        damaged[2] = String(damaged[2].dropLast(4)) + "AAAA"
        try write(damaged.joined(separator: "\n") + "\n", to: k + "-damaged")
        try ok("add", "S/damaged", "--no-password", "--field-file", "ssh-key=\(k)-damaged")
        let cases: [([String], Int32, String)] = [
            (["S/protected"], 2, "is protected by a passphrase (aes256-ctr), which tresor does not decrypt"),
            (["S/pem"], 2, "holds a PEM private key; tresor adds keys in the OpenSSH format"),
            (["S/text"], 2, "does not hold an OpenSSH private key"),
            (["S/damaged"], 2, "is damaged"),
            (["S/other"], 4, "entry \"S/other\" has no field \"ssh-key\""),
            (["S/nope"], 4, "no entry \"S/nope\""),
            (["-d", "S/other", "--field", "private"], 2, "does not hold this key"),
        ]
        for (args, code, message) in cases {
            let r = try tresor(["ssh-add"] + args)
            XCTAssertEqual(r.code, code, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): expected \(message) in \(r.stderr)")
        }
        XCTAssertEqual(try agentList().contains("(ED25519)"), false)
        XCTAssertEqual(try ok("ssh-add", "S/other", "--field", "private").code, 0, "another field with --field")
        // A key put in later with edit --set-file (the file's exact contents).
        try ok("edit", "S/text", "--set-file", "ssh-key=\(k)")
        XCTAssertEqual(try ok("read", "-n", "tresor://S/text/ssh-key").stdout, try String(contentsOfFile: k, encoding: .utf8))
        try ok("ssh-add", "S/text")
        let missingFile = try tresor("edit", "S/text", "--set-file", "ssh-key=\(dir)/none")
        XCTAssertTrue(missingFile.stderr.contains("--set-file: cannot read") && missingFile.stderr.contains("No such file"), missingFile.stderr)

        let noAgent = try tresor(["ssh-add", "S/other", "--field", "private"], extraEnv: ["SSH_AUTH_SOCK": nil])
        XCTAssertTrue(noAgent.stderr.contains("no ssh agent: SSH_AUTH_SOCK is not set"), noAgent.stderr)
        let gone = try tresor(["ssh-add", "S/other", "--field", "private"], extraEnv: ["SSH_AUTH_SOCK": dir + "/no-agent"])
        XCTAssertTrue(gone.stderr.contains("cannot reach the ssh agent at") && gone.stderr.contains("No such file or directory"), gone.stderr)
    }
}
