// The strict JSON parser and canonical serializer (Spec/FORMAT.md §1.3).
@testable import TresorCore
import XCTest

final class JSONTests: XCTestCase {
    func parse(_ s: String) throws -> JSONValue { try JSONValue.parse(Array(s.utf8)) }
    func canonical(_ s: String) throws -> String { String(decoding: try parse(s).canonicalBytes(), as: UTF8.self) }

    func assertRejects(_ bytes: [UInt8], _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSONValue.parse(bytes), why, file: file, line: line) { e in
            XCTAssert(e is JSONParseError, why, file: file, line: line)
        }
    }
    func assertRejects(_ s: String, file: StaticString = #filePath, line: UInt = #line) {
        assertRejects(Array(s.utf8), s, file: file, line: line)
    }

    func testCanonicalFormSortsKeysByBytesAndDropsWhiteSpace() throws {
        XCTAssertEqual(try canonical(" { \"b\" : 1 ,\n\"a\":[ true , false,null ], \"B\": {} } "), #"{"B":{},"a":[true,false,null],"b":1}"#)
        // Byte order, not Unicode collation: "Z" (0x5A) < "a" (0x61) < "é" (0xC3 0xA9).
        XCTAssertEqual(try canonical(#"{"é":1,"a":2,"Z":3}"#), #"{"Z":3,"a":2,"é":1}"#)
        // U+FF21 (EF BC A1) before U+1F600 (F0 9F 98 80); UTF-16 order (D83D < FF21) would put it second.
        XCTAssertEqual(try canonical("{\"😀\":1,\"Ａ\":2}"), "{\"Ａ\":2,\"😀\":1}")
    }

    func testRoundTripIsIdentityOnCanonicalText() throws {
        let texts = [
            #"{"a":[1,-2,3.5,1e10,-0,0.0,1E+2],"b":{"c":"d"},"e":""}"#,
            #"{"x-future":{"level":1.50,"list":[null,true]}}"#,
            "[\"line\\nbreak\",\"tab\\t\",\"quote\\\"\",\"back\\\\slash\",\"\\u0000\\u001f\",\"\u{7F}\",\"/\"]",
            "\"ünïcødé ✓ 😀\"", "[]", "{}", "0", "true",
        ]
        for t in texts {
            XCTAssertEqual(try canonical(t), t)
            XCTAssertEqual(try parse(try canonical(t)), try parse(t))
        }
    }

    func testNumbersKeepTheirLiteralText() throws {
        XCTAssertEqual(try parse("1.50"), .number("1.50"))
        XCTAssertEqual(try parse("1E+2"), .number("1E+2"))
        XCTAssertEqual(try parse("18446744073709551615").uint64Value, UInt64.max)
        XCTAssertNil(try parse("18446744073709551616").uint64Value)
        XCTAssertNil(try parse("-1").uint64Value)
        XCTAssertNil(try parse("1.0").uint64Value)
        XCTAssertNil(try parse("1e0").uint64Value)
        for bad in ["01", "-", "1.", ".5", "+1", "1e", "0x10", "NaN", "Infinity", "-01"] { assertRejects(bad) }
    }

    func testEscapesAreDecodedAndWrittenMinimally() throws {
        XCTAssertEqual(try parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9""#), .string("\"\\/\u{8}\u{C}\n\r\tAé"))
        // \b and \f have no short form in canonical output; "/" and U+007F are written raw.
        XCTAssertEqual(try canonical(#""\b\f\/\u007f""#), "\"\\u0008\\u000c/\u{7F}\"")
        XCTAssertEqual(try canonical(#""\u001F\u0000""#), #""\u001f\u0000""#)
        XCTAssertEqual(try canonical(#""\u00E9\u2028""#), "\"é\u{2028}\"")
        for bad in [#""\x""#, #""\u12""#, #""\u12G4""#, #""\'""#, "\"\\"] { assertRejects(bad) }
    }

    func testSurrogatePairsDecodeAndLoneSurrogatesAreRejected() throws {
        XCTAssertEqual(try parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\uD83D\uDE00""#), .string("😀"))
        XCTAssertEqual(try canonical(#""\ud83d\ude00""#), "\"😀\"")
        for bad in [#""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ud83d\ud83d""#, #""\ude00\ud83d""#] {
            assertRejects(bad)
        }
    }

    func testInvalidUTF8AndRawControlCharactersAreRejected() {
        assertRejects([0x22, 0xC3, 0x22], "truncated sequence")
        assertRejects([0x22, 0xC0, 0xAF, 0x22], "overlong \"/\"")
        assertRejects([0x22, 0xED, 0xA0, 0x80, 0x22], "UTF-8 encoded surrogate")
        assertRejects([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "above U+10FFFF")
        assertRejects([0x22, 0xFF, 0x22], "0xFF")
        assertRejects([0xEF, 0xBB, 0xBF] + Array("{}".utf8), "byte order mark")
        assertRejects([0x22, 0x0A, 0x22], "raw line feed in a string")
        assertRejects([0x22, 0x09, 0x22], "raw tab in a string")
        assertRejects([0x22, 0x00, 0x22], "raw NUL in a string")
    }

    /// Strings of every length with a quote, a backslash, a control character or a non-ASCII letter at every place
    /// (the parser scans eight bytes at a time): what the serializer writes parses back, and a raw control character
    /// anywhere is refused.
    func testStringsReadBackWhateverSitsWhereInThem() throws {
        for length in 0..<26 {
            for at in 0..<max(length, 1) {
                for special in ["\"", "\\", "\n", "\u{1}", "é", "\u{7F}", "/"] {
                    var chars = Array(repeating: "a", count: length)
                    if length > 0 { chars[at] = special }
                    let text = chars.joined()
                    let bytes = JSONValue.string(text).canonicalBytes()
                    XCTAssertEqual(try JSONValue.parse(bytes), .string(text), text)
                    if length > 0 {
                        var raw = Array("\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: length) + Array("\"".utf8)
                        raw[1 + at] = 0x1F
                        assertRejects(raw, "a raw control character at \(at) of \(length)")
                    }
                }
            }
        }
    }

    func testDuplicateKeysAreRejected() {
        assertRejects(#"{"a":1,"a":1}"#)
        assertRejects(#"{"a":1,"b":{"c":1,"c":2}}"#)
        assertRejects(#"{"a":1,"\u0061":2}"#)
        // Canonically equivalent names (NFC "é" and NFD "e" + U+0301) are the same name (§1.3).
        assertRejects("{\"\u{E9}\":1,\"e\u{301}\":2}")
        XCTAssertNoThrow(try parse(#"{"a":1,"A":2}"#))
        // Past the sixteenth member too (names are then kept in a set), and just at it.
        let many = (0..<20).map { "\"k\($0)\":\($0)" }
        XCTAssertNoThrow(try parse("{" + many.joined(separator: ",") + "}"))
        for (at, again) in [(15, 3), (16, 0), (19, 15), (19, 18)] {
            var members = many
            members[at] = "\"k\(again)\":0"
            assertRejects(Array(("{" + members.joined(separator: ",") + "}").utf8), "member \(at) repeats \(again)")
        }
        assertRejects("{" + many.joined(separator: ",") + ",\"\u{E9}\":1,\"e\u{301}\":2}")
    }

    func testNestingDepthLimitIs64Values() throws {
        func nested(_ n: Int, _ inner: String) -> String { String(repeating: "[", count: n) + inner + String(repeating: "]", count: n) }
        // A value inside k containers is at depth k + 1; depth 64 is the deepest allowed.
        XCTAssertNoThrow(try parse(nested(64, "")))
        XCTAssertNoThrow(try parse(nested(63, "1")))
        assertRejects(nested(65, ""))
        assertRejects(nested(64, "1"))
        let objects = String(repeating: #"{"a":"#, count: 63) + "1" + String(repeating: "}", count: 63)
        XCTAssertNoThrow(try parse(objects))
        assertRejects(String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64))
    }

    func testStructuralErrorsAreRejected() {
        for bad in ["", " ", "{", "}", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a"}"#, #"{a:1}"#, "{'a':1}", "[1 2]",
                    "{} {}", "{}x", "tru", "nul", "True", "\"unterminated", "[1]]", "/* c */ {}", "\u{A0}{}"] {
            assertRejects(bad)
        }
        // Trailing white space (such as the newline after a file's JSON) is fine.
        XCTAssertNoThrow(try parse("{}\n"))
        XCTAssertNoThrow(try parse("\r\n\t {} \r\n"))
    }
}
