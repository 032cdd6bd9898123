// Spec/vectors/*.json against TresorCore, one test case per vector: successes checked exactly, failures by kind.
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

    /// The `test` member of a top-level vector, nil when it has none or does not load.
    static func test(of name: String) -> String? { (try? load(name))?["test"]?.stringValue }
}

struct VectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A refusal by a library function that answers yes or no (a `Bool`) and so reports no failure kind: which function,
/// at which step. The runners throw it where the library said no; a failure vector passes when the vector's kind is the
/// one that step decides (Spec/FORMAT.md §9.1: "if it reports kinds differently, at least rejects it").
struct RefusedWithoutKind: Error, CustomStringConvertible {
    /// The library function that said no, e.g. `StateRecord.isAuthentic`.
    let function: String
    /// The Spec's failure kind of that step.
    let specKind: String
    var description: String { "\(function) returned false (the step of [\(specKind)]; the library gives no kind)" }
}

/// A join that stopped: its `JoinConflict`s (Spec/MERGE.md §4.2, [domain-conflict]).
struct JoinStopped: Error, CustomStringConvertible {
    let conflicts: [JoinConflict]
    var description: String { "the join stopped: \(conflicts)" }
}

/// The failure kind the Swift code reports for `error`, in the Spec's names (Spec/FORMAT.md §9.3, Spec/AUTH.md §5.2,
/// Spec/MERGE.md §4): `CoreError.kind`; an acceptance refusal of a state record by its rule (`state-record` is the
/// [malformed] of §11.6's checks against the tree, `state-files` itself, `state-authentic` [not-authentic]); a
/// `RefusedWithoutKind` as the step's kind; a join stopped by a `JoinConflict` [domain-conflict]. Nil for anything else (a test error, not a refusal).
func specKind(of error: Error) -> String? {
    switch error {
    case let e as CoreError: return e.kind
    case let r as AcceptanceRefusal:
        switch r.rule {
        case .stateRecord: return "malformed"
        case .stateFiles: return "state-files"
        case .stateAuthentic: return "not-authentic"
        default: return r.rule.rawValue
        }
    case let r as RefusedWithoutKind: return r.specKind
    case is JoinStopped: return "domain-conflict"
    default: return nil
    }
}

@Suite struct FormatVectorTests {
    /// Tests whose code is gone with format 5: commit tags (versions 2–4, Spec/FORMAT.md §7.1, §3.12.6), the edits of
    /// version 1 payloads (`edit`, now `v5-edit`), and the rekeys of versions 3 and 4 (`rekey`, `scope-rekey`, now
    /// `v5-rekey`). Their vectors stay until Spec/reference stops writing them; they are not run.
    static let retiredTests: Set<String> = ["commit-auth", "commit-auth-v4", "commit-key-rule", "edit", "rekey", "scope-rekey"]

    /// Spec/vectors/merge/ (the three-way merge of versions 1–4, Spec/MERGE.md version 1) is not read either: that merge
    /// is gone; the joins of version 5 are Spec/vectors/join/ (`JoinVectorTests`).

    /// Vectors whose test still exists but whose expectation belongs to a reader of versions 1–4 only.
    /// `header-version-5`: "a header of format version 5 (newer than this reader)" [unsupported-version]; version 5 is
    /// the version this reader writes (its own vectors are `v5-header-*`).
    static let retiredVectors: Set<String> = ["header-version-5"]

    static let names = VectorFiles.names().filter {
        !retiredVectors.contains($0) && !retiredTests.contains(VectorFiles.test(of: $0) ?? "")
    }

    @Test func thereAreSuccessAndFailureVectors() throws {
        let vectors = try Self.names.map { try VectorFiles.load($0) }
        #expect(vectors.contains { $0["expected"] != nil })
        #expect(vectors.contains { $0["error"] != nil })
    }

    /// Every vector is run, or is of a retired test (listed above): a test this runner does not know fails here.
    @Test func everyVectorIsRunOrRetired() throws {
        for name in VectorFiles.names() {
            let test = try #require(VectorFiles.test(of: name), "\(name) has no test")
            #expect(Self.runnable.contains(test) || Self.retiredTests.contains(test), "\(name): unknown test \"\(test)\"")
        }
        #expect(Self.runnable.isDisjoint(with: Self.retiredTests))
    }

    static let runnable: Set<String> = [
        "kdf", "entry-key", "header", "entry", "passwd", "identity", "search-cache", "search-cache-open", "scope", "scoped-entry",
        "v5-header", "v5-scope", "v5-entry", "v5-edit", "v5-state", "v5-rekey", "v5-convert", "accept",
    ]

    /// Spec/FORMAT.md §9.1: runs the vector's test on its inputs.
    @Test(arguments: names) func vector(_ name: String) throws {
        if let issue = KnownVectorIssues.format[name] {
            withKnownIssue(Comment(rawValue: issue)) { try run(name) }
        } else {
            try run(name)
        }
    }

    func run(_ name: String) throws {
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
        case "identity": run = { try identityFile(inputs, expected) }
        case "search-cache": run = { try searchCache(inputs, expected) }
        case "search-cache-open": run = { try searchCacheOpen(inputs, expected) }
        case "scope": run = { try scope(inputs, expected) }
        case "scoped-entry": run = { try scopedEntry(inputs, expected) }
        case "v5-header": run = { try v5Header(inputs, expected) }
        case "v5-scope": run = { try v5Scope(inputs, expected) }
        case "v5-entry": run = { try v5Entry(inputs, expected) }
        case "v5-edit": run = { try v5Edit(inputs, expected) }
        case "v5-state": run = { try v5State(inputs, expected) }
        case "v5-rekey": run = { try v5Rekey(inputs, expected) }
        case "v5-convert": run = { try v5Convert(inputs, expected) }
        case "accept": run = { try accept(inputs, expected) }
        default: throw VectorError("unknown test \"\(test)\"")
        }
        guard let error else { return try run() }
        do {
            try run()
            Issue.record("succeeded, expected [\(error)]")
        } catch let e where specKind(of: e) != nil {
            #expect(specKind(of: e) == error, "\(e)")
        }
    }
}
