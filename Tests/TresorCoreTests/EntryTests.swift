// Entry fields, history and its cap, and payload parsing with preserved unknown members (Spec/FORMAT.md §5).
@testable import TresorCore
import XCTest

final class EntryTests: XCTestCase {
    let t0 = Timestamp(parsing: "2026-01-01T00:00:00.000Z")!
    func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: t0.milliseconds + seconds * 1000) }
    func newEntry() throws -> Entry {
        Entry(id: "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b", path: try EntryPath("Email/gmail"), created: t0, modified: t0,
              fields: [:], history: [], unknownMembers: [:])
    }

    func testSetMovesTheOldValueToHistory() throws {
        var e = try newEntry()
        XCTAssertTrue(try e.set("password", .text("one"), at: at(1), origin: "laptop"))
        XCTAssertEqual(e.history, [])
        XCTAssertEqual(e.fields["password"], Field(value: .text("one"), modified: at(1), origin: "laptop"))
        XCTAssertEqual(e.modified, at(1))

        XCTAssertFalse(try e.set("password", .text("one"), at: at(2), origin: "phone"), "same value: no change")
        XCTAssertEqual(e.modified, at(1))

        XCTAssertTrue(try e.set("password", .text("two"), at: at(3), origin: "phone"))
        XCTAssertEqual(e.history, [HistoryItem(field: "password", value: .text("one"), modified: at(1), origin: "laptop",
                                               replaced: at(3), reason: "edit")])
        XCTAssertEqual(e.fields["password"]?.origin, "phone")

        XCTAssertTrue(try e.set("password", nil, at: at(4), origin: "phone"))
        XCTAssertNil(e.fields["password"])
        XCTAssertEqual(e.history.last?.reason, "delete")
        XCTAssertEqual(e.history.last?.value, .text("two"))
        XCTAssertFalse(try e.set("password", nil, at: at(5), origin: "phone"), "removing an absent field changes nothing")
    }

    func testEmptyValuesRemoveTheField() throws {
        var e = try newEntry()
        try e.set("notes", .text("x"), at: at(1), origin: "a")
        try e.set("tags", .list(["t"]), at: at(1), origin: "a")
        try e.set("notes", .text(""), at: at(2), origin: "a")
        try e.set("tags", .list([]), at: at(2), origin: "a")
        XCTAssertEqual(e.fields, [:])
        XCTAssertEqual(e.history.map(\.reason), ["delete", "delete"])
    }

    func testModifiedNeverGoesBack() throws {
        var e = try newEntry()
        try e.set("username", .text("a"), at: at(10), origin: "a")
        try e.set("username", .text("b"), at: at(5), origin: "b")
        XCTAssertEqual(e.modified, at(10))
    }

    func testHistoryKeepsTheNewest64PerField() throws {
        var e = try newEntry()
        for i in 0...100 { try e.set("password", .text("p\(i)"), at: at(Int64(i)), origin: "a") }
        try e.set("username", .text("u0"), at: at(200), origin: "a")
        try e.set("username", .text("u1"), at: at(201), origin: "a")
        XCTAssertEqual(Entry.historyLimitPerField, 64)
        let passwords = e.history.filter { $0.field == "password" }
        XCTAssertEqual(passwords.count, 64)
        XCTAssertEqual(passwords.first?.value, .text("p36"), "p0…p35 were dropped, p36…p99 kept; p100 is current")
        XCTAssertEqual(passwords.last?.value, .text("p99"))
        XCTAssertEqual(e.history.filter { $0.field == "username" }.count, 1, "the cap is per field")
        XCTAssertEqual(e.history, e.history.sorted(by: HistoryItem.canonicalOrder), "history is kept oldest first")
    }

    func testSetRefusesBadNamesAndShapes() throws {
        var e = try newEntry()
        let bad: [(String, FieldValue)] = [
            ("", .text("x")), (String(repeating: "n", count: 65), .text("x")), (".hidden", .text("x")),
            (".\u{301}x", .text("x")), ("a=b", .text("x")), ("a=\u{301}", .text("x")), ("a\nb", .text("x")),
            ("a\u{7F}", .text("x")), ("urls", .text("https://x")), ("tags", .text("t")), ("password", .list(["x"])),
            ("PIN", .list(["1"])),
        ]
        for (name, value) in bad {
            XCTAssertThrowsError(try e.set(name, value, at: at(1), origin: "a"), name) { err in
                XCTAssertEqual((err as? CoreError)?.kind, "invalid-field", name)
            }
        }
        XCTAssertEqual(e.fields, [:])
        XCTAssertNoThrow(try e.set(String(repeating: "n", count: 64), .text("x"), at: at(1), origin: "a"))
        XCTAssertNoThrow(try e.set("Kontonummer (alt)", .text("x"), at: at(1), origin: "a"))
        XCTAssertEqual(e.customFieldNames, ["Kontonummer (alt)", String(repeating: "n", count: 64)])
    }

    func testPayloadRoundTripKeepsUnknownMembers() throws {
        var e = try newEntry()
        try e.set("urls", .list(["https://a", "https://b"]), at: at(1), origin: "a")
        try e.set("password", .text("one"), at: at(1), origin: "a")
        try e.set("password", .text("two"), at: at(2), origin: "b")
        e.unknownMembers = ["x-future": .object(["n": .number("1.50"), "s": .string("é\u{0}")]), "zz": .array([])]
        let bytes = e.payloadJSON().canonicalBytes()
        let back = try Entry(id: e.id, payload: try JSONValue.parse(bytes))
        XCTAssertEqual(back, e)
        XCTAssertEqual(back.payloadJSON().canonicalBytes(), bytes)
        XCTAssert(String(decoding: bytes, as: UTF8.self).contains(#""x-future":{"n":1.50,"s":"é\u0000"}"#))
    }

    func testPayloadShapeErrors() throws {
        let good = try newEntry().payloadJSON().objectValue!
        func check(_ kind: String, _ why: String, _ change: (inout [String: JSONValue]) -> Void) {
            var o = good
            change(&o)
            XCTAssertThrowsError(try Entry(id: "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b", payload: .object(o)), why) { err in
                XCTAssertEqual((err as? CoreError)?.kind, kind, why)
            }
        }
        let field: (JSONValue) -> JSONValue = { .object(["value": $0, "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a")]) }
        check("malformed", "no path") { $0["path"] = nil }
        check("invalid-path", "bad path") { $0["path"] = .string("../x") }
        check("malformed", "no fields") { $0["fields"] = nil }
        check("malformed", "no history") { $0["history"] = nil }
        check("malformed", "no created") { $0["created"] = nil }
        check("malformed", "bad modified") { $0["modified"] = .string("2026-01-01T00:00:00Z") }
        check("invalid-field", "bad field name") { $0["fields"] = .object([".x": field(.string("v"))]) }
        check("malformed", "urls as text") { $0["fields"] = .object(["urls": field(.string("v"))]) }
        check("malformed", "notes as list") { $0["fields"] = .object(["notes": field(.array([.string("v")]))]) }
        check("malformed", "list of numbers") { $0["fields"] = .object(["tags": field(.array([.number("1")]))]) }
        check("malformed", "field without origin") { $0["fields"] = .object(["notes": .object(["value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z")])]) }
        check("malformed", "history item without reason") {
            $0["history"] = .array([.object(["field": .string("notes"), "value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"),
                                             "origin": .string("a"), "replaced": .string("2026-01-01T00:00:00.000Z")])])
        }
    }

    func testReadersKeepWhatWritersWouldNotWrite() throws {
        // More than 64 history items, an unknown reason, and an empty text: readers accept all three (§5.3, §5.4).
        var o = try newEntry().payloadJSON().objectValue!
        let item: JSONValue = .object(["field": .string("notes"), "value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"),
                                       "origin": .string("a"), "replaced": .string("2026-01-01T00:00:01.000Z"), "reason": .string("import")])
        o["history"] = .array(Array(repeating: item, count: 70))
        o["fields"] = .object(["notes": .object(["value": .string(""), "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a")])])
        let e = try Entry(id: "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b", payload: .object(o))
        XCTAssertEqual(e.history.count, 70)
        XCTAssertEqual(e.text("notes"), "")
    }
}
