// Tests for remotes over the local transport, git daemon and ssh, and for the errors users see.
import Foundation
import TestSupport
import XCTest
@testable import TresorGit

final class GitRemoteTests: XCTestCase {
    func testRemotesCanBeAddedListedAndRemoved() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        XCTAssertEqual(try repo.remotes(), [])
        try repo.addRemote(name: "origin", url: "git@example.org:me/vault.git")
        try repo.addRemote(name: "backup", url: "/srv/vault.git")
        XCTAssertEqual(try repo.remotes(), [
            GitRemote(name: "backup", url: "/srv/vault.git"),
            GitRemote(name: "origin", url: "git@example.org:me/vault.git"),
        ])
        XCTAssertEqual(try git("config", "remote.origin.url", in: temp.path), "git@example.org:me/vault.git")
        assertGitError(.remoteExists("origin"), try repo.addRemote(name: "origin", url: "/elsewhere"))
        try repo.removeRemote(name: "backup")
        assertGitError(.remoteNotFound("backup"), try repo.removeRemote(name: "backup"))
        assertGitError(.remoteNotFound("backup"), try repo.fetch(remote: "backup", credentials: .none))
        assertGitError(.remoteNotFound("backup"), try repo.push(remote: "backup", credentials: .none))
        XCTAssertEqual(try repo.remotes().map(\.name), ["origin"])
    }

    func testCloneOfAnEmptyRemoteStartsOnMain() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=master", bare)
        let repo = try GitRepository.clone(url: bare, to: temp.sub("clone"), credentials: .none)
        XCTAssertNil(try repo.headCommitID())
        XCTAssertEqual(try git("symbolic-ref", "HEAD", in: repo.workdir), "refs/heads/main")
        assertGitError(.unknownRevision("main"), try repo.push(remote: "origin", credentials: .none))

        try write("x", to: "x", in: repo.workdir)
        let id = try repo.commit(message: "first", adding: ["x"])
        try repo.push(remote: "origin", credentials: .none)
        XCTAssertEqual(try git("rev-parse", "main", in: bare), id)
        XCTAssertEqual(try runGit(["fsck", "--strict"], in: bare).status, 0, "the server's HEAD stays on unborn master")
        try assertFsck(repo.workdir)
    }

    /// A leased push to a path whose remote moves after the push read the remote's refs (while the objects are copied:
    /// another replica's push landing then) is refused, and what landed stays; libgit2's own transport for a path
    /// overwrote it. A push that holds the lease goes through, and leaves no ref but `main` on the remote.
    func testALeasedPushToAPathNeverOverwritesAPushThatLandedMeanwhile() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=main", bare)
        let alice = try GitRepository.clone(url: bare, to: temp.sub("alice"), credentials: .none)
        try write("a", to: "entry", in: alice.workdir)
        let base = try alice.commit(message: "base", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none, lease: .some(nil))
        XCTAssertEqual(try git("rev-parse", "main", in: bare), base)
        assertGitError(.pushRejected(remote: "origin", reason: .remoteMoved),
                       try alice.push(remote: "origin", credentials: .none, lease: .some(nil)))

        // Bob's commit is on the server already (its objects), not yet on main.
        let bob = try GitRepository.clone(url: bare, to: temp.sub("bob"), credentials: .none)
        try write("b", to: "other", in: bob.workdir)
        let bobs = try bob.commit(message: "bob", adding: ["other"])
        try git("push", "-q", bare, "main:refs/heads/side", in: bob.workdir)

        try write("a2", to: "entry", in: alice.workdir)
        let alices = try alice.commit(message: "alice", adding: ["entry"])
        var moved = false
        let landing: GitProgressHandler = { _ in
            guard !moved else { return }
            moved = true
            _ = try? git("update-ref", "refs/heads/main", bobs, base, in: bare)
        }
        assertGitError(.pushRejected(remote: "origin", reason: .remoteMoved),
                       try alice.push(remote: "origin", credentials: .none, lease: .some(base), progress: landing))
        XCTAssertTrue(moved, "the remote moved during the push")
        XCTAssertEqual(try git("rev-parse", "main", in: bare), bobs, "the push that landed meanwhile is kept")

        // With the lease on what the remote holds, the push goes through; no ref of the push is left behind.
        try git("update-ref", "-d", "refs/heads/side", in: bare)
        try alice.push(remote: "origin", credentials: .none, lease: .some(bobs))
        XCTAssertEqual(try git("rev-parse", "main", in: bare), alices)
        XCTAssertEqual(try git("for-each-ref", "--format=%(refname)", in: bare), "refs/heads/main")
        XCTAssertEqual(try runGit(["fsck", "--strict"], in: bare).status, 0)
    }

    /// A quarantine fetch from a path brings only what is new there, also while this repository's HEAD is a commit the
    /// remote does not have (changes not pushed yet): the path's transport hides only the commits the quarantine's refs
    /// name, not their history, so it must know what the remote was last seen holding.
    func testAQuarantineFetchThroughAPathBringsOnlyWhatIsNew() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=main", bare)
        let alice = try GitRepository.clone(url: bare, to: temp.sub("alice"), credentials: .none)
        for i in 0..<20 {
            try write("value \(i)", to: "entry\(i)", in: alice.workdir)
            try alice.commit(message: "entry \(i)", adding: ["entry\(i)"])
        }
        try alice.push(remote: "origin", credentials: .none)
        let bob = try GitRepository.clone(url: bare, to: temp.sub("bob"), credentials: .none)
        try write("bob", to: "bobs", in: bob.workdir)
        try bob.commit(message: "not pushed yet", adding: ["bobs"])
        try write("new", to: "entry0", in: alice.workdir)
        let new = try alice.commit(message: "new", adding: ["entry0"])
        try alice.push(remote: "origin", credentials: .none)

        let quarantine = try bob.makeQuarantine(at: temp.sub("bob/.git/quarantine"))
        try quarantine.fetch(url: bare, into: "refs/incoming", credentials: .none, remoteName: "origin")
        XCTAssertEqual(quarantine.resolve("refs/incoming"), new)
        let counted = try git("count-objects", "-v", in: temp.sub("bob/.git/quarantine"))
        let own = counted.split(separator: "\n").reduce(0) { n, line in
            line.hasPrefix("count: ") || line.hasPrefix("in-pack: ") ? n + Int(line.split(separator: " ")[1])! : n
        }
        XCTAssertEqual(own, 3, "the new commit, its tree and its blob: \(counted)")
    }

    /// What a quarantine received moves in as it is (its pack files), the ref set, the repository whole (`git fsck`).
    /// A quarantine that also holds an object nothing reaches has only what the commit reaches fetched from it; a
    /// commit whose parent is missing is refused, and nothing moves.
    func testTakingInAQuarantineMovesItsPacksOnlyWhenTheyHoldJustTheWholeCommit() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=main", bare)
        let alice = try GitRepository.clone(url: bare, to: temp.sub("alice"), credentials: .none)
        try write("one", to: "entry", in: alice.workdir)
        try alice.commit(message: "one", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none)
        let bob = try GitRepository.clone(url: bare, to: temp.sub("bob"), credentials: .none)
        func quarantined(_ name: String) throws -> (path: String, repo: GitRepository) {
            let path = temp.sub("bob/.git/" + name)
            let q = try bob.makeQuarantine(at: path)
            try q.fetch(url: bare, into: "refs/incoming", credentials: .none, remoteName: "origin")
            return (path, q)
        }
        func packs(_ path: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack").filter { $0.hasSuffix(".pack") }.sorted()
        }

        // Whole, and nothing else: the packs move.
        try write("two", to: "entry", in: alice.workdir)
        let two = try alice.commit(message: "two", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none)
        let first = try quarantined("q1")
        let received = try packs(first.path)
        XCTAssertEqual(received.count, 1)
        try bob.takeInObjects(ofQuarantineAt: first.path, commit: two, into: "refs/tresor/incoming/origin", remoteName: "origin")
        XCTAssertEqual(bob.resolve("refs/tresor/incoming/origin"), two)
        XCTAssertEqual(try packs(first.path), [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: bob.workdir + "/.git/objects/pack/" + received[0]))
        XCTAssertEqual(try git("show", "\(two):entry", in: bob.workdir), "two")
        XCTAssertEqual(try runGit(["fsck", "--strict", "--no-dangling"], in: bob.workdir).status, 0)

        // An object nothing reaches beside it: only what the commit reaches comes in.
        try write("three", to: "entry", in: alice.workdir)
        let three = try alice.commit(message: "three", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none)
        let second = try quarantined("q2")
        try write("sent but not named", to: "loose", in: temp.path)
        let stray = try git("hash-object", "-w", temp.sub("loose"), in: second.path)
        try bob.takeInObjects(ofQuarantineAt: second.path, commit: three, into: "refs/tresor/incoming/origin", remoteName: "origin")
        XCTAssertEqual(bob.resolve("refs/tresor/incoming/origin"), three)
        XCTAssertEqual(try git("show", "\(three):entry", in: bob.workdir), "three")
        XCTAssertNotEqual(try runGit(["cat-file", "-e", stray], in: bob.workdir).status, 0, "the stray object came in")
        XCTAssertEqual(try packs(second.path).count, 1, "its pack stays in the quarantine")
        XCTAssertEqual(try runGit(["fsck", "--strict", "--no-dangling"], in: bob.workdir).status, 0)

        // A commit whose parent is not there (a remote may send one): refused, nothing moves, no ref.
        let third = try quarantined("q3")
        let tree = try git("rev-parse", "\(three)^{tree}", in: bob.workdir)
        let body = "tree \(tree)\nparent \(String(repeating: "ab", count: 20))\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nbroken\n"
        try write(body, to: "commit", in: temp.path)
        let broken = try git("hash-object", "-t", "commit", "-w", "--literally", temp.sub("commit"), in: third.path)
        XCTAssertThrowsError(try bob.takeInObjects(ofQuarantineAt: third.path, commit: broken, into: "refs/tresor/broken", remoteName: "origin"))
        XCTAssertNil(bob.resolve("refs/tresor/broken"))
        XCTAssertNotEqual(try runGit(["cat-file", "-e", broken], in: bob.workdir).status, 0)
    }

    func testCloneRefusesANonEmptyDirectoryAndCleansUpAfterFailure() throws {
        let temp = try TempDir()
        try write("keep", to: "full/file", in: temp.path)
        assertGitError(.destinationNotEmpty(path: temp.sub("full")),
                       try GitRepository.clone(url: temp.sub("nothing.git"), to: temp.sub("full"), credentials: .none))
        XCTAssertThrowsError(try GitRepository.clone(url: temp.sub("nothing.git"), to: temp.sub("new"), credentials: .none))
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.sub("new")))
        try FileManager.default.createDirectory(atPath: temp.sub("empty"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try GitRepository.clone(url: temp.sub("nothing.git"), to: temp.sub("empty"), credentials: .none))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.sub("empty")), [])
    }

    func testUnreachableRemoteNamesTheURL() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        let url = "git://127.0.0.1:\(try freePort())/vault.git"
        try repo.addRemote(name: "origin", url: url)
        XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: .none)) { error in
            guard case GitError.unreachable(let failed, let message, _)? = error as? GitError else {
                return XCTFail("unexpected error: \(error)")
            }
            XCTAssertEqual(failed, url)
            XCTAssertNotNil(message, "libgit2 says why")
        }
    }

    func testPushAndFetchOverGitDaemon() throws {
        let temp = try TempDir()
        try git("init", "-q", "--bare", temp.sub("served/vault.git"))
        let daemon = try startGitDaemon(base: temp.sub("served"))
        defer { daemon.stop() }
        let url = "git://127.0.0.1:\(daemon.port)/vault.git"

        let alice = try GitRepository.clone(url: url, to: temp.sub("alice"), credentials: .none)
        try write("secret", to: "entry", in: alice.workdir)
        let first = try alice.commit(message: "add entry", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none)
        XCTAssertEqual(try git("rev-parse", "main", in: temp.sub("served/vault.git")), first)

        let bob = try GitRepository.clone(url: url, to: temp.sub("bob"), credentials: .none)
        XCTAssertEqual(try bob.headCommitID(), first)
        XCTAssertEqual(try bob.blob(at: "HEAD", path: "entry"), Array("secret".utf8))
        try write("changed", to: "entry", in: alice.workdir)
        let second = try alice.commit(message: "change entry", adding: ["entry"])
        try alice.push(remote: "origin", credentials: .none)
        try bob.fetch(remote: "origin", credentials: .none)
        XCTAssertEqual(bob.resolve(GitRepository.trackingRef(remote: "origin")), second)

        // receive-pack refuses through the push report only: git_remote_push itself returns 0.
        let hook = temp.sub("served/vault.git/hooks/pre-receive")
        try write("#!/bin/sh\necho 'closed for maintenance' >&2\nexit 1\n", to: "hooks/pre-receive", in: temp.sub("served/vault.git"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        try write("third", to: "entry", in: alice.workdir)
        try alice.commit(message: "third", adding: ["entry"])
        XCTAssertThrowsError(try alice.push(remote: "origin", credentials: .none)) { error in
            guard case GitError.pushRejected(let remote, let reason)? = error as? GitError else {
                return XCTFail("unexpected error: \(error)")
            }
            XCTAssertEqual(remote, "origin")
            guard case .refused(let refs) = reason else { return XCTFail("\(reason)") }
            XCTAssertEqual(refs.map(\.ref), ["refs/heads/main"])
        }
        XCTAssertEqual(try git("rev-parse", "main", in: temp.sub("served/vault.git")), second)

        try bob.addRemote(name: "missing", url: "git://127.0.0.1:\(daemon.port)/missing.git")
        XCTAssertThrowsError(try bob.fetch(remote: "missing", credentials: .none)) { error in
            guard case GitError.unreachable? = error as? GitError else { return XCTFail("unexpected error: \(error)") }
        }
    }

    func testPushAndFetchOverSSH() throws {
        let temp = try TempDir()
        let ssh = try SSHFixture(dir: temp.sub("ssh"))
        defer { ssh.server.stop() }
        try git("init", "-q", "--bare", temp.sub("vault.git"))
        let url = "ssh://\(NSUserName())@127.0.0.1:\(ssh.port)\(temp.sub("vault.git"))"
        let key = GitCredentials(useSSHAgent: false, sshKeyFiles: [ssh.clientKey])

        // This process's known_hosts (under the real $HOME) cannot know a server on a fresh port.
        assertGitError(.hostKeyRejected(url: url),
                       try GitRepository.clone(url: url, to: temp.sub("unknown-host"), credentials: key))
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.sub("unknown-host")))

        // libgit2 1.5.1 reads $HOME/.ssh/known_hosts from the HOME it saw at start-up, so the
        // trusting half runs in a child process with a temporary home.
        let home = temp.sub("home")
        try write(ssh.knownHostsLine, to: ".ssh/known_hosts", in: home)
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", temp.sub("stranger")])
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", temp.sub("rsa")])
        try ssh.authorize(temp.sub("rsa"), in: temp.sub("ssh"))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["TresorGitTests.GitRemoteTests/testSSHRoundTripInChild"]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["TRESOR_TEST_SSH_URL"] = url
        environment["TRESOR_TEST_SSH_KEY"] = ssh.clientKey
        environment["TRESOR_TEST_SSH_DIR"] = temp.path
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, log)
        XCTAssertTrue(log.contains("Executed 1 test, with 0 failures"), log)
        XCTAssertEqual(try git("log", "--format=%s", "main", in: temp.sub("vault.git")), "second over ssh\nover ssh")
    }

    /// The ssh round trip proper; runs only when `testPushAndFetchOverSSH` starts it.
    func testSSHRoundTripInChild() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TRESOR_TEST_SSH_URL"], let keyFile = environment["TRESOR_TEST_SSH_KEY"],
              let dir = environment["TRESOR_TEST_SSH_DIR"] else {
            throw XCTSkip("runs only as the child process of testPushAndFetchOverSSH")
        }
        let key = GitCredentials(useSSHAgent: false, sshKeyFiles: [keyFile])
        let stranger = GitCredentials(useSSHAgent: false, sshKeyFiles: [dir + "/missing-key", dir + "/stranger"])
        XCTAssertThrowsError(try GitRepository.clone(url: url, to: dir + "/stranger-clone", credentials: stranger)) { error in
            guard case GitError.authenticationFailed(let failed, let reason)? = error as? GitError else {
                return XCTFail("unexpected error: \(error)")
            }
            XCTAssertEqual(failed, url)
            XCTAssertTrue(reason?.contains(dir + "/stranger") == true, reason ?? "")
        }

        // libssh2 1.10 signs with SHA-1 only, which a current sshd refuses for RSA keys.
        let rsa = GitCredentials(useSSHAgent: false, sshKeyFiles: [dir + "/rsa"])
        assertGitError(.unsupportedSSHKey(url: url), try GitRepository.clone(url: url, to: dir + "/rsa-clone", credentials: rsa))

        let alice = try GitRepository.clone(url: url, to: dir + "/alice", credentials: key)
        try write("over ssh", to: "entry", in: alice.workdir)
        let first = try alice.commit(message: "over ssh", adding: ["entry"])
        try alice.push(remote: "origin", credentials: key)
        let bob = try GitRepository.clone(url: url, to: dir + "/bob", credentials: key)
        XCTAssertEqual(try bob.headCommitID(), first)
        try write("changed over ssh", to: "entry", in: alice.workdir)
        let second = try alice.commit(message: "second over ssh", adding: ["entry"])
        try alice.push(remote: "origin", credentials: key)
        try bob.fetch(remote: "origin", credentials: key)
        XCTAssertEqual(bob.resolve(GitRepository.trackingRef(remote: "origin")), second)
    }

    func testStandardCredentialsComeFromTheEnvironment() {
        let plain = GitCredentials.standard(environment: [:], home: "/home/me")
        XCTAssertFalse(plain.useSSHAgent)
        XCTAssertEqual(plain.sshKeyFiles.first, "/home/me/.ssh/id_ed25519")
        XCTAssertEqual(plain.sshKeyFiles.last, "/home/me/.ssh/id_rsa", "RSA is offered last")
        XCTAssertTrue(plain.useGitCredentialHelper)
        XCTAssertNil(plain.httpsToken)
        let full = GitCredentials.standard(
            environment: ["SSH_AUTH_SOCK": "/tmp/agent", "TRESOR_GIT_USERNAME": "me", "TRESOR_GIT_TOKEN": "t0k"],
            home: "/home/me")
        XCTAssertTrue(full.useSSHAgent)
        XCTAssertEqual(full.httpsUsername, "me")
        XCTAssertEqual(full.httpsToken, "t0k")
        XCTAssertFalse("\(full)".contains("t0k"))
        XCTAssertFalse(String(reflecting: full).contains("t0k"))
    }

    func testEachCredentialIsOfferedOnceAndRetriesStop() throws {
        let temp = try TempDir()
        for name in ["ed", "rsa"] { try write("key", to: name, in: temp.path) }
        try write("ssh-ed25519 AAAA me", to: "ed.pub", in: temp.path)
        try write("ssh-rsa AAAA me", to: "rsa.pub", in: temp.path)
        let credentials = GitCredentials(
            useSSHAgent: true, sshKeyFiles: [temp.sub("missing"), temp.sub("ed"), temp.sub("rsa")],
            httpsUsername: "me", httpsToken: "t0k")

        let ssh = RemoteSession(credentials: credentials, url: "ssh://host/v.git")
        XCTAssertEqual(ssh.nextOffer(userFromURL: nil, allowed: .username), .username("git"))
        XCTAssertEqual(ssh.nextOffer(userFromURL: "alice", allowed: .sshKey), .sshAgent(user: "alice"))
        XCTAssertEqual(ssh.nextOffer(userFromURL: "alice", allowed: .sshKey),
                       .sshKey(user: "alice", privateKey: temp.sub("ed"), publicKey: temp.sub("ed.pub")))
        XCTAssertEqual(ssh.nextOffer(userFromURL: "alice", allowed: .sshKey),
                       .sshKey(user: "alice", privateKey: temp.sub("rsa"), publicKey: temp.sub("rsa.pub")))
        XCTAssertNil(ssh.nextOffer(userFromURL: "alice", allowed: .sshKey))
        XCTAssertEqual(ssh.tried, ["ssh-agent", temp.sub("ed"), temp.sub("rsa")])
        let refused = ssh.classify(GitError.libgit2(code: -16, message: "refused", operation: .fetch(remote: "origin")), remote: "origin")
        XCTAssertEqual(refused as? GitError, .authenticationFailed(url: "ssh://host/v.git", message: "refused"))

        let https = RemoteSession(credentials: credentials, url: "https://host/v.git")
        XCTAssertEqual(https.nextOffer(userFromURL: nil, allowed: .password), .password(user: "me", token: "t0k"))
        XCTAssertNil(https.nextOffer(userFromURL: nil, allowed: .password))

        let rsaOnly = RemoteSession(credentials: GitCredentials(useSSHAgent: false, sshKeyFiles: [temp.sub("rsa")]), url: "u")
        XCTAssertNotNil(rsaOnly.nextOffer(userFromURL: "git", allowed: .sshKey))
        XCTAssertNil(rsaOnly.nextOffer(userFromURL: "git", allowed: .sshKey))
        let rsaRefused = rsaOnly.classify(GitError.libgit2(code: -16, message: "refused", operation: .fetch(remote: "origin")), remote: "o")
        XCTAssertEqual(rsaRefused as? GitError, .unsupportedSSHKey(url: "u"))

        let nothing = RemoteSession(credentials: .none, url: "u")
        XCTAssertNil(nothing.nextOffer(userFromURL: nil, allowed: [.sshKey, .password]))
        let looping = RemoteSession(credentials: .none, url: "u")
        let offers = (0..<20).compactMap { _ in looping.nextOffer(userFromURL: nil, allowed: .username) }
        XCTAssertEqual(offers.count, RemoteSession.maxCredentialCalls, "a server that keeps asking is cut off")
    }

    func testConfiguredKeysComeFirstRSALastAndUnusableKeysAreNamed() throws {
        let temp = try TempDir()
        for (name, type) in [("id_rsa", "ssh-rsa"), ("id_ed25519", "ssh-ed25519"), ("id_dsa", "ssh-dss"),
                             ("id_ed25519_sk", "sk-ssh-ed25519@openssh.com"), ("work", "ssh-ed25519")] {
            try write("key", to: name, in: temp.path)
            try write("\(type) AAAA me", to: name + ".pub", in: temp.path)
        }
        let config = SSHConfig(text: "Host work\n  HostName 10.0.0.1\n  IdentityFile \(temp.sub("work"))\n", home: temp.path)
        let keys = ["id_rsa", "id_ed25519", "id_dsa", "id_ed25519_sk"].map { temp.sub($0) }
        let credentials = GitCredentials(useSSHAgent: false, sshKeyFiles: keys, sshConfig: config)
        let session = RemoteSession(credentials: credentials, url: "work:v.git")
        XCTAssertEqual(session.connectURL, "ssh://10.0.0.1/~/v.git")
        var offered: [String] = []
        while case .sshKey(_, let key, _)? = session.nextOffer(userFromURL: "git", allowed: .sshKey) { offered.append(key) }
        XCTAssertEqual(offered, [temp.sub("work"), temp.sub("id_ed25519"), temp.sub("id_rsa")])

        let onlyUnusable = RemoteSession(credentials: GitCredentials(useSSHAgent: false, sshKeyFiles: [temp.sub("id_dsa"), temp.sub("id_ed25519_sk")]), url: "u")
        XCTAssertNil(onlyUnusable.nextOffer(userFromURL: "git", allowed: .sshKey))
        let error = onlyUnusable.classify(GitError.libgit2(code: -16, message: "no credentials to offer", operation: .fetch(remote: "origin")), remote: "o")
        XCTAssertEqual(error as? GitError, .unusableSSHKeys(url: "u", keys: [.init(path: temp.sub("id_dsa"), kind: .dsa), .init(path: temp.sub("id_ed25519_sk"), kind: .fido)]))
    }

    func testNetworkFailuresBecomeActionableErrors() {
        let session = RemoteSession(credentials: .none, url: "ssh://git@host/v.git")
        func classify(_ code: Int32, _ message: String) -> GitError? {
            session.classify(GitError.libgit2(code: code, message: message, operation: .fetch(remote: "origin")), remote: "origin") as? GitError
        }
        XCTAssertEqual(classify(-16, "Failed to retrieve list of SSH authentication methods: x"),
                       .unsupportedSSHKey(url: "ssh://git@host/v.git"))
        XCTAssertEqual(classify(-16, "the server refused k"), .authenticationFailed(url: "ssh://git@host/v.git", message: "the server refused k"))
        XCTAssertEqual(classify(-17, "invalid or unknown remote ssh hostkey"), .hostKeyRejected(url: "ssh://git@host/v.git"))
        XCTAssertEqual(classify(-11, "cannot push non-fastforwardable reference"),
                       .pushRejected(remote: "origin", reason: .notFastForward))
        XCTAssertEqual(classify(-1, "failed to connect"), .unreachable(url: "ssh://git@host/v.git", message: "failed to connect", optionsNotFollowed: []))
        XCTAssertEqual(classify(-1, "failed to parse object"), .malformedTree(id: "", reason: .unparsable("failed to parse object")))
    }
}
