// What `make install PREFIX=…` leaves: a binary without the toolchain's libraries, its data, the manual, completions.
import Foundation
import XCTest

final class InstallTests: CLITestCase {
    /// The tree `make test` installs (`make install PREFIX=.build/install-test`), copied elsewhere so that
    /// nothing can come from the build directory; skipped when not given.
    func installedTree() throws -> String {
        guard let root = ProcessInfo.processInfo.environment["TRESOR_INSTALLED"] else {
            throw XCTSkip("needs an installed tree: make test passes TRESOR_INSTALLED (or run make install PREFIX=DIR and set it)")
        }
        let copy = dir + "/usr-local"
        XCTAssertEqual(SpawnHelper.run("/bin/cp", ["-a", root, copy]).status, 0)
        return copy
    }

    func testInstalledBinaryNeedsNoToolchain() throws {
        let root = try installedTree()
        let exe = root + "/bin/tresor"
        let ldd = SpawnHelper.run("/usr/bin/ldd", [exe])
        XCTAssertEqual(ldd.status, 0, ldd.output)
        for line in ldd.output.split(separator: "\n") {
            XCTAssertFalse(line.contains("libswift") || line.contains("libFoundation") || line.contains("libdispatch")
                           || line.contains("libBlocksRuntime") || line.contains("/opt/swift") || line.contains("not found"),
                           "the installed binary links a toolchain library: \(line)")
            // Only FoundationEssentials is linked, not the full Foundation with its XML parser and ICU.
            XCTAssertFalse(line.contains("libxml2") || line.contains("libicu"), "the installed binary links the full Foundation's libraries: \(line)")
        }
        // Every library it loads is a system one.
        for path in ldd.output.split(separator: " ").filter({ $0.hasPrefix("/") }) {
            XCTAssertTrue(path.hasPrefix("/lib") || path.hasPrefix("/usr/lib"), "unexpected library \(path)")
        }
        // It runs, and finds its data files in share/tresor (the word list and the strength data).
        let clean: [String: String?] = ["TRESOR_DATA_DIR": nil, "LD_LIBRARY_PATH": nil, "PATH": "/usr/bin:/bin"]
        let words = try run(exe, ["generate", "--words", "5", "--json"], stdin: nil, extraEnv: clean)
        XCTAssertEqual(words.code, 0, words.stderr)
        XCTAssertTrue(words.stdout.contains("\"entropyBits\": 64.62"), words.stdout)
        let check = try run(exe, ["generate", "--check"], stdin: "dragon\n", extraEnv: clean)
        XCTAssertEqual(check.code, 0, check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("score 0/4"), check.stdout)
        let version = try run(exe, ["--version"], stdin: nil, extraEnv: clean)
        XCTAssertEqual(version.code, 0)
        XCTAssertFalse(version.stdout.isEmpty)
        // libgit2 and libcrypto are opened by the first call (x86-64 Linux), where ldd does not see them: a command
        // that commits opens them, from the system's folders too (the dynamic loader's trace names every library).
        var traced = clean
        traced["LD_DEBUG"] = "libs"
        let created = try run(exe, ["init", "--vault", dir + "/installed-vault", "--passphrase-file", passphraseFile, "--kdf", "minimum"],
                              stdin: nil, extraEnv: traced)
        XCTAssertEqual(created.code, 0, created.stderr.suffix(2000).description)
        let opened = created.stderr.split(separator: "\n").compactMap { line in
            line.range(of: "calling init: ").map { String(line[$0.upperBound...]) }
        }
        XCTAssertTrue(opened.contains { $0.hasSuffix("/libgit2.so.1.5") } && opened.contains { $0.hasSuffix("/libcrypto.so.3") }, "\(opened)")
        for path in opened {
            XCTAssertTrue(path.hasPrefix("/lib") || path.hasPrefix("/usr/lib"), "unexpected library \(path)")
        }
    }

    func testManualPage() throws {
        let root = try installedTree()
        let page = root + "/share/man/man1/tresor.1"
        XCTAssertTrue(FileManager.default.fileExists(atPath: page))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else { throw XCTSkip("man is not installed (make test-deps)") }
        // `man tresor` with the installed tree on MANPATH, and `man -l` on the file.
        for args in [["-P", "cat", "tresor"], ["-P", "cat", "-l", page]] {
            let r = try run("/usr/bin/man", args, stdin: nil, extraEnv: ["MANPATH": root + "/share/man", "MANWIDTH": "100", "PAGER": "cat"])
            XCTAssertEqual(r.code, 0, "man \(args): \(r.stderr)")
            for text in ["NAME", "tresor", "SYNOPSIS", "A password vault", "show", "--passphrase-file"] {
                XCTAssertTrue(r.stdout.contains(text), "man \(args) lacks \(text):\n\(r.stdout.prefix(2000))")
            }
            XCTAssertFalse(r.stdout.contains("clipboard-keeper"), "the manual names an internal command")
        }
    }

    func testCompletionScriptsInTheirPlaces() throws {
        let root = try installedTree()
        for (file, marker) in [("share/bash-completion/completions/tresor", "complete -o"),
                               ("share/zsh/site-functions/_tresor", "#compdef tresor"),
                               ("share/fish/vendor_completions.d/tresor.fish", "complete -c 'tresor'")] {
            let text = (try? String(contentsOfFile: root + "/" + file, encoding: .utf8)) ?? ""
            XCTAssertTrue(text.contains(marker), "\(file) lacks \(marker)")
            XCTAssertTrue(text.contains("---completion"), "\(file) does not complete entry names")
        }
    }

    /// git runs `credential.helper tresor` as git-credential-tresor: a link beside the binary that runs it as `tresor git-credential`.
    func testGitCredentialHelperBesideTheBinary() throws {
        let root = try installedTree()
        let helper = root + "/bin/git-credential-tresor"
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: helper), "tresor")
        try initVault()
        try ok(["add", "Dev/git", "--username", "alice", "--url", "https://git.example.org", "--password-stdin"], stdin: "pw-1\n")
        let r = try run(helper, ["get"], stdin: "protocol=https\nhost=git.example.org\n\n", extraEnv: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(r.stdout, "username=alice\npassword=pw-1\n")
    }

    /// `make build` (and `make demo`, which runs it) leaves a binary that finds its data files beside it in the build
    /// directory, with no install and no TRESOR_DATA_DIR (tresor does not link the target that holds them).
    func testTheBuiltBinaryFindsItsDataInTheBuildDirectory() throws {
        guard let release = ProcessInfo.processInfo.environment["TRESOR_RELEASE_DIR"] else {
            throw XCTSkip("make test passes TRESOR_RELEASE_DIR, the release build directory")
        }
        let clean: [String: String?] = ["TRESOR_DATA_DIR": nil, "PATH": "/usr/bin:/bin"]
        let words = try run(release + "/tresor", ["generate", "--words", "5", "--json"], stdin: nil, extraEnv: clean)
        XCTAssertEqual(words.code, 0, words.stderr)
        let check = try run(release + "/tresor", ["generate", "--check"], stdin: "dragon\n", extraEnv: clean)
        XCTAssertEqual(check.code, 0, check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("score 0/4"), check.stdout)
    }

    func testTheReleaseBinaryNeverHonoursFailpoints() throws {
        guard ProcessInfo.processInfo.environment["TRESOR_BIN"] != nil else { throw XCTSkip("checks the release binary") }
        try sampleVault()
        let r = try tresor(["add", "Release/one", "--password-stdin"], stdin: "x\n", extraEnv: ["TRESOR_FAILPOINT": "transaction-branch-moved"])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")
    }
}
