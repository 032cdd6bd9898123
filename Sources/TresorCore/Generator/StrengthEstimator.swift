// A zxcvbn-style password strength estimate: the cheapest way to guess the password, and why.

import Foundation

/// How hard a password is to guess. Spec/GENERATOR.md §5.
public struct StrengthEstimate: Equatable, Sendable {
    /// 0 (guessed in under 10^3 tries) … 4 (10^10 tries or more), with zxcvbn's thresholds.
    public let score: Int
    /// Estimated number of guesses an attacker who knows the patterns needs.
    public let guesses: Double
    /// log10 of `guesses`.
    public let guessesLog10: Double
    /// Why the password is weak, e.g. `contains the dictionary word "dragon"`; empty for score 4.
    public let warnings: [String]
}

/// Estimates password strength like zxcvbn, simplified: it finds dictionary words (EFF list and
/// common passwords, with case and l33t variations and reversal), repeats, sequences, keyboard
/// runs, years and dates, then picks the split into matches and brute-forced stretches that needs
/// the fewest guesses. Spec/GENERATOR.md §5.
public enum StrengthEstimator {
    /// Only this many leading characters are analysed; later ones are ignored (an underestimate,
    /// which is the safe side; any 100-character prefix that is not a pattern already scores 4).
    static let maxAnalysedLength = 100

    /// The strength of `password`. Never fails; the empty password scores 0.
    public static func estimate(_ password: String) -> StrengthEstimate {
        let chars = Array(password.prefix(maxAnalysedLength))
        guard !chars.isEmpty else {
            return StrengthEstimate(score: 0, guesses: 1, guessesLog10: 0, warnings: ["the password is empty"])
        }
        let (log10Guesses, matches) = cheapestSequence(chars)
        let guesses = pow(10, log10Guesses)
        let score = score(log10Guesses)
        var warnings: [String] = []
        if score < 4 {
            for match in matches where !warnings.contains(match.warning) { warnings.append(match.warning) }
            if chars.count < 12 { warnings.append("only \(chars.count) characters long") }
        }
        return StrengthEstimate(score: score, guesses: guesses, guessesLog10: log10Guesses, warnings: warnings)
    }

    /// zxcvbn's thresholds: < 10^3 → 0, < 10^6 → 1, < 10^8 → 2, < 10^10 → 3, else 4.
    static func score(_ log10Guesses: Double) -> Int {
        switch log10Guesses {
        case ..<3: return 0
        case ..<6: return 1
        case ..<8: return 2
        case ..<10: return 3
        default: return 4
        }
    }

    /// Guesses to brute-force one character: the size of its class.
    static func bruteForceCardinality(_ c: Character) -> Double {
        guard c.isASCII else { return 100 }
        if c.isLowercase || c.isUppercase { return 26 }
        return c.isNumber ? 10 : 33
    }

    /// The decomposition of `chars` into matches and brute-forced stretches with the fewest guesses,
    /// as log10(guesses) and the matches used (brute-force stretches carry no warning).
    ///
    /// zxcvbn's formula for a sequence of l pieces: l! · Π guesses(piece) + 10000^(l−1); the l!
    /// counts the orders an attacker tries pieces in, the additive term favours fewer pieces. Dynamic
    /// programming over (end position, number of pieces) keeps the best product for each l.
    static func cheapestSequence(_ chars: [Character]) -> (Double, [StrengthMatch]) {
        let n = chars.count
        // A repeated unit is priced by this same search (units are at most half as long, so it ends).
        let found = StrengthMatchers.all(chars) { pow(10, cheapestSequence($0).0) }
        var byEnd = [[StrengthMatch]](repeating: [], count: n + 1)
        for m in found { byEnd[m.end].append(m) }
        // Patterns are at least 10 (one character) or 50 guesses when they are only part of the password.
        func log10Guesses(_ m: StrengthMatch) -> Double {
            let floor: Double = m.end - m.start == n ? 1 : (m.end - m.start == 1 ? 10 : 50)
            return log10(max(m.guesses, floor))
        }
        var prefix = [0.0]   // prefix[j] = Σ log10 cardinality of chars[0..<j]
        for c in chars { prefix.append(prefix.last! + log10(bruteForceCardinality(c))) }
        func bruteForce(_ i: Int, _ j: Int) -> Double {
            let raw = prefix[j] - prefix[i]
            return j - i == n ? raw : max(raw, log10(j - i == 1 ? 11 : 51))
        }
        // best[j][l]: least Σ log10 guesses for chars[0..<j] in l pieces; back[j][l]: (start, match or nil).
        var best = [[Double]](repeating: [Double](repeating: .infinity, count: n + 1), count: n + 1)
        var back = [[(Int, StrengthMatch?)]](repeating: [(Int, StrengthMatch?)](repeating: (0, nil), count: n + 1), count: n + 1)
        best[0][0] = 0
        for j in 1...n {
            for l in 1...j {
                for m in byEnd[j] where best[m.start][l - 1] < .infinity {
                    let cost = best[m.start][l - 1] + log10Guesses(m)
                    if cost < best[j][l] { best[j][l] = cost; back[j][l] = (m.start, m) }
                }
                for i in 0..<j where best[i][l - 1] < .infinity {
                    let cost = best[i][l - 1] + bruteForce(i, j)
                    if cost < best[j][l] { best[j][l] = cost; back[j][l] = (i, nil) }
                }
            }
        }
        var bestTotal = Double.infinity, bestL = 1
        for l in 1...n where best[n][l] < .infinity {
            let product = logFactorial(l) + best[n][l]
            let total = logSum(product, 4 * Double(l - 1))
            if total < bestTotal { bestTotal = total; bestL = l }
        }
        var matches: [StrengthMatch] = []
        var j = n, l = bestL
        while j > 0 {
            let (i, m) = back[j][l]
            if let m { matches.append(m) }
            j = i; l -= 1
        }
        return (bestTotal, matches.reversed())
    }

    private static func logFactorial(_ l: Int) -> Double { (1...max(l, 1)).reduce(0) { $0 + log10(Double($1)) } }

    /// log10(10^a + 10^b) without overflow.
    private static func logSum(_ a: Double, _ b: Double) -> Double {
        let hi = max(a, b), lo = min(a, b)
        return hi + log10(1 + pow(10, lo - hi))
    }
}
