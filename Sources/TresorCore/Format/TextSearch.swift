// Case-insensitive substring search for `find` and `grep`, with a byte loop for ASCII text.

/// Searching names and field text, ignoring case.
public enum TextSearch {
    /// Whether `text`, lowercased, contains `needle` (already lowercased): `text.lowercased().contains(needle)`.
    /// When both are ASCII the bytes are compared directly, folding A-Z; searching 10,000 entries through
    /// Foundation's `range(of:)` cost more than decrypting them.
    public static func contains(_ text: String, lowercasedNeedle needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard n.allSatisfy({ $0 < 0x80 }) else { return text.lowercased().contains(needle) }
        let hay = Array(text.utf8)
        guard hay.allSatisfy({ $0 < 0x80 }) else { return text.lowercased().contains(needle) }
        return asciiContains(hay, n)
    }

    /// Whether `needle` (lowercase ASCII) occurs in `hay`, folding the case of A-Z in `hay` (other bytes
    /// compared as they are).
    public static func asciiContains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard hay.count >= needle.count else { return false }
        let upper = first >= 0x61 && first <= 0x7a ? first - 0x20 : first
        var start = 0
        let last = hay.count - needle.count
        while start <= last {
            let b = hay[start]
            if b == first || b == upper {
                var j = 1
                while j < needle.count {
                    let h = hay[start + j]
                    if (h >= 0x41 && h <= 0x5a ? h | 0x20 : h) != needle[j] { break }
                    j += 1
                }
                if j == needle.count { return true }
            }
            start += 1
        }
        return false
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
