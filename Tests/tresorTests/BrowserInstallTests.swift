// `tresor browser install` and `uninstall` for one user: the manifest each browser reads, the host script, another program's manifest.
import Foundation
import XCTest

final class BrowserInstallTests: CLITestCase {
    var home: String { dir + "/home" }
    var firefoxManifest: String { home + "/.mozilla/native-messaging-hosts/com.github.browserpass.native.json" }
    var chromiumManifest: String { home + "/.config/chromium/NativeMessagingHosts/com.github.browserpass.native.json" }
    var chromeManifest: String { home + "/.config/google-chrome/NativeMessagingHosts/com.github.browserpass.native.json" }
    var script: String { home + "/.local/share/tresor/browserpass-host" }

    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    func testInstallWritesManifestsThatRunTheHost() throws {
        try sampleVault()
        let r = try ok("browser", "install", "--user", "--browser", "firefox", "--browser", "chromium", "--browser", "chrome",
                       "--vault", vaultDir)
        XCTAssertTrue(r.stderr.contains("Installed the browserpass host for firefox: \(firefoxManifest)"), r.stderr)
        let firefox = try json(firefoxManifest)
        XCTAssertEqual(firefox["name"] as? String, "com.github.browserpass.native")
        XCTAssertEqual(firefox["type"] as? String, "stdio")
        XCTAssertEqual(firefox["path"] as? String, script)
        XCTAssertEqual(firefox["allowed_extensions"] as? [String], ["browserpass@maximbaz.com"])
        XCTAssertNil(firefox["allowed_origins"])
        for manifest in [chromiumManifest, chromeManifest] {
            let m = try json(manifest)
            XCTAssertEqual(m["path"] as? String, script)
            XCTAssertTrue((m["allowed_origins"] as? [String] ?? []).contains("chrome-extension://naepdomgkenhinolocfifgehidddafch/"))
        }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: firefoxManifest)[.posixPermissions] as? Int, 0o644)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: script)[.posixPermissions] as? Int, 0o755)
        XCTAssertTrue(try String(contentsOfFile: script, encoding: .utf8).contains("browser host --vault '\(vaultDir)'"))

        // The script is what the browser runs, with the arguments Firefox adds: it answers the extension, from the
        // vault given at install time (whatever the browser's environment says).
        let request = BrowserHostTests.frame(["action": "list"])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: script)
        p.arguments = [firefoxManifest, "browserpass@maximbaz.com"]
        var e = env
        e["TRESOR_VAULT"] = dir + "/elsewhere"
        p.environment = e
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        try p.run()
        try stdin.fileHandleForWriting.write(contentsOf: request)
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let reply = try BrowserHostTests.replies(out).first as? [String: Any]
        XCTAssertEqual(((reply?["data"] as? [String: Any])?["files"] as? [String: [String]])?["default"], ["(no url)/Email/work.gpg", "(no url)/Social/github.gpg", "mail.google.com/Email/gmail.gpg"])

        // Installing again replaces tresor's own manifest without --force.
        try ok("browser", "install", "--user")
        // Uninstall removes tresor's manifests, and the script once none names it.
        try ok("browser", "uninstall", "--user", "--browser", "chromium", "--browser", "chrome")
        XCTAssertFalse(FileManager.default.fileExists(atPath: chromiumManifest))
        XCTAssertTrue(FileManager.default.fileExists(atPath: script), "firefox still names it")
        let u = try ok("browser", "uninstall", "--user")
        XCTAssertTrue(u.stderr.contains("Removed \(firefoxManifest)"), u.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: firefoxManifest))
        XCTAssertFalse(FileManager.default.fileExists(atPath: script))
        XCTAssertTrue(try ok("browser", "uninstall", "--user").stderr.contains("No tresor browserpass manifest to remove."))
    }

    func testAnotherProgramsManifestIsReplacedOnlyWithForce() throws {
        try initVault()
        let theirs = """
            {"name": "com.github.browserpass.native", "description": "Browserpass native component for the Firefox extension",
             "path": "/usr/lib/browserpass/browserpass-native", "type": "stdio", "allowed_extensions": ["browserpass@maximbaz.com"]}
            """
        try FileManager.default.createDirectory(atPath: (firefoxManifest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try write(theirs, to: firefoxManifest)
        let refused = try tresor("browser", "install", "--user")
        XCTAssertEqual(refused.code, 2)
        XCTAssertTrue(refused.stderr.contains("is the browserpass host of another program (\"/usr/lib/browserpass/browserpass-native\")"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--force"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: firefoxManifest, encoding: .utf8), theirs, "left as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: script), "nothing written")
        XCTAssertEqual(try tresor("browser", "uninstall", "--user").code, 2, "not tresor's to remove")
        XCTAssertEqual(try String(contentsOfFile: firefoxManifest, encoding: .utf8), theirs)

        let forced = try ok("browser", "install", "--user", "--force")
        XCTAssertTrue(forced.stderr.contains("(it replaces \"/usr/lib/browserpass/browserpass-native\")"), forced.stderr)
        XCTAssertEqual(try json(firefoxManifest)["path"] as? String, script)
        // A browserpass host installed for everyone (Debian's webext-browserpass) is shadowed for this user: said so.
        if FileManager.default.fileExists(atPath: "/usr/lib/mozilla/native-messaging-hosts/com.github.browserpass.native.json") {
            XCTAssertTrue(forced.stderr.contains("Note: for this user, tresor takes the place of the browserpass host installed for everyone"), forced.stderr)
        }
        let bad = try tresor("browser", "install", "--user", "--browser", "opera")
        XCTAssertNotEqual(bad.code, 0)
    }
}
