// Spec/vectors/*.json against TresorCore, one test case per vector: successes checked exactly, failures by CoreError.kind.
import Foundation
import Testing
@testable import TresorCore

/// The committed vectors, found from this file's path (Tests/TresorCoreTests → repository root → Spec/vectors),
/// or the folder `TRESOR_VECTORS` names (vectors written by another implementation, or candidates).
enum VectorFiles {
    static let root = ProcessInfo.processInfo.environment["TRESOR_VECTORS"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/vectors")

    /// Names (without `.json`) of the vectors in `folder` below Spec/vectors, sorted.
    static func names(_ folder: String = "") -> [String] {
        let dir = root.appendingPathComponent(folder)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The vector's top-level object.
    static func load(_ name: String, _ folder: String = "") throws -> [String: JSONValue] {
        let data = try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name + ".json"))
        guard let v = try JSONValue.parse([UInt8](data)).objectValue else { throw VectorError("\(name): not an object") }
        return v
    }
}

struct VectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite struct FormatVectorTests {
    static let names = VectorFiles.names()

    @Test func thereAreSuccessAndFailureVectors() throws {
        let vectors = try Self.names.map { try VectorFiles.load($0) }
        #expect(vectors.contains { $0["expected"] != nil })
        #expect(vectors.contains { $0["error"] != nil })
    }

    /// Spec/FORMAT.md §9.1: runs the vector's test on its inputs.
    @Test(arguments: names) func vector(_ name: String) throws {
        let v = try VectorFiles.load(name)
        #expect(v["description"]?.stringValue != nil, "no description")
        let test = try str(v, "test")
        guard let inputs = v["inputs"]?.objectValue else { throw VectorError("no inputs") }
        let expected = v["expected"]?.objectValue, error = v["error"]?.stringValue
        try #require((expected == nil) != (error == nil), "needs exactly one of expected and error")
        let run: () throws -> Void
        switch test {
        case "kdf": run = { try kdf(inputs, expected) }
        case "entry-key": run = { try entryKey(inputs, expected) }
        case "header": run = { try header(inputs, expected) }
        case "entry": run = { try entry(inputs, expected) }
        case "passwd": run = { try passwd(inputs, expected) }
        case "edit": run = { try edit(inputs, expected) }
        case "commit-auth": run = { try commitAuth(inputs, expected) }
        case "identity": run = { try identityFile(inputs, expected) }
        case "rekey": run = { try rekey(inputs, expected) }
        case "search-cache": run = { try searchCache(inputs, expected) }
        case "search-cache-open": run = { try searchCacheOpen(inputs, expected) }
        case "scope": run = { try scope(inputs, expected) }
        case "scoped-entry": run = { try scopedEntry(inputs, expected) }
        case "commit-auth-v4": run = { try commitAuthV4(inputs, expected) }
        case "scope-rekey": run = { try scopeRekey(inputs, expected) }
        case "commit-key-rule": run = { try commitKeyRule(inputs, expected) }
        default: throw VectorError("unknown test \"\(test)\"")
        }
        guard let error else { return try run() }
        do {
            try run()
            Issue.record("succeeded, expected \(error)")
        } catch let e as CoreError {
            #expect(e.kind == error, "\(e.localizedDescription)")
        }
    }
}
