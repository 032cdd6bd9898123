// The strength estimator's word matchers: frequency-list words as they are, reversed, and with l33t undone.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Finds every match of every pattern in a password, as zxcvbn's `omnimatch` does (matching.py), and
/// scores them (`StrengthMatcher+Search.swift`). Passwords are arrays of Unicode scalars, as zxcvbn's
/// Python strings are sequences of code points. Spec/GENERATOR.md §5.1.
struct StrengthMatcher {
    let data: StrengthData
    /// The year guesses of years and dates are measured from.
    let referenceYear: Int

    /// Every match in `p`, ordered by start then end.
    func omnimatch(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        let matches = dictionaryMatches(p) + reverseDictionaryMatches(p) + l33tMatches(p) + spatialMatches(p)
            + repeatMatches(p) + sequenceMatches(p) + yearMatches(p) + dateMatches(p) + misspellingMatches(p)
        return matches.enumerated().sorted {
            ($0.element.start, $0.element.end, $0.offset) < ($1.element.start, $1.element.end, $1.offset)
        }.map(\.element)
    }

    // MARK: dictionary words

    /// Every substring of `p`, lower-cased, that is a word of a list: (start, end, list, rank).
    func words(in p: [Unicode.Scalar]) -> [(start: Int, end: Int, dictionary: StrengthDictionary, rank: Int)] {
        // The lists hold only ASCII words, so a substring with any other character cannot match.
        let lower: [UInt8] = p.map { c in
            let l = StrengthGuesses.lowercased(c)
            return l.isASCII && l.value != 0 ? UInt8(l.value) : 0
        }
        var found: [(Int, Int, StrengthDictionary, Int)] = []
        for i in lower.indices where lower[i] != 0 {
            var j = i
            while j < lower.count, j - i < data.maxWordLength, lower[j] != 0 {
                if let (dictionary, rank) = data.lookUp(lower[i...j]) { found.append((i, j + 1, dictionary, rank)) }
                j += 1
            }
        }
        return found.sorted { ($0.2.rawValue, $0.0, $0.1) < ($1.2.rawValue, $1.0, $1.1) }
    }

    func dictionaryMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        words(in: p).map { w in
            let token = p[w.start..<w.end]
            let guesses = Double(w.rank) * StrengthGuesses.uppercaseVariations(token)
            return StrengthMatch(start: w.start, end: w.end,
                                 pattern: .dictionary(w.dictionary, rank: w.rank, reversed: false, l33t: false,
                                                      capitalization: StrengthGuesses.capitalization(token)),
                                 log10Guesses: log10(guesses))
        }
    }

    /// Words spelt backwards: twice the guesses of the word.
    func reverseDictionaryMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        let n = p.count
        return words(in: p.reversed()).map { w in
            let start = n - w.end, end = n - w.start
            let token = p[start..<end]
            let guesses = Double(w.rank) * StrengthGuesses.uppercaseVariations(token) * 2
            return StrengthMatch(start: start, end: end,
                                 pattern: .dictionary(w.dictionary, rank: w.rank, reversed: true, l33t: false,
                                                      capitalization: StrengthGuesses.capitalization(token)),
                                 log10Guesses: log10(guesses))
        }
    }

    /// zxcvbn's l33t table: each letter and the characters that stand for it.
    static let l33tTable: [(letter: Unicode.Scalar, subs: [Unicode.Scalar])] = [
        ("a", ["4", "@"]), ("b", ["8"]), ("c", ["(", "{", "[", "<"]), ("e", ["3"]), ("g", ["6", "9"]),
        ("i", ["1", "!", "|"]), ("l", ["1", "|", "7"]), ("o", ["0"]), ("s", ["$", "5"]), ("t", ["+", "7"]),
        ("x", ["%"]), ("z", ["2"]),
    ]

    /// Every way to read the l33t characters present in `p` as letters (each l33t character one letter),
    /// in zxcvbn's order (`enumerate_l33t_subs`).
    static func l33tSubstitutions(_ p: [Unicode.Scalar]) -> [[(l33t: Unicode.Scalar, letter: Unicode.Scalar)]] {
        let present = Set(p)
        let table = l33tTable.compactMap { row -> (Unicode.Scalar, [Unicode.Scalar])? in
            let subs = row.subs.filter(present.contains)
            return subs.isEmpty ? nil : (row.letter, subs)
        }
        var subs: [[(l33t: Unicode.Scalar, letter: Unicode.Scalar)]] = [[]]
        for (letter, l33ts) in table {
            var next: [[(l33t: Unicode.Scalar, letter: Unicode.Scalar)]] = []
            for l33t in l33ts {
                for sub in subs {
                    if let dup = sub.firstIndex(where: { $0.l33t == l33t }) {
                        var alternative = sub
                        alternative.remove(at: dup)
                        alternative.append((l33t, letter))
                        next.append(sub)
                        next.append(alternative)
                    } else {
                        next.append(sub + [(l33t, letter)])
                    }
                }
            }
            var seen = Set<String>()
            subs = next.filter { sub in
                let label = sub.map { "\($0.letter),\($0.l33t)" }.sorted().joined(separator: "-")
                return seen.insert(label).inserted
            }
        }
        return subs.filter { !$0.isEmpty }
    }

    /// Words with l33t characters read as letters (`p4ssw0rd`); only matches that use a substitution.
    func l33tMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        var out: [StrengthMatch] = []
        for sub in StrengthMatcher.l33tSubstitutions(p) {
            let map = Dictionary(sub.map { ($0.l33t, $0.letter) }, uniquingKeysWith: { $1 })
            let subbed = p.map { map[$0] ?? $0 }
            for w in words(in: subbed) where w.end - w.start > 1 {
                let token = p[w.start..<w.end]
                let lowerToken = token.map(StrengthGuesses.lowercased)
                if lowerToken == subbed[w.start..<w.end].map(StrengthGuesses.lowercased) { continue }  // no substitution used
                let used = sub.filter { token.contains($0.l33t) }
                let guesses = Double(w.rank) * StrengthGuesses.uppercaseVariations(token) * StrengthGuesses.l33tVariations(token, used)
                out.append(StrengthMatch(start: w.start, end: w.end,
                                         pattern: .dictionary(w.dictionary, rank: w.rank, reversed: false, l33t: true,
                                                              capitalization: StrengthGuesses.capitalization(token)),
                                         log10Guesses: log10(guesses)))
            }
        }
        return out
    }
}
