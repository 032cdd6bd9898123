// ~/.ssh/config parsing and URL rewriting: Host patterns, first value wins, tokens, Include, Match skipped.
import Foundation
@testable import TresorGit
import XCTest

final class SSHConfigTests: XCTestCase {
    let home = "/home/me"

    func config(_ text: String) -> SSHConfig { SSHConfig(text: text, home: home, localUser: "me") }

    func testHostPatternsAndFirstValueWins() {
        let c = config("""
            # comment
            Host vaulthost
              HostName git.example.org
              User alice
              Port 2222
              IdentityFile ~/.ssh/vault_key
            Host *.example.org !secret.example.org
              User bob
              Port 22
            Host vault?
              HostName %h.internal
            Host *
              User fallback
              IdentityFile %d/.ssh/%h-%r-%u
            """)
        let v = c.host("vaulthost")
        XCTAssertEqual(v.hostName, "git.example.org")
        XCTAssertEqual(v.user, "alice", "the first User wins over Host *")
        XCTAssertEqual(v.port, 2222)
        XCTAssertEqual(v.identityFiles, ["/home/me/.ssh/vault_key", "/home/me/.ssh/git.example.org-alice-me"])
        XCTAssertEqual(c.host("a.example.org").user, "bob")
        XCTAssertEqual(c.host("secret.example.org").user, "fallback", "a negated pattern excludes the host")
        XCTAssertEqual(c.host("vault1").hostName, "vault1.internal")
        XCTAssertEqual(c.host("vault12").hostName, "vault12", "? is exactly one character")
        XCTAssertEqual(c.host("VAULTHOST").hostName, "git.example.org", "host names match without case")
        XCTAssertNil(c.host("other").port)
    }

    func testSyntaxVariants() {
        XCTAssertEqual(SSHConfig.words("  HostName=example.org"), ["HostName", "example.org"])
        XCTAssertEqual(SSHConfig.words("IdentityFile \"~/my keys/id\""), ["IdentityFile", "~/my keys/id"])
        XCTAssertEqual(SSHConfig.words("Port = 22"), ["Port", "22"])
        XCTAssertEqual(SSHConfig.words("# Host x"), [])
        XCTAssertEqual(SSHConfig.words("\t"), [])
        let c = config("Host a\n  IdentitiesOnly yes\n  Port notanumber\nMatch host a\n  User matched\n  Port 1\n")
        XCTAssertTrue(c.host("a").identitiesOnly)
        XCTAssertNil(c.host("a").port, "bad ports and Match blocks are ignored")
        XCTAssertNil(c.host("a").user)
        let proxied = config("Host j\n  ProxyJump bastion\nHost *\n  ProxyCommand none\n")
        XCTAssertEqual(proxied.host("j").notFollowed, ["ProxyJump"])
        XCTAssertEqual(proxied.host("k").notFollowed, [], "ProxyCommand none is no proxy")
        let session = RemoteSession(credentials: GitCredentials(sshConfig: proxied), url: "j:v.git")
        let error = session.classify(GitError.libgit2(code: -1, message: "failed to connect", operation: .fetch(remote: "o")), remote: "o")
        XCTAssertEqual(error as? GitError, .unreachable(url: "j:v.git", message: "failed to connect", optionsNotFollowed: ["ProxyJump"]))
    }

    func testIncludeFollowsFilesRelativeToDotSSH() throws {
        let dir = NSTemporaryDirectory() + "sshconfig-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/.ssh/conf.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "Host inc\n  HostName included.example\n".write(toFile: dir + "/.ssh/conf.d/a.conf", atomically: true, encoding: .utf8)
        try "Include ~/.ssh/config\n".write(toFile: dir + "/.ssh/conf.d/loop.conf", atomically: true, encoding: .utf8)
        try "Include conf.d/*.conf\nHost other\n  User o\n".write(toFile: dir + "/.ssh/config", atomically: true, encoding: .utf8)
        let c = SSHConfig.load(home: dir)
        XCTAssertEqual(c.host("inc").hostName, "included.example")
        XCTAssertEqual(c.host("other").user, "o", "an include that loops ends")
        XCTAssertEqual(SSHConfig.load(home: dir + "/missing").host("inc").hostName, "inc")
    }

    func testURLsAreRewrittenForLibgit2() {
        let c = config("Host vh\n  HostName 127.0.0.1\n  User git\n  Port 2200\nHost plain\n  IdentityFile ~/k\n")
        XCTAssertEqual(c.resolve(url: "vh:/srv/vault.git")?.url, "ssh://git@127.0.0.1:2200/srv/vault.git")
        XCTAssertEqual(c.resolve(url: "vh:vault.git")?.url, "ssh://git@127.0.0.1:2200/~/vault.git")
        XCTAssertEqual(c.resolve(url: "bob@vh:vault.git")?.url, "ssh://bob@127.0.0.1:2200/~/vault.git", "the URL's user wins")
        XCTAssertEqual(c.resolve(url: "ssh://vh/srv/v.git")?.url, "ssh://git@127.0.0.1:2200/srv/v.git")
        XCTAssertEqual(c.resolve(url: "ssh://vh:99/~/v.git")?.url, "ssh://git@127.0.0.1:99/~/v.git", "the URL's port wins")
        XCTAssertEqual(c.resolve(url: "plain:v.git")?.url, "plain:v.git", "nothing to apply: unchanged")
        XCTAssertEqual(c.resolve(url: "plain:v.git")?.host.identityFiles, ["/home/me/k"])
        XCTAssertNil(c.resolve(url: "https://vh/v.git"))
        XCTAssertNil(c.resolve(url: "/srv/vault.git"))
        XCTAssertNil(c.resolve(url: "./a:b"))
    }

    func testKeyKindsAreReadFromTheKeyFiles() throws {
        let dir = NSTemporaryDirectory() + "sshkeys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, type) in [("ed", "ed25519"), ("rsa", "rsa")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
            p.arguments = ["-q", "-t", type, "-N", "", "-f", dir + "/" + name]
            try p.run(); p.waitUntilExit()
            try FileManager.default.removeItem(atPath: dir + "/" + name + ".pub")   // judged by the private key alone
        }
        XCTAssertEqual(SSHKeyKind(path: dir + "/ed"), .usable)
        XCTAssertEqual(SSHKeyKind(path: dir + "/rsa"), .rsa)
        try "sk-ssh-ed25519@openssh.com AAAA me\n".write(toFile: dir + "/ed.pub", atomically: true, encoding: .utf8)
        XCTAssertEqual(SSHKeyKind(path: dir + "/ed"), .fido)
        XCTAssertEqual(SSHKeyKind(typeName: "ssh-dss"), .dsa)
    }
}
