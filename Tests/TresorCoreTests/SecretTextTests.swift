// SecretText and the payload's zeroing path: byte equality, byte order, wiping, and parsing field values into buffers.
@testable import TresorCore
import XCTest

final class SecretTextTests: XCTestCase {
    func bytes(_ t: SecretText) -> [UInt8] { t.withUTF8 { Array($0) } }

    func testEqualityIsByteEqualityNotCanonicalEquivalence() {
        let nfc: SecretText = "caf\u{E9}", nfd: SecretText = "cafe\u{301}"
        XCTAssertEqual("caf\u{E9}" as String, "cafe\u{301}" as String, "Swift calls them equal")
        XCTAssertNotEqual(nfc, nfd)
        XCTAssertEqual(nfc, SecretText(copying: Array("caf\u{E9}".utf8))!)
        XCTAssertNotEqual(SecretText("abcd"), SecretText("abce"), "same length, last byte differs")
        XCTAssertNotEqual(SecretText("abc"), SecretText("abcd"), "prefix")
        XCTAssertEqual(SecretText(""), SecretText(copying: [UInt8]())!)
        XCTAssertEqual(Set([SecretText("a"), SecretText("a"), nfc, nfd]).count, 3, "hash agrees with ==")
        XCTAssertNotEqual(FieldValue.text(nfc), .text(nfd))
    }

    func testEqualityGoesThroughTheConstantTimeCompare() {
        // `==` is `SecretBytes.constantTimeEquals` (sodium_memcmp); both must agree on every pair.
        let texts: [SecretText] = ["", "a", "b", "ab", "ba", "pässword", "pässwort", "\u{0}", "\u{0}\u{0}"]
        for a in texts { for b in texts {
            XCTAssertEqual(a == b, a.bytes.constantTimeEquals(b.bytes))
            XCTAssertEqual(a == b, bytes(a) == bytes(b))
        } }
    }

    func testOrderIsByteOrder() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "b", "\n", "\"", "\\", "\u{1}", "é", "\u{301}", "€", "😀", "Z"]
        func random() -> String { String(String.UnicodeScalarView((0..<Int.random(in: 0...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })) }
        for _ in 0..<2000 {
            let x = random(), y = random()
            let want = Array(x.utf8) == Array(y.utf8) ? 0 : (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1)
            XCTAssertEqual(SecretText(x).compare(SecretText(y)), want, "\(Array(x.utf8)) vs \(Array(y.utf8))")
            XCTAssertEqual(MergeOrder.compare(x, y), want)
            XCTAssertEqual(MergeOrder.same(x, y), want == 0)
            // Values order by their canonical JSON bytes (escapes included), computed in zeroing memory.
            let jx = JSONValue.string(x).canonicalBytes(), jy = JSONValue.string(y).canonicalBytes()
            let wantJSON = jx == jy ? 0 : (jx.lexicographicallyPrecedes(jy) ? -1 : 1)
            XCTAssertEqual(MergeOrder.compareValues(.text(SecretText(x)), .text(SecretText(y))), wantJSON)
        }
        XCTAssertEqual(MergeOrder.compareValues(.text("zzz"), .list(["a"])), -1, "a string sorts before an array")
        XCTAssertEqual(MergeOrder.compareValues(.list([]), .text("")), 1)
    }

    func testBufferIsZeroedWhenTheLastCopyIsReleased() {
        var seen: [(address: UInt, zero: Bool)] = []
        SecretBytes.releaseProbe = { b in seen.append((UInt(bitPattern: b.baseAddress), b.allSatisfy { $0 == 0 })) }
        defer { SecretBytes.releaseProbe = nil }
        var address: UInt = 0
        do {
            let secret = SecretText(copying: Array("correct horse battery staple".utf8))!
            address = secret.withUTF8 { UInt(bitPattern: $0.baseAddress) }
            let copy = secret
            XCTAssertEqual(copy.count, 28)
            XCTAssertFalse(seen.contains { $0.address == address }, "released while a copy is alive")
        }
        XCTAssertEqual(seen.filter { $0.address == address }.count, 1, "released exactly once")
        XCTAssertEqual(seen.first { $0.address == address }?.zero, true, "zeroed before it was freed")
    }

    func testDescriptionNeverShowsTheText() {
        let s: SecretText = "hunter2"
        XCTAssertFalse("\(s)".contains("hunter2"))
        XCTAssertFalse(String(reflecting: s).contains("hunter2"))
        XCTAssertFalse("\(FieldValue.text(s))".contains("hunter2"))
    }

    func testUTF8CheckAgreesWithTheStandardLibrary() {
        let cases: [[UInt8]] = [
            [], [0x41], [0xC3, 0xA9], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC3], [0xE2, 0x82], [0xE2, 0x82, 0x41],
        ]
        var rng = SystemRandomNumberGenerator()
        let pool: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        let random = (0..<5000).map { _ in (0..<Int.random(in: 0...6, using: &rng)).map { _ in pool.randomElement(using: &rng)! } }
        for b in cases + random {
            let want = String(validating: b, as: UTF8.self) != nil
            XCTAssertEqual(b.withUnsafeBytes { SecretText.isValidUTF8($0) }, want, "\(b)")
            XCTAssertEqual(SecretText(copying: b) != nil, want)
        }
    }

    /// Spec/FORMAT.md §5: the payload parser gives field values (current and in history) as zeroing buffers and
    /// every other string as a String, with the same escapes and the same refusals as the general parser.
    func testPayloadParserDecodesFieldValuesIntoSecretText() throws {
        let payload = #"{"clock":{"a1a1a1a1a1a1a1a1":2},"created":"2024-01-01T00:00:00.000Z","fields":{"password":{"dot":["a1a1a1a1a1a1a1a1",2],"modified":"2024-01-01T00:00:00.000Z","origin":"dev","value":"p\u00e4ss\n\"w\\d\ud83d\ude00"},"urls":{"dot":["a1a1a1a1a1a1a1a1",1],"modified":"2024-01-01T00:00:00.000Z","origin":"dev","value":["https://a.example"]}},"history":[{"dot":["a1a1a1a1a1a1a1a1",1],"field":"password","modified":"2024-01-01T00:00:00.000Z","origin":"dev","reason":"edit","replaced":"2024-01-02T00:00:00.000Z","value":"old"}],"modified":"2024-01-02T00:00:00.000Z","moved":{"dot":["a1a1a1a1a1a1a1a1",1],"modified":"2024-01-01T00:00:00.000Z","origin":"dev"},"path":"a/b","x-future":{"value":"not a field"}}"#
        let input = Array(payload.utf8)
        let parsed = try input.withUnsafeBytes { try JSONValue.parsePayload($0) }
        let general = try JSONValue.parse(input)
        let o = try XCTUnwrap(parsed.objectValue)
        guard case .secret(let pw)? = o["fields"]?.objectValue?["password"]?.objectValue?["value"] else { return XCTFail("password value is not .secret") }
        XCTAssertEqual(bytes(pw), Array(try XCTUnwrap(general.objectValue?["fields"]?.objectValue?["password"]?.objectValue?["value"]?.stringValue).utf8))
        XCTAssertEqual(bytes(pw), Array("päss\n\"w\\d😀".utf8))
        guard case .secret(let old)? = o["history"]?.arrayValue?.first?.objectValue?["value"] else { return XCTFail("history value is not .secret") }
        XCTAssertEqual(old, "old")
        XCTAssertEqual(o["fields"]?.objectValue?["password"]?.objectValue?["origin"], .string("dev"))
        XCTAssertEqual(o["fields"]?.objectValue?["urls"]?.objectValue?["value"], .array([.string("https://a.example")]), "list items are not secret")
        XCTAssertEqual(o["x-future"]?.objectValue?["value"], .string("not a field"), "an unknown member stays as it is")
        XCTAssertEqual(o["path"], .string("a/b"))
        // The same canonical bytes either way, into an array or into zeroing memory.
        XCTAssertEqual(parsed.canonicalBytes(), general.canonicalBytes())
        XCTAssertEqual(parsed.canonicalSecretBytes().withBytes { Array($0) }, general.canonicalBytes())
        let entry = try Entry(id: "id", payload: parsed)
        XCTAssertEqual(entry.clock, Clock(["a1a1a1a1a1a1a1a1": 2]))
        XCTAssertEqual(entry.secret("password"), pw)
        XCTAssertEqual(entry.list("urls"), ["https://a.example"])
    }

    func testPayloadParserRefusesWhatTheGeneralParserRefuses() {
        let values = [#""\ud800""#, #""\udc00x""#, #""a"#, #""\x""#, #""\u12""#, "\"a\u{1}\"", "\"\\"]
        for v in values {
            let text = #"{"fields":{"f":{"value":"# + v + "}}}"
            let bytes = Array(text.utf8)
            XCTAssertThrowsError(try JSONValue.parse(bytes), text)
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try JSONValue.parsePayload($0) }, text)
        }
        for bad: [UInt8] in [[0xC3, 0x28], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xFF]] {
            let bytes = Array(#"{"fields":{"f":{"value":""#.utf8) + bad + Array(#"\n"}}}"#.utf8)
            XCTAssertThrowsError(try JSONValue.parse(bytes), "\(bad)")
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try JSONValue.parsePayload($0) }, "invalid UTF-8 \(bad)")
        }
    }

    func testSealedEntryOpensToTheSameSecretValues() throws {
        let cipher = try EntryCipher(vaultKey: SecretBytes.random(count: 32))
        let first = Change(time: Timestamp(milliseconds: 1_700_000_000_000), origin: "dev", dot: Dot(replica: "a1a1a1a1a1a1a1a1", counter: 1))
        var e = Entry(path: try EntryPath("mail/work"), change: first)
        try e.set("password", .text("s3cr\u{E9}t\n\"quoted\"\u{1}"), change: first)
        try e.set("notes", .text("cafe\u{301}"), change: first)
        try e.set("password", .text("new"), change: Change(time: Timestamp(milliseconds: 1_700_000_000_001), origin: "dev",
                                                           dot: Dot(replica: "a1a1a1a1a1a1a1a1", counter: 2)))
        let opened = try cipher.open(try cipher.seal(e), expectedPath: e.path)
        XCTAssertEqual(opened, e)
        XCTAssertEqual(opened.secret("notes"), "cafe\u{301}")
        XCTAssertNotEqual(opened.secret("notes"), "caf\u{E9}")
        XCTAssertEqual(opened.history.first?.value, .text("s3cr\u{E9}t\n\"quoted\"\u{1}"))
    }

    func testBuilderGrowsAndIndents() {
        var b = SecretByteBuilder(capacity: 16)
        var want: [UInt8] = []
        for i in 0..<300 { b.append(UInt8(i & 0xFF)); want.append(UInt8(i & 0xFF)) }
        b.append("name:\n  ")
        b.append(SecretText("a\nb\n"), indentingLinesBy: "  ")
        want += Array("name:\n  a\n  b\n  ".utf8)
        XCTAssertEqual(b.count, want.count)
        XCTAssertEqual(b.finish().withBytes { Array($0) }, want)
    }

    /// A copy of a builder is a value: appending to one leaves the other's bytes as they were.
    func testACopiedBuilderWritesIntoItsOwnBuffer() {
        var a = SecretByteBuilder(capacity: 64)
        a.append("abc")
        var b = a
        b.append("XYZ")
        a.append("d")
        XCTAssertEqual(a.finish().withBytes { Array($0) }, Array("abcd".utf8))
        XCTAssertEqual(b.finish().withBytes { Array($0) }, Array("abcXYZ".utf8))
    }

    func testPrettyTextIsTheCanonicalLeavesIndented() throws {
        let v = JSONValue.object(["b": .array([.secret("x\ny"), .integer(1), .array([]), .object([:])]), "a": .string("é"), "Z": .null])
        let want = "{\n  \"Z\": null,\n  \"a\": \"é\",\n  \"b\": [\n    \"x\\ny\",\n    1,\n    [],\n    {}\n  ]\n}\n"
        XCTAssertEqual(String(decoding: v.prettySecretBytes(trailingNewline: true).withBytes { Array($0) }, as: UTF8.self), want)
        XCTAssertEqual(JSONValue.array([]).prettySecretBytes().withBytes { Array($0) }, Array("[]".utf8))
    }
}
