// The few string operations TresorGit took from the full Foundation (it imports FoundationEssentials where that
// exists), with Foundation's results: trimming, percent-escapes, the user's home directory.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

enum GitStrings {
    /// `text` without the scalars `trimmed` accepts at either end (Foundation's `trimmingCharacters(in:)`).
    static func trimming(_ text: String, _ trimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !trimmed($0) }) else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...scalars.lastIndex(where: { !trimmed($0) })!])
        return String(kept)
    }

    /// `CharacterSet.whitespaces`: U+0009, the space separators and U+200B.
    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// `CharacterSet.whitespacesAndNewlines`: those, U+000A–U+000D, U+0085, U+2028 and U+2029.
    static func isWhitespaceOrNewline(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return isWhitespace(s)
        }
    }

    /// Foundation's `removingPercentEncoding`: nil for a `%` without two hexadecimal digits or bytes that are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        func digit(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            guard b == 0x25 else { out.append(b); continue }
            guard let h = it.next().flatMap(digit), let l = it.next().flatMap(digit) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Foundation's `addingPercentEncoding(withAllowedCharacters:)` with the ASCII characters `allowed` names: every
    /// other UTF-8 byte as `%XX`.
    static func percentEncoded(_ text: String, allowed: Set<UInt8>) -> String {
        var out = ""
        for b in text.utf8 {
            if allowed.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else {
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The user's home directory as Foundation's `NSHomeDirectory()` finds it: the password database's, `HOME`
    /// only when there is no entry.
    static func homeDirectory() -> String {
        if let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return ProcessInfo.processInfo.environment["HOME"] ?? "/"
    }
}
