// `tresor ui` driven like a person through tmux: browse, filter, unlock, reveal, create, edit, delete, lock.
import Foundation
import XCTest

/// Starts `tresor ui` in a tmux pane with the test's environment, without a passphrase file unless asked.
class UITestCase: CLITestCase {
    static let passphrase = "correct horse battery staple"

    func startUI(_ args: [String] = [], env extra: [String: String?] = [:], width: Int = 100, height: Int = 30,
                 file: StaticString = #filePath, line: UInt = #line) throws -> TmuxPane {
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = nil
        e["TERM"] = "tmux-256color"
        for (k, v) in extra { e[k] = v }
        let pane = try TmuxPane([CLITestCase.binary, "ui"] + args, environment: e.compactMapValues { $0 }, directory: dir, width: width, height: height)
        pane.wait("the list", file: file, line: line) { $0.contains("locked") }
        return pane
    }

    /// Types the passphrase into the UI's prompt.
    func unlock(_ pane: TmuxPane, file: StaticString = #filePath, line: UInt = #line) {
        pane.wait(for: "Passphrase for", file: file, line: line)
        pane.type(UITestCase.passphrase)
        pane.press("Enter")
        pane.wait(without: "Passphrase for", file: file, line: line)
    }

    /// Quits with `q` from the list and waits for the exit status.
    func quit(_ pane: TmuxPane, file: StaticString = #filePath, line: UInt = #line) {
        pane.press("q")
        pane.wait(for: "[exit 0]", file: file, line: line)
    }
}

final class UITests: UITestCase {
    func testBrowseFoldAndFilterByNameWithoutThePassphrase() throws {
        try sampleVault()
        let ui = try startUI()
        var screen = ui.wait(for: "github")
        XCTAssertTrue(screen.contains("▾ Email/") && screen.contains("gmail") && screen.contains("work") && screen.contains("▾ Social/"), screen)
        XCTAssertTrue(screen.contains("locked"), screen)
        XCTAssertFalse(screen.contains("alice@gmail.com"), "hints need the key:\n\(screen)")
        XCTAssertTrue(screen.contains("/ filter") && screen.contains("q quit"), "keys in the footer:\n\(screen)")

        // The delete question names the selected entry, so it shows where the cursor is without unlocking.
        ui.press("j", "d")
        ui.wait(for: "Remove Email/gmail?")
        ui.press("n")
        ui.press("G", "d")
        ui.wait(for: "Remove Social/github?")
        ui.press("Escape", "g", "NPage", "d")
        ui.wait(for: "Remove Social/github?")
        ui.press("Escape", "Home")
        ui.type("\u{1B}[Ma!!")          // mouse wheel down (X10 encoding): three rows
        ui.press("k", "d")
        ui.wait(for: "Remove Email/work?")
        ui.press("n", "g", "h")
        screen = ui.wait(for: "▸ Email/")
        XCTAssertFalse(screen.contains("gmail"), "a collapsed folder hides its entries:\n\(screen)")
        ui.press("l")
        ui.wait(for: "gmail")

        ui.press("/")
        ui.type("gml")
        screen = ui.wait(for: "1 of 3 by name")
        XCTAssertTrue(screen.contains("Email/gmail") && !screen.contains("Email/work") && !screen.contains("github"), screen)
        XCTAssertFalse(screen.contains("Passphrase"), screen)
        ui.press("BSpace", "BSpace", "BSpace")
        ui.type("wk")
        screen = ui.wait(for: "Email/work")
        XCTAssertFalse(screen.contains("Email/gmail"), screen)
        ui.press("Enter")                 // opening an entry asks for the passphrase
        ui.wait(for: "Passphrase for \(vaultDir)")
        ui.press("Escape")
        ui.wait(without: "Passphrase for")
        quit(ui)
    }

    func testUnlockInsideTheUIRevealSearchFieldsAndLeaveNothingInTheScrollback() throws {
        try sampleVault()
        let ui = try startUI()
        ui.press("j", "Enter")
        ui.wait(for: "Passphrase for")
        ui.type("not the passphrase")
        ui.press("Enter")
        ui.wait(for: "wrong passphrase, try again")
        ui.type(UITestCase.passphrase)
        ui.press("Enter")
        // The entry's name shows in the list while the vault is decrypted ("decrypting…"), its fields as hints
        // once that ends: wait for what only the entry's own screen shows, its masked password.
        var screen = ui.wait(for: "••••••••••")
        XCTAssertTrue(screen.contains("Email/gmail") && screen.contains("alice@gmail.com") && screen.contains("https://mail.google.com"), screen)
        XCTAssertFalse(screen.contains("hunter2-gmail"), "masked until r:\n\(screen)")
        ui.press("r")
        ui.wait(for: "hunter2-gmail")
        ui.press("r")
        ui.wait(without: "hunter2-gmail")

        ui.press("Escape")
        screen = ui.wait(for: "alice@corp.example")
        XCTAssertTrue(screen.contains("alice@gmail.com"), "hints once unlocked:\n\(screen)")
        ui.press("/")
        ui.type("corp.ex")
        // The filter redraws after each key: wait for the last one ("co" still matches all three by field).
        ui.wait(for: "/ corp.ex")
        screen = ui.wait(for: "matches in username")
        XCTAssertTrue(screen.contains("Email/work") && !screen.contains("Email/gmail"), screen)
        ui.press("Enter", "r")
        ui.wait(for: "work-pass-123")
        ui.press("Escape", "Escape")
        quit(ui)
        let all = ui.history
        XCTAssertFalse(all.contains("work-pass-123") || all.contains("hunter2-gmail") || all.contains("alice@"),
                       "nothing decrypted stays in the scrollback:\n\(all)")
    }

    func testNewEntryWithLength100AndOnlyUppercase() throws {
        try initVault()
        let ui = try startUI()
        ui.press("n")
        unlock(ui)
        ui.wait(for: "Only uppercase")
        ui.type("Web/shouting")
        ui.press("Tab", "Tab", "Tab", "Tab", "Tab", "End")      // path → … → length slider, to its end
        ui.wait(for: "100   (4–100")
        ui.press("Tab", "Tab", "Tab", "Tab", "Tab", "Space")    // → only uppercase
        ui.wait("only uppercase switched on") { ($0.split(separator: "\n").first { $0.contains("Only uppercase") } ?? "").contains("[x]") }
        let shown = ui.wait("a generated password of 100 capitals") { screen in
            guard let row = screen.split(separator: "\n").first(where: { $0.contains("Password  ") }) else { return false }
            return row.split(separator: " ").last.map { $0.count >= 60 && $0.allSatisfy { $0.isUppercase } } ?? false
        }
        XCTAssertTrue(shown.contains("bits of entropy"), shown)
        ui.press("C-s")
        ui.wait(for: "Added Web/shouting")
        let password = try ok("show", "Web/shouting", "--field", "password").stdout.trimmingCharacters(in: .newlines)
        XCTAssertEqual(password.count, 100)
        XCTAssertTrue(password.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }, password)
        XCTAssertEqual(try ok("show", "Web/shouting", "--field", "policy").stdout, "length=100,classes=upper\n")
        quit(ui)
    }

    func testNewPassphraseRegeneratedThenEditedByHand() throws {
        try initVault()
        let ui = try startUI(env: ["TRESOR_PASSPHRASE_FILE": passphraseFile])
        ui.wait(for: "unlocked")
        ui.press("n")
        ui.wait(for: "Only uppercase")
        ui.type("Home/wifi")
        ui.press("Tab")
        ui.type("guest")
        ui.press("Tab", "Tab", "Tab", "Right")                  // kind: passphrase
        ui.wait(for: "Capitalize words")
        ui.press("Tab", "Left", "Left")                          // words: 6 → 4
        let before = ui.wait(for: "4   (1–20")
        ui.press("g")
        let after = ui.wait("another passphrase") { $0 != before && $0.contains("4   (1–20") }
        XCTAssertNotEqual(before.split(separator: "\n").first { $0.contains("Password  ") },
                          after.split(separator: "\n").first { $0.contains("Password  ") })
        ui.press("Tab", "Tab", "Tab", "Tab")                     // separator, capitalize, digit → password
        ui.press("C-u")
        ui.type("my own words here")
        ui.wait(for: "typed by hand")
        ui.press("C-s")
        ui.wait(for: "Added Home/wifi")
        XCTAssertEqual(try ok("show", "Home/wifi", "--field", "password").stdout, "my own words here\n")
        XCTAssertEqual(try ok("show", "Home/wifi", "--field", "username").stdout, "guest\n")
        XCTAssertEqual(try tresor("show", "Home/wifi", "--field", "policy").code, 4, "no policy for a password typed by hand")
        quit(ui)
    }

    func testEditFieldsInPlaceAndTheWholeEntryInTheEditor() throws {
        try sampleVault()
        let editor = dir + "/editor.sh"
        try write("#!/bin/sh\nsed -i 's/^notes: .*/notes: kept in the drawer/' \"$1\"\n", to: editor)
        chmod(editor, 0o755)
        let ui = try startUI(env: ["TRESOR_PASSPHRASE_FILE": passphraseFile, "EDITOR": editor, "VISUAL": nil])
        ui.press("/")
        ui.type("github")
        ui.press("Enter")
        ui.wait(for: "4711")
        ui.press("j", "e", "C-u")
        ui.type("alice.smith")
        ui.press("Enter")
        ui.wait(for: "Saved username.")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "username").stdout, "alice.smith\n")
        ui.press("h")
        let screen = ui.wait(for: "Earlier values of username")
        XCTAssertTrue(screen.contains("edit") && screen.contains("alice") && screen.contains("this device"), screen)

        ui.press("E")
        ui.wait(for: "Edited Social/github: notes")
        ui.wait(for: "kept in the drawer")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "notes").stdout, "kept in the drawer\n")
        ui.press("l")
        let log = ui.wait(for: "Commits that touched this entry")
        XCTAssertTrue(log.contains("changed: notes") && log.contains("changed: username") && log.contains("added: "), log)

        ui.press("j", "j", "x")                                  // rows: password, username, url, pin, notes
        ui.wait(for: "Remove pin from Social/github?")
        ui.press("y")
        ui.wait(for: "Saved pin.")
        XCTAssertEqual(try tresor("show", "Social/github", "--field", "pin").code, 4)
        ui.press("Escape")
        quit(ui)
        XCTAssertEqual(try git("log", "--format=%s", "-3").stdout,
                       "Edit Social/github: 1 custom field\nEdit Social/github: notes\nEdit Social/github: username\n")
    }

    func testDeleteAsksForConfirmation() throws {
        try sampleVault()
        let ui = try startUI()
        ui.press("/")
        ui.type("work")
        ui.press("Tab", "d")
        ui.wait(for: "Remove Email/work?")
        ui.press("n")
        ui.wait(without: "Remove Email/work?")
        XCTAssertTrue(try ok("ls").stdout.contains("Email/work"))
        ui.press("d")
        ui.wait(for: "Remove Email/work?")
        ui.press("y")
        ui.wait(for: "Passphrase for")
        ui.type(UITestCase.passphrase)
        ui.press("Enter")
        ui.wait(for: "Removed Email/work")
        XCTAssertEqual(try ok("ls").stdout, "Email/gmail\nSocial/github\n")
        XCTAssertEqual(try git("log", "--format=%s", "-1").stdout, "Remove Email/work\n")
        ui.press("Escape")
        ui.wait(for: "gmail")
        quit(ui)
    }
}
