// zxcvbn's minimum-guesses search: the split of a password into matches and brute force that is cheapest to guess.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension StrengthMatcher {
    /// zxcvbn's D: an attacker tries all sequences of fewer patterns before one more (D^(l−1) guesses).
    static let minGuessesBeforeGrowingSequence = 10_000.0

    /// The sequence of non-overlapping matches covering `p`, with brute force between them, that
    /// minimises l! · Π guesses(match) + D^(l−1) for a sequence of l pieces; returns log10 of that
    /// minimum and the sequence. A port of zxcvbn's `most_guessable_match_sequence` (scoring.py),
    /// computed in log10 so that long passwords do not overflow. Spec/GENERATOR.md §5.2.
    func mostGuessableSequence(_ p: [Unicode.Scalar], _ matches: [StrengthMatch]) -> (log10Guesses: Double, sequence: [StrengthMatch]) {
        let n = p.count
        guard n > 0 else { return (0, []) }
        var byEnd = [[StrengthMatch]](repeating: [], count: n)
        for m in matches { byEnd[m.end - 1].append(m) }
        for k in byEnd.indices { byEnd[k] = byEnd[k].enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element) }

        // For each end position k and sequence length l: the last match, log10 of the product, log10 of g.
        var bestMatch = [[Int: StrengthMatch]](repeating: [:], count: n)
        var bestProduct = [[Int: Double]](repeating: [:], count: n)
        var bestTotal = [[Int: Double]](repeating: [:], count: n)
        // The lengths stored at each position in the order first stored: zxcvbn's dictionaries iterate in
        // that order, and which sequences survive the pruning in `update` depends on it.
        var lengths = [[Int]](repeating: [], count: n)
        var logFactorial = [0.0]
        for l in 1...(n + 1) { logFactorial.append(logFactorial[l - 1] + log10(Double(l))) }

        func guesses(_ m: StrengthMatch) -> Double {
            guard m.length < n else { return m.log10Guesses }
            return max(m.log10Guesses, log10(m.length == 1 ? StrengthGuesses.minSubmatchGuessesSingleChar : StrengthGuesses.minSubmatchGuessesMultiChar))
        }
        func update(_ m: StrengthMatch, _ l: Int) {
            let k = m.end - 1
            var product = guesses(m)
            if l > 1 { product += bestProduct[m.start - 1][l - 1]! }
            let total = StrengthMatcher.log10Sum(logFactorial[l] + product, Double(l - 1) * log10(StrengthMatcher.minGuessesBeforeGrowingSequence))
            // A sequence with no more pieces that is at least as cheap already covers this prefix.
            for (otherL, otherTotal) in bestTotal[k] where otherL <= l && otherTotal <= total + 1e-12 { return }
            if bestTotal[k][l] == nil { lengths[k].append(l) }
            bestTotal[k][l] = total
            bestMatch[k][l] = m
            bestProduct[k][l] = product
        }
        func bruteforce(_ i: Int, _ j: Int) -> StrengthMatch {
            StrengthMatch(start: i, end: j + 1, pattern: .bruteforce, log10Guesses: StrengthGuesses.bruteforceLog10(j + 1 - i))
        }

        for k in 0..<n {
            for m in byEnd[k] {
                if m.start > 0 {
                    for l in lengths[m.start - 1] { update(m, l + 1) }
                } else {
                    update(m, 1)
                }
            }
            update(bruteforce(0, k), 1)
            if k >= 1 {
                for i in 1...k {
                    let m = bruteforce(i, k)
                    // Two adjacent brute-force pieces are never better than one.
                    for l in lengths[i - 1] where bestMatch[i - 1][l]!.pattern != .bruteforce { update(m, l + 1) }
                }
            }
        }

        var length = 0, total = Double.infinity
        for l in lengths[n - 1] where bestTotal[n - 1][l]! < total { length = l; total = bestTotal[n - 1][l]! }
        guard length > 0 else { return (0, []) }
        var sequence: [StrengthMatch] = []
        var k = n - 1, l = length
        while k >= 0 {
            let m = bestMatch[k][l]!
            sequence.append(m)
            k = m.start - 1
            l -= 1
        }
        return (total, sequence.reversed())
    }

    /// log10(10^a + 10^b) without overflow.
    static func log10Sum(_ a: Double, _ b: Double) -> Double {
        let hi = max(a, b), lo = min(a, b)
        return hi + log10(1 + pow(10, lo - hi))
    }
}
