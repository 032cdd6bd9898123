// The clipboard with real programs: xclip and xsel under Xvfb, OSC 52 on a pseudo-terminal, and clearing after the terminal closes.
import Foundation
import XCTest

final class ClipboardTests: CLITestCase {
    var x: XvfbServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        for program in ["/usr/bin/xclip", "/usr/bin/xsel"] where !FileManager.default.isExecutableFile(atPath: program) {
            throw XCTSkip("\(program) is not installed (make test-deps installs it)")
        }
        x = try XvfbServer()
        env["DISPLAY"] = x.display
        try sampleVault()
    }

    override func tearDownWithError() throws {
        x = nil
        unsetenv("DISPLAY")
        try super.tearDownWithError()
    }

    /// What the X clipboard holds now, read with the real xclip.
    func clipboard() throws -> String {
        setenv("DISPLAY", x.display, 1)
        return SpawnHelper.run("/usr/bin/xclip", ["-selection", "clipboard", "-out"]).output
    }

    /// Waits (10 s at most) until the clipboard holds `text`.
    func assertClipboard(becomes text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(10)
        var now = try clipboard()
        while now != text, Date() < deadline { usleep(50_000); now = try clipboard() }
        XCTAssertEqual(now, text, file: file, line: line)
    }

    func testClipCopiesThePasswordWithoutANewlineAndClearsIt() throws {
        let r = try ok("clip", "Email/gmail", "--clear-after", "1")
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("Copied the password of Email/gmail to the clipboard (xclip); it will be cleared in 1 second."), r.stderr)
        try assertClipboard(becomes: "hunter2-gmail")
        try assertClipboard(becomes: "")
    }

    func testShowCopiesAFieldAndLeavesAClipboardThatChangedMeanwhile() throws {
        try ok("show", "-c", "Email/gmail", "--field", "username", "--clear-after", "1")
        try assertClipboard(becomes: "alice@gmail.com")
        setenv("DISPLAY", x.display, 1)
        _ = SpawnHelper.run("/usr/bin/xclip", ["-selection", "clipboard", "-in"], input: "copied by the user")
        try assertClipboard(becomes: "copied by the user")
        usleep(2_000_000)   // past the clearing time
        XCTAssertEqual(try clipboard(), "copied by the user", "tresor clears only what it put there")
    }

    /// --json with -c reports what was copied (never the value) as the only thing on stdout.
    func testJSONReportsWhatWasCopied() throws {
        try ok(["edit", "Email/gmail", "--otp-uri", "-"], stdin: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP\n")
        for (args, field) in [(["clip", "Email/gmail"], "password"), (["otp", "-c", "Email/gmail"], "otp"),
                              (["show", "-c", "Email/gmail", "--field", "username"], "username")] {
            let r = try ok(args + ["--json", "--clear-after", "30"])
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
            XCTAssertEqual(o as NSDictionary, ["path": "Email/gmail", "field": field, "clipboard": "xclip", "clearAfter": 30] as NSDictionary)
            XCTAssertFalse(r.stdout.contains("hunter2") || r.stdout.contains("alice@"), r.stdout)
            XCTAssertFalse(r.stderr.contains("Copied"), r.stderr)
        }
        try assertClipboard(becomes: "alice@gmail.com")
    }

    func testTheClearTimeComesFromTheEnvironmentAndXselWorksToo() throws {
        let r = try tresor(["clip", "Social/github", "--field", "pin"], extraEnv: ["TRESOR_CLIP_TIME": "1", "TRESOR_CLIPBOARD": "xsel"])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("(xsel); it will be cleared in 1 second"), r.stderr)
        try assertClipboard(becomes: "4711")
        try assertClipboard(becomes: "")
    }

    func testErrorsCopyNothing() throws {
        let missing = try tresor("clip", "Email/gmail", "--field", "pin")
        XCTAssertEqual(missing.code, 4)
        XCTAssertTrue(missing.stderr.contains("has no field \"pin\""), missing.stderr)
        let none = try tresor(["clip", "Email/gmail"], extraEnv: ["DISPLAY": nil])
        XCTAssertEqual(none.code, 2)
        XCTAssertTrue(none.stderr.contains("no clipboard"), none.stderr)
        XCTAssertEqual(try tresor(["clip", "Email/gmail", "--clear-after", "-1"]).code, 64)
        XCTAssertEqual(try clipboard(), "")
    }

    /// The terminal closes right after the copy (tmux killed, so its shell and jobs get SIGHUP): the
    /// clipboard still holds the password, and the detached keeper still clears it.
    func testClearingSurvivesTheTerminalClosing() throws {
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        var sh: TmuxSession? = try TmuxSession(directory: dir, env: e)
        sh!.run("tresor clip Email/gmail --clear-after 2")
        XCTAssertTrue(sh!.waitFor("it will be cleared in 2 seconds"), sh!.screen)
        sh = nil
        try assertClipboard(becomes: "hunter2-gmail")
        try assertClipboard(becomes: "")
    }

    /// Without X or Wayland, on a terminal: the OSC 52 sequence, then the clearing sequence.
    func testOSC52OnATerminal() throws {
        var e = env
        e["DISPLAY"] = nil
        let t = try TerminalSession(["clip", "Email/gmail", "--clear-after", "0.5"], env: e)
        let encoded = Data("hunter2-gmail".utf8).base64EncodedString()
        t.expect("\u{1B}]52;c;\(encoded)\u{07}")
        XCTAssertEqual(t.wait(), 0, t.screen)
        XCTAssertTrue(t.screen.contains("(osc52); it will be cleared in 0.5 seconds"), t.screen)
        t.expect("\u{1B}]52;c;\u{07}")
    }
}
