// `tresor ui` as a terminal sees it: colours and their absence, wide and combining names, resizing, locking, sync.
import Foundation
import XCTest

final class UIScreenTests: UITestCase {
    /// Columns a line takes up to `text`, by a simple model of the terminal: CJK wide, combining marks zero.
    func column(of text: String, in line: String) -> Int? {
        guard let r = line.range(of: text) else { return nil }
        return line[..<r.lowerBound].unicodeScalars.reduce(0) { sum, s in
            switch s.value {
            case 0x0300...0x036F: return sum
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60: return sum + 2
            default: return sum + 1
            }
        }
    }

    func testWideAndCombiningNamesKeepTheHintsAligned() throws {
        try initVault()
        try ok("add", "日本/パス", "--username", "yamada", "--password-stdin", stdin: "x1\n")
        try ok("add", "Music/Spin\u{308}al Tap", "--username", "nigel", "--password-stdin", stdin: "x2\n")
        try ok("add", "Music/plain", "--url", "https://example.org/login", "--password-stdin", stdin: "x3\n")
        let ui = try startUI(env: ["TRESOR_PASSPHRASE_FILE": passphraseFile])
        ui.wait(for: "yamada")
        ui.wait(for: "example.org")
        let rows = [("パス", "yamada"), ("Spin\u{308}al Tap", "nigel"), ("plain", "example.org")].map { name, hint in
            (ui.line(containing: name) ?? "", hint)
        }
        let columns = rows.map { column(of: $0.1, in: $0.0) }
        XCTAssertNotNil(columns[0])
        XCTAssertEqual(Set(columns).count, 1, "hints start in one column: \(columns)\n" + rows.map(\.0).joined(separator: "\n"))
        XCTAssertEqual(column(of: "パス", in: rows[0].0), column(of: "plain", in: rows[2].0), "names indented alike")
        quit(ui)
    }

    func testNoColorAndMonochromeKeepSelectionAndFolders() throws {
        try sampleVault()
        let colourCodes = try NSRegularExpression(pattern: "\u{1B}\\[[0-9;]*(3[0-7]|38;5;[0-9]+)[;m]")
        func hasColour(_ s: String) -> Bool { colourCodes.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        for (name, extra) in [("NO_COLOR", ["NO_COLOR": "1"]), ("monochrome terminal", ["TERM": "xterm-mono"]), ("colour", [:])] {
            let ui = try startUI(env: extra)
            ui.wait(for: "github")
            let screen = ui.screenWithAttributes
            XCTAssertEqual(hasColour(screen), name == "colour", "\(name): \(screen.debugDescription)")
            XCTAssertTrue(screen.contains("7m"), "\(name): the selection is in reverse video")
            XCTAssertTrue(screen.contains("\u{1B}[1m"), "\(name): folders in bold")
            quit(ui)
        }
    }

    func testResizeRedrawsForTheNewSize() throws {
        try sampleVault()
        let ui = try startUI()
        ui.wait(for: "q quit")
        ui.resize(width: 60, height: 12)
        var screen = ui.wait("a 60×12 frame") { s in
            let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 12 && lines[11].contains("? keys") && lines[0].contains("locked")
        }
        XCTAssertTrue(screen.contains("gmail"), screen)
        ui.resize(width: 100, height: 30)
        screen = ui.wait("the 100×30 frame again") { s in
            let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 30 && lines[29].contains("q quit")
        }
        XCTAssertTrue(screen.contains("github"), screen)
        quit(ui)
    }

    func testLocksAfterTheTimeoutAndClearsTheScreen() throws {
        try sampleVault()
        let ui = try startUI(["--timeout", "0.05"])   // 3 s without a key
        ui.press("j", "Enter")
        unlock(ui)
        ui.press("r")
        ui.wait(for: "hunter2-gmail")
        let locked = ui.wait(for: "Locked after 3 s without a key press")
        XCTAssertFalse(locked.contains("hunter2-gmail") || locked.contains("alice@gmail.com"), locked)
        XCTAssertTrue(locked.contains("· locked"), locked)
        ui.press("Enter")                               // the list again: opening asks anew
        ui.wait(for: "Passphrase for")
        ui.press("Escape")
        quit(ui)
    }

    func testEndingTheSessionLocksTheUI() throws {
        try sampleVault()
        let token = try XCTUnwrap(try ok("unlock", "--env").stdout.components(separatedBy: "=").last?
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let ui = try startUI(env: ["TRESOR_SESSION": token])
        ui.wait(for: "alice@gmail.com")                 // unlocked by the session, no prompt
        try ok("lock")
        let screen = ui.wait(for: "The session ended")
        XCTAssertFalse(screen.contains("alice@gmail.com"), screen)
        quit(ui)
    }

    func testTheAgentsKeysOpenTheUIAndTresorLockLocksIt() throws {
        try sampleVault()
        try ok("unlock")
        let ui = try startUI()
        ui.wait(for: "alice@gmail.com")                 // unlocked by the agent, no prompt
        try ok("lock")
        let screen = ui.wait(for: "The agent dropped the keys")
        XCTAssertFalse(screen.contains("alice@gmail.com"), screen)
        quit(ui)
    }

    func testWithoutATerminalItSaysSo() throws {
        try initVault()
        let r = try tresor("ui")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.hasPrefix("tresor: error: tresor ui needs a terminal"), r.stderr)
    }
}

final class UISyncTests: SyncTestCase {
    func testSyncWithAConflictListsItAndTheLosingValueIsInTheHistory() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "from-A\n")
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "from-B\n")
        try on("B", "sync")
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = nil
        e["TERM"] = "tmux-256color"
        let ui = try TmuxPane([CLITestCase.binary, "ui", "--vault", replica("A")], environment: e, directory: dir)
        ui.wait(for: "· locked")
        ui.press("s")
        ui.wait(for: "Passphrase for")
        ui.type("correct horse battery staple")
        ui.press("Enter")
        let report = ui.wait(for: "Decided by the merge")
        XCTAssertTrue(report.contains("Merged origin: 1 entry changed: Email/gmail") && report.contains("Pushed to origin."), report)
        XCTAssertTrue(report.contains("field \"password\" of \"Email/gmail\" was changed on both sides"), report)
        ui.press("Enter")
        ui.wait(for: "h shows the earlier values of \"password\"")
        ui.press("h", "r")
        // "r" reveals the values after "h" opened the list: wait for both keys.
        ui.wait(for: "Earlier values of password")
        let detail = ui.wait(for: "from-A")
        let current = detail.split(separator: "\n").first { $0.contains("password  ") } ?? ""
        XCTAssertTrue(current.contains("from-B"), "the later write wins:\n\(detail)")
        let loser = detail.split(separator: "\n").first { $0.contains("merge") } ?? ""
        XCTAssertTrue(loser.contains("from-A") && loser.contains("this device"), "the losing value, one key away:\n\(detail)")
        ui.press("Escape", "Escape")
        ui.press("q")
        ui.wait(for: "[exit 0]")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "password").stdout, "from-B\n")
    }
}
