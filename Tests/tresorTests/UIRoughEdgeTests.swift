// tresor ui's rough edges, read back from a tmux pane: the one-time secret masked, the help's control keys spelt out,
// the exact name first in a filter, and the new-entry form usable on a 60×15 terminal.
import Foundation
import XCTest

final class UIRoughEdgeTests: UITestCase {
    func testTheOneTimeSecretIsMaskedLikeThePassword() throws {
        try sampleVault()
        try ok(["edit", "Email/gmail", "--otp-uri", "-"], stdin: "otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME\n")
        let ui = try startUI(env: ["TRESOR_PASSPHRASE_FILE": passphraseFile])
        ui.press("/")
        ui.type("gmail")
        ui.wait(for: "/ gmail")
        ui.press("Enter")
        var screen = ui.wait(for: "one-time")
        let otpRow = screen.split(separator: "\n").first { $0.contains("otp ") }.map(String.init) ?? ""
        XCTAssertTrue(otpRow.contains("••••••••••"), screen)
        XCTAssertFalse(screen.contains("JBSWY3DPEHPK3PXP") || screen.contains("hunter2-gmail"), screen)
        ui.press("r")
        screen = ui.wait(for: "JBSWY3DPEHPK3PXP")
        XCTAssertTrue(screen.contains("hunter2-gmail"), screen)
        ui.press("r")
        ui.wait(without: "JBSWY3DPEHPK3PXP")
        ui.press("Escape")
        quit(ui)
    }

    func testTheKeysHelpSpellsOutTheControlKeys() throws {
        try sampleVault()
        let ui = try startUI()
        ui.press("?")
        let screen = ui.wait(for: "any key closes")
        XCTAssertTrue(screen.contains("Ctrl-L  redraw and list again") && screen.contains("Ctrl-C  quit"), screen)
        XCTAssertFalse(screen.contains("Ctrl…"), screen)
        ui.press("Escape")
        quit(ui)
    }

    func testTheExactNameComesFirstWhenFiltering() throws {
        try initVault()
        for n in 0...9 { try ok("add", "Bank/acct49\(n)", "--no-password") }
        try ok("add", "Work/acct49", "--no-password")
        let ui = try startUI()
        ui.press("/")
        ui.type("acct49")
        let screen = ui.wait(for: "11 of 11 by name")
        let lines = screen.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.firstIndex { $0.contains("acct49") && !$0.contains("/ acct49") })
        XCTAssertTrue(lines[first].contains("Work/acct49") && !lines[first].contains("Work/acct490"), screen)
        ui.press("Escape")
        quit(ui)
    }

    func testTheNewEntryFormFitsA60By15Terminal() throws {
        try initVault()
        let ui = try startUI(env: ["TRESOR_PASSPHRASE_FILE": passphraseFile], width: 60, height: 15)
        ui.wait(for: "unlocked")
        ui.press("n")
        ui.wait(for: "Path")
        ui.type("Web/small")
        // Back from the path wraps to Save, then the password: each is on screen when it is the row being edited.
        ui.press("BTab")
        var screen = ui.wait(for: "[ Save ]")
        ui.press("BTab")
        screen = ui.wait(for: "bits of entropy")
        XCTAssertNotNil(screen.split(separator: "\n").first { $0.contains("Password") }, screen)
        ui.press("C-s")
        screen = ui.wait(for: "Added Web/small")
        XCTAssertEqual(try ok("show", "Web/small", "--field", "password").stdout.count, 25)
        quit(ui)
    }
}
