// Examples for each rule of Spec/MERGE.md §3–§9, plus the fixtures the other merge tests share.
import Foundation
import XCTest
@testable import TresorCore

/// Small builders for merge tests. Edits follow Spec/FORMAT.md §5.4 (the old value goes to history)
/// without `Entry.set`, so the time and origin of every write are chosen by the test.
enum MergeFixture {
    static func ts(_ n: Int64) -> Timestamp { Timestamp(milliseconds: 1_800_000_000_000 + n) }
    static func path(_ s: String) -> EntryPath { try! EntryPath(s) }
    static func id(_ n: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", n, n) }

    static func entry(_ id: String, _ p: String, at t: Int64 = 0, _ fields: [String: String] = [:], origin: String = "laptop") -> Entry {
        Entry(id: id, path: path(p), created: ts(t), modified: ts(t),
              fields: fields.mapValues { Field(value: value($0), modified: ts(t), origin: origin) },
              history: [], unknownMembers: [:])
    }

    static func value(_ s: String) -> FieldValue { .text(SecretText(s)) }

    /// Sets or (with nil) deletes a field the way a replica's edit does.
    static func edit(_ e: inout Entry, _ name: String, _ v: String?, at t: Int64, origin: String) {
        let old = e.fields[name]
        if let old, let v, old.value.json.canonicalBytes() == value(v).json.canonicalBytes() { return }
        if old == nil && v == nil { return }
        if let old {
            e.history.append(HistoryItem(field: name, value: old.value, modified: old.modified, origin: old.origin,
                                         replaced: ts(t), reason: v == nil ? "delete" : "edit"))
            e.history = MergeOrder.capped(e.history.sorted { MergeOrder.historyCompare($0, $1) < 0 })
        }
        e.fields[name] = v.map { Field(value: value($0), modified: ts(t), origin: origin) }
        e.modified = max(e.modified, ts(t))
    }

    static func edited(_ e: Entry, _ name: String, _ v: String?, at t: Int64, origin: String) -> Entry {
        var e = e
        edit(&e, name, v, at: t, origin: origin)
        return e
    }

    static func moved(_ e: Entry, to p: String, at t: Int64) -> Entry {
        var e = e
        e.path = path(p)
        e.modified = max(e.modified, ts(t))
        return e
    }

    static func bytes(_ e: Entry?) -> String {
        guard let e else { return "-" }
        return e.id + " " + String(decoding: e.payloadJSON().canonicalBytes(), as: UTF8.self)
    }

    static func bytes(_ es: [Entry]) -> [String] { es.map { bytes($0) } }

    /// Every (field, value) current or in history, as bytes.
    static func values(_ e: Entry) -> Set<[UInt8]> {
        var out = Set<[UInt8]>()
        for (name, f) in e.fields { out.insert(Array(name.utf8) + [0] + f.value.json.canonicalBytes()) }
        for h in e.history { out.insert(Array(h.field.utf8) + [0] + h.value.json.canonicalBytes()) }
        return out
    }
}

final class MergeEntryTests: XCTestCase {
    typealias M = MergeFixture
    let base = M.entry(M.id(1), "mail/work", ["password": "p1", "notes": "n1"])

    func merge(_ b: Entry?, _ o: Entry?, _ t: Entry?, file: StaticString = #filePath, line: UInt = #line) -> (entry: Entry?, resolutions: [MergeResolution]) {
        let r = EntryMerge.merge(base: b, ours: o, theirs: t)
        let swapped = EntryMerge.merge(base: b, ours: t, theirs: o)
        XCTAssertEqual(M.bytes(r.entry), M.bytes(swapped.entry), "not symmetric", file: file, line: line)
        XCTAssertEqual(r.resolutions, swapped.resolutions, "report not symmetric", file: file, line: line)
        return r
    }

    func testChangeOnOneSideIsTaken() {
        let ours = M.edited(base, "password", "p2", at: 10, origin: "laptop")
        let theirs = M.edited(base, "notes", "n2", at: 20, origin: "phone")
        let (e, r) = merge(base, ours, theirs)
        XCTAssertEqual(e?.text("password"), "p2")
        XCTAssertEqual(e?.text("notes"), "n2")
        XCTAssertEqual(e?.modified, M.ts(20))
        XCTAssertEqual(e?.history.map(\.reason), ["edit", "edit"])
        XCTAssertEqual(r, [])
    }

    func testUnchangedSideGivesTheOtherByteForByte() {
        let ours = M.edited(base, "password", "p2", at: 10, origin: "laptop")
        XCTAssertEqual(M.bytes(merge(base, ours, base).entry), M.bytes(ours))
        XCTAssertEqual(M.bytes(merge(base, base, base).entry), M.bytes(base))
        XCTAssertEqual(M.bytes(merge(base, ours, ours).entry), M.bytes(ours))
    }

    func testSameValueOnBothSidesKeepsTheGreaterWriteWithoutReport() {
        let ours = M.edited(base, "password", "p2", at: 10, origin: "laptop")
        let theirs = M.edited(base, "password", "p2", at: 10, origin: "phone")
        let (e, r) = merge(base, ours, theirs)
        XCTAssertEqual(e?.fields["password"]?.origin, "phone")
        XCTAssertEqual(e?.history.count, 1, "the two identical edit items count once")
        XCTAssertEqual(r, [])
    }

    func testConflictLaterWriteWinsAndLoserGoesToHistory() throws {
        let ours = M.edited(base, "password", "secret-ours", at: 11, origin: "laptop")
        let theirs = M.edited(base, "password", "secret-theirs", at: 10, origin: "phone")
        let (e, r) = merge(base, ours, theirs)
        XCTAssertEqual(e?.text("password"), "secret-ours")
        let loser = try XCTUnwrap(e?.history.last)
        XCTAssertEqual(loser, HistoryItem(field: "password", value: .text("secret-theirs"), modified: M.ts(10), origin: "phone",
                                          replaced: M.ts(11), reason: "merge"))
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r.first?.kind, .fieldConflict)
        XCTAssertEqual(r.first?.field, "password")
        XCTAssertEqual(r.first?.winnerOrigin, "laptop")
        XCTAssertEqual(r.first?.winnerModified, M.ts(11))
        XCTAssertEqual(r.first?.loserOrigin, "phone")
        XCTAssertEqual(r.first?.loserModified, M.ts(10))
        let text = try XCTUnwrap(r.first?.description)
        XCTAssertFalse(text.contains("secret"), "a report must not show values: \(text)")
        XCTAssertTrue(text.contains("password") && text.contains("mail/work") && text.contains("phone"))
    }

    func testConflictTiesBrokenByOriginThenValueBytes() {
        let a = M.edited(base, "password", "zzz", at: 10, origin: "laptop")
        let b = M.edited(base, "password", "aaa", at: 10, origin: "phone")
        XCTAssertEqual(merge(base, a, b).entry?.text("password"), "aaa")
        let c = M.edited(base, "password", "abc", at: 10, origin: "laptop")
        let d = M.edited(base, "password", "abd", at: 10, origin: "laptop")
        XCTAssertEqual(merge(base, c, d).entry?.text("password"), "abd")
    }

    func testNFCAndNFDPasswordsAreDifferentValues() {
        let nfc = M.edited(base, "password", "caf\u{E9}", at: 10, origin: "laptop")
        let nfd = M.edited(base, "password", "cafe\u{301}", at: 10, origin: "laptop")
        let (e, r) = merge(base, nfc, nfd)
        XCTAssertEqual(e.map { Array($0.text("password")!.utf8) }, Array("caf\u{E9}".utf8))
        XCTAssertTrue(e!.history.contains { $0.reason == "merge" && Array($0.value.displayText.utf8) == Array("cafe\u{301}".utf8) })
        XCTAssertEqual(r.map(\.kind), [.fieldConflict])
    }

    func testFieldDeleteVersusChangeKeepsTheChange() {
        let ours = M.edited(base, "notes", nil, at: 10, origin: "laptop")
        let theirs = M.edited(base, "notes", "n2", at: 5, origin: "phone")
        let (e, r) = merge(base, ours, theirs)
        XCTAssertEqual(e?.text("notes"), "n2")
        XCTAssertEqual(Set(e!.history.map(\.reason)), ["delete", "edit"])
        XCTAssertEqual(r.map(\.kind), [.fieldDeleteKeptEdit])
    }

    func testFieldDeleteVersusUnchangedDeletes() {
        let ours = M.edited(base, "notes", nil, at: 10, origin: "laptop")
        let theirs = M.edited(base, "password", "p2", at: 11, origin: "phone")
        let (e, r) = merge(base, ours, theirs)
        XCTAssertNil(e?.fields["notes"])
        XCTAssertEqual(e?.text("password"), "p2")
        XCTAssertTrue(e!.history.contains { $0.field == "notes" && $0.reason == "delete" })
        XCTAssertEqual(r, [])
    }

    func testEntryEditVersusDeleteKeepsTheEdit() {
        let theirs = M.edited(base, "password", "p2", at: 10, origin: "phone")
        let (e, r) = merge(base, nil, theirs)
        XCTAssertEqual(M.bytes(e), M.bytes(theirs))
        XCTAssertEqual(r.map(\.kind), [.editDeleteKeptEdit])
        let moved = M.moved(base, to: "mail/elsewhere", at: 10)
        XCTAssertEqual(merge(base, moved, nil).entry?.path.string, "mail/elsewhere", "a move is a change too")
    }

    func testEntryDeletes() {
        XCTAssertNil(merge(base, nil, base).entry)
        XCTAssertEqual(merge(base, nil, base).resolutions, [])
        XCTAssertNil(merge(base, nil, nil).entry)
        XCTAssertEqual(merge(base, nil, nil).resolutions.map(\.kind), [.deleteBoth])
        XCTAssertNil(EntryMerge.merge(base: nil, ours: nil, theirs: nil).entry)
    }

    func testSameIDAddedOnBothSidesMergesAgainstEmptyBase() {
        let ours = M.entry(M.id(7), "bank", at: 3, ["password": "a", "username": "me"], origin: "laptop")
        let theirs = M.entry(M.id(7), "bank", at: 4, ["password": "b", "notes": "n"], origin: "phone")
        let (e, r) = merge(nil, ours, theirs)
        XCTAssertEqual(e?.text("password"), "b")
        XCTAssertEqual(e?.text("username"), "me")
        XCTAssertEqual(e?.text("notes"), "n")
        XCTAssertEqual(e?.created, M.ts(3))
        XCTAssertEqual(e?.modified, M.ts(4))
        XCTAssertEqual(e?.history.map(\.reason), ["merge"])
        XCTAssertEqual(r.map(\.kind), [.fieldConflict])
    }

    func testRenameConflictLaterModifiedThenPathBytes() {
        let a = M.moved(base, to: "mail/a", at: 10), b = M.moved(base, to: "mail/b", at: 11)
        let (e, r) = merge(base, a, b)
        XCTAssertEqual(e?.path.string, "mail/b")
        XCTAssertEqual(r.map(\.kind), [.renameConflict(losingPath: "mail/a")])
        XCTAssertEqual(r.first?.path, "mail/b")
        let c = M.moved(base, to: "mail/c", at: 10)
        XCTAssertEqual(merge(base, a, c).entry?.path.string, "mail/c")
    }

    func testUnknownMembersMergeOneByOne() {
        var b = base; b.unknownMembers = ["x": .integer(1), "z": .string("old"), "w": .array([.integer(1)])]
        var o = b; o.unknownMembers["x"] = .integer(2); o.unknownMembers["y"] = .bool(true); o.unknownMembers["w"] = .array([.integer(2)])
        var t = b; t.unknownMembers = ["x": .integer(3)]; t.modified = M.ts(5)
        let (e, r) = merge(b, o, t)
        XCTAssertEqual(e?.unknownMembers, ["x": .integer(3), "y": .bool(true), "w": .array([.integer(2)])])
        XCTAssertEqual(r.map(\.field), ["w", "x"])
        XCTAssertEqual(Set(r.map(\.kind)), [.unknownMemberConflict])
    }

    func testHistoryIsUnitedAndCappedPerField() {
        var ours = base, theirs = base
        for i in 0..<50 { M.edit(&ours, "password", "o\(i)", at: Int64(10 + 2 * i), origin: "laptop") }
        for i in 0..<50 { M.edit(&theirs, "password", "t\(i)", at: Int64(11 + 2 * i), origin: "phone") }
        M.edit(&theirs, "notes", "n2", at: 5, origin: "phone")
        let (e, _) = merge(base, ours, theirs)
        let pw = e!.history.filter { $0.field == "password" }
        XCTAssertEqual(pw.count, Entry.historyLimitPerField)
        let union = (ours.history + theirs.history + [HistoryItem(field: "password", value: .text("o49"), modified: M.ts(108), origin: "laptop", replaced: M.ts(109), reason: "merge")])
            .filter { $0.field == "password" }.sorted { MergeOrder.historyCompare($0, $1) < 0 }
        XCTAssertEqual(pw, Array(union.suffix(Entry.historyLimitPerField)), "the newest 64 are kept")
        XCTAssertEqual(e!.history.filter { $0.field == "notes" }.count, 1, "other fields are capped separately")
        XCTAssertEqual(e!.history, e!.history.sorted { MergeOrder.historyCompare($0, $1) < 0 })
    }
}
