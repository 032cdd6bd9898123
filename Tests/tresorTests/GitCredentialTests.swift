// git's credential helper: real git cloning over https (git http-backend behind basic auth) with passwords from the vault.
import Foundation
import TestSupport
import XCTest

final class GitCredentialTests: CLITestCase {
    var server: ServerProcess?
    var port: UInt16 = 0
    var binDir: String { dir + "/bin" }
    var repoURL: String { "https://localhost:\(port)/repo.git" }

    override func tearDownWithError() throws {
        server?.stop()
        try super.tearDownWithError()
    }

    /// The https server (user alice, password s3cret) serving one repository with a README, trusted through
    /// GIT_SSL_CAINFO; git finds the helper as `git-credential-tresor` on PATH, as `make install` puts it.
    func startServer() throws {
        let python = "/usr/bin/python3", openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.isExecutableFile(atPath: openssl) else {
            throw XCTSkip("needs python3 and openssl")
        }
        let tls = dir + "/tls", served = dir + "/served", work = dir + "/work"
        try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
        try runTool(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tls + "/key.pem", "-out", tls + "/cert.pem",
                              "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        for args in [["init", "-q", "-b", "main", work], ["-C", work, "-c", "user.name=T", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"],
                     ["clone", "-q", "--bare", work, served + "/repo.git"]] {
            XCTAssertEqual(try run("/usr/bin/git", args, stdin: nil, extraEnv: [:]).code, 0, "git \(args)")
        }
        try write("served\n", to: work + "/README")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/git_https_server.py").path
        port = try freePort()
        server = try ServerProcess(python, [script, "\(port)", served, tls + "/cert.pem", tls + "/key.pem", "alice", "s3cret"], port: port)
        try FileManager.default.createDirectory(atPath: binDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: binDir + "/git-credential-tresor", withDestinationPath: CLITestCase.binary)
        env["PATH"] = binDir + ":/usr/bin:/bin"
        env["GIT_SSL_CAINFO"] = tls + "/cert.pem"
        env["GIT_TERMINAL_PROMPT"] = "0"
        try write("[credential]\n\thelper = tresor\n", to: dir + "/home/.gitconfig")
    }

    func clone(_ url: String, _ target: String, config: [String] = []) throws -> CLIResult {
        try run("/usr/bin/git", config.flatMap { ["-c", $0] } + ["clone", "-q", url, dir + "/" + target], stdin: nil, extraEnv: [:])
    }

    func testCloneOverHTTPSWithThePasswordFromTheVault() throws {
        try startServer()
        try initVault()
        // The same host over http is another site; of two users of one host, the first path answers.
        try ok(["add", "Dev/plain", "--username", "alice", "--url", "http://localhost:\(port)", "--password-stdin"], stdin: "wrong-1\n")
        try ok(["add", "Dev/server alice", "--username", "alice", "--url", "localhost:\(port)/", "--password-stdin"], stdin: "s3cret\n")
        try ok(["add", "Dev/server bob", "--username", "bob", "--url", "https://localhost:\(port)", "--password-stdin"], stdin: "wrong-2\n")

        let r = try clone(repoURL, "a")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", dir + "/a", "log", "--format=%s"], stdin: nil, extraEnv: [:]).stdout, "first\n")

        // A user name in the URL: only that user's entry answers (bob's password is refused by the server).
        let bob = try clone("https://bob@localhost:\(port)/repo.git", "b")
        XCTAssertNotEqual(bob.code, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/b/.git"))

        // Locked: the helper answers nothing and says why; git goes on (and here, without a prompt, fails).
        let locked = try run("/usr/bin/git", ["clone", "-q", repoURL, dir + "/c"], stdin: nil, extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertNotEqual(locked.code, 0)
        XCTAssertTrue(locked.stderr.contains("tresor: warning: git credential helper: no keys in the agent, no session and no passphrase file"), locked.stderr)
        XCTAssertFalse(locked.stderr.contains("s3cret"))
    }

    func testUseHttpPathPicksTheEntryOfTheRepository() throws {
        try startServer()
        try initVault()
        try ok(["add", "Dev/host", "--username", "alice", "--url", "https://localhost:\(port)", "--password-stdin"], stdin: "host-wide\n")
        try ok(["add", "Dev/repo", "--username", "alice", "--url", "https://localhost:\(port)/repo", "--password-stdin"], stdin: "s3cret\n")
        try ok(["add", "Dev/other", "--username", "alice", "--url", "https://localhost:\(port)/other.git", "--password-stdin"], stdin: "other\n")
        // Without a path from git the entry for the whole host answers (and is refused here).
        XCTAssertNotEqual(try clone(repoURL, "a").code, 0)
        // With credential.useHttpPath the entry whose URL contains the repository's path wins.
        let r = try clone(repoURL, "b", config: ["credential.useHttpPath=true"])
        XCTAssertEqual(r.code, 0, r.stderr)
    }

    func testGetStoreAndEraseThroughGitCredential() throws {
        try initVault()
        env["PATH"] = binDir + ":/usr/bin:/bin"
        try FileManager.default.createDirectory(atPath: binDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: binDir + "/git-credential-tresor", withDestinationPath: CLITestCase.binary)
        try write("[credential]\n\thelper = tresor\n", to: dir + "/home/.gitconfig")
        try ok(["add", "Dev/git", "--username", "alice", "--url", "https://git.example.org", "--password-stdin"], stdin: "pw-1\n")
        func credential(_ op: String, _ input: String) throws -> CLIResult {
            try run("/usr/bin/git", ["credential", op], stdin: input, extraEnv: ["GIT_TERMINAL_PROMPT": "0"])
        }
        let fill = try credential("fill", "protocol=https\nhost=git.example.org\npath=org/repo.git\n\n")
        XCTAssertEqual(fill.code, 0, fill.stderr)
        XCTAssertEqual(fill.stdout, "protocol=https\nhost=git.example.org\nusername=alice\npassword=pw-1\n")
        XCTAssertEqual(try credential("fill", "protocol=https\nhost=git.example.org:443\n\n").stdout.contains("password=pw-1"), true)
        XCTAssertNotEqual(try credential("fill", "protocol=https\nhost=git.example.org:8443\n\n").code, 0, "another port is another site")
        XCTAssertNotEqual(try credential("fill", "protocol=https\nhost=example.org\n\n").code, 0)
        // The helper itself, as git runs it: nothing for another host, an unknown operation, or erase.
        let helper = binDir + "/git-credential-tresor"
        XCTAssertEqual(try run(helper, ["get"], stdin: "protocol=https\nhost=other.example\n\n", extraEnv: [:]).stdout, "")
        XCTAssertEqual(try run(helper, ["frobnicate"], stdin: "protocol=https\nhost=git.example.org\n\n", extraEnv: [:]).code, 0)

        // Without a terminal, store and erase change nothing, silently.
        let before = try ok("log").stdout
        for op in ["approve", "reject"] {
            let r = try run("/usr/bin/setsid", ["-w", "/usr/bin/git", "credential", op], stdin: "protocol=https\nhost=new.example\nusername=u\npassword=p\n\n", extraEnv: [:])
            XCTAssertEqual(r.code, 0, r.stderr)
            XCTAssertEqual(r.stderr, "")
        }
        XCTAssertEqual(try ok("log").stdout, before)
        XCTAssertEqual(try ok("read", "tresor://Dev/git/password").stdout, "pw-1\n")
    }

    /// At a terminal git prompts for what the vault does not know; once it worked, the helper offers to keep it.
    func testStoreAtATerminalOffersToSaveTheCredential() throws {
        try startServer()
        try initVault()
        env["GIT_TERMINAL_PROMPT"] = nil
        let shell = try TmuxSession(directory: dir, env: env, width: 250)
        shell.run("git clone -q \(repoURL) first")
        XCTAssertTrue(shell.waitFor("Username for 'https://localhost:\(port)':"), shell.screen)
        shell.run("alice")
        XCTAssertTrue(shell.waitFor("Password for 'https://alice@localhost:\(port)':"), shell.screen)
        shell.run("s3cret")
        XCTAssertTrue(shell.waitFor("save the password for alice@localhost:\(port) in the vault as git/localhost-\(port)/alice? [y/N]"), shell.screen)
        shell.run("y")
        XCTAssertTrue(shell.waitFor("tresor: added git/localhost-\(port)/alice."), shell.screen)
        XCTAssertEqual(try ok("read", "tresor://git/localhost-\(port)/alice/password").stdout, "s3cret\n")
        XCTAssertEqual(try ok("read", "tresor://git/localhost-\(port)/alice/urls").stdout, "https://localhost:\(port)\n")

        // The next clone needs no prompt, and the helper asks nothing (the vault already holds it).
        shell.run("git clone -q \(repoURL) second && echo CLONED")
        XCTAssertTrue(shell.waitFor("\nCLONED"), shell.screen)
        let after = shell.screen.components(separatedBy: "second && echo CLONED").last ?? ""
        XCTAssertFalse(after.contains("Username for") || after.contains("[y/N]"), after)

        // A password another helper supplied (git's store helper, listed first) that differs from the vault's: the
        // helper offers to update the entry.
        try ok(["edit", "git/localhost-\(port)/alice", "--password-stdin"], stdin: "stale\n")
        try write("https://alice:s3cret@localhost:\(port)\n", to: dir + "/home/.git-credentials")
        shell.run("git -c credential.helper= -c credential.helper=store -c credential.helper=tresor clone -q \(repoURL) third")
        XCTAssertTrue(shell.waitFor("differs from the one in git/localhost-\(port)/alice. Update git/localhost-\(port)/alice? [y/N]"), shell.screen)
        shell.run("y")
        XCTAssertTrue(shell.waitFor("tresor: updated the password of git/localhost-\(port)/alice."), shell.screen)
        XCTAssertEqual(try ok("read", "tresor://git/localhost-\(port)/alice/password").stdout, "s3cret\n")
    }
}
