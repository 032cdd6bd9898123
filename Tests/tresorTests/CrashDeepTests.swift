// A change killed at every step, killed at random moments, or stopped by a full disk: the next command finishes
// or discards it by itself, nothing committed is lost, and nothing ever needs git by hand. The deep tier runs them
// (against the debug build, whose failpoints they use).
import Foundation
import TestSupport
import XCTest

final class CrashDeepTests: SyncTestCase {
    override func setUpWithError() throws {
        try requireDeepTier("kill -9 and a full disk at every step")
        try super.setUpWithError()
    }

    /// The points of a transaction, in order; from `transaction-branch-moved` on, the change is committed.
    let points = ["transaction-objects-written", "transaction-journal-written", "transaction-branch-moved",
                  "transaction-worktree-partly-written", "transaction-worktree-written"]

    func commitCount(_ name: String = "A") throws -> Int {
        Int(try run("/usr/bin/git", ["-C", replica(name), "rev-list", "--count", "HEAD"], stdin: nil, extraEnv: [:]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func status(_ name: String = "A") throws -> String {
        try run("/usr/bin/git", ["-C", replica(name), "status", "--porcelain"], stdin: nil, extraEnv: [:]).stdout
    }

    /// The vault works with no manual step: fsck finds nothing, the work tree is clean, sync succeeds.
    func assertHealthy(_ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let fsck = try attempt("A", "fsck")
        XCTAssertEqual(fsck.code, 0, "\(label): \(fsck.stdout)\(fsck.stderr)", file: file, line: line)
        XCTAssertEqual(try status(), "", label, file: file, line: line)
        let sync = try attempt("A", "sync")
        XCTAssertEqual(sync.code, 0, "\(label): \(sync.stderr)", file: file, line: line)
    }

    func testACrashAtEveryStepOfEveryChangeIsFinishedOrDiscardedByTheNextCommand() throws {
        try requireFailpoints()
        let commands: [(String, [String], String?)] = [
            ("add", ["add", "New/entry", "--password-stdin"], "new-secret\n"),
            ("edit", ["edit", "Email/gmail", "--set", "username=changed"], nil),
            ("mv", ["mv", "Email/gmail", "Moved/gmail"], nil),
            ("rm", ["rm", "-f", "Social/github"], nil),
            ("cp", ["cp", "Email/gmail", "Copy/gmail"], nil),
            ("restore", ["restore", "Email/gmail"], nil),
            ("passwd", ["passwd", "--new-passphrase-file", "NEW"], nil),
        ]
        for (name, args, stdin) in commands {
            for point in points {
                try tearDownWithError(); try setUpWithError()
                try setUpReplicas()
                try on("A", "edit", "Email/gmail", "--set", "notes=for restore")
                try write("the new passphrase\n", to: dir + "/new")
                let argv = args.map { $0 == "NEW" ? dir + "/new" : $0 } + ["--vault", replica("A")]
                let before = try commitCount()
                let killed = try tresor(argv, stdin: stdin, extraEnv: ["TRESOR_FAILPOINT": point])
                let label = "\(name) at \(point)"
                XCTAssertEqual(killed.code, 137, "\(label): \(killed.stderr)")
                let committed = try commitCount() == before + 1
                XCTAssertEqual(committed, points.firstIndex(of: point)! >= 2, "\(label): HEAD is the old or the new commit")
                if name == "passwd", committed { try write("the new passphrase\n", to: passphraseFile) }
                // Any command finishes or discards it; then everything works without git by hand.
                try on("A", "ls")
                try assertHealthy(label)
                if !committed {
                    let again = try tresor(argv, stdin: stdin)
                    XCTAssertEqual(again.code, 0, "\(label): running the command again works: \(again.stderr)")
                    if name == "passwd" { try write("the new passphrase\n", to: passphraseFile) }
                }
                switch name {
                case "add": XCTAssertEqual(try on("A", "show", "New/entry", "--field", "password").stdout, "new-secret\n", label)
                case "edit": XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "changed\n", label)
                case "mv": XCTAssertEqual(try on("A", "ls", "--flat").stdout, "Moved/gmail\nSocial/github\n", label)
                case "rm": XCTAssertEqual(try on("A", "ls", "--flat").stdout, "Email/gmail\n", label)
                case "cp": XCTAssertEqual(try on("A", "show", "Copy/gmail", "--field", "password").stdout, "first-secret\n", label)
                case "restore": XCTAssertEqual(try attempt("A", "show", "Email/gmail", "--field", "notes").code, 4, label)
                default: XCTAssertEqual(try attempt("A", "show", "Email/gmail", env: ["TRESOR_PASSPHRASE_FILE": dir + "/new"]).code, 0, label)
                }
                try assertHealthy(label + ", after")
            }
        }
    }

    func testSIGKILLAtRandomMomentsNeverLeavesWorkForGitByHand() throws {
        try setUpReplicas()
        var rng = SplitMix64(seed: 36)
        for n in 0..<36 {
            let present = try on("A", "ls", "--flat").stdout.split(separator: "\n").map(String.init)
            let some = present.randomElement(using: &rng) ?? "Email/gmail"
            let choices: [([String], String?)] = [
                (["add", "K/e\(n)", "--password-stdin"], "k\(n)\n"),
                (["edit", some, "--set", "notes=n\(n)"], nil),
                (["mv", some, "K/m\(n)"], nil),
                (["cp", some, "K/c\(n)"], nil),
                (["rm", "-f", some], nil),
                (["restore", some], nil),
                (["sync"], nil),
            ]
            let (args, stdin) = choices.randomElement(using: &rng)!
            let process = try Running(CLITestCase.binary, args + ["--vault", replica("A")], env: env, stdin: stdin)
            usleep(UInt32.random(in: 0..<40_000, using: &rng))
            kill(process.process.processIdentifier, SIGKILL)
            _ = process.wait()
            let label = "kill \(n) during \(args.joined(separator: " "))"
            try on("A", "ls")
            try assertHealthy(label)
            // Keep a few entries around to work on.
            if try on("A", "ls", "--flat").stdout.split(separator: "\n").count < 2 {
                try on("A", "add", "K/refill\(n)", "--password-stdin", stdin: "r\n")
            }
        }
    }

    func testAFullDiskStopsAChangeCleanlyAndTheVaultHealsWhenSpaceIsBack() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root; the injected variant covers this") }
        let disk = dir + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1200k", "tmpfs", disk], stdin: nil, extraEnv: [:]).code == 0 else {
            throw XCTSkip("cannot mount a tmpfs here")
        }
        defer { _ = try? run("/bin/umount", ["-l", disk], stdin: nil, extraEnv: [:]) }
        let vault = disk + "/vault"
        func t(_ args: String..., stdin: String? = nil) throws -> CLIResult { try tresor(args + ["--vault", vault], stdin: stdin) }
        XCTAssertEqual(try t("init", "--kdf", "minimum").code, 0)
        let notes = String(repeating: "x", count: 20_000)
        var added: [String] = []
        var failure: CLIResult?
        for i in 0..<200 {
            let r = try t("add", "Full/e\(i)", "--note", notes, "--password-stdin", stdin: "secret-\(i)\n")
            if r.code == 0 && !r.stderr.contains("could not be updated") { added.append("Full/e\(i)"); continue }
            failure = r
            if r.code == 0 { added.append("Full/e\(i)") }   // committed; the work tree follows later
            break
        }
        let full = try XCTUnwrap(failure, "the disk never filled")
        XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
        XCTAssertTrue(full.stderr.contains(disk), "the message names the file: \(full.stderr)")
        // Space comes back: no manual step, nothing lost.
        XCTAssertEqual(try run("/bin/mount", ["-o", "remount,size=64m", disk], stdin: nil, extraEnv: [:]).code, 0)
        let fsck = try t("fsck")
        XCTAssertEqual(fsck.code, 0, fsck.stdout + fsck.stderr)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", vault, "status", "--porcelain"], stdin: nil, extraEnv: [:]).stdout, "")
        for (i, path) in added.enumerated() where i % 5 == 0 || i == added.count - 1 {
            XCTAssertEqual(try t("show", path, "--field", "password").stdout, "secret-\(path.dropFirst(6))\n", path)
        }
        XCTAssertEqual(try t("add", "After/space", "--password-stdin", stdin: "back\n").code, 0)
    }

    func testAnInjectedFullDiskAtEachWriteLosesNothing() throws {
        try requireFailpoints()
        for (point, committed) in [("enospc-objects", false), ("enospc-journal", false), ("enospc-worktree", true)] {
            try tearDownWithError(); try setUpWithError()
            try setUpReplicas()
            let before = try commitCount()
            let r = try tresor(["add", "Disk/full", "--password-stdin", "--vault", replica("A")], stdin: "s\n",
                               extraEnv: ["TRESOR_FAILPOINT": point])
            XCTAssertTrue(r.stderr.contains("No space left on device"), "\(point): \(r.stderr)")
            XCTAssertEqual(r.code == 0, committed, "\(point): success only when the commit exists: \(r.stderr)")
            XCTAssertEqual(try commitCount(), before + (committed ? 1 : 0), point)
            try on("A", "ls")
            try assertHealthy(point)
            if committed { XCTAssertEqual(try on("A", "show", "Disk/full", "--field", "password").stdout, "s\n") }
        }
    }

    /// Two changes in a row that cannot update the folder (the disk stays full): the second one's journal
    /// keeps the first one's paths, so when space is back the next command brings both up to date.
    func testTwoUnfinishedChangesInARowAreBothFinishedLater() throws {
        try requireFailpoints()
        try setUpReplicas()
        try on("A", "add", "Disk/x", "--password-stdin", stdin: "old-pass\n")
        let full = ["TRESOR_FAILPOINT": "enospc-worktree"]
        let edit = try tresor(["edit", "Disk/x", "--password-stdin", "--vault", replica("A")], stdin: "new-pass\n", extraEnv: full)
        XCTAssertEqual(edit.code, 0, edit.stderr)
        let add = try tresor(["add", "Disk/y", "--password-stdin", "--vault", replica("A")], stdin: "y\n", extraEnv: full)
        XCTAssertEqual(add.code, 0, add.stderr)
        try on("A", "add", "Disk/z", "--password-stdin", stdin: "z\n")
        XCTAssertEqual(try on("A", "show", "Disk/x", "--field", "password").stdout, "new-pass\n")
        XCTAssertEqual(try on("A", "show", "Disk/y", "--field", "password").stdout, "y\n")
        try assertHealthy("two unfinished changes")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("A"), "status", "--porcelain"], stdin: nil, extraEnv: [:]).stdout, "")
    }

    /// A clone killed after its branch moved, before the files were written: the folder says it is an
    /// interrupted clone, and the same clone command starts it over.
    func testAKilledCloneIsNamedAndClonedAgain() throws {
        try requireFailpoints()
        try setUpReplicas()
        try on("A", "add", "Clone/me", "--password-stdin", stdin: "cloned\n")
        try on("A", "sync")
        let killed = try tresor(["clone", remote, replica("C")], extraEnv: ["TRESOR_FAILPOINT": "clone-branch-moved"])
        XCTAssertNotEqual(killed.code, 0)
        let open = try attempt("C", "ls")
        XCTAssertNotEqual(open.code, 0)
        XCTAssertTrue(open.stderr.contains("interrupted") && open.stderr.contains("tresor clone"), open.stderr)
        try ok("clone", remote, replica("C"))
        XCTAssertEqual(try on("C", "show", "Clone/me", "--field", "password").stdout, "cloned\n")
        XCTAssertEqual(try attempt("C", "fsck").code, 0)
    }
}
