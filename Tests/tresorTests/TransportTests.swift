// tresor clone and sync over real servers on loopback: git daemon (git://) and sshd with an ed25519 key (ssh://).
import Foundation
import TestSupport
import XCTest

final class TransportTests: SyncTestCase {
    /// A, B and a remote URL: A pushes two entries, B clones, both edit, both sync, and they converge.
    func roundTrip(url: String) throws {
        try on("A", "init", "--kdf", "minimum")
        try on("A", "remote", "add", "origin", url)
        try on("A", "add", "Email/gmail", "--username", "alice", "--password-stdin", stdin: "first\n")
        XCTAssertTrue(try on("A", "sync").stdout.contains("Pushed"))
        try ok("clone", url, replica("B"))
        try on("A", "edit", "Email/gmail", "--set", "notes=A")
        try on("B", "edit", "Email/gmail", "--set", "username=B")
        try on("A", "sync")
        XCTAssertTrue(try on("B", "sync").stdout.contains("Merged origin"))
        try on("A", "sync")
        XCTAssertEqual(try contents("A"), try contents("B"))
        let e = try entryJSON("A", "Email/gmail")
        XCTAssertEqual(e["notes"] as? String, "A")
        XCTAssertEqual(e["username"] as? String, "B")
    }

    func testSyncOverGitDaemon() throws {
        let served = dir + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", served + "/vault.git"], stdin: nil, extraEnv: [:]).code, 0)
        let daemon = try startGitDaemon(base: served)
        defer { daemon.stop() }
        try roundTrip(url: "git://127.0.0.1:\(daemon.port)/vault.git")
        let missing = try tresor("clone", "git://127.0.0.1:\(daemon.port)/missing.git", replica("C"))
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.contains("missing.git"), missing.stderr)
    }

    func testSyncOverSSHWithAnEd25519Key() throws {
        let ssh = try SSHFixture(dir: dir + "/ssh")
        defer { ssh.server.stop() }
        let home = dir + "/home/.ssh"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", dir + "/remote.git"], stdin: nil, extraEnv: [:]).code, 0)
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let url = "ssh://\(user)@127.0.0.1:\(ssh.port)\(dir)/remote.git"

        // Unknown host key: refused with a hint, nothing kept.
        try FileManager.default.copyItem(atPath: ssh.clientKey, toPath: home + "/id_ed25519")
        try FileManager.default.copyItem(atPath: ssh.clientKey + ".pub", toPath: home + "/id_ed25519.pub")
        let unknownHost = try tresor("clone", url, replica("X"))
        XCTAssertEqual(unknownHost.code, 2)
        XCTAssertTrue(unknownHost.stderr.contains("host key") && unknownHost.stderr.contains("known_hosts"), unknownHost.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("X")))

        try ssh.knownHostsLine.write(toFile: home + "/known_hosts", atomically: true, encoding: .utf8)
        try roundTrip(url: url)

        // No usable key: authentication fails with a hint naming what to do.
        try FileManager.default.removeItem(atPath: home + "/id_ed25519")
        try FileManager.default.removeItem(atPath: home + "/id_ed25519.pub")
        let noKey = try attempt("A", "sync", env: ["SSH_AUTH_SOCK": nil])
        XCTAssertEqual(noKey.code, 2)
        XCTAssertTrue(noKey.stderr.contains("authentication") || noKey.stderr.contains("ed25519"), noKey.stderr)
    }

    /// An sshd, its host trusted in ~/.ssh/known_hosts, an empty bare remote; returns the local user name.
    func sshRemote() throws -> (ssh: SSHFixture, user: String, home: String) {
        let ssh = try SSHFixture(dir: dir + "/ssh")
        let home = dir + "/home/.ssh"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", dir + "/remote.git"], stdin: nil, extraEnv: [:]).code, 0)
        try ssh.knownHostsLine.write(toFile: home + "/known_hosts", atomically: true, encoding: .utf8)
        return (ssh, String(cString: getpwuid(getuid()).pointee.pw_name), home)
    }

    func testSSHConfigHostAliasesWorkAsWithGit() throws {
        let (ssh, user, home) = try sshRemote()
        defer { ssh.server.stop() }
        // A key under a name ssh would not try by itself: only the config's IdentityFile finds it (an absolute
        // path, because OpenSSH's `~` is the home of the password database, not $HOME).
        try FileManager.default.copyItem(atPath: ssh.clientKey, toPath: home + "/vault_key")
        try FileManager.default.copyItem(atPath: ssh.clientKey + ".pub", toPath: home + "/vault_key.pub")
        try """
            Host vaulthost
              HostName 127.0.0.1
              Port \(ssh.port)
              User \(user)
              IdentityFile \(home)/vault_key
              IdentitiesOnly yes
            Host *
              User nobody-else

            """.write(toFile: home + "/config", atomically: true, encoding: .utf8)
        // scp-like alias, as `git clone vaulthost:/path` takes it.
        try roundTrip(url: "vaulthost:\(dir)/remote.git")
        XCTAssertEqual(try on("A", "remote", "list").stdout.contains("vaulthost:"), true, "the remote keeps the alias")
        // ssh:// with the alias, and the real git agrees on what the alias means.
        try ok("clone", "ssh://vaulthost\(dir)/remote.git", replica("C"))
        XCTAssertEqual(try contents("C"), try contents("A"))
        let gitLs = try run("/usr/bin/git", ["ls-remote", "vaulthost:\(dir)/remote.git", "main"], stdin: nil,
                            extraEnv: ["GIT_SSH_COMMAND": "ssh -F \(home)/config -o UserKnownHostsFile=\(home)/known_hosts"])
        XCTAssertEqual(gitLs.code, 0, gitLs.stderr)
        XCTAssertTrue(gitLs.stdout.contains(try run("/usr/bin/git", ["-C", replica("A"), "rev-parse", "main"], stdin: nil, extraEnv: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func testAnRSAKeyIsRefusedWithAClearReason() throws {
        let (ssh, user, home) = try sshRemote()
        defer { ssh.server.stop() }
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", home + "/id_rsa"])
        try ssh.authorize(home + "/id_rsa", in: dir + "/ssh")
        let r = try tresor(["clone", "ssh://\(user)@127.0.0.1:\(ssh.port)\(dir)/remote.git", replica("R")], extraEnv: ["SSH_AUTH_SOCK": nil])
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("RSA") && r.stderr.contains("SHA-1") && r.stderr.contains("OpenSSH 8.8"), r.stderr)
        XCTAssertTrue(r.stderr.contains("hint: use an ed25519 key"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("R")))

        // Only a DSA key: named, with the reason, instead of "no credentials".
        try FileManager.default.removeItem(atPath: home + "/id_rsa")
        try FileManager.default.moveItem(atPath: home + "/id_rsa.pub", toPath: home + "/id_dsa.pub")
        try "ssh-dss AAAA me\n".write(toFile: home + "/id_dsa.pub", atomically: true, encoding: .utf8)
        try "not really a key\n".write(toFile: home + "/id_dsa", atomically: true, encoding: .utf8)
        let dsa = try tresor(["clone", "ssh://\(user)@127.0.0.1:\(ssh.port)\(dir)/remote.git", replica("R")], extraEnv: ["SSH_AUTH_SOCK": nil])
        XCTAssertEqual(dsa.code, 2)
        XCTAssertTrue(dsa.stderr.contains("id_dsa\" (DSA)") && dsa.stderr.contains("not DSA"), dsa.stderr)
    }
}
