// Entry fields, history and its cap, dots and clocks of edits, and payload parsing with preserved unknown members
// (Spec/FORMAT.md §5, §11.8).
@testable import TresorCore
import XCTest

final class EntryTests: XCTestCase {
    let t0 = Timestamp(parsing: "2026-01-01T00:00:00.000Z")!
    static let laptop = "a1a1a1a1a1a1a1a1", phone = "b2b2b2b2b2b2b2b2"
    func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: t0.milliseconds + seconds * 1000) }
    /// Event `n` of `replica` at `seconds` by `origin`; the dot every value it writes gets.
    func change(_ seconds: Int64, _ origin: String, replica: String = EntryTests.laptop, _ n: UInt64) -> Change {
        Change(time: at(seconds), origin: origin, dot: Dot(replica: replica, counter: n))
    }
    /// An empty entry made by the laptop's event 1 at t0.
    func newEntry() throws -> Entry {
        let made = change(0, "laptop", 1)
        return Entry(id: "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b", path: try EntryPath("Email/gmail"), created: t0, modified: t0,
                     fields: [:], history: [], clock: Clock([made.dot.replica: made.dot.counter]),
                     moved: PathWrite(modified: t0, origin: "laptop", dot: made.dot), unknownMembers: [:])
    }

    func testSetMovesTheOldValueToHistory() throws {
        var e = try newEntry()
        let one = change(1, "laptop", 2)
        XCTAssertTrue(try e.set("password", .text("one"), change: one))
        XCTAssertEqual(e.history, [])
        XCTAssertEqual(e.fields["password"], Field(value: .text("one"), modified: at(1), origin: "laptop", dot: one.dot))
        XCTAssertEqual(e.modified, at(1))
        XCTAssertEqual(e.clock, Clock([Self.laptop: 2]))

        XCTAssertFalse(try e.set("password", .text("one"), change: change(2, "phone", replica: Self.phone, 1)), "same value: no change")
        XCTAssertEqual(e.modified, at(1))
        XCTAssertEqual(e.clock, Clock([Self.laptop: 2]), "no change, no event in the entry's clock")

        let two = change(3, "phone", replica: Self.phone, 2)
        XCTAssertTrue(try e.set("password", .text("two"), change: two))
        XCTAssertEqual(e.history, [HistoryItem(field: "password", value: .text("one"), modified: at(1), origin: "laptop",
                                               replaced: at(3), reason: "edit", dot: one.dot)], "the old value keeps its own dot")
        XCTAssertEqual(e.fields["password"]?.origin, "phone")
        XCTAssertEqual(e.fields["password"]?.dot, two.dot)
        XCTAssertEqual(e.clock, Clock([Self.laptop: 2, Self.phone: 2]))

        XCTAssertTrue(try e.set("password", nil, change: change(4, "phone", replica: Self.phone, 3)))
        XCTAssertNil(e.fields["password"])
        XCTAssertEqual(e.history.last?.reason, "delete")
        XCTAssertEqual(e.history.last?.value, .text("two"))
        XCTAssertEqual(e.history.last?.dot, two.dot)
        XCTAssertEqual(e.clock, Clock([Self.laptop: 2, Self.phone: 3]), "a removal is a write the clock includes")
        XCTAssertFalse(try e.set("password", nil, change: change(5, "phone", replica: Self.phone, 4)), "removing an absent field changes nothing")
        XCTAssertEqual(e.clock, Clock([Self.laptop: 2, Self.phone: 3]))
    }

    func testEmptyValuesRemoveTheField() throws {
        var e = try newEntry()
        try e.set("notes", .text("x"), change: change(1, "a", 2))
        try e.set("tags", .list(["t"]), change: change(1, "a", 2))
        try e.set("notes", .text(""), change: change(2, "a", 3))
        try e.set("tags", .list([]), change: change(2, "a", 3))
        XCTAssertEqual(e.fields, [:])
        XCTAssertEqual(e.history.map(\.reason), ["delete", "delete"])
    }

    func testModifiedNeverGoesBack() throws {
        var e = try newEntry()
        try e.set("username", .text("a"), change: change(10, "a", 2))
        try e.set("username", .text("b"), change: change(5, "b", replica: Self.phone, 1))
        XCTAssertEqual(e.modified, at(10))
        XCTAssertEqual(e.fields["username"]?.modified, at(5), "the field keeps the time of its own write")
    }

    func testMoveIsAWriteOfThePath() throws {
        var e = try newEntry()
        let mv = change(7, "phone", replica: Self.phone, 1)
        XCTAssertFalse(e.move(to: try EntryPath("Email/gmail"), change: mv), "the current path: no change")
        XCTAssertEqual(e.clock, Clock([Self.laptop: 1]))
        XCTAssertTrue(e.move(to: try EntryPath("Mail/gmail"), change: mv))
        XCTAssertEqual(e.path.string, "Mail/gmail")
        XCTAssertEqual(e.moved, PathWrite(modified: at(7), origin: "phone", dot: mv.dot))
        XCTAssertEqual(e.clock, Clock([Self.laptop: 1, Self.phone: 1]))
        XCTAssertEqual(e.modified, at(7))
        // Canonically equivalent paths are other bytes: a move (Spec/MERGE.md §3 compares bytes).
        XCTAssertTrue(e.move(to: try EntryPath("Caf\u{E9}"), change: change(8, "phone", replica: Self.phone, 2)))
        XCTAssertFalse(e.move(to: try EntryPath("Caf\u{E9}"), change: change(9, "phone", replica: Self.phone, 3)))
    }

    func testANewEntryIsOneWriteOfItsCreator() throws {
        let made = change(3, "laptop", 9)
        var e = Entry(path: try EntryPath("x/y"), change: made)
        XCTAssertTrue(Envelope.isCanonicalUUID(e.id))
        XCTAssertEqual(e.clock, Clock([Self.laptop: 9]))
        XCTAssertEqual(e.moved, PathWrite(modified: at(3), origin: "laptop", dot: made.dot))
        XCTAssertEqual(e.created, at(3))
        try e.set("password", .text("p"), change: made)
        XCTAssertEqual(e.fields["password"]?.dot, made.dot)
        XCTAssertEqual(e.clock, Clock([Self.laptop: 9]), "fields written by the creating event add no event")
        XCTAssertNotEqual(Entry(path: try EntryPath("x/y"), change: made).id, e.id, "each new entry has its own id")
    }

    func testRedottingGivesPlannedValuesTheTransactionsDot() throws {
        let planned = Change(time: at(1), origin: "import", dot: .placeholder)
        var e = Entry(path: try EntryPath("imported"), change: planned)
        try e.set("password", .text("p"), change: planned)
        try e.set("username", .text("u"), change: planned)
        try e.set("username", .text("u2"), change: planned)
        let real = Dot(replica: Self.phone, counter: 4)
        let r = e.redotted(to: real)
        XCTAssertEqual(r.fields.values.map(\.dot), [real, real])
        XCTAssertEqual(r.history.map(\.dot), [real])
        XCTAssertEqual(r.moved.dot, real)
        XCTAssertEqual(r.clock, Clock([Self.phone: 4]), "the placeholder replica is gone from the clock")
        // What it writes parses: every dot is covered by the clock.
        XCTAssertNoThrow(try Entry(id: r.id, payload: r.payloadJSON()))
        XCTAssertThrowsError(try Entry(id: r.id, payload: { var e2 = r; e2.clock = Clock([Self.laptop: 1]); return e2.payloadJSON() }()))
    }

    func testHistoryKeepsTheNewest64PerField() throws {
        var e = try newEntry()
        for i in 0...100 { try e.set("password", .text("p\(i)"), change: change(Int64(i), "a", UInt64(i) + 2)) }
        try e.set("username", .text("u0"), change: change(200, "a", 200))
        try e.set("username", .text("u1"), change: change(201, "a", 201))
        XCTAssertEqual(Entry.historyLimitPerField, 64)
        let passwords = e.history.filter { $0.field == "password" }
        XCTAssertEqual(passwords.count, 64)
        XCTAssertEqual(passwords.first?.value, .text("p36"), "p0…p35 were dropped, p36…p99 kept; p100 is current")
        XCTAssertEqual(passwords.last?.value, .text("p99"))
        XCTAssertEqual(e.history.filter { $0.field == "username" }.count, 1, "the cap is per field")
        XCTAssertEqual(e.history, e.history.sorted(by: HistoryItem.canonicalOrder), "history is kept oldest first")
    }

    /// Spec/FORMAT.md §11.8: one history item per value — one write of one value, whatever its dot (two conversions of
    /// one vault give one write two dots); the greatest item in history order is kept.
    func testHistoryKeepsOneItemPerWrite() throws {
        var e = try newEntry()
        let old = HistoryItem(field: "notes", value: .text("v"), modified: at(1), origin: "a", replaced: at(2), reason: "edit",
                              dot: Dot(replica: Self.laptop, counter: 1))
        var sameWriteOtherDot = old
        sameWriteOtherDot.dot = Dot(replica: Self.phone, counter: 1)
        var otherWrite = old
        otherWrite.modified = at(3)
        e.clock = Clock([Self.laptop: 1, Self.phone: 1])
        e.history = [sameWriteOtherDot, old, otherWrite, old]
        e.capHistory()
        XCTAssertEqual(e.history, [sameWriteOtherDot, otherWrite], "one item for the write of at(1), the one with the greater dot")
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
            XCTAssertThrowsError(try e.set(name, value, change: change(1, "a", 2)), name) { err in
                XCTAssertEqual((err as? CoreError)?.kind, "invalid-field", name)
            }
        }
        XCTAssertEqual(e.fields, [:])
        XCTAssertEqual(e.clock, Clock([Self.laptop: 1]), "a refused edit records nothing")
        XCTAssertNoThrow(try e.set(String(repeating: "n", count: 64), .text("x"), change: change(1, "a", 2)))
        XCTAssertNoThrow(try e.set("Kontonummer (alt)", .text("x"), change: change(1, "a", 2)))
        XCTAssertEqual(e.customFieldNames, ["Kontonummer (alt)", String(repeating: "n", count: 64)])
    }

    func testPayloadRoundTripKeepsUnknownMembers() throws {
        var e = try newEntry()
        try e.set("urls", .list(["https://a", "https://b"]), change: change(1, "a", 2))
        try e.set("password", .text("one"), change: change(1, "a", 2))
        try e.set("password", .text("two"), change: change(2, "b", replica: Self.phone, 1))
        e.unknownMembers = ["x-future": .object(["n": .number("1.50"), "s": .string("é\u{0}")]), "zz": .array([])]
        let bytes = e.payloadJSON().canonicalBytes()
        let back = try Entry(id: e.id, payload: try JSONValue.parse(bytes))
        XCTAssertEqual(back, e)
        XCTAssertTrue(back.isIdentical(to: e))
        XCTAssertEqual(back.payloadJSON().canonicalBytes(), bytes)
        XCTAssert(String(decoding: bytes, as: UTF8.self).contains(#""x-future":{"n":1.50,"s":"é\u0000"}"#))
        XCTAssert(String(decoding: bytes, as: UTF8.self).contains(#""clock":{"a1a1a1a1a1a1a1a1":2,"b2b2b2b2b2b2b2b2":1}"#))
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
        let dot: JSONValue = .array([.string(Self.laptop), .integer(1)])
        let field: (JSONValue) -> JSONValue = {
            .object(["value": $0, "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a"), "dot": dot])
        }
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
        check("malformed", "field without origin") {
            $0["fields"] = .object(["notes": .object(["value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"), "dot": dot])])
        }
        check("malformed", "history item without reason") {
            $0["history"] = .array([.object(["field": .string("notes"), "value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"),
                                             "origin": .string("a"), "replaced": .string("2026-01-01T00:00:00.000Z"), "dot": dot])])
        }
        // Version 5 (§11.8): clock, moved and a covered dot on every value.
        check("malformed", "no clock") { $0["clock"] = nil }
        check("malformed", "no moved") { $0["moved"] = nil }
        check("malformed", "field without dot") {
            $0["fields"] = .object(["notes": .object(["value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a")])])
        }
        check("malformed", "field dot not covered") {
            $0["fields"] = .object(["notes": .object(["value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a"),
                                                      "dot": .array([.string(Self.phone), .integer(1)])])])
        }
        check("malformed", "dot 0") {
            $0["fields"] = .object(["notes": .object(["value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a"),
                                                      "dot": .array([.string(Self.laptop), .integer(0)])])])
        }
        check("malformed", "clock of an uppercase replica id") { $0["clock"] = .object(["A1A1A1A1A1A1A1A1": .integer(1)]) }
    }

    func testReadersKeepWhatWritersWouldNotWrite() throws {
        // More than 64 history items, an unknown reason, and an empty text: readers accept all three (§5.3, §5.4).
        var o = try newEntry().payloadJSON().objectValue!
        let item: JSONValue = .object(["field": .string("notes"), "value": .string("v"), "modified": .string("2026-01-01T00:00:00.000Z"),
                                       "origin": .string("a"), "replaced": .string("2026-01-01T00:00:01.000Z"), "reason": .string("import"),
                                       "dot": .array([.string(Self.laptop), .integer(1)])])
        o["history"] = .array(Array(repeating: item, count: 70))
        o["fields"] = .object(["notes": .object(["value": .string(""), "modified": .string("2026-01-01T00:00:00.000Z"), "origin": .string("a"),
                                                 "dot": .array([.string(Self.laptop), .integer(1)])])])
        let e = try Entry(id: "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b", payload: .object(o))
        XCTAssertEqual(e.history.count, 70)
        XCTAssertEqual(e.text("notes"), "")
    }
}
