// The reading commands start without libgit2, libcrypto or ncurses (Sources/CLateBinding, Benchmarks/README.md).
import XCTest

/// `show`, `ls` and `--version` leave libgit2, libcrypto and ncurses unloaded; a command that commits loads libgit2 on
/// its first call (the dynamic loader's own trace, LD_DEBUG=files).
final class LateBindingTests: CLITestCase {
    func testReadingCommandsStartWithoutGitCryptoOrCurses() throws {
        #if !(os(Linux) && arch(x86_64))
        throw XCTSkip("the libraries are bound at start-up on this platform")
        #endif
        try initVault()
        _ = try ok("add", "Email/gmail", "--password-stdin", stdin: "correct horse battery staple\n")
        func loaded(_ args: String...) throws -> [String] {
            let r = try tresor(Array(args), extraEnv: ["LD_DEBUG": "files"])
            XCTAssertEqual(r.code, 0, "\(args): \(r.stderr)")
            return ["libgit2", "libcrypto", "libncursesw"].filter { r.stderr.contains("file=\($0).so") }
        }
        XCTAssertEqual(try loaded("--version"), [])
        XCTAssertEqual(try loaded("show", "Email/gmail"), [])
        XCTAssertEqual(try loaded("ls"), [])
        XCTAssertEqual(try loaded("find", "gmail"), [])
        XCTAssertTrue(try loaded("add", "Web/x", "--generate").contains("libgit2"))
        XCTAssertEqual(try loaded("show", "Email/gmail", "--field", "password"), [], "after a commit")
    }
}
