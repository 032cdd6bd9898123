// Passphrases and confirmations asked on the controlling terminal whatever standard input is: typed into a real bash in
// tmux with stdin piped or redirected, as a person runs the README's tour.
import Foundation
import XCTest

final class ControllingTerminalTests: CLITestCase {
    /// A bash in tmux with `tresor` on PATH, the test's vault and no passphrase file: only a person can unlock.
    func shell() throws -> TmuxSession {
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        e["TRESOR_PASSPHRASE_FILE"] = nil
        e["TRESOR_PINENTRY"] = "none"
        return try TmuxSession(directory: dir, env: e)
    }

    let passphrase = "correct horse battery staple"

    /// Waits until `text` is on the screen (with its scroll-back) `count` times.
    func waitFor(_ sh: TmuxSession, _ text: String, count: Int) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if sh.screen.components(separatedBy: text).count > count { return true }
            usleep(50_000)
        }
        return false
    }

    func testTheToursPipedAddAsksForThePassphraseOnTheTerminal() throws {
        try initVault()
        let sh = try shell()
        sh.run("PW='pipe-fed-Secret-42'")
        sh.run("printf '%s\\n' \"$PW\" | tresor add Bank/ing --password-stdin --field pin=4711; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("Passphrase for"), sh.screen)
        sh.keys(passphrase, literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("Added Bank/ing"), sh.screen)
        XCTAssertFalse(sh.screen.contains(passphrase), "the passphrase is not echoed: \(sh.screen)")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "password").stdout, "pipe-fed-Secret-42\n")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "pin").stdout, "4711\n")
    }

    func testShowWithStdinFromDevNullAndEditFromAPipeAskOnTheTerminal() throws {
        try sampleVault()
        let sh = try shell()
        // stderr thrown away too: the prompt is written to the terminal itself, as ssh and gpg do.
        sh.run("tresor show Email/gmail --field password </dev/null 2>/dev/null; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("Passphrase for"), sh.screen)
        sh.keys(passphrase, literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("hunter2-gmail"), sh.screen)
        sh.run("printf 'piped-new-pass\\n' | tresor edit Email/gmail --password-stdin; echo EDITED=$?")
        XCTAssertTrue(waitFor(sh, "Passphrase for", count: 2), sh.screen)
        sh.keys(passphrase, literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EDITED=0"), sh.screen)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "piped-new-pass\n")
    }

    func testAConfirmationIsAskedOnTheTerminalWithStdinRedirected() throws {
        try sampleVault()
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        let sh = try TmuxSession(directory: dir, env: e)
        sh.run("tresor rm Social/github </dev/null; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("Remove Social/github? [y/N]"), sh.screen)
        sh.keys("n", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=2"), sh.screen)
        XCTAssertEqual(try tresor("show", "Social/github").code, 0, "answered no: still there")
    }

    func testWithoutAControllingTerminalItSaysSo() throws {
        try sampleVault()
        // setsid: a session of its own, with no controlling terminal; stdin a pipe.
        let r = try run("/usr/bin/setsid", ["-w", CLITestCase.binary, "show", "Email/gmail"], stdin: "",
                        extraEnv: ["TRESOR_PASSPHRASE_FILE": nil, "TRESOR_PINENTRY": "none"])
        XCTAssertEqual(r.code, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("no terminal to ask for the passphrase"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tresor unlock"), r.stderr)
    }
}
