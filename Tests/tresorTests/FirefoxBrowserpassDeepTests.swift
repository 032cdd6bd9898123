// Browser autofill end to end: Debian's firefox-esr with Debian's browserpass extension fills a login form from the vault.
import Foundation
import TestSupport
import XCTest

/// Firefox ESR under Xvfb, a throwaway profile that enables the system extension, a login page served on 127.0.0.1
/// under the name example.org, tresor installed as the extension's host for this user, and Marionette (from PyPI,
/// `make test-deep` installs it into .build/marionette) to drive it. About 10 s a run.
final class FirefoxBrowserpassDeepTests: CLITestCase {
    var site: ServerProcess?

    override func tearDownWithError() throws {
        site?.stop()
        try super.tearDownWithError()
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let extensionDir = "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browserpass@maximbaz.com"

    /// Fills the page with the extension (`mode`: "shortcut" or "popup") and returns the form's user name and password.
    func fill(mode: String, entries: () throws -> Void) throws -> (String?, String?) {
        try requireDeepTier("Firefox with the browserpass extension")
        let marionette = ProcessInfo.processInfo.environment["TRESOR_MARIONETTE"] ?? FirefoxBrowserpassDeepTests.packageRoot + "/.build/marionette"
        for (path, what) in [("/usr/bin/firefox-esr", "firefox-esr"), (FirefoxBrowserpassDeepTests.extensionDir, "webext-browserpass"),
                             ("/usr/bin/xdotool", "xdotool"), (marionette + "/marionette_driver", "marionette-driver (make test-deep installs it)")]
        where !FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("needs \(what)")
        }
        try initVault()
        let port = try freePort()
        try entries()
        try ok(["add", "Web/login", "--username", "alice", "--url", "http://example.org:\(port)/login.html", "--password-stdin"], stdin: "s3cret-F1ll\n")

        let page = dir + "/site"
        try FileManager.default.createDirectory(atPath: page, withIntermediateDirectories: true)
        try write("""
            <!doctype html><html><head><title>Login</title></head><body>
            <form action="/login.html" method="get"><input type="text" id="user" name="username" autocomplete="username">
            <input type="password" id="pass" name="password"><button type="submit">Sign in</button></form></body></html>
            """, to: page + "/login.html")
        site = try ServerProcess("/usr/bin/python3", ["-m", "http.server", "--bind", "127.0.0.1", "\(port)", "--directory", page], port: port)

        try ok("browser", "install", "--user")
        let profile = dir + "/profile", marionettePort = try freePort()
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        try write("""
            user_pref("extensions.autoDisableScopes", 0);
            user_pref("extensions.enabledScopes", 15);
            user_pref("extensions.startupScanScopes", 15);
            user_pref("network.dns.localDomains", "example.org");
            user_pref("marionette.port", \(marionettePort));
            user_pref("browser.shell.checkDefaultBrowser", false);

            """, to: profile + "/user.js")
        let xvfb = try XvfbServer(screen: "1280x800x24")
        let script = FirefoxBrowserpassDeepTests.packageRoot + "/Tests/Scripts/firefox_browserpass.py"
        let r = try run("/usr/bin/python3", [script, "/usr/bin/firefox-esr", profile, "\(marionettePort)", "http://example.org:\(port)/login.html", mode],
                        stdin: nil, extraEnv: ["DISPLAY": xvfb.display, "PYTHONPATH": marionette])
        XCTAssertEqual(r.code, 0, r.stderr + ((try? String(contentsOfFile: profile + "/firefox.log", encoding: .utf8)) ?? ""))
        let result = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
        // tresor wrote no plaintext on the way: the vault folder (and its .git with the search cache) holds none.
        let grep = try run("/usr/bin/grep", ["-rl", "s3cret-F1ll", vaultDir], stdin: nil, extraEnv: [:])
        XCTAssertEqual(grep.stdout, "", "the password is in plaintext in \(grep.stdout)")
        return (result["username"] as? String, result["password"] as? String)
    }

    /// Entries that must not be chosen for the page: another site, and one whose name looks like the page's domain.
    func decoys() throws {
        try ok(["add", "Other/site", "--username", "bob", "--url", "https://other.example.com/", "--password-stdin"], stdin: "not-this-one\n")
        try ok(["add", "Decoys/example.org", "--username", "mallory", "--url", "https://elsewhere.example.net", "--password-stdin"], stdin: "nor-this\n")
    }

    func testTheFillShortcutFillsTheFormFromTheVault() throws {
        let (user, password) = try fill(mode: "shortcut", entries: decoys)
        XCTAssertEqual(user, "alice")
        XCTAssertEqual(password, "s3cret-F1ll")
    }

    func testThePopupListsTheSiteAndFillsTheLoginClicked() throws {
        let (user, password) = try fill(mode: "popup", entries: decoys)
        XCTAssertEqual(user, "alice")
        XCTAssertEqual(password, "s3cret-F1ll")
    }
}
