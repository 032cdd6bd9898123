// Sessions as a shell uses them: `eval "$(tresor unlock)"` for several vaults in one bash, and how long they last.
import Foundation
import XCTest

final class SessionTests: CLITestCase {
    /// Runs `script` in a real bash with the test environment and no passphrase file.
    func bash(_ script: String) throws -> CLIResult {
        try run("/bin/bash", ["--norc", "--noprofile", "-c", script], stdin: nil,
                extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_BIN": CLITestCase.binary])
    }

    func testTwoVaultsUnlockedInOneShellAreBothUsable() throws {
        try sampleVault()
        let other = dir + "/other"
        try ok("init", "--vault", other, "--kdf", "minimum")
        try ok("add", "--vault", other, "Bank/main", "--password-stdin", stdin: "bank-secret\n")
        let pass = passphraseFile
        let r = try bash("""
            set -e
            eval "$("$TRESOR_BIN" unlock --env --passphrase-file '\(pass)')"
            eval "$("$TRESOR_BIN" unlock --env --vault '\(other)' --passphrase-file '\(pass)')"
            env | grep -c '^TRESOR_SESSION_[0-9a-f]\\{12\\}=' || true
            "$TRESOR_BIN" show Email/gmail --field password
            "$TRESOR_BIN" show --vault '\(other)' Bank/main --field password
            eval "$("$TRESOR_BIN" lock --vault '\(other)')"
            env | grep -c '^TRESOR_SESSION_[0-9a-f]\\{12\\}=' || true
            "$TRESOR_BIN" show Email/gmail --field password
            """)
        XCTAssertEqual(r.code, 0, r.stderr)
        // Locking the second vault clears its variable and leaves the first vault unlocked.
        XCTAssertEqual(r.stdout, "2\nhunter2-gmail\nbank-secret\n1\nhunter2-gmail\n", r.stderr)
        XCTAssertFalse(r.stderr.contains("Passphrase"), r.stderr)
    }

    func testTheVaultsOwnVariableWinsOverThePlainOne() throws {
        try sampleVault()
        let out = try ok("unlock", "--env").stdout
        let assignment = try XCTUnwrap(out.split(separator: "\n").first.map(String.init))
        XCTAssertTrue(assignment.hasPrefix("export TRESOR_SESSION_"), assignment)
        let parts = assignment.dropFirst("export ".count).split(separator: "=", maxSplits: 1).map(String.init)
        XCTAssertEqual(parts[0].count, "TRESOR_SESSION_".count + 12, parts[0])
        XCTAssertTrue(parts[0].dropFirst("TRESOR_SESSION_".count).allSatisfy(\.isHexDigit), parts[0])
        // A stale plain variable (another vault's token) does not hide the vault's own one.
        let r = try tresor(["show", "Email/gmail", "--field", "password"],
                           extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, parts[0]: parts[1],
                                      "TRESOR_SESSION": String(repeating: "ab", count: 32)])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(r.stdout, "hunter2-gmail\n")
    }

    func testDurationsReadAsPeopleSayThem() throws {
        try sampleVault()
        let cases: [(String, String)] = [("0.05", "3 seconds"), ("1", "1 minute"), ("90", "1 hour 30 minutes"),
                                         ("15", "15 minutes"), ("60", "1 hour"), ("1.5", "1 minute 30 seconds")]
        for (timeout, said) in cases {
            let r = try ok("unlock", "--env", "--timeout", timeout)
            XCTAssertTrue(r.stderr.contains("Unlocked for \(said)."), "\(timeout): \(r.stderr)")
        }
        XCTAssertFalse(try ok("unlock", "--env", "--timeout", "0.001").stderr.contains("0 "))
    }
}
