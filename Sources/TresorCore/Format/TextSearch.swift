// Case-insensitive substring search for `find` and `grep`, with a byte loop for ASCII text.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Searching names and field text, ignoring case.
package enum TextSearch {
    /// Whether `text`, lowercased, contains `needle` (already lowercased): `text.lowercased().contains(needle)`.
    /// When both are ASCII the bytes are compared directly, folding A-Z; searching 10,000 entries through
    /// Foundation's `range(of:)` cost more than decrypting them.
    package static func contains(_ text: String, lowercasedNeedle needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard n.allSatisfy({ $0 < 0x80 }) else { return text.lowercased().contains(needle) }
        let hay = Array(text.utf8)
        guard hay.allSatisfy({ $0 < 0x80 }) else { return text.lowercased().contains(needle) }
        return asciiContains(hay, n)
    }

    /// Whether the secret `text` may contain `needle` (already lowercased), read in its buffer: false only
    /// when both are ASCII and the bytes, A-Z folded, do not contain it. Lets `grep` skip a value without
    /// making a `String` of it.
    package static func mayContain(_ text: SecretText, lowercasedNeedle needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard n.allSatisfy({ $0 < 0x80 }) else { return true }
        return text.withUTF8 { b in
            guard isASCII(b) else { return true }
            return asciiContains(b.assumingMemoryBound(to: UInt8.self), n)
        }
    }

    /// Whether `needle` (lowercase ASCII) occurs in `hay`, folding the case of A-Z in `hay` (other bytes
    /// compared as they are).
    package static func asciiContains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard hay.count >= needle.count, let base = hay.baseAddress else { return false }
        let upper = first >= 0x61 && first <= 0x7a ? first - 0x20 : first
        let last = hay.count - needle.count
        // Candidates for the first byte come from memchr (vectorised in libc), one search per spelling, each
        // resumed only when its candidate is used.
        func next(_ byte: UInt8, from: Int) -> Int {
            guard from <= last, let p = memchr(base + from, Int32(byte), last - from + 1) else { return Int.max }
            return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
        }
        var lower = next(first, from: 0)
        var capital = upper == first ? Int.max : next(upper, from: 0)
        while true {
            let start = min(lower, capital)
            if start == Int.max { return false }
            var j = 1
            while j < needle.count {
                let h = hay[start + j]
                if (h >= 0x41 && h <= 0x5a ? h | 0x20 : h) != needle[j] { break }
                j += 1
            }
            if j == needle.count { return true }
            if start == lower { lower = next(first, from: start + 1) } else { capital = next(upper, from: start + 1) }
        }
    }

    /// Whether every byte of `bytes` is ASCII (below 0x80), eight bytes at a time.
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Whether `needle` (lowercase ASCII) occurs in `hay` (ASCII), folding the case of A-Z in `hay`.
    static func asciiContains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard hay.count >= needle.count else { return false }
        func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        for start in 0...(hay.count - needle.count) where lower(hay[start]) == needle[0] {
            if (1..<needle.count).allSatisfy({ lower(hay[start + $0]) == needle[$0] }) { return true }
        }
        return false
    }
}
