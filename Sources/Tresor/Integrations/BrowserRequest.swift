// A browserpass request as the extension sends it: JSON, whose `contents` (a `save`'s secret) never becomes a String.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// One request of the browserpass host protocol: the JSON object, and the `contents` member a `save` carries,
/// decoded straight into zeroing memory (in the object it is blanked).
package struct BrowserRequest {
    package let object: [String: JSONValue]
    package let contents: SecretText?

    package var action: String? { object["action"]?.stringValue }
    package var storeID: String? { object["storeId"]?.stringValue }
    package var file: String? { object["file"]?.stringValue }

    /// Why a request is not one JSON object.
    package enum Malformed: Error, Equatable {
        /// The top-level `contents` is not a valid JSON string.
        case contents
        /// Not JSON (where and why).
        case notJSON(JSONValue.ParseError)
        /// JSON, but not an object.
        case notAnObject
    }

    /// Parses `bytes` (the caller wipes them; the value of a top-level `contents` string is overwritten here).
    /// - Throws: `Malformed` for what is not one JSON object.
    package init(parsing bytes: inout [UInt8]) throws {
        var contents: SecretText?
        if let range = BrowserRequest.topLevelString("contents", in: bytes) {
            contents = bytes[range].withUnsafeBytes { BrowserRequest.decodeString($0) }
            guard contents != nil else { throw Malformed.contents }
            // Spaces keep the JSON valid and the secret out of the parsed value.
            for i in range { bytes[i] = 0x20 }
        }
        let value: JSONValue
        do { value = try bytes.withUnsafeBytes { try JSONValue.parse($0) } } catch let e as JSONParseError {
            throw Malformed.notJSON(e)
        }
        guard case .object(let o) = value else { throw Malformed.notAnObject }
        object = o
        self.contents = contents
    }

    /// The byte range between the quotes of the string value of the top-level member `key`, if the text is an
    /// object that has one (spelled without escapes). A scan, not a parse: anything it cannot follow gives nil, and
    /// the full parse that follows reports the error.
    static func topLevelString(_ key: String, in b: [UInt8]) -> Range<Int>? {
        let keyBytes = Array(key.utf8)
        var i = 0
        let n = b.count
        func ws() { while i < n, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 } }
        /// Skips a string starting at `i` (a quote); returns the range inside the quotes.
        func string() -> Range<Int>? {
            guard i < n, b[i] == 0x22 else { return nil }
            let start = i + 1
            i += 1
            while i < n, b[i] != 0x22 { i += b[i] == 0x5C ? 2 : 1 }
            guard i < n else { return nil }
            i += 1
            return start..<(i - 1)
        }
        /// Skips any value.
        func value() -> Bool {
            guard i < n else { return false }
            if b[i] == 0x22 { return string() != nil }
            if b[i] == 0x7B || b[i] == 0x5B {
                var depth = 0
                while i < n {
                    switch b[i] {
                    case 0x22: if string() == nil { return false }; continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D: depth -= 1; if depth == 0 { i += 1; return true }
                    default: break
                    }
                    i += 1
                }
                return false
            }
            while i < n, ![0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
            return true
        }
        ws()
        guard i < n, b[i] == 0x7B else { return nil }
        i += 1
        var found: Range<Int>?
        while true {
            ws()
            if i < n, b[i] == 0x7D { return found }
            guard let k = string() else { return nil }
            ws()
            guard i < n, b[i] == 0x3A else { return nil }
            i += 1
            ws()
            if b[k].elementsEqual(keyBytes), i < n, b[i] == 0x22 {
                // A second `contents` makes the parse fail (duplicate key); the first is kept here.
                guard let r = string() else { return nil }
                if found == nil { found = r }
            } else if !value() { return nil }
            ws()
            guard i < n else { return nil }
            if b[i] == 0x2C { i += 1; continue }
            if b[i] == 0x7D { return found }
            return nil
        }
    }

    /// The text of a JSON string's inside (escapes decoded) in zeroing memory; nil when it is not valid.
    static func decodeString(_ s: UnsafeRawBufferPointer) -> SecretText? {
        var out = SecretByteBuilder(capacity: s.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= s.count else { return nil }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                let c = s[k]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }
        func appendScalar(_ v: UInt32) {
            switch v {
            case 0..<0x80: out.append(UInt8(v))
            case 0x80..<0x800: out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
            case 0x800..<0x10000:
                out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
            default:
                out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
                out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
            }
        }
        while i < s.count {
            let c = s[i]
            guard c >= 0x20 else { return nil }
            guard c == 0x5C else { out.append(c); i += 1; continue }
            guard i + 1 < s.count else { return nil }
            let e = s[i + 1]
            i += 2
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard var v = hex4(i) else { return nil }
                i += 4
                if (0xD800..<0xDC00).contains(v) {
                    guard i + 6 <= s.count, s[i] == 0x5C, s[i + 1] == 0x75, let lo = hex4(i + 2), (0xDC00..<0xE000).contains(lo) else { return nil }
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    i += 6
                } else if (0xDC00..<0xE000).contains(v) {
                    return nil
                }
                appendScalar(v)
            default: return nil
            }
        }
        return SecretText(validating: out.finish())
    }
}
