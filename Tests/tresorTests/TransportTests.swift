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
}
