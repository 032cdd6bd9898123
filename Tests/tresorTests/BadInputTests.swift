// Bad input through the binary: a clear message naming the file, a non-zero exit, and nothing stored is lost.
import Foundation
import XCTest

final class BadInputTests: CLITestCase {
    /// After any failure the sample vault must still be intact.
    func assertSampleIntact(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n", file: file, line: line)
        XCTAssertEqual(try tresor("show", "Social/github", "--field", "password").stdout, "gh-secret\n", file: file, line: line)
    }

    func testWrongPassphrase() throws {
        try sampleVault()
        try write("not the passphrase\n", to: dir + "/wrong")
        let r = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": dir + "/wrong"])
        XCTAssertEqual(r.code, 3)
        XCTAssertEqual(r.stderr, "tresor: error: wrong passphrase\n")
        XCTAssertEqual(r.stdout, "")
        try assertSampleIntact()
    }

    func testPassphraseFileMissingOrEmpty() throws {
        try sampleVault()
        let missing = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": dir + "/nope"])
        XCTAssertEqual(missing.code, 3)
        XCTAssertTrue(missing.stderr.contains("cannot read passphrase file \"\(dir)/nope\""), missing.stderr)
        try write("\n", to: dir + "/empty")
        let empty = try tresor(["show", "Email/gmail", "--passphrase-file", dir + "/empty"])
        XCTAssertEqual(empty.code, 3)
        XCTAssertTrue(empty.stderr.contains("passphrase file \"\(dir)/empty\" is empty"), empty.stderr)
        let none = try tresor(["show", "Email/gmail"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(none.code, 3)
        XCTAssertTrue(none.stderr.contains("--passphrase-file"), none.stderr)
    }

    /// Damaged entry files: the damaged one is named, the others still list and show, fsck names the file.
    func testDamagedEntryFiles() throws {
        let cases: [(name: String, damage: (String) throws -> Void, message: String)] = [
            ("garbage", { try "garbage".write(toFile: $0, atomically: false, encoding: .utf8) }, "not JSON"),
            ("empty", { try "".write(toFile: $0, atomically: false, encoding: .utf8) }, "empty file"),
            ("truncated", { p in
                let s = try String(contentsOfFile: p, encoding: .utf8)
                try String(s.prefix(s.count / 2)).write(toFile: p, atomically: false, encoding: .utf8)
            }, "truncated"),
            ("flipped", { [self] p in try self.flipCiphertextByte(p) }, "decryption failed"),
            ("version", { p in
                let s = try String(contentsOfFile: p, encoding: .utf8).replacingOccurrences(of: "\"version\":2", with: "\"version\":3")
                try s.write(toFile: p, atomically: false, encoding: .utf8)
            }, "unsupported format version 3"),
        ]
        for c in cases {
            try tearDownWithError(); try setUpWithError()
            try sampleVault()
            try c.damage(entryFile("Email/work"))
            let show = try tresor("show", "Email/work")
            XCTAssertEqual(show.code, 2, c.name)
            XCTAssertTrue(show.stderr.contains("entry \"Email/work\"") && show.stderr.contains(c.message), "\(c.name): \(show.stderr)")
            XCTAssertEqual(try tresor("ls").stdout, "Email/gmail\nEmail/work\nSocial/github\n", c.name)
            try assertSampleIntact()
            let fsck = try tresor("fsck")
            XCTAssertEqual(fsck.code, 6, c.name)
            XCTAssertTrue(fsck.stdout.contains("Email/work.json: ") && fsck.stdout.contains(c.message), "\(c.name): \(fsck.stdout)")
            let grep = try tresor("grep", "alice")
            XCTAssertEqual(grep.code, 2, "grep reports the damaged file")
            XCTAssertTrue(grep.stdout.contains("Email/gmail") && grep.stderr.contains("Email/work"), c.name)
        }
    }

    func testEntryCopiedByHandIsDetected() throws {
        try sampleVault()
        try FileManager.default.copyItem(atPath: entryFile("Email/gmail"), toPath: entryFile("Email/stolen"))
        let r = try tresor("show", "Email/stolen")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("holds entry \"Email/gmail\""), r.stderr)
        let fsck = try tresor("fsck")
        XCTAssertTrue(fsck.stdout.contains("Email/stolen.json: "), fsck.stdout)
    }

    func testHostilePaths() throws {
        try initVault()
        let cases: [(String, String)] = [
            ("../escape", "\"..\""), ("/etc/passwd", "absolute"), ("Email/../../x", "\"..\""),
            ("bad\u{1}name", "control"), ("back\\slash", "\\"), (".hidden", "start with"), ("a//b", "empty path component"),
            ("git~1/x", "short name of .git"), ("Team/GIT~1/x", "short name of .git"), ("a/Git~1", "short name of .git"),
        ]
        for (path, message) in cases {
            let r = try tresor(["add", path, "--password-stdin"], stdin: "x\n")
            XCTAssertEqual(r.code, 2, path)
            XCTAssertTrue(r.stderr.contains("invalid entry path") && r.stderr.contains(message), "\(path): \(r.stderr)")
        }
        XCTAssertEqual(try tresor("ls").stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/escape.json"))
        // Other short names are ordinary names.
        XCTAssertEqual(try tresor(["add", "git~2/x", "--password-stdin"], stdin: "x\n").code, 0)
        XCTAssertEqual(try tresor("ls").stdout, "git~2/x\n")
    }

    /// Files ending in .json that are not entries: `ls` skips each with a warning naming it escaped and saying why,
    /// `fsck` reports each, and the entries still list.
    func testFilesThatAreNotEntriesAreNamedEscaped() throws {
        try sampleVault()
        try write("{}", to: vaultDir + "/Email/bad\u{1}name.json")
        XCTAssertEqual(mkfifo(vaultDir + "/Email/pipe.json", 0o600), 0)
        let ls = try tresor("ls")
        XCTAssertEqual(ls.code, 0)
        XCTAssertEqual(ls.stdout, "Email/gmail\nEmail/work\nSocial/github\n")
        XCTAssertTrue(ls.stderr.contains("skipping \"Email/bad\\x01name.json\": file name is not a valid entry path"), ls.stderr)
        XCTAssertTrue(ls.stderr.contains("skipping \"Email/pipe.json\": not a regular file"), ls.stderr)
        XCTAssertFalse(ls.stderr.contains("\u{1}"), "the control character is never printed as it is")
        let fsck = try tresor("fsck", "--json")
        XCTAssertEqual(fsck.code, 6)
        XCTAssertTrue(fsck.stdout.contains("not a regular file") && fsck.stdout.contains("not a valid entry path"), fsck.stdout)
        try assertSampleIntact()
    }

    func testSymlinkedEntryFileIsRefused() throws {
        try sampleVault()
        try write("{}", to: dir + "/outside.json")
        try FileManager.default.createSymbolicLink(atPath: entryFile("Email/link"), withDestinationPath: dir + "/outside.json")
        let show = try tresor("show", "Email/link")
        XCTAssertEqual(show.code, 2)
        XCTAssertTrue(show.stderr.contains("symbolic link"), show.stderr)
        let ls = try tresor("ls")
        XCTAssertEqual(ls.stdout, "Email/gmail\nEmail/work\nSocial/github\n")
        XCTAssertTrue(ls.stderr.contains("Email/link.json") && ls.stderr.contains("symbolic link"), ls.stderr)
        XCTAssertEqual(try tresor(["add", "Email/link", "--force", "--password-stdin"], stdin: "x\n").code, 2, "never writes through a link")
        XCTAssertEqual(try String(contentsOfFile: dir + "/outside.json", encoding: .utf8), "{}")
        try FileManager.default.createSymbolicLink(atPath: vaultDir + "/Linked", withDestinationPath: vaultDir + "/Email")
        let add = try tresor(["add", "Linked/new", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(add.code, 2)
        XCTAssertTrue(add.stderr.contains("symbolic link"), add.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entryFile("Email/new")))
        XCTAssertEqual(try tresor("fsck").code, 6)
    }

    func testNotAVault() throws {
        try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
        let r = try tresor(["ls"], extraEnv: ["TRESOR_VAULT": dir + "/plain"])
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("\"\(dir)/plain\" is not a Tresor vault") && r.stderr.contains("tresor init"), r.stderr)
        try write("x", to: dir + "/plain/file")
        let i = try tresor(["init", "--kdf", "minimum"], extraEnv: ["TRESOR_VAULT": dir + "/plain"])
        XCTAssertEqual(i.code, 5)
        XCTAssertTrue(i.stderr.contains("not empty"), i.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/plain/file", encoding: .utf8), "x")
    }

    func testUnknownHeaderVersion() throws {
        try sampleVault()
        let h = vaultDir + "/.tresor/vault.json"
        try String(contentsOfFile: h, encoding: .utf8).replacingOccurrences(of: "\"version\":5", with: "\"version\":7").write(toFile: h, atomically: false, encoding: .utf8)
        let r = try tresor("show", "Email/gmail")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains(".tresor/vault.json") && r.stderr.contains("unsupported format version 7"), r.stderr)
    }

    func testMissingEntrySuggestsCloseNames() throws {
        try sampleVault()
        let r = try tresor("show", "Email/gmial")
        XCTAssertEqual(r.code, 4)
        XCTAssertTrue(r.stderr.contains("no entry \"Email/gmial\"") && r.stderr.contains("did you mean \"Email/gmail\""), r.stderr)
        let other = try tresor("show", "github")
        XCTAssertTrue(other.stderr.contains("\"Social/github\""), other.stderr)
    }

    func testAddingAnExistingEntryNeedsForce() throws {
        try sampleVault()
        let r = try tresor(["add", "Email/gmail", "--password-stdin"], stdin: "other\n")
        XCTAssertEqual(r.code, 5)
        XCTAssertTrue(r.stderr.contains("already exists") && r.stderr.contains("--force"), r.stderr)
        try assertSampleIntact()
        let caseClash = try tresor(["add", "email/new", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(caseClash.code, 5)
        XCTAssertTrue(caseClash.stderr.contains("differs only by case from existing \"Email\""), caseClash.stderr)
        try ok("add", "Email/gmail", "--force", "--password-stdin", stdin: "replaced\n")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password").stdout, "replaced\n")
    }

    /// A write killed after its temp file but before the rename leaves only a dot file that nothing reads.
    func testInterruptedWriteLeavesNoHalfEntry() throws {
        try sampleVault()
        try write("{\"version\":1,\"id\":\"trunc", to: vaultDir + "/Email/.gmail.json.tmp-abcdefgh")
        XCTAssertEqual(try tresor("ls").stdout, "Email/gmail\nEmail/work\nSocial/github\n")
        try assertSampleIntact()
        XCTAssertEqual(try tresor("grep", "alice").code, 0)
    }

    func testUsageErrors() throws {
        try sampleVault()
        let r = try tresor("add", "X/y", "--password-stdin", "--generate")
        XCTAssertEqual(r.code, 64)
        XCTAssertTrue(r.stderr.contains("not both"), r.stderr)
        let f = try tresor("add", "X/y", "--field", "password=oops")
        XCTAssertEqual(f.code, 64)
        XCTAssertTrue(f.stderr.contains("standard field"), f.stderr)
    }
}
