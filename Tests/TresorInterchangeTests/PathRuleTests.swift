// The path rule (escaping is valid and reversible, collisions get suffixes) and import planning against a vault.
import Foundation
import TestSupport
@testable import TresorCore
@testable import TresorInterchange
import XCTest

final class PathRuleTests: XCTestCase {
    func testEscapeTable() {
        let cases: [(String, Bool, String)] = [
            ("gmail", false, "gmail"), ("a/b: c", false, "a%2Fb%3A c"), (".hidden", false, "%2Ehidden"),
            ("trail. ", false, "trail%2E%20"), (" lead", false, "%20lead"), ("x\ny", false, "x%0Ay"),
            ("100% sure", false, "100% sure"), ("50%25", false, "50%2525"), ("x.json", true, "x%2Ejson"),
            ("x.json", false, "x.json"), ("", false, "untitled"), ("<>|*?\"\\", false, "%3C%3E%7C%2A%3F%22%5C"),
            ("..", false, "%2E%2E"), ("tab\there", false, "tab%09here"), ("ctl\u{85}", false, "ctl%C2%85"),
            ("line\u{2028}sep", false, "line%E2%80%A8sep"), ("Caf\u{65}\u{301}", false, "Caf\u{e9}"),
        ]
        for (raw, folder, expected) in cases {
            XCTAssertEqual(PathRule.escape(raw, folder: folder), expected, "\(raw.debugDescription)")
        }
    }

    /// For any name: the escaped form is a valid path component and percent-decoding gives the name back.
    func testEscapingIsValidAndReversible() throws {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("ab .%/\\:*?\"<>|\n\t\u{7F}\u{85}\u{2029}é☃0F-_json")
        for _ in 0..<2000 {
            let n = Int(rng.next() % 12)
            let raw = String((0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }).precomposedStringWithCanonicalMapping
            for folder in [false, true] {
                let e = PathRule.escape(raw, folder: folder)
                XCTAssertNoThrow(try EntryPath(folder ? e + "/x" : e), "\(raw.debugDescription) -> \(e)")
                if !raw.isEmpty { XCTAssertEqual(PathRule.decode(e), raw, "\(raw.debugDescription) -> \(e)") }
            }
        }
    }

    func testLongAndDeepNames() throws {
        let long = String(repeating: "é", count: 150)
        let r = PathRule.path(prefix: [], folder: [], title: long)
        XCTAssertLessThanOrEqual(try XCTUnwrap(r.path).utf8.count, 100)
        XCTAssertEqual(r.notes, [.truncated(original: long)])
        let deep = PathRule.path(prefix: ["Imported"], folder: (1...20).map { "f\($0)" }, title: "leaf")
        let parts = try XCTUnwrap(deep.path).split(separator: "/")
        XCTAssertEqual(parts.count, EntryPath.maxDepth)
        XCTAssertEqual(parts.last, "f15%2Ff16%2Ff17%2Ff18%2Ff19%2Ff20%2Fleaf")
        XCTAssertEqual(PathRule.decode(String(parts.last!)), "f15/f16/f17/f18/f19/f20/leaf")
        XCTAssertEqual(PathRule.suffixed("A/b", 2), "A/b (2)")
    }

    /// A vault stand-in: entries by path, case collisions as EntryStore reports them.
    struct FakeVault {
        var entries: [String: Entry] = [:]
        var target: ImportTarget {
            let entries = self.entries
            return ImportTarget(entry: { entries[$0.string] }, caseCollision: { p in
                for (i, _) in p.components.enumerated() {
                    let mine = p.components[...i].joined(separator: "/")
                    if let other = entries.keys.map({ $0.split(separator: "/").prefix(i + 1).joined(separator: "/") })
                        .first(where: { $0.lowercased() == mine.lowercased() && $0 != mine }) { return other }
                }
                return nil
            }, origin: "device-1")
        }
    }

    func item(_ folder: [String], _ title: String, password: String) -> InterchangeEntry {
        var e = InterchangeEntry(folder: folder, title: title)
        e.password = SecretBytes(utf8: password)
        e.username = "user"
        return e
    }

    func testCollisionsExistingEntriesAndForce() throws {
        let now = Timestamp(milliseconds: 1_700_000_000_000)
        var existing = Entry(path: try EntryPath("Email/gmail"), change: Change(time: Timestamp(milliseconds: 1_600_000_000_000), origin: "test", dot: .placeholder))
        try existing.set("password", .text("vault-pass"), change: Change(time: existing.created, origin: "old-device", dot: .placeholder))
        try existing.set("username", .text("user"), change: Change(time: existing.created, origin: "old-device", dot: .placeholder))
        try existing.set("policy", .text("length=20"), change: Change(time: existing.created, origin: "old-device", dot: .placeholder))
        var same = Entry(path: try EntryPath("Email/same"), change: Change(time: existing.created, origin: "test", dot: .placeholder))
        try same.set("password", .text("same-pass"), change: Change(time: existing.created, origin: "old-device", dot: .placeholder))
        try same.set("username", .text("user"), change: Change(time: existing.created, origin: "old-device", dot: .placeholder))
        let vault = FakeVault(entries: ["Email/gmail": existing, "Email/same": same])
        let doc = InterchangeDocument(entries: [
            item(["email"], "new", password: "n1"),        // folder spelled like the vault's "Email"
            item(["Email"], "New", password: "n2"),        // same path as the first, ignoring case: suffixed
            item(["Email"], "gmail", password: "imported"), // exists
            item(["Email"], "same", password: "same-pass"), // identical
        ], skipped: [("Trash/x", .deleted)])

        let plan = try ImportPlan.make(doc, prefix: [], force: false, target: vault.target, now: now)
        XCTAssertEqual(plan.additions.map(\.path.string), ["Email/new", "Email/New (2)"])
        XCTAssertEqual(plan.outcomes.first { $0.source == "email/new" }?.renames, [.folderCase(original: "email", used: "Email")])
        XCTAssertEqual(plan.outcomes.first { $0.source == "Email/New" }?.renames, [.suffixed(original: "Email/New")])
        XCTAssertEqual(plan.outcomes.first { $0.source == "Email/gmail" }?.skipReason, .exists(path: "Email/gmail"))
        XCTAssertEqual(plan.outcomes.first { $0.source == "Email/same" }?.skipReason, .identical(path: "Email/same"))
        XCTAssertEqual(plan.outcomes.first { $0.source == "Trash/x" }?.skipReason, .deleted)
        XCTAssertTrue(plan.updates.isEmpty)

        let forced = try ImportPlan.make(doc, prefix: [], force: true, target: vault.target, now: now)
        let updated = try XCTUnwrap(forced.updates.first)
        XCTAssertEqual(updated.id, existing.id)
        XCTAssertEqual(updated.text("password"), "imported")
        XCTAssertEqual(updated.text("policy"), "length=20", "a policy the import does not have is kept")
        XCTAssertEqual(updated.history.map { "\($0.field)=\($0.value.displayText) \($0.replaced)" }, ["password=vault-pass \(now)"])
        XCTAssertEqual(forced.outcomes.first { $0.source == "Email/gmail" }?.changedFields, ["password"])
        XCTAssertEqual(forced.outcomes.first { $0.source == "Email/same" }?.skipReason, .identical(path: "Email/same"))
    }

    func testCustomFieldNamesAndHistoryConversion() throws {
        var e = InterchangeEntry(folder: [], title: "x")
        e.fields = [InterchangeField(name: "password", value: SecretBytes(utf8: "a")),
                    InterchangeField(name: "a=b", value: SecretBytes(utf8: "b")),
                    InterchangeField(name: ".dot", value: SecretBytes(utf8: "c")),
                    InterchangeField(name: "dup", value: SecretBytes(utf8: "d1")),
                    InterchangeField(name: "dup", value: SecretBytes(utf8: "d2"))]
        e.history = [InterchangeHistoryItem(field: "urls", value: SecretBytes(utf8: "https://a\nhttps://b"), modified: nil,
                                            replaced: Timestamp(milliseconds: 5000))]
        let (entry, notes) = try EntryConversion.entry(from: e, path: try EntryPath("x"), change: Change(time: Timestamp(milliseconds: 9000), origin: "d", dot: .placeholder))
        XCTAssertEqual(entry.customFieldNames, ["%2Edot", "a%3Db", "dup", "dup (2)", "password (2)"])
        XCTAssertEqual(notes, [.fieldRenamed(from: "password", to: "password (2)"), .fieldRenamed(from: "a=b", to: "a%3Db"),
                               .fieldRenamed(from: ".dot", to: "%2Edot"), .fieldRenamed(from: "dup", to: "dup (2)")])
        XCTAssertEqual(entry.history.first?.value, .list(["https://a", "https://b"]))
    }
}

final class ISOTimeTests: XCTestCase {
    func testVendorTimeForms() {
        let cases: [(String, String?)] = [
            ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000Z"), ("2024-01-02T03:04:05.678Z", "2024-01-02T03:04:05.678Z"),
            ("2024-01-02T03:04:05.6Z", "2024-01-02T03:04:05.600Z"), ("2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05.123Z"),
            ("2024-01-02T03:04:05+02:00", "2024-01-02T01:04:05.000Z"), ("2024-01-02T03:04:05-01:30", "2024-01-02T04:34:05.000Z"),
            ("2024-13-02T03:04:05Z", nil), ("2024-01-02", nil), ("2024-01-02T03:04:05", nil), ("2024-01-02T03:04:05.Z", nil), ("", nil),
        ]
        for (text, expected) in cases { XCTAssertEqual(ISOTime.parse(text)?.description, expected, text) }
    }
}
