// Tresor's one addition to zxcvbn's matchers: listed words with one letter dropped, added or swapped.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension StrengthMatcher {
    /// Shortest run of letters checked for misspellings; shorter runs are one edit away from too many words.
    static let minMisspellingLength = 6

    /// Runs of 6+ letters (with l33t characters read as letters, as in `l33tMatches`) that are not a listed
    /// word but are one edit away from one (`troubador`). The guesses are the word's rank × the number of
    /// such edits an attacker tries on the word — a dropped letter L (the word's length), a swapped pair
    /// L − 1, an added letter 26·(L + 1) — × the case and l33t variations. A changed letter is not
    /// matched: with 94,000 words too many random strings are one change away from some word.
    /// Spec/GENERATOR.md §5.1.
    func misspellingMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        var out: [StrengthMatch] = []
        var seen = Set<[Int]>()
        for sub in [[]] + StrengthMatcher.l33tSubstitutions(p) {
            let map = Dictionary(sub.map { ($0.l33t, $0.letter) }, uniquingKeysWith: { $1 })
            let letters: [UInt8] = p.map { c in
                let l = StrengthGuesses.lowercased(map[c] ?? c)
                return StrengthGuesses.isASCIILower(l) ? UInt8(l.value) : 0
            }
            var i = 0
            while i < letters.count {
                guard letters[i] != 0 else { i += 1; continue }
                var j = i
                while j < letters.count, letters[j] != 0 { j += 1 }
                if j - i >= StrengthMatcher.minMisspellingLength, j - i <= data.maxWordLength + 1,
                   let (dictionary, rank, variants) = closestWord(Array(letters[i..<j]), fixed: p[i..<j].map { map[$0] != nil }) {
                    let token = p[i..<j]
                    let used = sub.filter { token.contains($0.l33t) }
                    let guesses = Double(rank) * variants * StrengthGuesses.uppercaseVariations(token)
                        * (used.isEmpty ? 1 : StrengthGuesses.l33tVariations(token, used))
                    if seen.insert([i, j, Int(log10(guesses) * 1e6)]).inserted {
                        out.append(StrengthMatch(start: i, end: j,
                                                 pattern: .misspelling(dictionary, l33t: !used.isEmpty,
                                                                       capitalization: StrengthGuesses.capitalization(token)),
                                                 log10Guesses: log10(guesses)))
                    }
                }
                i = j
            }
        }
        return out
    }

    /// The listed word one edit away from `run` (lower-case ASCII letters) that is cheapest to reach, with
    /// its list, rank and the number of edits of its kind; nil if `run` is itself a word or none is near.
    /// Letters read from l33t characters (`fixed`) are never taken as the added letter: `jennifer2` is a
    /// word and a digit, not a misspelling of `jennifer`.
    func closestWord(_ run: [UInt8], fixed: [Bool]) -> (StrengthDictionary, Int, Double)? {
        guard data.lookUp(run) == nil else { return nil }
        var best: (StrengthDictionary, Int, Double)?
        func consider(_ candidate: [UInt8], _ variants: Double) {
            guard let (dictionary, rank) = data.lookUp(candidate) else { return }
            if best.map({ Double(rank) * variants < Double($0.1) * $0.2 }) ?? true { best = (dictionary, rank, variants) }
        }
        let n = run.count
        let alphabet = Array(UInt8(ascii: "a")...UInt8(ascii: "z"))
        for position in 0...n {
            for c in alphabet {  // the password dropped a letter of the word
                var candidate = run
                candidate.insert(c, at: position)
                consider(candidate, Double(n + 1))
            }
        }
        for position in 0..<n where !fixed[position] {
            var shorter = run
            shorter.remove(at: position)  // the password added a letter
            consider(shorter, Double(26 * n))
        }
        for position in 0..<n {
            if position + 1 < n, run[position] != run[position + 1] {  // the password swapped two letters
                var candidate = run
                candidate.swapAt(position, position + 1)
                consider(candidate, Double(n - 1))
            }
        }
        return best
    }
}
