// The editor view of an entry, rendered and parsed as bytes: values round-trip exactly, without a String.
import Foundation
@testable import TresorCore
import XCTest
@testable import tresor

final class EditorTextTests: XCTestCase {
    func parse(_ bytes: [UInt8]) throws -> [String: FieldValue] { try bytes.withUnsafeBytes { try EditorText.parse($0) } }
    func parse(_ text: String) throws -> [String: FieldValue] { try parse(Array(text.utf8)) }

    func testRenderedViewParsesBackToTheSameValuesByteForByte() throws {
        let now = Timestamp(milliseconds: 1_700_000_000_000)
        var e = Entry(path: try EntryPath("Mail/box"), change: Change(time: now, origin: "test", dot: .placeholder))
        let values: [String: SecretText] = [
            "password": "cafe\u{301} \"q\" \\", "username": " padded ", "notes": "line one\n  indented\n\nlast",
            "pin": "|", "policy": "chars:16", "empty-looking": "#not a comment",
        ]
        for (k, v) in values { try e.set(k, .text(v), change: Change(time: now, origin: "dev", dot: .placeholder)) }
        try e.set("urls", .list(["https://a.example", "https://b.example"]), change: Change(time: now, origin: "dev", dot: .placeholder))
        try e.set("tags", .list(["work"]), change: Change(time: now, origin: "dev", dot: .placeholder))
        let view = try EditorText.render(e).withBytes { Array($0) }
        let parsed = try parse(view)
        XCTAssertEqual(Set(parsed.keys), Set(e.fields.keys))
        for (k, f) in e.fields { XCTAssertEqual(parsed[k], f.value, k) }
        XCTAssertNotEqual(parsed["password"], .text("caf\u{E9} \"q\" \\"), "NFD stays NFD")
        // The same view with CRLF line ends gives the same values.
        var crlf: [UInt8] = []
        for b in view { if b == 0x0A { crlf.append(0x0D) }; crlf.append(b) }
        XCTAssertEqual(try parse(crlf), parsed)
    }

    /// Notes imported with Windows line ends keep their CRs when another field is edited in the view.
    func testCarriageReturnsInsideValuesSurviveTheView() throws {
        let now = Timestamp(milliseconds: 1_700_000_000_000)
        var e = Entry(path: try EntryPath("Mail/box"), change: Change(time: now, origin: "test", dot: .placeholder))
        let values: [String: SecretText] = ["notes": "first\r\nsecond\r\n\r\nthird", "password": "ends in cr\r", "pin": "a\rb"]
        for (k, v) in values { try e.set(k, .text(v), change: Change(time: now, origin: "dev", dot: .placeholder)) }
        var view = try EditorText.render(e).withBytes { Array($0) }
        XCTAssertEqual(try parse(view).mapValues { $0 }, e.fields.mapValues(\.value))
        // A changed password elsewhere in the view leaves the notes' bytes as they were.
        let old = Array("password: ends in cr\r\n".utf8), new = Array("password: changed\n".utf8)
        let at = try XCTUnwrap((0...(view.count - old.count)).first { Array(view[$0..<$0 + old.count]) == old })
        view.replaceSubrange(at..<at + old.count, with: new)
        let parsed = try parse(view)
        XCTAssertEqual(parsed["notes"], .text("first\r\nsecond\r\n\r\nthird"))
        XCTAssertEqual(parsed["pin"], .text("a\rb"))
        XCTAssertEqual(parsed["password"], .text("changed"))
    }

    func testViewRulesCommentsBlankLinesBlocksAndErrors() throws {
        let text = "# comment\n\n \u{A0}\t\npassword: p: with colon\nnotes: |\n  a\n\n  b\n\n\nurl: https://x.example\nurl: https://y.example\n"
        let v = try parse(text)
        XCTAssertEqual(v["password"], .text("p: with colon"))
        XCTAssertEqual(v["notes"], .text("a\n\nb"), "trailing empty block lines are dropped")
        XCTAssertEqual(v["urls"], .list(["https://x.example", "https://y.example"]))
        XCTAssertThrowsError(try parse("password: a\nno colon here\n")) { XCTAssertEqual(($0 as? EditorText.ParseError)?.line, 2) }
        XCTAssertThrowsError(try parse("pin: 1\npin: 2\n")) { XCTAssertEqual(($0 as? EditorText.ParseError)?.line, 2) }
        XCTAssertThrowsError(try parse(Array("password: ".utf8) + [0xC3, 0x28] + [0x0A])) { e in
            XCTAssertEqual((e as? EditorText.ParseError)?.message, "the value is not UTF-8 text")
        }
        XCTAssertEqual(Array("# x\notp: y\n".utf8).withUnsafeBytes { EditorText.line(of: "otp", in: $0) }, 2)
    }
}
