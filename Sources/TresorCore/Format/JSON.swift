// A strict JSON value, parser and canonical serializer (Spec/FORMAT.md §1.3).
import Foundation

/// A JSON value. Numbers keep their literal text so unknown fields round-trip exactly.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The value as a non-negative integer, if it is a plain integer literal.
    public var uint64Value: UInt64? {
        if case .number(let n) = self, n.allSatisfy(\.isASCII), n.allSatisfy(\.isNumber) { return UInt64(n) }
        return nil
    }
    public static func integer<T: BinaryInteger>(_ n: T) -> JSONValue { .number(String(n)) }
}

/// Why a JSON text was refused.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses a UTF-8 JSON text. Rejects duplicate object keys, trailing data, nesting deeper than 64,
    /// invalid UTF-8 and lone surrogates.
    public static func parse<C: Collection>(_ bytes: C) throws -> JSONValue where C.Element == UInt8 {
        var p = JSONParser(Array(bytes))
        p.skipWhitespace()
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.i == p.b.count else { throw p.error("trailing data") }
        return v
    }

    /// Canonical serialization: no insignificant white space, object keys sorted by their UTF-8 bytes,
    /// strings escaped minimally (`"`, `\`, and U+0000–U+001F), everything else as raw UTF-8.
    public func canonicalBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n): out += Array(n.utf8)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            let keys = o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (i, k) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(k, into: &out)
                out.append(UInt8(ascii: ":"))
                o[k]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                out += Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 0xF)]]
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

private struct JSONParser {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ lit: String) throws {
        let l = Array(lit.utf8)
        guard i + l.count <= b.count, Array(b[i..<i + l.count]) == l else { throw error("invalid literal") }
        i += l.count
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < 64 else { throw error("nesting too deep") }
        guard i < b.count else { throw error("unexpected end of input") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try number()
        }
    }

    mutating func object(depth: Int) throws -> JSONValue {
        i += 1
        var o: [String: JSONValue] = [:]
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
        while true {
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let k = try string()
            guard o[k] == nil else { throw error("duplicate key \"\(k)\"") }
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            o[k] = try value(depth: depth + 1)
            skipWhitespace()
            guard i < b.count else { throw error("unexpected end of input") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws -> JSONValue {
        i += 1
        var a: [JSONValue] = []
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
        while true {
            skipWhitespace()
            a.append(try value(depth: depth + 1))
            skipWhitespace()
            guard i < b.count else { throw error("unexpected end of input") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func number() throws -> JSONValue {
        let start = i
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
        guard i > digitsStart else { throw error("invalid value") }
        if b[digitsStart] == 0x30 && i - digitsStart > 1 { throw error("leading zero in number") }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > f else { throw error("invalid number") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > e else { throw error("invalid number") }
        }
        return .number(String(decoding: b[start..<i], as: UTF8.self))
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= b.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func string() throws -> String {
        i += 1
        // Fast path: most strings (base64, names) have no escapes; take them in one slice.
        let start = i
        while i < b.count, b[i] != 0x22, b[i] != 0x5C, b[i] >= 0x20 { i += 1 }
        if i < b.count, b[i] == 0x22 {
            guard let s = String(validating: b[start..<i], as: UTF8.self) else { throw error("invalid UTF-8") }
            i += 1
            return s
        }
        var out = Array(b[start..<i])
        while true {
            guard i < b.count else { throw error("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw error("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw error("unterminated string") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                        throw error("lone surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone surrogate")
                }
                out += Array(String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: throw error("invalid escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8") }
        return s
    }
}
