// KeePass imports from files made by the real keepassxc-cli (KDBX 3.1, AES-KDF) and by pykeepass (KDBX 4 variants).
import Foundation
@testable import TresorCore
@testable import TresorInterchange
import XCTest

final class KeePassTests: ToolTestCase {
    /// A `.kdbx` written by the real keepassxc-cli from the fixture (its `import` command).
    func keePassXCDatabase(password: String = "pw") throws -> String {
        let cli = try tool("keepassxc-cli")
        // Tests/Scripts/keepass-fixture.xml: groups, standard fields, protected and plain custom attributes, an
        // extra URL, tags, three kinds of TOTP, history, a recycle bin.
        try ok(cli, ["import", "-p", script("keepass-fixture.xml"), dir + "/db.kdbx"], stdin: "\(password)\n\(password)\n")
        return dir + "/db.kdbx"
    }

    func entry(_ doc: InterchangeDocument, _ title: String, file: StaticString = #filePath, line: UInt = #line) throws -> InterchangeEntry {
        try XCTUnwrap(doc.entries.first { $0.title == title }, "no entry \(title) in \(doc.entries.map(\.title))", file: file, line: line)
    }

    /// Every field of the fixture, as any KeePass reader must return it.
    func checkFixture(_ doc: InterchangeDocument, history: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(doc.entries.count, 3, file: file, line: line)
        XCTAssertEqual(doc.skipped.map(\.name), ["Recycle Bin/gone"], file: file, line: line)
        XCTAssertEqual(doc.skipped.first?.reason, .deleted, file: file, line: line)
        let top = try entry(doc, "Top")
        XCTAssertEqual(top.folder, [])
        XCTAssertEqual(top.username, "alice")
        XCTAssertEqual(top.password?.text, "new-pass")
        XCTAssertEqual(top.urls, ["https://top.example", "https://second.example"])
        XCTAssertEqual(top.notes?.text, "line1\nline2")
        XCTAssertEqual(Set(top.tags), ["work", "mail"])
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: top.fields.map { ($0.name, $0.value.text!) }), ["PIN": "4711", "Mother's maiden name": "Smith"])
        XCTAssertEqual(top.otp?.text, "otpauth://totp/Top:alice?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=Top")
        XCTAssertEqual(top.created, Timestamp(parsing: "2020-01-01T00:00:00.000Z"))
        XCTAssertEqual(top.modified, Timestamp(parsing: "2022-03-04T05:06:07.000Z"))
        if history {
            let items = top.history.map { "\($0.field)=\($0.value.text!) \($0.modified!) \($0.replaced)" }.sorted()
            XCTAssertEqual(items, [
                "password=old-pass 2021-01-01T00:00:00.000Z 2022-03-04T05:06:07.000Z",
                "password=oldest-pass 2020-06-01T00:00:00.000Z 2021-01-01T00:00:00.000Z",
                "username=al 2020-06-01T00:00:00.000Z 2021-01-01T00:00:00.000Z",
            ], file: file, line: line)
        }
        let slash = try entry(doc, "a/b: c")
        XCTAssertEqual(slash.folder, ["Email"])
        XCTAssertEqual(slash.password?.text, "pw2")
        XCTAssertEqual(slash.otp?.text, "otpauth://totp/a%2Fb%3A%20c:bob?secret=JBSWY3DPEHPK3PXP&period=30&digits=8&issuer=a%2Fb%3A%20c")
        XCTAssertTrue(slash.fields.isEmpty, "TOTP Seed/Settings become the otp field only")
        let native = try entry(doc, "native")
        XCTAssertEqual(native.folder, ["Email", "Sub"])
        XCTAssertEqual(native.otp?.text, "otpauth://totp/native?secret=GEZDGNBVGY3TQOJQ&period=60&digits=6&algorithm=SHA256&issuer=native")
    }

    func testDatabaseWrittenByKeePassXC() throws {
        let db = try keePassXCDatabase()
        let bytes = try FileSystem.read(db, limit: 1 << 20)
        XCTAssertEqual(Array(bytes[8..<12]), [1, 0, 3, 0], "keepassxc-cli writes KDBX 3.1")
        try checkFixture(try KeePass.readDatabase(db, password: SecretBytes(utf8: "pw"), keyFile: nil))
    }

    func testXMLAndCSVExportsOfKeePassXC() throws {
        let db = try keePassXCDatabase()
        let cli = try tool("keepassxc-cli")
        try write(try ok(cli, ["export", db], stdin: "pw\n").stdout, to: dir + "/export.xml")
        try checkFixture(try KeePass.readXML(dir + "/export.xml"))
        try write(try ok(cli, ["export", "-f", "csv", db], stdin: "pw\n").stdout, to: dir + "/export.csv")
        let csv = try CSVFormats.readKeePassXC(dir + "/export.csv")
        XCTAssertEqual(csv.skipped.map(\.name), ["Recycle Bin/gone"])
        let top = try entry(csv, "Top")
        XCTAssertEqual([top.username, top.password?.text, top.urls.first, top.notes?.text],
                       ["alice", "new-pass", "https://top.example", "line1\nline2"])
        XCTAssertEqual(top.otp?.text, "otpauth://totp/Top:alice?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=Top")
        XCTAssertEqual(top.modified, Timestamp(parsing: "2022-03-04T05:06:07.000Z"))
        XCTAssertEqual(try entry(csv, "native").folder, ["Email", "Sub"])
    }

    func testKeyFileMadeByKeePassXC() throws {
        let cli = try tool("keepassxc-cli")
        let db = dir + "/keyed.kdbx", key = dir + "/db.keyx"
        try ok(cli, ["db-create", "-q", "-t", "100", "--set-key-file", key, "-p", db], stdin: "pw\npw\n")
        try ok(cli, ["add", "-q", "-k", key, "-u", "carol", "-p", db, "server"], stdin: "pw\nkey-file-secret\n")
        let doc = try KeePass.readDatabase(db, password: SecretBytes(utf8: "pw"), keyFile: key)
        XCTAssertEqual(try entry(doc, "server").password?.text, "key-file-secret")
        XCTAssertThrowsError(try KeePass.readDatabase(db, password: SecretBytes(utf8: "pw"), keyFile: nil)) {
            guard case InterchangeError.wrongKey = $0 else { return XCTFail("\($0)") }
        }
    }

    /// KDBX 4 with each KDF and outer cipher pykeepass can write (keepassxc-cli writes only KDBX 3.1 here).
    func testKDBX4VariantsWrittenByPyKeePass() throws {
        let python = try tool("python3")
        for (kdf, cipher) in [("argon2d", "aes256"), ("argon2id", "chacha20"), ("argon2d", "chacha20"), ("argon2id", "aes256")] {
            let db = dir + "/\(kdf)-\(cipher).kdbx"
            let r = try run(python, [script("make_kdbx4.py"), db, "pw", kdf, cipher])
            XCTAssertEqual(r.code, 0, "pykeepass is needed ('make test-deps' installs it): \(r.stderr)")
            guard r.code == 0 else { return }
            let bytes = try FileSystem.read(db, limit: 1 << 20)
            XCTAssertEqual(bytes[10], 4, "KDBX 4")
            let doc = try KeePass.readDatabase(db, password: SecretBytes(utf8: "pw"), keyFile: nil)
            let gmail = try entry(doc, "gmail")
            XCTAssertEqual(gmail.folder, ["Email"])
            XCTAssertEqual(gmail.username, "alice@gmail.com")
            XCTAssertEqual(gmail.password?.text, "second-password")
            XCTAssertEqual(gmail.urls, ["https://mail.google.com"])
            XCTAssertEqual(gmail.notes?.text, "recovery codes\nin the safe")
            XCTAssertEqual(gmail.tags, ["mail", "personal"])
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: gmail.fields.map { ($0.name, $0.value.text!) }), ["PIN": "4711", "Security question": "first pet"])
            XCTAssertEqual(gmail.otp?.text, "otpauth://totp/Google:alice%40gmail.com?secret=JBSWY3DPEHPK3PXP&issuer=Google")
            XCTAssertEqual(gmail.history.map { "\($0.field)=\($0.value.text!)" }, ["password=first-password"])
            XCTAssertEqual(try entry(doc, "vpn").folder, ["Email", "Work"])
            XCTAssertEqual(try entry(doc, "top level").password?.text, "p\u{e4}ssw\u{f6}rd \u{2603}")
        }
    }

    func testWrongPasswordAndDamagedFiles() throws {
        let db = try keePassXCDatabase()
        XCTAssertThrowsError(try KeePass.readDatabase(db, password: SecretBytes(utf8: "wrong"), keyFile: nil)) {
            guard case InterchangeError.wrongKey = $0 else { return XCTFail("\($0)") }
        }
        let bytes = try FileSystem.read(db, limit: 1 << 20)
        for (name, damaged) in [("truncated", Array(bytes.prefix(bytes.count / 2))), ("header only", Array(bytes.prefix(120))),
                                ("not kdbx", Array("hello".utf8)), ("empty", []),
                                ("flipped", bytes.enumerated().map { $0.offset == bytes.count / 2 ? $0.element ^ 0xFF : $0.element })] {
            try Data(damaged).write(to: URL(fileURLWithPath: dir + "/bad.kdbx"))
            XCTAssertThrowsError(try KeePass.readDatabase(dir + "/bad.kdbx", password: SecretBytes(utf8: "pw"), keyFile: nil), name) {
                switch $0 {
                case InterchangeError.malformed, InterchangeError.wrongKey: break
                default: XCTFail("\(name): \($0)")
                }
            }
        }
    }
}
