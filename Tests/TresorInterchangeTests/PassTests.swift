// pass and gopass imports from a store made by the real pass with a real gpg key, and pass exports read back.
import Foundation
@testable import TresorCore
@testable import TresorInterchange
import XCTest

final class PassTests: ToolTestCase {
    var store: String { dir + "/store" }
    var gpgID = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let key = try makeGPGKey()
        gpgID = key.id
        setenv("GNUPGHOME", key.home, 1)
    }

    override func tearDownWithError() throws {
        try super.tearDownWithError()
        unsetenv("GNUPGHOME")
    }

    @discardableResult
    func pass(_ args: [String], stdin: String? = nil) throws -> ToolResult {
        try ok(try tool("pass"), args, stdin: stdin, env: ["PASSWORD_STORE_DIR": store, "GNUPGHOME": dir + "/gnupg"])
    }

    func entry(_ doc: InterchangeDocument, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> InterchangeEntry {
        try XCTUnwrap(doc.entries.first { $0.sourceName == name }, "no \(name) in \(doc.entries.map(\.sourceName))", file: file, line: line)
    }

    func fields(_ e: InterchangeEntry) -> [String: String] {
        Dictionary(e.fields.map { ($0.name, $0.value.text!) }, uniquingKeysWith: { a, _ in a })
    }

    func testStoreMadeByPass() throws {
        try pass(["init", gpgID])
        try pass(["insert", "-m", "Email/gmail"], stdin: """
            hunter2
            login: alice@gmail.com
            email: alice@example.org
            url: https://mail.google.com
            url: https://accounts.google.com
            otpauth://totp/Google:alice?secret=JBSWY3DPEHPK3PXP&issuer=Google
            Recovery: phone
            free text note line
            second note line

            """)
        try pass(["insert", "-m", "Web/a:b"], stdin: "colon-pass\nuser: bob\ntotp: JBSWY3DPEHPK3PXP\n")
        try pass(["generate", "Bank/ing", "20"])
        let generated = try pass(["show", "Bank/ing"]).stdout.trimmingCharacters(in: .newlines)
        try pass(["git", "init"])

        let doc = try PassStore.read(store, gopass: false, gpg: try GPG())
        XCTAssertEqual(doc.entries.map(\.sourceName).sorted(), ["Bank/ing", "Email/gmail", "Web/a:b"])
        XCTAssertTrue(doc.skipped.isEmpty, "\(doc.skipped)")
        let gmail = try entry(doc, "Email/gmail")
        XCTAssertEqual(gmail.folder, ["Email"])
        XCTAssertEqual(gmail.password?.text, "hunter2")
        XCTAssertEqual(gmail.username, "alice@gmail.com", "login outranks email")
        XCTAssertEqual(gmail.urls, ["https://mail.google.com", "https://accounts.google.com"])
        XCTAssertEqual(gmail.otp?.text, "otpauth://totp/Google:alice?secret=JBSWY3DPEHPK3PXP&issuer=Google")
        XCTAssertEqual(fields(gmail), ["email": "alice@example.org", "Recovery": "phone"])
        XCTAssertEqual(gmail.notes?.text, "free text note line\nsecond note line")
        XCTAssertNotNil(gmail.modified)
        let colon = try entry(doc, "Web/a:b")
        XCTAssertEqual(colon.username, "bob")
        XCTAssertEqual(colon.otp?.text, "otpauth://totp/a%3Ab:bob?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=a%3Ab")
        XCTAssertEqual(try entry(doc, "Bank/ing").password?.text, generated)
        XCTAssertEqual(generated.count, 20)
    }

    func testGopassYAMLBodyAndUnreadableFiles() throws {
        try pass(["init", gpgID])
        let gopassSecret = """
            gopass-secret
            ---
            username: carol
            url: https://gopass.example
            tags:
              - work
              - "vpn access"
            note: |
              multi
              line
            pin: '0042'
            nested:
              key: inner value

            """
        try write(gopassSecret, to: dir + "/plain")
        try? FileManager.default.createDirectory(atPath: store + "/work", withIntermediateDirectories: true)
        try ok(try tool("gpg"), ["--batch", "--yes", "-e", "-r", gpgID, "-o", store + "/work/vpn.gpg", dir + "/plain"], env: ["GNUPGHOME": dir + "/gnupg"])
        try write("not encrypted", to: store + "/work/broken.gpg")
        try write("age", to: store + "/work/new.age")

        let doc = try PassStore.read(store, gopass: true, gpg: try GPG())
        let vpn = try entry(doc, "work/vpn")
        XCTAssertEqual(vpn.password?.text, "gopass-secret")
        XCTAssertEqual(vpn.username, "carol")
        XCTAssertEqual(vpn.urls, ["https://gopass.example"])
        XCTAssertEqual(vpn.tags, ["work", "vpn access"])
        XCTAssertEqual(fields(vpn), ["note": "multi\nline", "pin": "0042", "nested.key": "inner value"])
        let skipped = Dictionary(doc.skipped.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
        guard case .unreadable? = skipped["work/broken"] else { return XCTFail("\(doc.skipped)") }
        XCTAssertEqual(skipped["work/new.age"], .unsupported(.ageSecret))
        // As a pass store (no YAML), the lines after --- are key: value lines as well.
        let asPass = try PassStore.read(store, gopass: false, gpg: try GPG())
        XCTAssertEqual(try entry(asPass, "work/vpn").username, "carol")
    }

    func testExportedStoreReadsWithPassAndImportsBack() throws {
        var item = InterchangeEntry(folder: ["Email"], title: "gmail")
        item.vaultPath = "Email/gmail"
        item.username = "alice"
        item.password = SecretBytes(utf8: "s3cret")
        item.urls = ["https://a.example", "https://b.example"]
        item.notes = SecretBytes(utf8: "first\n\nthird: not a field\n  indented")
        item.tags = ["mail", "two words"]
        item.fields = [InterchangeField(name: "pin", value: SecretBytes(utf8: "4711")),
                       InterchangeField(name: "address", value: SecretBytes(utf8: "line 1\nline 2")),
                       InterchangeField(name: "pipe", value: SecretBytes(utf8: "|"))]
        item.otp = SecretBytes(utf8: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP")
        item.policy = "length=16,classes=lower+digits"
        try PassStore.write([item], to: dir + "/out", recipients: [gpgID], gpg: try GPG())
        XCTAssertEqual(try String(contentsOfFile: dir + "/out/.gpg-id", encoding: .utf8), gpgID + "\n")
        XCTAssertEqual(FileSystem.mode(dir + "/out/Email/gmail.gpg"), 0o600)
        let shown = try ok(try tool("pass"), ["show", "Email/gmail"], env: ["PASSWORD_STORE_DIR": dir + "/out", "GNUPGHOME": dir + "/gnupg"]).stdout
        XCTAssertEqual(shown.split(separator: "\n").first, "s3cret")
        XCTAssertTrue(shown.contains("\nusername: alice\n") && shown.contains("\nurl: https://b.example\n"), shown)

        let back = try entry(try PassStore.read(dir + "/out", gopass: false, gpg: try GPG()), "Email/gmail")
        XCTAssertEqual(back.password?.text, "s3cret")
        XCTAssertEqual(back.username, "alice")
        XCTAssertEqual(back.urls, item.urls)
        XCTAssertEqual(back.notes?.text, "first\n\nthird: not a field\n  indented")
        XCTAssertEqual(back.tags, item.tags)
        XCTAssertEqual(fields(back), ["pin": "4711", "address": "line 1\nline 2", "pipe": "|"])
        XCTAssertEqual(back.otp?.text, "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP")
        XCTAssertEqual(back.policy, "length=16,classes=lower+digits")

        XCTAssertThrowsError(try PassStore.write([item], to: dir + "/out", recipients: [gpgID], gpg: try GPG())) {
            guard case InterchangeError.outputExists = $0 else { return XCTFail("\($0)") }
        }
    }
}
