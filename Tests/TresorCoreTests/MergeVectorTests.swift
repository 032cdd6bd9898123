// Runs every case in Spec/vectors/merge, in both side orders (Spec/MERGE.md §12).
import Foundation
import XCTest
@testable import TresorCore

final class MergeVectorTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Spec/vectors/merge")

    func testAllVectors() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(names.isEmpty, "no merge vectors found in \(Self.folder.path)")
        for name in names {
            let bytes = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            guard let v = try JSONValue.parse(Array(bytes)).objectValue else { XCTFail("\(name): not an object"); continue }
            if v["header"] == .bool(true) { try runHeader(name, v) } else { try runEntries(name, v) }
        }
    }

    func entries(_ v: JSONValue?) throws -> [Entry] {
        try (v?.arrayValue ?? []).map { e in
            let o = e.objectValue!
            return try Entry(id: o["id"]!.stringValue!, payload: o["payload"]!)
        }
    }

    func resolutionList(_ rs: [MergeResolution]) -> [String] {
        rs.map { r in
            var detail = ""
            switch r.kind {
            case .renameConflict(let p), .pathCollisionRenamed(let p): detail = " " + p
            default: break
            }
            return "\(r.entryID) \(r.field ?? "-") \(r.kind.name)\(detail)"
        }
    }

    func expectedResolutions(_ v: JSONValue?) -> [String] {
        (v?.arrayValue ?? []).map { r in
            let o = r.objectValue!
            let detail = o["detail"]?.stringValue.map { " " + $0 } ?? ""
            return "\(o["id"]!.stringValue!) \(o["field"]?.stringValue ?? "-") \(o["kind"]!.stringValue!)\(detail)"
        }
    }

    func runEntries(_ name: String, _ v: [String: JSONValue]) throws {
        let base = try entries(v["base"]), ours = try entries(v["ours"]), theirs = try entries(v["theirs"])
        let expected = try entries(v["expected"])
        let deletedOurs = try entries(v["deletedOurs"]), deletedTheirs = try entries(v["deletedTheirs"])
        for (label, o, t, dO, dT) in [("", ours, theirs, deletedOurs, deletedTheirs),
                                       (" (sides swapped)", theirs, ours, deletedTheirs, deletedOurs)] {
            let (result, resolutions) = VaultMerge.merge(base: base, ours: o, theirs: t, deletedVersions: (dO, dT))
            XCTAssertEqual(result.map(\.id), expected.map(\.id), "\(name)\(label): entry ids")
            for (r, e) in zip(result, expected) {
                XCTAssertEqual(String(decoding: r.payloadJSON().canonicalBytes(), as: UTF8.self),
                               String(decoding: e.payloadJSON().canonicalBytes(), as: UTF8.self), "\(name)\(label): payload of \(e.id)")
            }
            XCTAssertEqual(resolutionList(resolutions), expectedResolutions(v["resolutions"]), "\(name)\(label): resolutions")
        }
    }

    func header(_ v: JSONValue?) throws -> VaultHeader? {
        guard let v, v != .null else { return nil }
        return try VaultHeader.parse(v.canonicalBytes())
    }

    func runHeader(_ name: String, _ v: [String: JSONValue]) throws {
        let base = try header(v["base"]), ours = try header(v["ours"])!, theirs = try header(v["theirs"])!
        for (label, o, t) in [("", ours, theirs), (" (sides swapped)", theirs, ours)] {
            if let error = v["error"]?.stringValue {
                XCTAssertThrowsError(try VaultMerge.mergeHeaders(base: base, ours: o, theirs: t), "\(name)\(label)") { e in
                    XCTAssertEqual((e as? CoreError)?.kind, error, "\(name)\(label)")
                }
                continue
            }
            let (merged, resolutions) = try VaultMerge.mergeHeaders(base: base, ours: o, theirs: t)
            XCTAssertEqual(String(decoding: merged.serialized(), as: UTF8.self),
                           String(decoding: try header(v["expected"])!.serialized(), as: UTF8.self), "\(name)\(label): header")
            XCTAssertEqual(resolutionList(resolutions), expectedResolutions(v["resolutions"]), "\(name)\(label): resolutions")
        }
    }
}
