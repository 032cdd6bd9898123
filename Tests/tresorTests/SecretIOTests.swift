// Secret values in and out of the binary through zeroing buffers: read from stdin, written by show, byte for byte.
import Foundation
import XCTest

final class SecretIOTests: CLITestCase {
    /// The bytes of a String, not its canonical equivalence class: NFC and NFD must stay apart.
    func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testPasswordFromStandardInputComesBackByteForByte() throws {
        try initVault()
        // NFD spelling and a CRLF line end: the line end is dropped, the spelling kept (no normalisation).
        let nfd = "pa\u{0073}s\u{0301}-cafe\u{0301}"
        try ok(["add", "Web/nfd", "--password-stdin"], stdin: nfd + "\r\n")
        XCTAssertEqual(utf8(try ok("show", "Web/nfd", "--field", "password").stdout), utf8(nfd + "\n"))
        XCTAssertNotEqual(utf8(try ok("show", "Web/nfd", "--field", "password").stdout), utf8(nfd.precomposedStringWithCanonicalMapping + "\n"))

        // Longer than one read(2) chunk (4096 bytes) and with bytes the JSON payload must escape.
        let long = String(repeating: "0123456789\"\\\t", count: 700) + "é"
        try ok(["add", "Web/long", "--password-stdin"], stdin: long + "\n")
        XCTAssertEqual(utf8(try ok("show", "Web/long", "--field", "password").stdout), utf8(long + "\n"))
        let json = try ok("show", "Web/long", "--json").stdout
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual((o["password"] as? String).map(utf8), utf8(long))

        // Only one final newline is dropped; an empty input is refused.
        try ok(["add", "Web/two-lines", "--password-stdin"], stdin: "a\n\n")
        XCTAssertEqual(try ok("show", "Web/two-lines", "--field", "password").stdout, "a\n\n")
        let empty = try tresor(["add", "Web/empty", "--password-stdin"], stdin: "\n")
        XCTAssertNotEqual(empty.code, 0)
        XCTAssertTrue(empty.stderr.contains("no password on standard input"), empty.stderr)
    }

    func testShowWritesMultiLineValuesIndentedAndEditKeepsHistory() throws {
        try initVault()
        try ok(["add", "Mail/box", "--username", "ana", "--password-stdin", "--field", "pin=12 34"], stdin: "first\n")
        try ok(["edit", "Mail/box", "--set", "notes=line one\nline two\n", "--set", "urls=https://a.example"])
        try ok(["edit", "Mail/box", "--password-stdin"], stdin: "second\n")
        let text = try ok("show", "Mail/box").stdout
        XCTAssertTrue(text.hasPrefix("password: second\nusername: ana\nurl: https://a.example\npin: 12 34\nnotes:\n  line one\n  line two\n  \nmodified: "), text)
        XCTAssertTrue(text.hasSuffix("history: 1 earlier value (--json shows them)\n"), text)
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ok("show", "Mail/box", "--json").stdout.utf8)) as? [String: Any])
        let history = try XCTUnwrap(o["history"] as? [[String: Any]])
        XCTAssertEqual(history.map { $0["value"] as? String }, ["first"])
        XCTAssertEqual(o["notes"] as? String, "line one\nline two\n")
        let field = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ok("show", "Mail/box", "--field", "notes", "--json").stdout.utf8)) as? [String: Any])
        XCTAssertEqual(field["value"] as? String, "line one\nline two\n")
        XCTAssertEqual(try ok("show", "Mail/box", "--field", "urls").stdout, "https://a.example\n")
    }
}
