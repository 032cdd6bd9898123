// The strength estimator's other matchers: keyboard walks, repeats, sequences, recent years and dates.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension StrengthMatcher {
    // MARK: keyboard walks

    /// Characters typed with the shift key on QWERTY (zxcvbn's `SHIFTED_RX`, used for Dvorak too).
    static let shifted = Set("~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:\"ZXCVBNM<>?".unicodeScalars)

    /// Runs of 3+ characters, each on a key next to the previous one, on QWERTY, Dvorak and both keypads.
    func spatialMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        var out: [StrengthMatch] = []
        for graph in data.graphs {
            let keyboard = graph.hasShift
            var i = 0
            while i < p.count - 1 {
                var j = i + 1, turns = 0, lastDirection: Int?
                var shiftedCount = keyboard && StrengthMatcher.shifted.contains(p[i]) ? 1 : 0
                while true {
                    var found = false
                    if j < p.count, let adjacent = graph.neighbours[p[j - 1]] {
                        for (direction, key) in adjacent.enumerated() {
                            guard let key, let index = key.firstIndex(of: p[j]) else { continue }
                            found = true
                            if index == 1 { shiftedCount += 1 }
                            if lastDirection != direction { turns += 1; lastDirection = direction }
                            break
                        }
                    }
                    if found { j += 1; continue }
                    if j - i > 2 {
                        let guesses = StrengthGuesses.spatial(
                            length: j - i, turns: turns, shifted: shiftedCount,
                            starts: keyboard ? data.keyboardStarts : data.keypadStarts,
                            degree: keyboard ? data.keyboardDegree : data.keypadDegree)
                        out.append(StrengthMatch(start: i, end: j, pattern: .spatial(turns: turns), log10Guesses: log10(guesses)))
                    }
                    i = j
                    break
                }
            }
        }
        return out
    }

    // MARK: repeats

    /// `aaa`, `abcabcabc`: zxcvbn's greedy and lazy `(.+)\1+` searches from left to right; the guesses
    /// are those of the repeated unit (scored by the same search) × the number of copies.
    func repeatMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        // Python's "." does not match a line feed.
        func same(_ a: Int, _ b: Int, _ length: Int) -> Bool {
            for k in 0..<length where p[a + k] != p[b + k] || p[a + k] == "\n" { return false }
            return true
        }
        func copies(from start: Int, unit: Int) -> Int {
            var n = 1
            while start + (n + 1) * unit <= p.count, same(start, start + n * unit, unit) { n += 1 }
            return n
        }
        var out: [StrengthMatch] = []
        var last = 0
        while last < p.count {
            // The leftmost start with a repeat, and its longest (greedy) and shortest (lazy) units.
            var found: (start: Int, greedy: Int, lazy: Int)?
            for start in last..<p.count {
                let units = (1...max(1, (p.count - start) / 2)).filter { start + 2 * $0 <= p.count && same(start, start + $0, $0) }
                if let lazy = units.first, let greedy = units.last { found = (start, greedy, lazy); break }
            }
            guard let (start, greedyUnit, lazyUnit) = found else { break }
            let greedyLength = greedyUnit * copies(from: start, unit: greedyUnit)
            let lazyLength = lazyUnit * copies(from: start, unit: lazyUnit)
            let length: Int, unit: Int
            if greedyLength > lazyLength {
                // The greedy run may itself repeat a shorter unit ("aabaab" in "aabaabaabaab").
                length = greedyLength
                unit = (1...greedyLength).first { greedyLength % $0 == 0 && greedyLength / $0 >= 2 && same(start, start + $0, greedyLength - $0) }!
            } else {
                length = lazyLength
                unit = lazyUnit
            }
            let base = Array(p[start..<(start + unit)])
            let baseGuesses = mostGuessableSequence(base, omnimatch(base)).log10Guesses
            out.append(StrengthMatch(start: start, end: start + length, pattern: .repeated(unitLength: unit),
                                     log10Guesses: baseGuesses + log10(Double(length / unit))))
            last = start + length
        }
        return out
    }

    // MARK: sequences

    /// Runs with a constant step of 1–5 code points (`abcd`, `9753`, `ZYX`); two characters only with a step of ±1.
    func sequenceMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        guard p.count > 1 else { return [] }
        var out: [StrengthMatch] = []
        func update(_ i: Int, _ j: Int, _ delta: Int) {
            guard j - i > 1 || abs(delta) == 1, (1...5).contains(abs(delta)) else { return }
            let token = p[i...j]
            out.append(StrengthMatch(start: i, end: j + 1, pattern: .sequence,
                                     log10Guesses: log10(StrengthGuesses.sequence(token, ascending: delta > 0))))
        }
        var i = 0
        var lastDelta: Int?
        for k in 1..<p.count {
            let delta = Int(p[k].value) - Int(p[k - 1].value)
            if lastDelta == nil { lastDelta = delta }
            if delta == lastDelta { continue }
            update(i, k - 1, lastDelta!)
            i = k - 1
            lastDelta = delta
        }
        update(i, p.count - 1, lastDelta!)
        return out
    }

    // MARK: years and dates

    /// The last year counted as recent: the end of the reference year's decade (zxcvbn, written in 2016,
    /// used 1900–2019).
    var lastRecentYear: Int { referenceYear - referenceYear % 10 + 9 }

    /// Four ASCII digits forming a year from 1900 to `lastRecentYear`, left to right without overlap.
    func yearMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        var out: [StrengthMatch] = []
        var i = 0
        while i + 4 <= p.count {
            if let year = StrengthMatcher.number(p[i..<(i + 4)]), (1900...lastRecentYear).contains(year) {
                out.append(StrengthMatch(start: i, end: i + 4, pattern: .year,
                                         log10Guesses: log10(StrengthGuesses.yearSpace(year, referenceYear: referenceYear))))
                i += 4
            } else {
                i += 1
            }
        }
        return out
    }

    /// The value of a run of ASCII digits, nil if any character is not one.
    static func number(_ s: ArraySlice<Unicode.Scalar>) -> Int? {
        guard !s.isEmpty, s.count <= 9 else { return nil }
        var v = 0
        for c in s {
            guard c.value >= 48 && c.value <= 57 else { return nil }
            v = v * 10 + Int(c.value - 48)
        }
        return v
    }
}
