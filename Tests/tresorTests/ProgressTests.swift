// Progress on a terminal (read back through tmux), none into a pipe, and sync reports that list many entries.
import Foundation
import XCTest

final class ProgressTests: SyncTestCase {
    /// A Chrome CSV export with `count` logins.
    func chromeCSV(_ count: Int, prefix: String = "site") throws -> String {
        var csv = "name,url,username,password,note\n"
        for i in 0..<count { csv += "\(prefix)\(i),https://\(prefix)\(i).example.org,user\(i),pw-\(prefix)-\(i),\n" }
        let file = dir + "/\(prefix)-\(count).csv"
        try write(csv, to: file)
        return file
    }

    func testProgressIsDrawnAtATerminalAndErasedWhenDone() throws {
        try setUpReplicas("B")
        try on("A", "import", "chrome", try chromeCSV(40))
        try on("A", "sync")
        // Something for A's sync to fetch.
        try on("B", "sync")
        try on("B", "add", "From/B", "--password-stdin", stdin: "b\n")
        try on("B", "sync")
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        e["TRESOR_VAULT"] = replica("A")
        e["TRESOR_PROGRESS_DELAY"] = "0"
        let shell = try TmuxSession(directory: dir, env: e)
        // Everything the terminal received, including lines drawn and erased again.
        let log = dir + "/terminal.log"
        _ = SpawnHelper.run("/usr/bin/tmux", ["-S", shell.socket, "pipe-pane", "-t", "0", "-o", "cat >> \(TmuxSession.quote(log))"])
        shell.run("tresor fsck; tresor grep user1 >/dev/null; tresor clone \(remote) \(replica("C")); tresor sync; echo ALL-DONE")
        XCTAssertTrue(shell.waitFor("ALL-DONE\n" + TmuxSession.prompt), shell.screen)
        let drawn = try String(contentsOfFile: log, encoding: .utf8)
        // Drawn at most 10 times a second: the first report at least (the delay is 0 here).
        for expected in ["Checking: 1/42 entries", "Searching: 1/42 entries", "Cloning: receiving objects ", "Syncing: "] {
            XCTAssertTrue(drawn.contains(expected), "\(expected) was never drawn: \(drawn.debugDescription)")
        }
        XCTAssertTrue(drawn.contains("\r\u{1B}[K"), "the line is redrawn in place and erased")
        // With the usual delay, a command that ends sooner draws nothing.
        shell.run("echo MARK; TRESOR_PROGRESS_DELAY=30 tresor fsck; TRESOR_PROGRESS_DELAY=30 tresor import chrome --dry-run \(try chromeCSV(5, prefix: "x")) >/dev/null; echo QUICK-DONE")
        XCTAssertTrue(shell.waitFor("QUICK-DONE\n" + TmuxSession.prompt), shell.screen)
        let quick = try String(contentsOfFile: log, encoding: .utf8).components(separatedBy: "MARK").last ?? ""
        XCTAssertFalse(quick.contains("Checking:") || quick.contains("Reading:"), quick.debugDescription)
        let screen = shell.screen
        XCTAssertTrue(screen.contains("checked 42 entries: no problems"), screen)
        for label in ["Checking:", "Searching:", "Cloning:", "Syncing:"] {
            XCTAssertFalse(screen.contains(label), "\(label) is erased when done: \(screen)")
        }
    }

    func testNoProgressWhenStderrIsNotATerminal() throws {
        try initVault()
        try ok("import", "chrome", try chromeCSV(30))
        for args in [["fsck"], ["grep", "user1"]] {
            let r = try tresor(args, extraEnv: ["TRESOR_PROGRESS_DELAY": "0"])
            XCTAssertEqual(r.code, 0, r.stderr)
            XCTAssertFalse(r.stderr.contains("\r") || r.stderr.contains("entries,") || r.stderr.contains("Searching"), r.stderr.debugDescription)
        }
    }

    func testSyncListsManyMergedEntriesOnePerLineAndCountsTheRest() throws {
        try setUpReplicas("B", "C")
        try on("A", "import", "chrome", try chromeCSV(25))
        try on("A", "sync")
        // B and C have changes of their own, so sync merges rather than fast-forwards.
        for name in ["B", "C"] { try on(name, "add", "Own/\(name)", "--password-stdin", stdin: "own\n") }
        let short = try on("B", "sync").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(short.first, "Merged origin: 25 entries changed:", short.joined(separator: "\n"))
        let listed = short.filter { $0.hasPrefix("  ") && !$0.contains("…") }
        XCTAssertEqual(listed.count, 10, short.joined(separator: "\n"))
        XCTAssertTrue(short.contains("  … and 15 more (--verbose lists all)"), short.joined(separator: "\n"))

        let long = try on("C", "sync", "--verbose").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(long.first, "Merged origin: 26 entries changed:", long.joined(separator: "\n"))
        XCTAssertEqual(long.filter { $0.hasPrefix("  ") }.count, 26, long.joined(separator: "\n"))
        XCTAssertFalse(long.contains { $0.contains("more (--verbose") })
        XCTAssertTrue(long.contains("  Own/B"), long.joined(separator: "\n"))
    }
}
