// The reading commands start without libgit2, libcrypto, ncurses, libsodium, libargon2 or zlib (Sources/CLateBinding,
// Benchmarks/README.md).
import XCTest

/// `show`, `ls` and `--version` leave libgit2, libcrypto and ncurses unloaded, and `ls`, `find` and `--version` libsodium,
/// libargon2 and zlib too; a command that commits loads libgit2 on its first call, `show` libsodium (the dynamic
/// loader's own trace, LD_DEBUG=files).
final class LateBindingTests: CLITestCase {
    func testReadingCommandsStartWithoutTheLibrariesTheyDoNotCall() throws {
        try vaultOfOneEntry()
        func loaded(_ args: String...) throws -> [String] {
            let r = try tresor(Array(args), extraEnv: ["LD_DEBUG": "files"])
            XCTAssertEqual(r.code, 0, "\(args): \(r.stderr)")
            return ["libgit2", "libcrypto", "libncursesw", "libsodium", "libargon2", "libz"].filter { r.stderr.contains("file=\($0).so") }
        }
        XCTAssertEqual(try loaded("--version"), [])
        XCTAssertEqual(try loaded("show", "Email/gmail"), ["libsodium"])
        XCTAssertEqual(try loaded("ls"), [])
        XCTAssertEqual(try loaded("find", "gmail"), [])
        XCTAssertTrue(try loaded("add", "Web/x", "--generate").contains("libgit2"))
        XCTAssertEqual(try loaded("show", "Email/gmail", "--field", "password"), ["libsodium"], "after a commit")
    }

    /// Without a usable libgit2 (a private mount puts an empty file over it), what does not use git still works; a
    /// command that commits stops with the dynamic loader's message and exit 127 and changes nothing.
    func testAMissingLibgit2StopsOnlyTheCommandsThatUseIt() throws {
        try vaultOfOneEntry()
        func withoutLibgit2(_ args: String) throws -> CLIResult { try without("/usr/lib/x86_64-linux-gnu/libgit2.so.1.5", args) }
        let probe = try withoutLibgit2("--version")
        guard probe.code == 0 else { throw XCTSkip("cannot mount in a private namespace here: \(probe.stderr)") }
        let list = try withoutLibgit2("ls")
        XCTAssertEqual(list.code, 0, list.stderr)
        XCTAssertEqual(list.stdout, "Email/gmail\n")
        XCTAssertEqual(try withoutLibgit2("show Email/gmail --field password").stdout, "correct horse battery staple\n")
        let head = try git("rev-parse", "HEAD").stdout
        let add = try withoutLibgit2("add Web/new --password-stdin")
        XCTAssertEqual(add.code, 127, add.stderr)
        XCTAssertTrue(add.stderr.contains("error while loading shared libraries: ") && add.stderr.contains("libgit2.so.1.5"), add.stderr)
        XCTAssertEqual(try git("rev-parse", "HEAD").stdout, head)
        XCTAssertEqual(try ok("ls").stdout, "Email/gmail\n")
        XCTAssertEqual(try ok("fsck").code, 0)
    }

    /// Without libsodium, `ls` and `--version` still work; `show` stops with the loader's message and exit 127.
    func testAMissingLibsodiumStopsOnlyTheCommandsThatUseIt() throws {
        try vaultOfOneEntry()
        let library = "/usr/lib/x86_64-linux-gnu/libsodium.so.23"
        let probe = try without(library, "--version")
        guard probe.code == 0 else { throw XCTSkip("cannot mount in a private namespace here: \(probe.stderr)") }
        XCTAssertEqual(try without(library, "ls").stdout, "Email/gmail\n")
        let show = try without(library, "show Email/gmail --field password")
        XCTAssertEqual(show.code, 127, show.stderr)
        XCTAssertEqual(show.stdout, "")
        XCTAssertTrue(show.stderr.contains("error while loading shared libraries: ") && show.stderr.contains("libsodium.so.23"), show.stderr)
    }

    /// A vault holding Email/gmail; skipped where the libraries are bound at start-up.
    private func vaultOfOneEntry() throws {
        #if !(os(Linux) && arch(x86_64))
        throw XCTSkip("the libraries are bound at start-up on this platform")
        #endif
        try initVault()
        _ = try ok("add", "Email/gmail", "--password-stdin", stdin: "correct horse battery staple\n")
    }

    /// Runs tresor with an empty file mounted over `library` in a private mount namespace.
    private func without(_ library: String, _ args: String) throws -> CLIResult {
        let script = "mount --bind /dev/null \(library) || exit 99; exec \"$0\" \(args)"
        return try run("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, CLITestCase.binary], stdin: "new password here 1\n", extraEnv: [:])
    }
}
