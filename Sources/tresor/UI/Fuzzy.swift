// Fuzzy matching of entry names for type-to-filter: "gml" finds "Email/gmail", tight and word-start matches first.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Matching on case-folded Unicode scalars, one folded scalar per original one, so match positions
/// index the original text's scalars.
enum Fuzzy {
    struct Match {
        let score: Int
        /// Scalar offsets of the matched characters in the candidate, ascending.
        let positions: [Int]
    }

    /// The text as case-folded scalars (NFC first, so a query typed with combining marks matches a name).
    static func fold(_ text: String) -> [UInt32] {
        foldNormalized(text.nfc)
    }

    /// The same for text already in NFC (entry paths always are), with a fast path for ASCII.
    static func foldNormalized(_ text: String) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            guard b < 0x80 else { return text.unicodeScalars.map(foldScalar) }
            out.append(UInt32((0x41...0x5A).contains(b) ? b + 32 : b))
        }
        return out
    }

    static func foldScalar(_ s: Unicode.Scalar) -> UInt32 {
        let v = s.value
        if v < 0x80 { return (0x41...0x5A).contains(v) ? v + 32 : v }
        let lower = s.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first!.value : v
    }

    private static func isBoundary(_ v: UInt32) -> Bool {
        v == 0x2F || v == 0x2D || v == 0x5F || v == 0x2E || v == 0x20 || v == 0x40
    }

    /// Whether every query scalar appears in the candidate in order, and how well: the tightest window
    /// that ends at the earliest complete match, scored for word starts, runs and the last path component.
    static func match(_ query: [UInt32], in candidate: [UInt32]) -> Match? {
        guard !query.isEmpty else { return Match(score: 0, positions: []) }
        var qi = 0, end = -1
        for i in candidate.indices where candidate[i] == query[qi] {
            qi += 1
            if qi == query.count { end = i; break }
        }
        guard end >= 0 else { return nil }
        var positions = [Int](repeating: 0, count: query.count)
        qi = query.count - 1
        var i = end
        while qi >= 0 {
            if candidate[i] == query[qi] { positions[qi] = i; qi -= 1 }
            i -= 1
        }
        let lastSlash = candidate.lastIndex(of: 0x2F) ?? -1
        var score = 0
        for (n, p) in positions.enumerated() {
            score += 16
            if p == 0 || isBoundary(candidate[p - 1]) { score += 8 }
            if n > 0 && positions[n - 1] == p - 1 { score += 10 }
            if p > lastSlash { score += 4 }
        }
        score -= (positions.last! - positions.first! + 1 - query.count)
        // What was typed exactly: the whole name, or its last component, before anything that merely contains it.
        if query.count == candidate.count { score += 1000 } else if positions.first! == lastSlash + 1, end == candidate.count - 1, end - lastSlash == query.count { score += 500 }
        return Match(score: score, positions: positions)
    }
}
