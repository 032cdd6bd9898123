// Prompts through a real pseudo-terminal: the vault named, three tries, weak passphrases confirmed, nothing echoed, the add menu.
import Foundation
import XCTest

final class PromptTests: CLITestCase {
    var interactiveEnv: [String: String] {
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = nil
        return e
    }

    func testInitAsksAgainForAWeakUnconfirmedOrMismatchedPassphrase() throws {
        let t = try TerminalSession(["init", "--kdf", "minimum"], env: interactiveEnv)
        t.expect("New passphrase for \(vaultDir): ")
        t.type("abc\n")
        t.expect("Repeat new passphrase: ")
        t.type("abc\n")
        t.expect("Use it anyway? [y/N] ")
        XCTAssertTrue(t.screen.contains("weak passphrase (score 0/4"), t.screen)
        t.type("\n")
        t.expect("New passphrase for \(vaultDir): ", occurrence: 2)
        t.type("a strong enough phrase\n")
        t.expect("Repeat new passphrase: ", occurrence: 2)
        t.type("a strong enough phrasf\n")
        t.expect("the passphrases do not match; try again")
        t.expect("New passphrase for \(vaultDir): ", occurrence: 3)
        t.type("a strong enough phrase\n")
        t.expect("Repeat new passphrase: ", occurrence: 3)
        t.type("a strong enough phrase\n")
        XCTAssertEqual(t.wait(), 0, t.screen)
        XCTAssertFalse(t.screen.contains("strong enough") || t.screen.contains("abc\r"), "nothing typed is echoed: \(t.screen)")
        try write("a strong enough phrase\n", to: passphraseFile)
        try ok("ls")
    }

    func testAWeakPassphraseConfirmedIsKeptAndABlankOneIsRefused() throws {
        try initVault()
        let t = try TerminalSession(["passwd"], env: interactiveEnv)
        t.expect("Current passphrase for \(vaultDir): ")
        t.type("correct horse battery staple\n")
        t.expect("New passphrase for \(vaultDir): ")
        t.type("   \n")
        t.expect("the new passphrase is empty or only white space")
        t.expect("New passphrase for \(vaultDir): ", occurrence: 2)
        t.type("dragon\n")
        t.expect("Repeat new passphrase: ")
        t.type("dragon\n")
        t.expect("Use it anyway? [y/N] ")
        t.type("y\n")
        XCTAssertEqual(t.wait(), 0, t.screen)
        try write("dragon\n", to: passphraseFile)
        try ok("ls")
    }

    func testThreeTriesAtAWrongPassphraseThenTheVaultOpens() throws {
        try sampleVault()
        let t = try TerminalSession(["show", "Email/gmail", "--field", "password"], env: interactiveEnv)
        t.expect("Passphrase for \(vaultDir): ")
        t.type("wrong one\n")
        t.expect("wrong passphrase; try again")
        t.expect("Passphrase for \(vaultDir): ", occurrence: 2)
        t.type("correct horse battery staple\n")
        XCTAssertEqual(t.wait(), 0, t.screen)
        XCTAssertTrue(t.screen.contains("hunter2-gmail"), t.screen)

        let failing = try TerminalSession(["show", "Email/gmail"], env: interactiveEnv)
        for i in 1...3 {
            failing.expect("Passphrase for \(vaultDir): ", occurrence: i)
            failing.type("wrong \(i)\n")
        }
        XCTAssertEqual(failing.wait(), 3, failing.screen)
        XCTAssertTrue(failing.screen.contains("tresor: error: wrong passphrase"), failing.screen)
    }

    func testTheVaultUnderHomeIsNamedWithATilde() throws {
        var e = interactiveEnv
        e["TRESOR_VAULT"] = dir + "/home/.tresor"
        try ok(["init", "--kdf", "minimum", "--vault", dir + "/home/.tresor"])
        let s = try TerminalSession(["show", "X"], env: e)
        s.expect("Passphrase for ~/.tresor: ")
    }

    func testPasswordStdinAtATerminalIsNotEchoed() throws {
        try initVault()
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = passphraseFile
        let t = try TerminalSession(["add", "Web/typed", "--password-stdin"], env: e)
        t.expect("Password: ")
        t.type("typed-at-the-terminal-42\n")
        XCTAssertEqual(t.wait(), 0, t.screen)
        XCTAssertFalse(t.screen.contains("typed-at-the-terminal"), t.screen)
        XCTAssertEqual(try ok("show", "Web/typed", "--field", "password").stdout, "typed-at-the-terminal-42\n")
    }

    func testAnUnknownKeyInTheAddMenuSaysSoAndKeepsTheOffer() throws {
        try initVault()
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = passphraseFile
        let t = try TerminalSession(["add", "Web/menu", "--length", "20"], env: e)
        t.expect("[n]o password? ")
        t.type("x\n")
        t.expect("Unknown answer \"x\": type a, r, t or n.")
        t.expect("[n]o password? ", occurrence: 2)
        t.type("a\n")
        XCTAssertEqual(t.wait(), 0, t.screen)
        let offers = t.screen.components(separatedBy: "bits): ").dropFirst().map { String($0.prefix { !$0.isNewline && $0 != "\r" }) }
        XCTAssertEqual(offers.count, 1, "an unknown key does not regenerate: \(t.screen)")
        XCTAssertEqual(try ok("show", "Web/menu", "--field", "password").stdout, offers[0] + "\n")
    }

    func testAddWithoutATerminalOrAPasswordSourceIsAnError() throws {
        try initVault()
        let r = try tresor(["add", "Web/none"], stdin: "")
        XCTAssertEqual(r.code, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("no password for \"Web/none\"") && r.stderr.contains("--no-password"), r.stderr)
        XCTAssertEqual(try tresor("show", "Web/none").code, 4)
        try ok(["add", "Web/none", "--no-password", "--username", "u"], stdin: "")
        XCTAssertEqual(try tresor("show", "Web/none", "--field", "password").code, 4)
    }
}
