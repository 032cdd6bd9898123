// Regression tests for failures that could lose data or leak it: stale index, interrupted sync then a
// new change, file/folder name clash, blob reuse by a hostile remote, signals during edit, odd names.
import Foundation
import XCTest

final class RobustnessTests: SyncTestCase {
    /// A git index.lock held by another process does not stop a change (commits never go through the
    /// index): the change is committed and reported as such, and git's index catches up later.
    func testAStaleIndexLockDoesNotStopOrLoseAChange() throws {
        try sampleVault()
        try write("", to: vaultDir + "/.git/index.lock")
        let first = try tresor(["add", "New/one", "--password-stdin"], stdin: "one\n")
        XCTAssertEqual(first.code, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("index.lock"), first.stderr)
        XCTAssertEqual(try tresor("show", "New/one", "--field", "password").stdout, "one\n")
        try FileManager.default.removeItem(atPath: vaultDir + "/.git/index.lock")
        try ok(["add", "Other/two", "--password-stdin"], stdin: "two\n")
        let tree = try git("ls-tree", "-r", "--name-only", "HEAD").stdout
        XCTAssertTrue(tree.contains("Other/two.json") && tree.contains("New/one.json"), tree)
        XCTAssertEqual(try git("status", "--porcelain").stdout, "", "the index caught up")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
    }

    /// HEAD moved by a sync that was killed before the files followed: the next command finishes the
    /// checkout instead of committing the old files over the new HEAD.
    func testACommandAfterAnInterruptedCheckoutKeepsTheRemotesEntries() throws {
        try setUpReplicas("B")
        try on("A", "add", "Bank/ing", "--password-stdin", stdin: "bank\n")
        try on("A", "sync")
        _ = try run("/usr/bin/git", ["-C", replica("B"), "fetch", "-q", "origin"], stdin: nil, extraEnv: [:])
        let target = try run("/usr/bin/git", ["-C", replica("B"), "rev-parse", "origin/main"], stdin: nil, extraEnv: [:]).stdout
        try FileManager.default.createDirectory(atPath: replica("B") + "/.git/tresor", withIntermediateDirectories: true)
        try write(target, to: replica("B") + "/.git/tresor/sync-target")
        _ = try run("/usr/bin/git", ["-C", replica("B"), "update-ref", "refs/heads/main", target.trimmingCharacters(in: .whitespacesAndNewlines)],
                    stdin: nil, extraEnv: [:])
        try on("B", "add", "Shop/amazon", "--password-stdin", stdin: "shop\n")
        XCTAssertEqual(try on("B", "ls").stdout, "Bank/ing\nEmail/gmail\nShop/amazon\nSocial/github\n")
        try on("B", "sync"); try on("A", "sync")
        XCTAssertEqual(try on("A", "show", "Bank/ing", "--field", "password").stdout, "bank\n")
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    func testAFolderMayNotShareTheNameOfAnEntryFile() throws {
        try initVault()
        let r = try tresor(["add", "a.json/b", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("may not end in \".json\""), r.stderr)
    }

    /// A hostile remote cannot smuggle a file in by reusing the bytes of an existing entry.
    func testReusedBlobsAreCheckedByPathAndKind() throws {
        for (name, plant, message) in [
            ("hidden", { (w: String) in try FileManager.default.copyItem(atPath: w + "/Email/gmail.json", toPath: w + "/.tresor/hooks") }, "a file no key governs"),
            ("executable", { (w: String) in
                try FileManager.default.copyItem(atPath: w + "/Email/gmail.json", toPath: w + "/run.sh")
                chmod(w + "/run.sh", 0o755)
            }, "executable"),
            // The state record binds every file of its domain (Spec/AUTH.md state-files): a changed file is refused as such.
            ("tampered entry on a fast-forward", { [self] (w: String) in try self.flipCiphertextByte(w + "/Social/github.json", at: 7) }, "without their key"),
        ] as [(String, (String) throws -> Void, String)] {
            try tearDownWithError(); try setUpWithError()
            try setUpReplicas("B")
            try pushHostileCommit(plant)
            let r = try attempt("B", "sync")
            XCTAssertEqual(r.code, 2, name)
            XCTAssertTrue(r.stderr.contains(message), "\(name): \(r.stderr)")
        }
    }

    /// The terminal hanging up (SIGHUP) while the editor runs still removes the decrypted view.
    func testHangUpDuringEditRemovesTheDecryptedView() throws {
        try sampleVault()
        let script = dir + "/hangup.sh"
        try write("""
            #!/bin/sh
            echo "$1" > \(dir)/view
            p=$PPID
            while [ "$(cat /proc/$p/comm)" != "tresor" ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
            kill -HUP "$p"
            kill -HUP $$
            """, to: script)
        chmod(script, 0o755)
        let r = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": script, "VISUAL": nil])
        XCTAssertEqual(r.code, 2, r.stderr)
        let view = try String(contentsOfFile: dir + "/view", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(FileManager.default.fileExists(atPath: (view as NSString).deletingLastPathComponent), "decrypted view left at \(view)")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "password").stdout, "hunter2-gmail\n")
    }

    func testFieldNamesTheEditorCannotShowAreRefused() throws {
        try initVault()
        for name in ["url", "#pin", " padded", "a:b"] {
            let r = try tresor(["add", "Web/x", "--field", "\(name)=1", "--password-stdin"], stdin: "x\n")
            XCTAssertEqual(r.code, 64, name)
        }
        try ok(["add", "Web/x", "--field", "pin=1", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(try ok("show", "Web/x", "--field", "pin").stdout, "1\n")
    }

    func testPassphraseFileMayBeALink() throws {
        try sampleVault()
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: passphraseFile)
        let r = try tresor(["show", "Email/gmail", "--field", "password"], extraEnv: ["TRESOR_PASSPHRASE_FILE": dir + "/link"])
        XCTAssertEqual(r.stdout, "hunter2-gmail\n", r.stderr)
    }

    func testStaleTemporaryFilesDoNotBlockSync() throws {
        try setUpReplicas()
        let temp = replica("A") + "/Email/.gmail.json.tmp-AbCdEfGh"
        try write("partial", to: temp)
        _ = try run("/usr/bin/touch", ["-d", "2 hours ago", temp], stdin: nil, extraEnv: [:])
        let fsck = try attempt("A", "fsck")
        XCTAssertTrue(fsck.stdout.contains("interrupted write"), fsck.stdout)
        try on("A", "edit", "Email/gmail", "--set", "notes=n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp), "removed by the change in its folder")
        XCTAssertTrue(FileManager.default.fileExists(atPath: replica("A") + "/Email/gmail.json"))
        try on("A", "sync")
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp))
    }

    func testPassphraseChangedElsewhereIsAnnounced() throws {
        try setUpReplicas("B")
        try write("new phrase\n", to: dir + "/new")
        try on("A", "passwd", "--new-passphrase-file", dir + "/new")
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/new"])
        let r = try on("B", "sync")
        XCTAssertTrue(r.stdout.contains("The passphrase was changed on another replica"), r.stdout)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "password", env: ["TRESOR_PASSPHRASE_FILE": dir + "/new"]).stdout, "first-secret\n")
    }

    func testLogOfAnUnknownEntryIsNotFound() throws {
        try sampleVault()
        let r = try tresor("log", "Email/gmial")
        XCTAssertEqual(r.code, 4)
        XCTAssertTrue(r.stderr.contains("Email/gmail"), r.stderr)
    }
}
