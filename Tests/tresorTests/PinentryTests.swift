// Without a terminal (a git hook, a helper a browser starts) the passphrase is asked through Debian's real pinentry-curses,
// drawn in a tmux pane named by GPG_TTY and typed into there; what it gives goes into the agent.
import Foundation
import XCTest

final class PinentryTests: CLITestCase {
    static let pinentry = "/usr/bin/pinentry-curses"

    /// A pane for pinentry to draw on (nothing else reads its keys) and the environment of a tresor that has no
    /// terminal: GPG_TTY names the pane, as gpg-agent's pinentry gets it.
    func pane() throws -> (TmuxPane, [String: String?]) {
        guard FileManager.default.isExecutableFile(atPath: PinentryTests.pinentry) else {
            throw XCTSkip("pinentry-curses is not installed (make test-deps installs it)")
        }
        let pane = try TmuxPane(["sleep", "600"], environment: ["PATH": "/usr/bin:/bin"], directory: dir)
        let tty = pane.tty
        XCTAssertTrue(tty.hasPrefix("/dev/"), tty)
        return (pane, ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": PinentryTests.pinentry, "GPG_TTY": tty, "TERM": "screen"])
    }

    /// Starts `tresor args` in a session of its own (no controlling terminal), its output to files.
    func startWithoutTerminal(_ args: [String], env extra: [String: String?]) throws -> (Process, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        p.arguments = ["-w", CLITestCase.binary] + args
        var e = env
        for (k, v) in extra { e[k] = v }
        p.environment = e
        let out = dir + "/pinentry-out-" + UUID().uuidString, err = out + ".err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle(forWritingAtPath: out)
        p.standardError = FileHandle(forWritingAtPath: err)
        try p.run()
        return (p, out, err)
    }

    func finish(_ p: Process, timeout: TimeInterval = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning, Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        return p.terminationStatus
    }

    func testAPassphraseTypedIntoPinentryUnlocksAndStaysInTheAgent() throws {
        // A folder name with "%41" in it: shown as it is, so the description was percent-escaped.
        let vault = dir + "/v%41x"
        try ok(["init", "--kdf", "minimum", "--vault", vault])
        try ok(["add", "Email/gmail", "--password-stdin", "--vault", vault], stdin: "pinentry-gmail\n")
        let (pane, locked) = try pane()
        let (show, out, err) = try startWithoutTerminal(["show", "Email/gmail", "--field", "password", "--vault", vault], env: locked)
        var screen = pane.wait(for: "Tresor needs the passphrase of the vault")
        XCTAssertTrue(screen.contains("v%41x"), screen)
        // A wrong one first: pinentry is asked again, with the error in its dialog.
        pane.type("wrong one")
        pane.press("Enter")
        screen = pane.wait(for: "wrong passphrase")
        pane.type("correct horse battery staple")
        screen = pane.wait(for: "Passphrase:")
        XCTAssertFalse(screen.contains("correct horse"), "pinentry does not show what is typed: \(screen)")
        pane.press("Enter")
        XCTAssertEqual(finish(show), 0, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "pinentry-gmail\n")
        // The keys went into the agent: the next program without a terminal asks nothing (no pinentry at all now).
        let again = try tresor(["show", "Email/gmail", "--field", "password", "--vault", vault],
                               extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": "none"])
        XCTAssertEqual(again.stdout, "pinentry-gmail\n", again.stderr)
    }

    func testCancellingPinentryChangesNothing() throws {
        try sampleVault()
        let (pane, locked) = try pane()
        let (edit, _, err) = try startWithoutTerminal(["edit", "Email/gmail", "--set", "username=changed"], env: locked)
        pane.wait(for: "Tresor needs the passphrase of the vault")
        // Tab to <OK>, Tab to <Cancel>, then Enter.
        pane.press("Tab")
        pane.press("Tab")
        let deadline = Date().addingTimeInterval(10)
        while !pane.screenWithAttributes.contains("m<Cancel>"), Date() < deadline { usleep(30_000) }
        XCTAssertTrue(pane.screenWithAttributes.contains("m<Cancel>"), "<Cancel> is not selected: \(pane.screenWithAttributes)")
        pane.press("Enter")
        XCTAssertEqual(finish(edit), 3)
        XCTAssertTrue(try String(contentsOfFile: err, encoding: .utf8).contains("the pinentry dialog was cancelled"))
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice@gmail.com\n")
    }

    func testAPinentryThatCannotAskIsReported() throws {
        try sampleVault()
        // No GPG_TTY and no terminal: pinentry-curses has nowhere to draw and says so.
        guard FileManager.default.isExecutableFile(atPath: PinentryTests.pinentry) else { throw XCTSkip("pinentry-curses is not installed") }
        let r = try run("/usr/bin/setsid", ["-w", CLITestCase.binary, "show", "Email/gmail"], stdin: "",
                        extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": PinentryTests.pinentry, "GPG_TTY": nil])
        XCTAssertEqual(r.code, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("no terminal to ask for the passphrase, and pinentry could not ask: Inappropriate ioctl for device"), r.stderr)
    }
}
