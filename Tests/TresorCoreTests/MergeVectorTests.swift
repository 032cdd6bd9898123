// Spec/vectors/merge/*.json against TresorCore, one test case per vector, in both orders of the sides (Spec/MERGE.md §12).
import Foundation
import Testing
@testable import TresorCore

@Suite struct MergeVectorTests {
    static let names = VectorFiles.names("merge")

    @Test func thereAreEntryAndHeaderVectors() throws {
        let vectors = try Self.names.map { try VectorFiles.load($0, "merge") }
        #expect(vectors.contains { $0["header"] == .bool(true) })
        #expect(vectors.contains { $0["header"] == nil && $0["scopeHeader"] == nil })
        #expect(vectors.contains { $0["scopeHeader"] == .bool(true) })
    }

    @Test(arguments: names) func vector(_ name: String) throws {
        let v = try VectorFiles.load(name, "merge")
        if v["header"] == .bool(true) { try runHeader(v) }
        else if v["scopeHeader"] == .bool(true) { try runScopeHeader(v) }
        else { try runEntries(v) }
    }

    func entries(_ v: JSONValue?) throws -> [Entry] {
        try (v?.arrayValue ?? []).map { e in
            guard let o = e.objectValue, let id = o["id"]?.stringValue, let payload = o["payload"] else {
                throw VectorError("an entry is not {\"id\", \"payload\"}")
            }
            return try Entry(id: id, payload: payload)
        }
    }

    /// The records as the vector states them: every member of Spec/MERGE.md §8 but the sentence for people.
    func records(_ rs: [MergeResolution]) -> [String] {
        rs.map { r in
            var o = r.json.objectValue ?? [:]
            o["description"] = nil
            return String(decoding: JSONValue.object(o).canonicalBytes(), as: UTF8.self)
        }
    }

    func expectedRecords(_ v: JSONValue?) -> [String] {
        (v?.arrayValue ?? []).map { String(decoding: $0.canonicalBytes(), as: UTF8.self) }
    }

    func runEntries(_ v: [String: JSONValue]) throws {
        let base = try entries(v["base"]), ours = try entries(v["ours"]), theirs = try entries(v["theirs"])
        let expected = try entries(v["expected"])
        let deletedOurs = try entries(v["deletedOurs"]), deletedTheirs = try entries(v["deletedTheirs"])
        for (label, o, t, dO, dT) in [("", ours, theirs, deletedOurs, deletedTheirs),
                                       (" (sides swapped)", theirs, ours, deletedTheirs, deletedOurs)] {
            let (result, resolutions) = VaultMerge.merge(base: base, ours: o, theirs: t, deletedVersions: (dO, dT))
            #expect(result.map(\.id) == expected.map(\.id), "entry ids\(label)")
            for (r, e) in zip(result, expected) {
                #expect(String(decoding: r.payloadJSON().canonicalBytes(), as: UTF8.self)
                        == String(decoding: e.payloadJSON().canonicalBytes(), as: UTF8.self), "payload of \(e.id)\(label)")
            }
            #expect(records(resolutions) == expectedRecords(v["resolutions"]), "records\(label)")
        }
    }

    func header(_ v: JSONValue?) throws -> VaultHeader? {
        guard let v, v != .null else { return nil }
        return try VaultHeader.parse(v.canonicalBytes())
    }

    func runHeader(_ v: [String: JSONValue]) throws {
        let base = try header(v["base"])
        guard let ours = try header(v["ours"]), let theirs = try header(v["theirs"]) else { throw VectorError("no ours or theirs") }
        for (label, o, t) in [("", ours, theirs), (" (sides swapped)", theirs, ours)] {
            if let error = v["error"]?.stringValue {
                do {
                    _ = try VaultMerge.mergeHeaders(base: base, ours: o, theirs: t)
                    Issue.record("merged, expected \(error)\(label)")
                } catch let e as CoreError {
                    #expect(e.kind == error, "\(label)")
                }
                continue
            }
            let (merged, resolutions) = try VaultMerge.mergeHeaders(base: base, ours: o, theirs: t)
            let want = try header(v["expected"])
            #expect(String(decoding: merged.serialized(), as: UTF8.self)
                    == want.map { String(decoding: $0.serialized(), as: UTF8.self) }, "header\(label)")
            #expect(records(resolutions) == expectedRecords(v["resolutions"]), "records\(label)")
        }
    }

    func scopeHeader(_ v: JSONValue?) throws -> ScopeHeader? {
        guard let v, v != .null else { return nil }
        return try ScopeHeader.parse(v.canonicalBytes() + [0x0A])
    }

    /// Spec/MERGE.md §14.3: `expected` is compared as canonical bytes (a merged header has no `auth` yet).
    func runScopeHeader(_ v: [String: JSONValue]) throws {
        let base = try scopeHeader(v["base"])
        guard let ours = try scopeHeader(v["ours"]), let theirs = try scopeHeader(v["theirs"]) else { throw VectorError("no ours or theirs") }
        for (label, o, t) in [("", ours, theirs), (" (sides swapped)", theirs, ours)] {
            if let error = v["error"]?.stringValue {
                do {
                    _ = try ScopeMerge.mergeHeaders(base: base, ours: o, theirs: t)
                    Issue.record("merged, expected \(error)\(label)")
                } catch let e as CoreError {
                    #expect(e.kind == error, "\(label)")
                }
                continue
            }
            let (merged, resolutions) = try ScopeMerge.mergeHeaders(base: base, ours: o, theirs: t)
            #expect(String(decoding: merged.serialized(), as: UTF8.self)
                    == String(decoding: (v["expected"]?.canonicalBytes() ?? []) + [0x0A], as: UTF8.self), "scope header\(label)")
            #expect(records(resolutions) == expectedRecords(v["resolutions"]), "records\(label)")
        }
    }
}
