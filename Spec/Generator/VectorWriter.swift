// Helpers for the vector generator: hex, readable JSON output, and the file-per-vector writer.
import Foundation
import TresorCore

/// Lowercase hex of `bytes`.
func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The bytes of a `SecretBytes`, for printing fixed test keys (never do this with real keys).
func plainBytes(_ s: SecretBytes) -> [UInt8] { s.withBytes { Array($0) } }

/// `count` bytes `first, first+1, …` (mod 256): recognisable fixed inputs.
func sequence(from first: UInt8, count: Int) -> [UInt8] { (0..<count).map { UInt8((Int(first) + $0) % 256) } }

/// A JSON value from an ordinary Swift value: String, Int, UInt64, Bool, [Any], [String: Any], JSONValue.
func json(_ v: Any) -> JSONValue {
    switch v {
    case let j as JSONValue: return j
    case let s as String: return .string(s)
    case let b as Bool: return .bool(b)
    case let i as Int: return .integer(i)
    case let u as UInt64: return .integer(u)
    case let a as [Any]: return .array(a.map(json))
    case let o as [String: Any]: return .object(o.mapValues(json))
    default: fatalError("no JSON form for \(type(of: v))")
    }
}

/// Indented JSON with object keys sorted by their UTF-8 bytes and strings escaped as in canonical form,
/// so that regenerating the vectors gives byte-identical files.
func pretty(_ v: JSONValue, indent: String = "") -> String {
    let inner = indent + "  "
    switch v {
    case .array(let a) where !a.isEmpty:
        return "[\n" + a.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
    case .object(let o) where !o.isEmpty:
        let keys = o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let members = keys.map { k in
            inner + String(decoding: JSONValue.string(k).canonicalBytes(), as: UTF8.self) + ": " + pretty(o[k]!, indent: inner)
        }
        return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
    default:
        return String(decoding: v.canonicalBytes(), as: UTF8.self)
    }
}

/// Collects vectors and writes one `<name>.json` per vector.
final class VectorWriter {
    let directory: URL
    private(set) var names: [String] = []

    init(directory: URL) { self.directory = directory }

    /// A success vector: `expected` holds the result.
    func success(_ name: String, test: String, _ description: String, inputs: [String: Any], expected: [String: Any]) throws {
        try write(name, ["description": description, "test": test, "inputs": inputs, "expected": expected])
    }

    /// A failure vector: reading `inputs` must fail with the `CoreError.kind` named by `error`.
    func failure(_ name: String, test: String, _ description: String, inputs: [String: Any], error: String) throws {
        try write(name, ["description": description, "test": test, "inputs": inputs, "error": error])
    }

    private func write(_ name: String, _ object: [String: Any]) throws {
        precondition(!names.contains(name), "duplicate vector name \(name)")
        names.append(name)
        let text = pretty(json(object)) + "\n"
        try Data(text.utf8).write(to: directory.appendingPathComponent(name + ".json"), options: .atomic)
    }

    /// Removes `*.json` files in the directory that this run did not write (renamed or dropped vectors).
    func removeStale() throws {
        let existing = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for file in existing where file.hasSuffix(".json") && !names.contains(String(file.dropLast(5))) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(file))
        }
    }
}

/// The canonical JSON text of an object, as a String.
func canonicalText(_ v: JSONValue) -> String { String(decoding: v.canonicalBytes(), as: UTF8.self) }

/// Parses file bytes we made ourselves; a failure is a generator bug.
func parseOwn(_ text: String) -> [String: JSONValue] {
    guard let o = try? JSONValue.parse(Array(text.utf8)).objectValue else { fatalError("generator produced bad JSON: \(text)") }
    return o
}
