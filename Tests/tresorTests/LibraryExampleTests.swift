// The example program in Examples/QuickStart (the library as an app uses it) works against the CLI's vault.
import Foundation
import XCTest

final class LibraryExampleTests: CLITestCase {
    /// The example is built beside the debug test bundle (`swift build --build-tests` builds every target).
    var example: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tresor-example").path
    }

    func testTheExampleAddsAndSyncsAndTheCLISeesItsWork() throws {
        guard FileManager.default.isExecutableFile(atPath: example) else { throw XCTSkip("tresor-example is not built at \(example)") }
        let remote = dir + "/remote.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", remote], stdin: nil, extraEnv: [:]).code, 0)
        try initVault()
        try ok(["remote", "add", "origin", remote])
        try ok(["add", "Mine/one", "--username", "me", "--password-stdin"], stdin: "pw-one\n")
        try ok("sync")

        // The example clones nothing: it works on a vault of its own, created by the library, then syncs into
        // the same remote (a different vault: refused), so it gets its own remote too.
        let own = dir + "/example-vault", ownRemote = dir + "/example.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", ownRemote], stdin: nil, extraEnv: [:]).code, 0)
        let passphrase = ["TRESOR_EXAMPLE_PASSPHRASE": "correct horse battery staple"]
        var r = try run(example, [own, ownRemote], stdin: nil, extraEnv: passphrase)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("added Example/entry-1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("pushed true"), r.stdout)
        r = try run(example, [own, ownRemote], stdin: nil, extraEnv: passphrase)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("2 entries"), r.stdout)

        // The CLI clones what the example pushed and reads both entries; the example's vault is a normal vault.
        let clone = dir + "/clone"
        try ok(["clone", ownRemote, clone])
        let list = try ok(["ls", "--vault", clone, "--flat"]).stdout
        XCTAssertEqual(list, "Example/entry-1\nExample/entry-2\n")
        XCTAssertEqual(try ok(["show", "--vault", clone, "Example/entry-2", "--field", "username"]).stdout, "example\n")
        XCTAssertEqual(try ok(["fsck", "--vault", clone]).code, 0)

        // The example on the CLI's own vault with its remote: the library's sync merges with the CLI's pushes.
        r = try run(example, [vaultDir, remote], stdin: nil, extraEnv: passphrase)
        XCTAssertEqual(r.code, 0, r.stderr)
        try ok("sync")
        XCTAssertEqual(try ok(["ls", "--flat"]).stdout, "Example/entry-2\nMine/one\n")
    }
}
