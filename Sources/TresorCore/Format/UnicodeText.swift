// The string operations the package took from Foundation's NSString, on Unicode scalars and UTF-8 bytes with the
// standard library's own Unicode tables: NFC, trimming, literal replacement, percent-encoding. No ICU.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StringProtocol {
    /// The string in Unicode normalisation form C (Spec/FORMAT.md §4): Foundation's
    /// `precomposedStringWithCanonicalMapping`, computed by the standard library's normaliser where the full
    /// Foundation is not linked. ASCII is returned as it is.
    package var nfc: String {
        if utf8.allSatisfy({ $0 < 0x80 }) { return String(self) }
        #if canImport(FoundationEssentials)
        return String(decoding: String(self)._nfcCodeUnits, as: UTF8.self)
        #else
        return String(self).precomposedStringWithCanonicalMapping
        #endif
    }

    /// The string without the scalars of `set` at either end (Foundation's `trimmingCharacters(in:)`: scalars, not
    /// characters, so a combining mark after a trimmed space stays).
    package func trimming(_ set: ScalarSet) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !set.contains($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !set.contains($0) })!
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }

    /// Every occurrence of `target` replaced by `replacement`, matched by code points (Foundation's
    /// `replacingOccurrences(of:with:)` for the text the package replaces in; unlike it, a match followed by a
    /// combining mark is replaced too, so a quote is always escaped).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return String(self) }
        let hay = Array(utf8)
        var out: [UInt8] = []
        out.reserveCapacity(hay.count)
        var i = 0
        while i < hay.count {
            if hay[i] == needle[0], i + needle.count <= hay.count, hay[i..<(i + needle.count)].elementsEqual(needle) {
                out += replacement.utf8
                i += needle.count
            } else {
                out.append(hay[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Foundation's `addingPercentEncoding(withAllowedCharacters:)`: each UTF-8 byte of a scalar that is not an
    /// ASCII member of `allowed` becomes `%XX` (uppercase).
    package func percentEncoded(allowing allowed: ScalarSet) -> String {
        var out: [UInt8] = []
        for scalar in unicodeScalars {
            if scalar.isASCII, allowed.contains(scalar) { out.append(UInt8(scalar.value)); continue }
            for b in String(scalar).utf8 { out += [0x25] + Hex.upper([b]).utf8 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Foundation's `removingPercentEncoding`: `%XX` decoded; nil when a `%` is not followed by two hexadecimal
    /// digits or the bytes are not UTF-8.
    package var percentDecoded: String? {
        var out: [UInt8] = []
        var it = utf8.makeIterator()
        while let b = it.next() {
            guard b == 0x25 else { out.append(b); continue }
            guard let h = it.next().flatMap(Hex.digit), let l = it.next().flatMap(Hex.digit) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// A set of Unicode scalars, for the few sets of Foundation's `CharacterSet` the package uses (same members).
package struct ScalarSet: Sendable {
    private let test: @Sendable (Unicode.Scalar) -> Bool

    package init(_ test: @escaping @Sendable (Unicode.Scalar) -> Bool) { self.test = test }

    /// The scalars of `characters`.
    package init(charactersIn characters: String) {
        let members = Set(characters.unicodeScalars)
        test = { members.contains($0) }
    }

    package func contains(_ scalar: Unicode.Scalar) -> Bool { test(scalar) }

    package func union(_ other: ScalarSet) -> ScalarSet { ScalarSet { self.contains($0) || other.contains($0) } }

    package func subtracting(_ other: ScalarSet) -> ScalarSet { ScalarSet { self.contains($0) && !other.contains($0) } }

    /// `CharacterSet.whitespaces`: U+0009, the space separators (U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F,
    /// U+205F, U+3000) and U+200B.
    package static let whitespaces = ScalarSet {
        switch $0.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// `CharacterSet.whitespacesAndNewlines`: `whitespaces`, U+000A–U+000D, U+0085, U+2028 and U+2029.
    package static let whitespacesAndNewlines = ScalarSet {
        switch $0.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return whitespaces.contains($0)
        }
    }

    /// The ASCII letters and digits: the members of `CharacterSet.alphanumerics` that `percentEncoded(allowing:)`
    /// can leave as they are.
    package static let asciiAlphanumerics = ScalarSet {
        switch $0.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }

    /// The user part of a URL as RFC 3986 allows it unescaped (`CharacterSet.urlUserAllowed`).
    package static let urlUserAllowed = ScalarSet(charactersIn: "!$&'()*+,-.0123456789;=ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
}
