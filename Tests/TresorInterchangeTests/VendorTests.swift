// Bitwarden, 1Password (1PUX and CSV), Chrome and Firefox exports in each vendor's documented shape.
import Foundation
@testable import TresorCore
@testable import TresorInterchange
import XCTest
import ZIPFoundation

final class VendorTests: ToolTestCase {
    func fields(_ e: InterchangeEntry) -> [String: String] {
        Dictionary(e.fields.map { ($0.name, $0.value.text!) }, uniquingKeysWith: { a, _ in a })
    }

    func one(_ doc: InterchangeDocument, _ title: String, file: StaticString = #filePath, line: UInt = #line) throws -> InterchangeEntry {
        try XCTUnwrap(doc.entries.first { $0.title == title }, "no \(title) in \(doc.entries.map(\.title))", file: file, line: line)
    }

    /// Bitwarden's unencrypted `.json` export (bitwarden.com/help/export-your-data, "File format: .json").
    static let bitwarden = """
        {
          "encrypted": false,
          "folders": [ { "id": "f1", "name": "Email" }, { "id": "f2", "name": "Work/VPN" } ],
          "items": [
            { "passwordHistory": [ { "lastUsedDate": "2023-05-01T10:00:00.000Z", "password": "older" } ],
              "revisionDate": "2024-01-02T03:04:05.678Z", "creationDate": "2022-01-01T00:00:00.000Z", "deletedDate": null,
              "id": "i1", "organizationId": null, "folderId": "f1", "type": 1, "reprompt": 0, "name": "Gmail",
              "notes": "recovery codes", "favorite": true,
              "fields": [ { "name": "PIN", "value": "4711", "type": 1, "linkedId": null },
                          { "name": "Remember", "value": "true", "type": 2, "linkedId": null },
                          { "name": "Linked", "value": null, "type": 3, "linkedId": 100 } ],
              "login": { "fido2Credentials": [], "uris": [ { "match": null, "uri": "https://mail.google.com" }, { "match": 1, "uri": "https://google.com" } ],
                         "username": "alice@gmail.com", "password": "current", "totp": "JBSWY3DPEHPK3PXP" },
              "collectionIds": null },
            { "id": "i2", "folderId": "f2", "type": 1, "name": "vpn", "notes": null, "favorite": false,
              "login": { "uris": [], "username": "bob", "password": "vpn-pass", "totp": "otpauth://totp/VPN:bob?secret=GEZDGNBVGY3TQOJQ" } },
            { "id": "i3", "folderId": null, "type": 2, "name": "Wifi note", "notes": "ssid: home", "favorite": false, "secureNote": { "type": 0 } },
            { "id": "i4", "folderId": null, "type": 3, "name": "Visa", "notes": null, "favorite": false,
              "card": { "cardholderName": "Alice A", "brand": "Visa", "number": "4111111111111111", "expMonth": "12", "expYear": "2030", "code": "123" } },
            { "id": "i5", "folderId": null, "type": 1, "name": "Trashed", "deletedDate": "2024-02-02T00:00:00.000Z",
              "login": { "username": "x", "password": "y" } }
          ]
        }
        """

    func testBitwardenJSON() throws {
        try write(VendorTests.bitwarden, to: dir + "/bw.json")
        let doc = try Bitwarden.read(dir + "/bw.json")
        XCTAssertEqual(doc.entries.count, 4)
        XCTAssertEqual(doc.skipped.map(\.name), ["Trashed"])
        let gmail = try one(doc, "Gmail")
        XCTAssertEqual(gmail.folder, ["Email"])
        XCTAssertEqual(gmail.username, "alice@gmail.com")
        XCTAssertEqual(gmail.password?.text, "current")
        XCTAssertEqual(gmail.urls, ["https://mail.google.com", "https://google.com"])
        XCTAssertEqual(gmail.notes?.text, "recovery codes")
        XCTAssertEqual(gmail.otp?.text, "otpauth://totp/Gmail:alice@gmail.com?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=Gmail")
        XCTAssertEqual(fields(gmail), ["PIN": "4711", "Remember": "true"])
        XCTAssertEqual(gmail.omitted, ["linked field \"Linked\""])
        XCTAssertEqual(gmail.tags, ["favorite"])
        XCTAssertEqual(gmail.history.map { "\($0.field)=\($0.value.text!) \($0.replaced)" }, ["password=older 2023-05-01T10:00:00.000Z"])
        XCTAssertEqual(gmail.created, Timestamp(parsing: "2022-01-01T00:00:00.000Z"))
        XCTAssertEqual(gmail.modified, Timestamp(parsing: "2024-01-02T03:04:05.678Z"))
        let vpn = try one(doc, "vpn")
        XCTAssertEqual(vpn.folder, ["Work", "VPN"], "Bitwarden nests folders with /")
        XCTAssertEqual(vpn.otp?.text, "otpauth://totp/VPN:bob?secret=GEZDGNBVGY3TQOJQ")
        XCTAssertEqual(try one(doc, "Wifi note").notes?.text, "ssid: home")
        XCTAssertEqual(fields(try one(doc, "Visa")), ["cardholderName": "Alice A", "brand": "Visa", "number": "4111111111111111",
                                                      "expMonth": "12", "expYear": "2030", "code": "123"])

        try write("{\"encrypted\": true, \"items\": []}", to: dir + "/enc.json")
        XCTAssertThrowsError(try Bitwarden.read(dir + "/enc.json")) { guard case InterchangeError.unsupported = $0 else { return XCTFail("\($0)") } }
        try write("{\"items\": [", to: dir + "/bad.json")
        XCTAssertThrowsError(try Bitwarden.read(dir + "/bad.json")) { guard case InterchangeError.malformed = $0 else { return XCTFail("\($0)") } }
    }

    /// 1Password's 1PUX: a zip with `export.attributes` and `export.data` (support.1password.com/1pux-format).
    static let onePUXData = """
        { "accounts": [ { "attrs": { "accountName": "Alice", "name": "Alice", "email": "alice@example.org", "uuid": "A1", "domain": "https://my.1password.com/" },
          "vaults": [ { "attrs": { "uuid": "V1", "desc": "", "avatar": "", "name": "Personal", "type": "P" },
            "items": [
              { "uuid": "I1", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active", "categoryUuid": "001",
                "details": { "loginFields": [
                    { "value": "alice", "id": "", "name": "username", "fieldType": "T", "designation": "username" },
                    { "value": "pa55", "id": "", "name": "password", "fieldType": "P", "designation": "password" },
                    { "value": "✓", "id": "", "name": "remember", "fieldType": "C", "designation": "" } ],
                  "notesPlain": "note text",
                  "sections": [ { "title": "Security", "name": "s1", "fields": [
                      { "title": "one-time password", "id": "TOTP_1", "value": { "totp": "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example" } },
                      { "title": "PIN", "id": "pin", "value": { "concealed": "9999" } },
                      { "title": "email", "id": "e", "value": { "email": { "email_address": "alice@example.org", "provider": null } } },
                      { "title": "since", "id": "d", "value": { "date": 1600000000 } } ] } ],
                  "passwordHistory": [ { "value": "old-pa55", "time": 1650000000 } ] },
                "overview": { "subtitle": "alice", "urls": [ { "label": "website", "url": "https://example.com/login" }, { "label": "", "url": "https://m.example.com" } ],
                              "title": "Example", "url": "https://example.com/login", "ps": 60, "pbe": 50.0, "pgrng": false, "tags": [ "web", "Starter Kit/Tips" ] } },
              { "uuid": "I2", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000, "state": "archived", "categoryUuid": "005",
                "details": { "loginFields": [], "notesPlain": "", "sections": [], "passwordHistory": [], "password": "plain-password" },
                "overview": { "subtitle": "", "title": "Old password", "url": "", "tags": [] } },
              { "uuid": "I3", "createdAt": 1600000000, "updatedAt": 1600000000, "state": "trashed", "categoryUuid": "001",
                "details": { "loginFields": [] }, "overview": { "title": "Binned" } }
            ] } ] } ] }
        """

    func testOnePUX() throws {
        let path = dir + "/export.1pux"
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, text) in [("export.attributes", "{\"version\": 3, \"description\": \"1Password Unencrypted Export\", \"createdAt\": 1700000000}"),
                             ("export.data", VendorTests.onePUXData)] {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { pos, size in
                data.subdata(in: Int(pos)..<Int(pos) + size)
            }
        }
        let doc = try OnePassword.read1PUX(path)
        XCTAssertEqual(doc.skipped.map(\.name), ["Personal/Binned"])
        let e = try one(doc, "Example")
        XCTAssertEqual(e.folder, ["Personal"])
        XCTAssertEqual(e.username, "alice")
        XCTAssertEqual(e.password?.text, "pa55")
        XCTAssertEqual(e.urls, ["https://example.com/login", "https://m.example.com"])
        XCTAssertEqual(e.notes?.text, "note text")
        XCTAssertEqual(e.tags, ["web", "Starter Kit/Tips"])
        XCTAssertEqual(e.otp?.text, "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example")
        XCTAssertEqual(fields(e), ["remember": "✓", "Security PIN": "9999", "Security email": "alice@example.org", "Security since": "2020-09-13"])
        XCTAssertEqual(e.history.map { "\($0.field)=\($0.value.text!) \($0.replaced)" }, ["password=old-pa55 2022-04-15T05:20:00.000Z"])
        XCTAssertEqual(e.created, Timestamp(milliseconds: 1_600_000_000_000))
        XCTAssertEqual(e.modified, Timestamp(milliseconds: 1_700_000_000_000))
        let old = try one(doc, "Old password")
        XCTAssertEqual(old.password?.text, "plain-password")
        XCTAssertEqual(old.tags, ["archived"])

        try write("not a zip", to: dir + "/bad.1pux")
        XCTAssertThrowsError(try OnePassword.read1PUX(dir + "/bad.1pux")) { guard case InterchangeError.malformed = $0 else { return XCTFail("\($0)") } }
    }

    func testOnePasswordCSV() throws {
        // 1Password 8's CSV export columns.
        try write("""
            Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes
            Example,https://example.com,alice,"pa,55",otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP,true,false,"web,mail","line 1
            line 2"
            Bare,,,,,false,true,,

            """, to: dir + "/1p.csv")
        let doc = try CSVFormats.readOnePassword(dir + "/1p.csv")
        let e = try one(doc, "Example")
        XCTAssertEqual([e.username, e.password?.text, e.urls.first, e.notes?.text, e.otp?.text],
                       ["alice", "pa,55", "https://example.com", "line 1\nline 2", "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP"])
        XCTAssertEqual(e.tags, ["web", "mail", "favorite"])
        XCTAssertEqual(try one(doc, "Bare").tags, ["archived"])
    }

    func testBrowserCSVs() throws {
        // Chrome: chrome://password-manager/settings "Download file".
        try write("""
            name,url,username,password,note
            accounts.google.com,https://accounts.google.com/signin,alice@gmail.com,g-pass,
            example.com,https://example.com/,bob,"quo""te",a note

            """, to: dir + "/chrome.csv")
        let chrome = try CSVFormats.readChrome(dir + "/chrome.csv")
        let g = try one(chrome, "accounts.google.com")
        XCTAssertEqual([g.username, g.password?.text, g.urls.first], ["alice@gmail.com", "g-pass", "https://accounts.google.com/signin"])
        let ex = try one(chrome, "example.com")
        XCTAssertEqual([ex.password?.text, ex.notes?.text], ["quo\"te", "a note"])
        // Firefox: about:logins "Export Logins…".
        try write("""
            "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
            "https://www.mozilla.org","carol","fx-pass",,"https://www.mozilla.org","{c3a2a1e5}","1600000000000","1700000000000","1650000000000"
            "https://intranet.example","dave","realm-pass","Intranet",,"{d4}","1600000000000","1600000000000","1600000000000"

            """, to: dir + "/firefox.csv")
        let fx = try CSVFormats.readFirefox(dir + "/firefox.csv")
        let m = try one(fx, "www.mozilla.org")
        XCTAssertEqual([m.username, m.password?.text, m.urls.first], ["carol", "fx-pass", "https://www.mozilla.org"])
        XCTAssertEqual(m.created, Timestamp(milliseconds: 1_600_000_000_000))
        XCTAssertEqual(m.modified, Timestamp(milliseconds: 1_650_000_000_000))
        XCTAssertTrue(m.fields.isEmpty)
        XCTAssertEqual(fields(try one(fx, "intranet.example")), ["httpRealm": "Intranet"])

        try write("a,b\n1,2\n", to: dir + "/other.csv")
        XCTAssertThrowsError(try CSVFormats.readChrome(dir + "/other.csv")) { guard case InterchangeError.malformed = $0 else { return XCTFail("\($0)") } }
    }
}
