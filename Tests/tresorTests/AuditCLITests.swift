// `tresor audit` through the binary: weak, reused, old, breached (both Pwned Passwords shapes), missing, exit codes, JSON.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

final class AuditCLITests: CLITestCase {
    func json(_ s: String) throws -> [String: Any] { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any]) }

    static let passwords = [
        "weak": "Summer2024!", "reuse": "vN3#qL9$zT1!wX7&pK", "old": "Hq8&yT2!mZ5#rW9@eB", "breached": "kT4%bN8!xR2&jM6#vC",
    ]

    /// SHA-1 of a password as 40 upper-case hex digits, the way Pwned Passwords writes it.
    static func sha1Hex(_ password: String) -> String {
        LibCrypto.digest(.sha1, of: SecretBytes(utf8: password)).withBytes { $0.map { String(format: "%02X", $0) }.joined() }
    }

    /// A vault with one entry for each finding, and one clean entry.
    func auditVault() throws {
        try initVault()
        let p = AuditCLITests.passwords
        try ok(["add", "Web/weak", "--password-stdin", "--url", "https://weak.example"], stdin: p["weak"]! + "\n")
        try ok(["add", "Web/one", "--password-stdin"], stdin: p["reuse"]! + "\n")
        try ok(["add", "Mail/two", "--password-stdin"], stdin: p["reuse"]! + "\n")
        try ok(["add", "Bank/old", "--password-stdin"], stdin: p["old"]! + "\n")
        try ok(["add", "Shop/breached", "--password-stdin"], stdin: p["breached"]! + "\n")
        try ok("add", "Notes/nopass", "--no-password", "--username", "me", "--url", "http://user:secret@plain.example/login")
        try ok(["add", "Web/clean", "--password-stdin", "--url", "https://clean.example"], stdin: "pZ7#wQ2!kL9$xV4&nB\n")
        // The old entry's password was last changed 400 days ago: set through the library, as a sync from
        // an old replica would.
        let vault = try Vault.open(at: vaultDir)
        try vault.unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        let path = try Vault.parsePath("Bank/old")
        var entry = try vault.read(path)
        entry.fields["password"]!.modified = Timestamp(milliseconds: Timestamp.now().milliseconds - 400 * 86_400_000)
        try vault.transaction { txn in
            try txn.put(entry)
            txn.message = "Edit Bank/old: password"
        }
    }

    /// A Pwned Passwords file ordered by hash: filler lines, the breached password, CRLF line ends.
    func hibpFile() throws -> String {
        var lines = (0..<300).map { i in AuditCLITests.sha1Hex("filler \(i)") + ":\(i + 1)" }
        lines.append(AuditCLITests.sha1Hex(AuditCLITests.passwords["breached"]!) + ":4242")
        lines.sort()
        let file = dir + "/pwned-passwords-sha1-ordered-by-hash.txt"
        try write(lines.map { $0 + "\r\n" }.joined(), to: file)
        return file
    }

    /// A folder of range files holding every range the vault's passwords fall in.
    func hibpFolder() throws -> String {
        let folder = dir + "/ranges"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let all = Array(AuditCLITests.passwords.values) + ["pZ7#wQ2!kL9$xV4&nB"]
        var ranges: [String: [String]] = [:]
        for p in all {
            let h = AuditCLITests.sha1Hex(p)
            ranges[String(h.prefix(5)), default: []].append(String(h.dropFirst(5)).replacingOccurrences(of: "0", with: "F") + ":7")
        }
        let breached = AuditCLITests.sha1Hex(AuditCLITests.passwords["breached"]!)
        ranges[String(breached.prefix(5)), default: []].append(String(breached.dropFirst(5)) + ":99")
        for (prefix, lines) in ranges { try write(lines.sorted().map { $0 + "\r\n" }.joined(), to: folder + "/" + prefix + ".txt") }
        return folder
    }

    func testAuditFindsEachKindOfProblem() throws {
        try auditVault()
        let r = try tresor(["audit", "--hibp", try hibpFile()])
        XCTAssertEqual(r.code, 6, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("Web/weak: weak: score 2/4") && $0.contains("contains a common password") }, r.stdout)
        XCTAssertTrue(lines.contains("Web/one: reused: same password as Mail/two"), r.stdout)
        XCTAssertTrue(lines.contains("Mail/two: reused: same password as Web/one"), r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("Bank/old: old: password unchanged for 400 days") }, r.stdout)
        XCTAssertTrue(lines.contains("Shop/breached: breached: seen 4242 times in Pwned Passwords"), r.stdout)
        XCTAssertTrue(lines.contains("Notes/nopass: no password"), r.stdout)
        XCTAssertTrue(lines.contains("Notes/nopass: insecure url: http:// (plain.example)"), r.stdout)
        XCTAssertFalse(r.stdout.contains("Web/clean"), r.stdout)
        XCTAssertEqual(lines.last, "audited 7 entries: 6 with findings (1 weak, 2 reused, 1 old, 1 breached, 1 without password, 1 insecure url)")
        // Nothing secret is printed: no password, no part of one, no url credentials.
        for p in AuditCLITests.passwords.values {
            XCTAssertFalse(r.stdout.contains(p.prefix(6)) || r.stderr.contains(p.prefix(6)), p)
        }
        XCTAssertFalse(r.stdout.lowercased().contains("summer") || r.stdout.contains("secret") || r.stdout.contains(AuditCLITests.sha1Hex(AuditCLITests.passwords["breached"]!).prefix(8)))
    }

    func testAuditJSONAndTheFolderShape() throws {
        try auditVault()
        let r = try tresor(["audit", "--json", "--hibp", try hibpFolder(), "--max-age", "30"])
        XCTAssertEqual(r.code, 6, r.stderr)
        let o = try json(r.stdout)
        let totals = try XCTUnwrap(o["totals"] as? [String: Int])
        XCTAssertEqual(totals, ["audited": 7, "flagged": 6, "unreadable": 0, "weak": 1, "reused": 2, "old": 1, "breached": 1,
                                "no-password": 1, "insecure-url": 1])
        let entries = try XCTUnwrap(o["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["path"] as? String }, ["Bank/old", "Mail/two", "Notes/nopass", "Shop/breached", "Web/one", "Web/weak"])
        func findings(_ path: String) -> [[String: Any]] { entries.first { $0["path"] as? String == path }?["findings"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(findings("Shop/breached").first?["count"] as? Int, 99)
        XCTAssertEqual(findings("Bank/old").first?["reason"] as? String, "old")
        XCTAssertEqual(findings("Bank/old").first?["days"] as? Int, 400)
        XCTAssertEqual(findings("Web/weak").first?["score"] as? Int, 2)
        let kinds = try XCTUnwrap(findings("Web/weak").first?["weaknesses"] as? [String])
        XCTAssertTrue(kinds.contains("capitalized-word") && kinds.contains("short"), "\(kinds)")
        XCTAssertEqual(findings("Web/one").first?["others"] as? [String], ["Mail/two"])
        XCTAssertEqual(findings("Notes/nopass").map { $0["reason"] as? String }, ["no-password", "insecure-url"])
        XCTAssertEqual(findings("Notes/nopass").last?["host"] as? String, "plain.example")
        XCTAssertEqual((o["errors"] as? [Any])?.count, 0)
    }

    func testPrefixMaxAgeAndACleanVault() throws {
        try auditVault()
        // Below a folder, only its entries; the old password is not old under a longer limit.
        let bank = try tresor("audit", "Bank", "--max-age", "500")
        XCTAssertEqual(bank.code, 0, bank.stdout + bank.stderr)
        XCTAssertEqual(bank.stdout, "audited 1 entry: nothing found\n")
        // Reuse is looked for among the entries audited: Web/one's twin is in Mail/.
        let web = try tresor("audit", "Web")
        XCTAssertEqual(web.code, 6)
        XCTAssertEqual(web.stdout.split(separator: "\n").count, 2, web.stdout)
        XCTAssertTrue(web.stdout.hasPrefix("Web/weak: weak: "), web.stdout)
        XCTAssertTrue(web.stdout.hasSuffix("audited 3 entries: 1 with findings (1 weak)\n"), web.stdout)
        // A vault with only strong, unique, recent passwords and https urls: nothing found, exit 0.
        try ok("rm", "Web/weak"); try ok("rm", "Web/one"); try ok("rm", "Bank/old"); try ok("rm", "Notes/nopass")
        let clean = try tresor("audit", "--hibp", try hibpFile())
        XCTAssertEqual(clean.code, 6, "Shop/breached is still there: \(clean.stdout)")
        try ok("rm", "Shop/breached")
        let none = try tresor("audit", "--hibp", try hibpFile())
        XCTAssertEqual(none.code, 0, none.stdout + none.stderr)
        XCTAssertEqual(none.stdout, "audited 2 entries: nothing found\n")
    }

    func testBadPwnedPasswordsInputFailsClearly() throws {
        try auditVault()
        let missing = try tresor("audit", "--hibp", dir + "/nothing-here")
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.contains("no Pwned Passwords file or folder at \"\(dir)/nothing-here\""), missing.stderr)
        try write("this is not a hash list\n", to: dir + "/bad.txt")
        let bad = try tresor("audit", "--hibp", dir + "/bad.txt")
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.contains("is not a Pwned Passwords SHA-1 file"), bad.stderr)
        try write("8846F7EAEE8FB117AD06BDD830B7586C:5\r\n", to: dir + "/ntlm.txt")
        let ntlm = try tresor("audit", "--hibp", dir + "/ntlm.txt")
        XCTAssertEqual(ntlm.code, 2)
        XCTAssertTrue(ntlm.stderr.contains("holds NTLM hashes, not SHA-1"), ntlm.stderr)
        try FileManager.default.createDirectory(atPath: dir + "/empty-ranges", withIntermediateDirectories: true)
        let empty = try tresor("audit", "--hibp", dir + "/empty-ranges")
        XCTAssertEqual(empty.code, 2)
        XCTAssertTrue(empty.stderr.contains("lacks range files"), empty.stderr)
        XCTAssertEqual(try tresor("audit", "--max-age", "-1").code, 64)
    }
}
