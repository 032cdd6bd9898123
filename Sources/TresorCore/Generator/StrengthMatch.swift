// One guessable piece of a password found by the strength estimator, and zxcvbn's guess count for it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The kind of a match, with what the weakness report needs to know about it.
enum StrengthPattern: Equatable, Sendable {
    /// A word of a frequency list, perhaps reversed or with l33t substitutions.
    case dictionary(StrengthDictionary, rank: Int, reversed: Bool, l33t: Bool, capitalization: Capitalization)
    /// A word of a frequency list with one letter dropped, added or swapped (Tresor's addition).
    case misspelling(StrengthDictionary, l33t: Bool, capitalization: Capitalization)
    /// A walk on a keyboard or keypad; `turns` = 1 is a straight row.
    case spatial(turns: Int)
    /// Two or more copies of a unit.
    case repeated(unitLength: Int)
    /// Letters or digits with a constant step (`abc`, `9753`).
    case sequence
    /// A year from 1900 to the end of the reference year's decade.
    case year
    /// Day, month and year, with or without separators.
    case date
    /// Characters covered by no pattern.
    case bruteforce

    enum Capitalization: Equatable, Sendable { case none, first, all, mixed }
}

/// Characters `start..<end` (Unicode scalars) of the password and the log10 of the guesses an attacker who
/// knows the pattern needs (before the minimum a part of a longer password is given).
struct StrengthMatch: Sendable {
    let start: Int
    let end: Int
    let pattern: StrengthPattern
    let log10Guesses: Double

    var length: Int { end - start }
}

/// zxcvbn's guess formulas (scoring.py). Spec/GENERATOR.md §5.2.
enum StrengthGuesses {
    static let bruteforceCardinality = 10.0
    static let minSubmatchGuessesSingleChar = 10.0
    static let minSubmatchGuessesMultiChar = 50.0
    static let minYearSpace = 20

    /// n choose k as zxcvbn computes it (in floating point).
    static func nCk(_ n: Int, _ k: Int) -> Double {
        if k > n { return 0 }
        if k == 0 { return 1 }
        var r = 1.0, n = Double(n)
        for d in 1...k { r *= n; r /= Double(d); n -= 1 }
        return r
    }

    /// Σ_{i=1}^{min(a,b)} C(a+b, i): the variants with some of a+b positions changed.
    static func partialVariations(_ a: Int, _ b: Int) -> Double {
        guard min(a, b) >= 1 else { return 0 }
        return (1...min(a, b)).reduce(0) { $0 + nCk(a + b, $1) }
    }

    static func isASCIIUpper(_ c: Unicode.Scalar) -> Bool { c.value >= 65 && c.value <= 90 }
    static func isASCIILower(_ c: Unicode.Scalar) -> Bool { c.value >= 97 && c.value <= 122 }

    /// How the letters of a token are capitalised, judged on ASCII capitals as zxcvbn's patterns do.
    static func capitalization(_ token: ArraySlice<Unicode.Scalar>) -> StrengthPattern.Capitalization {
        let upper = token.map(isASCIIUpper)
        guard upper.contains(true) else { return .none }
        let first = upper.first!, last = upper.last!, inner = upper.dropFirst().dropLast().contains(true)
        if token.count > 1 && first && !inner && !last { return .first }
        if token.count > 1 && last && !inner && !first { return .first }
        if !token.contains(where: isASCIILower) { return .all }
        return .mixed
    }

    /// zxcvbn: 1 without capitals; 2 for a capital first or last letter, or all capitals; otherwise
    /// Σ_{i=1}^{min(U,L)} C(U+L, i).
    static func uppercaseVariations(_ token: ArraySlice<Unicode.Scalar>) -> Double {
        switch capitalization(token) {
        case .none: return 1
        case .first, .all: return 2
        case .mixed:
            let u = token.filter { $0.properties.isUppercase }.count, l = token.filter { $0.properties.isLowercase }.count
            return partialVariations(u, l)
        }
    }

    /// zxcvbn: per substitution, 2 if every such letter is substituted (or none is), else
    /// Σ_{i=1}^{min(S,U)} C(S+U, i).
    static func l33tVariations(_ token: ArraySlice<Unicode.Scalar>, _ subs: [(l33t: Unicode.Scalar, letter: Unicode.Scalar)]) -> Double {
        let lower = token.map(lowercased)
        var variations = 1.0
        for sub in subs {
            let s = lower.filter { $0 == sub.l33t }.count, u = lower.filter { $0 == sub.letter }.count
            variations *= (s == 0 || u == 0) ? 2 : partialVariations(u, s)
        }
        return variations
    }

    /// zxcvbn: 4 for an obvious start (a A z Z 0 1 9), 10 for other digits, 26 otherwise; ×2 descending; × length.
    static func sequence(_ token: ArraySlice<Unicode.Scalar>, ascending: Bool) -> Double {
        let first = token.first!
        var base: Double = "aAzZ019".unicodeScalars.contains(first) ? 4 : (first.properties.generalCategory == .decimalNumber ? 10 : 26)
        if !ascending { base *= 2 }
        return base * Double(token.count)
    }

    /// zxcvbn: the distance from the reference year, at least 20.
    static func yearSpace(_ year: Int, referenceYear: Int) -> Double { Double(max(abs(year - referenceYear), minYearSpace)) }

    /// zxcvbn: Σ_{i=2}^{L} Σ_{j=1}^{min(t,i−1)} C(i−1, j−1)·s·d^j, × the shift variations.
    static func spatial(length: Int, turns: Int, shifted: Int, starts s: Double, degree d: Double) -> Double {
        var guesses = 0.0
        if length >= 2 {
            for i in 2...length {
                let possibleTurns = min(turns, i - 1)
                guard possibleTurns >= 1 else { continue }
                for j in 1...possibleTurns { guesses += nCk(i - 1, j - 1) * s * pow(d, Double(j)) }
            }
        }
        if shifted > 0 {
            let unshifted = length - shifted
            guesses *= unshifted == 0 ? 2 : partialVariations(shifted, unshifted)
        }
        return guesses
    }

    /// zxcvbn's brute force: 10^length, at least 11 (one character) or 51, so a pattern over the same
    /// characters wins a tie.
    static func bruteforceLog10(_ length: Int) -> Double {
        max(Double(length) * log10(bruteforceCardinality),
            log10(length == 1 ? minSubmatchGuessesSingleChar + 1 : minSubmatchGuessesMultiChar + 1))
    }

    /// A scalar in lower case when that is one scalar (Python's `str.lower` for all but a few letters).
    static func lowercased(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.isASCII { return isASCIIUpper(c) ? Unicode.Scalar(c.value + 32)! : c }
        let mapped = c.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : c
    }
}
