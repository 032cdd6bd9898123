// tresor over https: a git smart-HTTP server with TLS and basic auth on loopback, credentials from git's own helpers.
import Foundation
import TestSupport
import XCTest

final class HTTPSTransportTests: SyncTestCase {
    var server: ServerProcess?

    override func tearDownWithError() throws {
        server?.stop()
        try super.tearDownWithError()
    }

    /// Starts the server (user alice, password s3cret) with a self-signed certificate for localhost, trusted
    /// through GIT_SSL_CAINFO; returns the URL of an empty bare repository.
    func startServer() throws -> String {
        let https = try HTTPSGitServer(dir: dir)
        server = https.server
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", dir + "/served/vault.git"], stdin: nil, extraEnv: [:]).code, 0)
        env["GIT_SSL_CAINFO"] = https.caFile
        return https.url("vault.git")
    }

    var credentialStore: String { dir + "/home/.git-credentials" }

    /// git's `store` helper, as a user configures it, holding `line`.
    func useCredentialStore(holding line: String) throws {
        try write("[credential]\n\thelper = store\n", to: dir + "/home/.gitconfig")
        try write(line + "\n", to: credentialStore)
    }

    func testCredentialsComeFromGitsHelpersThenTheEnvironment() throws {
        let url = try startServer()
        let host = url.replacingOccurrences(of: "/vault.git", with: "")
        let withAuth = host.replacingOccurrences(of: "https://", with: "https://alice:s3cret@")

        // Nothing to offer: refused with a hint, and git is never left waiting at a prompt.
        let anonymous = try tresor("clone", url, replica("X"))
        XCTAssertEqual(anonymous.code, 2)
        XCTAssertTrue(anonymous.stderr.contains("authentication"), anonymous.stderr)

        // The credential the store helper holds.
        try useCredentialStore(holding: withAuth)
        try on("A", "init", "--kdf", "minimum")
        try on("A", "remote", "add", "origin", url)
        try on("A", "add", "Email/gmail", "--password-stdin", stdin: "first\n")
        XCTAssertTrue(try on("A", "sync").stdout.contains("Pushed"))

        // A stale password in the store: refused, so rejected (the store forgets it); the environment's
        // token works, and is never handed to the helper (the store would keep it on disk in plain text).
        try useCredentialStore(holding: host.replacingOccurrences(of: "https://", with: "https://alice:old@"))
        try on("A", "add", "Email/work", "--password-stdin", stdin: "second\n")
        XCTAssertTrue(try on("A", "sync", env: ["TRESOR_GIT_USERNAME": "alice", "TRESOR_GIT_TOKEN": "s3cret"]).stdout.contains("Pushed"))
        let store = (try? String(contentsOfFile: credentialStore, encoding: .utf8)) ?? ""
        XCTAssertFalse(store.contains("old"), "the refused password is still stored: \(store)")
        XCTAssertFalse(store.contains("s3cret"), "the environment's token was written to the store")

        // Another replica clones with the credential the user stores (a working one, as git keeps it).
        try useCredentialStore(holding: withAuth)
        try ok("clone", url, replica("B"))
        XCTAssertEqual(try contents("B"), try contents("A"))

        // A wrong token and no helper: the error names the URL and what was tried.
        try FileManager.default.removeItem(atPath: credentialStore)
        let wrong = try tresor(["clone", url, replica("C")], extraEnv: ["TRESOR_GIT_USERNAME": "alice", "TRESOR_GIT_TOKEN": "nope"])
        XCTAssertEqual(wrong.code, 2)
        XCTAssertTrue(wrong.stderr.contains(url) && wrong.stderr.contains("TRESOR_GIT_TOKEN"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("nope"), "the token is never printed")
        let stored = (try? String(contentsOfFile: credentialStore, encoding: .utf8)) ?? ""
        XCTAssertFalse(stored.contains("nope"), "a refused token is not stored")
    }
}
