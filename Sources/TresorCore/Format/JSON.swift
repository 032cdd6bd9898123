// A strict JSON value, parser and canonical serializer (Spec/FORMAT.md §1.3).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value. Numbers keep their literal text so unknown fields round-trip exactly.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    /// A string that is secret (a field value of an entry payload): serialised exactly like `string`, held in
    /// a zeroing buffer. Only the payload parser produces it; `stringValue` does not see it.
    case secret(SecretText)
    case array([JSONValue])
    case object([String: JSONValue])

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The value as a non-negative integer, if it is a plain integer literal.
    public var uint64Value: UInt64? {
        // Digits only, by byte (an ASCII character that is a number is one of 0–9); too large is nil.
        if case .number(let n) = self, n.utf8.allSatisfy({ $0 &- 0x30 <= 9 }) { return UInt64(n) }
        return nil
    }
    public static func integer<T: BinaryInteger>(_ n: T) -> JSONValue { .number(String(n)) }
}

extension JSONValue {
    /// Why a JSON text was refused (Spec/FORMAT.md §1.3): the byte offset where the parser stopped, and what it found.
    public struct ParseError: Error, Equatable, Sendable {
        /// The offset of the byte where parsing stopped.
        public let offset: Int
        /// What was wrong there.
        public let problem: Problem

        package init(offset: Int, problem: Problem) { self.offset = offset; self.problem = problem }

        /// The rules of JSON text (RFC 8259) and of Spec/FORMAT.md §1.3 a text can break.
        public enum Problem: Equatable, Sendable {
            /// More than white space after the value.
            case trailingData
            /// A word that is not `true`, `false` or `null`.
            case invalidLiteral
            /// Arrays and objects nested 64 deep.
            case nestingTooDeep
            /// The text ends inside a value.
            case unexpectedEnd
            /// An object member whose name is not a string.
            case expectedKey
            /// An object that names this member twice.
            case duplicateKey(String)
            /// No `:` after a member name.
            case expectedColon
            /// No `,` or `}` after a member.
            case expectedCommaOrBrace
            /// No `,` or `]` after an element.
            case expectedCommaOrBracket
            /// Nothing that starts a value.
            case invalidValue
            /// A number with a leading zero.
            case leadingZero
            /// A number without digits after `.` or `e`.
            case invalidNumber
            /// A `\u` escape with fewer than four digits left.
            case truncatedEscape
            /// A `\u` escape that is not four hexadecimal digits.
            case invalidUnicodeEscape
            /// Bytes that are not UTF-8.
            case invalidUTF8
            /// A string without its closing quote.
            case unterminatedString
            /// A control character inside a string.
            case controlCharacter
            /// A UTF-16 surrogate escape without its other half.
            case loneSurrogate
            /// A `\` followed by a character that is no escape.
            case invalidEscape
        }
    }
}

/// The parser's error under its older name.
package typealias JSONParseError = JSONValue.ParseError

extension JSONValue {
    /// Parses a UTF-8 JSON text. Rejects duplicate object keys, trailing data, nesting deeper than 64,
    /// invalid UTF-8 and lone surrogates.
    public static func parse<C: Collection>(_ bytes: C) throws -> JSONValue where C.Element == UInt8 {
        try Array(bytes).withUnsafeBytes { try parse($0) }
    }

    /// Parses a UTF-8 JSON text in place (no copy of the input).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        try parse(bytes, secretValues: false)
    }

    /// Parses a decrypted entry payload in place: like `parse`, but the string values of `fields.*.value` and
    /// `history[*].value` are decoded straight into zeroing buffers (`.secret`), never into a `String`.
    /// Spec/FORMAT.md §5
    public static func parsePayload(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        try parse(bytes, secretValues: true)
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, secretValues: Bool) throws -> JSONValue {
        var p = JSONParser(bytes)
        p.skipWhitespace()
        let v = try p.value(depth: 0, place: secretValues ? .root : .other)
        p.skipWhitespace()
        guard p.i == p.b.count else { throw p.error(.trailingData) }
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

    /// The canonical serialization written into zeroing memory only: for a payload that holds secrets, on its
    /// way to being sealed or compared. The same bytes as `canonicalBytes()`.
    public func canonicalSecretBytes() -> SecretBytes {
        var out = SecretByteBuilder()
        write(into: &out)
        return out.finish()
    }

    /// Pretty, stable text (the CLI's `--json` and the JSON export), built in zeroing memory only: two-space
    /// indents, one member or element per line, object keys in `String` order, leaves canonical.
    public func prettySecretBytes(trailingNewline: Bool = false) -> SecretBytes {
        var out = SecretByteBuilder()
        writePretty(into: &out, indent: 0)
        if trailingNewline { out.append(0x0A) }
        return out.finish()
    }

    private func writePretty(into out: inout SecretByteBuilder, indent: Int) {
        func newline(_ level: Int) {
            out.append(0x0A)
            for _ in 0..<level { out.append(0x20); out.append(0x20) }
        }
        switch self {
        case .array(let a) where !a.isEmpty:
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                v.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                JSONValue.writeString(k, into: &out)
                out.append(UInt8(ascii: ":")); out.append(0x20)
                o[k]!.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default:
            write(into: &out)
        }
    }

    private func write<S: JSONSink>(into out: inout S) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .secret(let s): s.withUTF8 { JSONValue.writeString($0, into: &out) }
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            let keys = o.keys.sorted(by: EntryPath.precedes)
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

    private static func writeString<S: JSONSink>(_ string: String, into out: inout S) {
        var s = string
        s.withUTF8 { writeString(UnsafeRawBufferPointer($0), into: &out) }
    }

    /// A string's bytes in quotes, escaped; runs that need no escape are appended in one piece.
    private static func writeString<S: JSONSink>(_ b: UnsafeRawBufferPointer, into out: inout S) {
        out.append(UInt8(ascii: "\""))
        var run = 0
        for i in 0..<b.count {
            let c = b[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { continue }
            if i > run { out.append(run: UnsafeRawBufferPointer(rebasing: b[run..<i])) }
            run = i + 1
            switch c {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            default:
                out.append(contentsOf: "\\u00".utf8); out.append(hex[Int(c >> 4)]); out.append(hex[Int(c & 0xF)])
            }
        }
        if b.count > run { out.append(run: UnsafeRawBufferPointer(rebasing: b[run..<b.count])) }
        out.append(UInt8(ascii: "\""))
    }
}

/// Where canonical JSON is written: an ordinary array, or zeroing memory for payloads.
private protocol JSONSink {
    mutating func append(_ byte: UInt8)
    mutating func append<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8
    mutating func append(run bytes: UnsafeRawBufferPointer)
}

extension Array: JSONSink where Element == UInt8 {
    mutating func append(run bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

extension SecretByteBuilder: JSONSink {
    mutating func append(run bytes: UnsafeRawBufferPointer) { append(bytes) }
}

/// Where in an entry payload the parser is, so that field values (and only they) go into zeroing buffers.
private enum PayloadPlace {
    case other, root, fields, field, history, historyItem, value

    func child(key: String) -> PayloadPlace {
        switch (self, key) {
        case (.root, "fields"): return .fields
        case (.root, "history"): return .history
        case (.fields, _): return .field
        case (.field, "value"), (.historyItem, "value"): return .value
        default: return .other
        }
    }

    var element: PayloadPlace { self == .history ? .historyItem : .other }
}

private struct JSONParser {
    let b: UnsafeRawBufferPointer
    var i = 0
    init(_ b: UnsafeRawBufferPointer) { self.b = b }

    func error(_ problem: JSONParseError.Problem) -> JSONParseError { JSONParseError(offset: i, problem: problem) }

    mutating func skipWhitespace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ lit: String) throws {
        let l = Array(lit.utf8)
        guard i + l.count <= b.count, Array(b[i..<i + l.count]) == l else { throw error(.invalidLiteral) }
        i += l.count
    }

    mutating func value(depth: Int, place: PayloadPlace) throws -> JSONValue {
        guard depth < 64 else { throw error(.nestingTooDeep) }
        guard i < b.count else { throw error(.unexpectedEnd) }
        switch b[i] {
        case UInt8(ascii: "{"): return try object(depth: depth, place: place)
        case UInt8(ascii: "["): return try array(depth: depth, place: place)
        case UInt8(ascii: "\""): return place == .value ? .secret(try secretString()) : .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try number()
        }
    }

    mutating func object(depth: Int, place: PayloadPlace) throws -> JSONValue {
        i += 1
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object([:]) }
        // The members in order, then the dictionary made once (each name hashed once, the table sized once); a
        // name given twice is found among the names so far, by comparing them while they are few.
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        var seen: Set<String> = []
        while true {
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw error(.expectedKey) }
            let k = try string()
            if members.count < 16 {
                guard !members.contains(where: { $0.key == k }) else { throw error(.duplicateKey(k)) }
                if members.count == 15 { seen = Set(members.map(\.key) + [k]) }
            } else {
                guard seen.insert(k).inserted else { throw error(.duplicateKey(k)) }
            }
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error(.expectedColon) }
            i += 1
            skipWhitespace()
            members.append((k, try value(depth: depth + 1, place: place.child(key: k))))
            skipWhitespace()
            guard i < b.count else { throw error(.unexpectedEnd) }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(Dictionary(uniqueKeysWithValues: members)) }
            throw error(.expectedCommaOrBrace)
        }
    }

    mutating func array(depth: Int, place: PayloadPlace) throws -> JSONValue {
        i += 1
        var a: [JSONValue] = []
        skipWhitespace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
        while true {
            skipWhitespace()
            a.append(try value(depth: depth + 1, place: place.element))
            skipWhitespace()
            guard i < b.count else { throw error(.unexpectedEnd) }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            throw error(.expectedCommaOrBracket)
        }
    }

    mutating func number() throws -> JSONValue {
        let start = i
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
        guard i > digitsStart else { throw error(.invalidValue) }
        if b[digitsStart] == 0x30 && i - digitsStart > 1 { throw error(.leadingZero) }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > f else { throw error(.invalidNumber) }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > e else { throw error(.invalidNumber) }
        }
        return .number(String(decoding: b[start..<i], as: UTF8.self))
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= b.count else { throw error(.truncatedEscape) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error(.invalidUnicodeEscape)
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
        var high: UInt8 = 0
        // (A local index: the parser's own would be stored back at every byte.) Eight bytes at a time while none is
        // a quote, a backslash or a control character (each test says whether any byte of the word is one, exactly:
        // (x - 0x01…) & ~x & 0x80… is non-zero when a byte of x is zero, and x - 0x20… in place of x - 0x01… when
        // one is below 0x20); then byte by byte to the end.
        var j = i
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var wide: UInt64 = 0
        while j &+ 8 <= b.count {
            let w = b.loadUnaligned(fromByteOffset: j, as: UInt64.self)
            let q = w ^ (ones &* 0x22), s = w ^ (ones &* 0x5C)
            if ((q &- ones) & ~q | (s &- ones) & ~s | (w &- ones &* 0x20) & ~w) & highs != 0 { break }
            wide |= w
            j &+= 8
        }
        if wide & highs != 0 { high = 0x80 }
        while j < b.count, b[j] != 0x22, b[j] != 0x5C, b[j] >= 0x20 { high |= b[j]; j += 1 }
        i = j
        if i < b.count, b[i] == 0x22 {
            let part = UnsafeRawBufferPointer(rebasing: b[start..<i])
            // ASCII is valid UTF-8 as it is (the generic validation of a slice cost a tenth of reading an envelope).
            let s = high < 0x80 ? String(decoding: part, as: UTF8.self) : String(validating: part, as: UTF8.self)
            guard let s else { throw error(.invalidUTF8) }
            i += 1
            return s
        }
        var out = Array(b[start..<i])
        try decodeString { out.append($0) }
        guard let s = String(validating: out, as: UTF8.self) else { throw error(.invalidUTF8) }
        return s
    }

    /// A string value decoded into zeroing memory only: a scratch buffer as long as the encoded string (escapes
    /// only ever shrink), then a buffer of the exact length; no `String` and no ordinary array sees the bytes.
    mutating func secretString() throws -> SecretText {
        i += 1
        let start = i
        // Fast path, most values: no escapes and no control characters, copied once into a buffer of their size.
        var plain = i
        while plain < b.count, b[plain] != 0x22, b[plain] != 0x5C, b[plain] >= 0x20 { plain += 1 }
        if plain < b.count, b[plain] == 0x22 {
            let part = UnsafeRawBufferPointer(rebasing: b[start..<plain])
            guard SecretText.isValidUTF8(part) else { i = plain; throw error(.invalidUTF8) }
            i = plain + 1
            return SecretText(trusted: SecretBytes(copying: part))
        }
        var end = i
        while end < b.count, b[end] != 0x22 { end += b[end] == 0x5C ? 2 : 1 }
        let scratch = SecretBytes(count: min(end, b.count) - start)
        var n = 0
        var overflow = false
        try scratch.withMutableBytes { out in
            try decodeString { byte in
                if n < out.count { out[n] = byte; n += 1 } else { overflow = true }
            }
        }
        guard !overflow else { throw error(.unterminatedString) }
        let exact = SecretBytes(overwrittenCount: n)
        let valid = scratch.withBytes { src in
            let part = UnsafeRawBufferPointer(rebasing: src[0..<n])
            exact.withMutableBytes { $0.copyMemory(from: part) }
            return SecretText.isValidUTF8(part)
        }
        guard valid else { throw error(.invalidUTF8) }
        return SecretText(trusted: exact)
    }

    /// Decodes the rest of a string (from `i`, after the opening quote or a plain prefix) into `emit`, and
    /// moves past the closing quote.
    mutating func decodeString(_ emit: (UInt8) -> Void) throws {
        while true {
            guard i < b.count else { throw error(.unterminatedString) }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; return }
            if c < 0x20 { throw error(.controlCharacter) }
            if c != UInt8(ascii: "\\") { emit(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw error(.unterminatedString) }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): emit(0x22)
            case UInt8(ascii: "\\"): emit(0x5C)
            case UInt8(ascii: "/"): emit(0x2F)
            case UInt8(ascii: "b"): emit(0x08)
            case UInt8(ascii: "f"): emit(0x0C)
            case UInt8(ascii: "n"): emit(0x0A)
            case UInt8(ascii: "r"): emit(0x0D)
            case UInt8(ascii: "t"): emit(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                        throw error(.loneSurrogate)
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error(.loneSurrogate) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error(.loneSurrogate)
                }
                UTF8.encode(Unicode.Scalar(scalar)!, into: emit)
            default: throw error(.invalidEscape)
            }
        }
    }
}
