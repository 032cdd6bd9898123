// The strength estimator's date matcher: day, month and year with or without separators, as zxcvbn reads them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension StrengthMatcher {
    static let dateMinYear = 1000, dateMaxYear = 2050
    /// zxcvbn's ways to split 4–8 digits into three numbers (where the second and third parts start).
    static let dateSplits: [Int: [(Int, Int)]] = [
        4: [(1, 2), (2, 3)], 5: [(1, 3), (2, 3)], 6: [(1, 2), (2, 4), (4, 5)],
        7: [(1, 3), (2, 3), (4, 5), (4, 6)], 8: [(2, 4), (4, 6)],
    ]

    /// Dates of 4–8 digits (`1191`, `11111991`) or 6–10 characters with one separator used twice
    /// (`1.1.91`, `11/11/1991`); dates inside a longer date are dropped. Guesses: 365 × the year's
    /// distance from the reference year (at least 20), ×4 with separators.
    func dateMatches(_ p: [Unicode.Scalar]) -> [StrengthMatch] {
        var found: [(start: Int, end: Int, year: Int, separated: Bool)] = []
        if p.count >= 4 {
            for i in 0..<(p.count - 3) {
                for j in (i + 3)..<(i + 8) where j < p.count {
                    let token = p[i...j]
                    guard StrengthMatcher.number(token) != nil, let splits = StrengthMatcher.dateSplits[token.count] else { continue }
                    var best: Int?
                    for (k, l) in splits {
                        let a = token.startIndex
                        guard let x = StrengthMatcher.number(token[a..<(a + k)]), let y = StrengthMatcher.number(token[(a + k)..<(a + l)]),
                              let z = StrengthMatcher.number(token[(a + l)...]),
                              let year = StrengthMatcher.year(ofDate: [x, y, z]) else { continue }
                        // Prefer the reading with the year closest to the reference year; the first wins ties.
                        if best.map({ abs(year - referenceYear) < abs($0 - referenceYear) }) ?? true { best = year }
                    }
                    if let best { found.append((i, j + 1, best, false)) }
                }
            }
        }
        if p.count >= 6 {
            for i in 0..<(p.count - 5) {
                for j in (i + 5)..<(i + 10) where j < p.count {
                    if let parts = StrengthMatcher.separatedDate(p[i...j]), let year = StrengthMatcher.year(ofDate: parts) {
                        found.append((i, j + 1, year, true))
                    }
                }
            }
        }
        // Drop dates inside other dates ("2015_06_04" also holds "15_06_04", "5_06_04", …).
        let kept = found.enumerated().filter { index, d in
            !found.enumerated().contains { other, o in other != index && o.start <= d.start && o.end >= d.end }
        }.map(\.element)
        return kept.sorted { ($0.start, $0.end) < ($1.start, $1.end) }.map { d in
            let guesses = StrengthGuesses.yearSpace(d.year, referenceYear: referenceYear) * 365 * (d.separated ? 4 : 1)
            return StrengthMatch(start: d.start, end: d.end, pattern: .date, log10Guesses: log10(guesses))
        }
    }

    /// `^(\d{1,4})([\s/\\_.-])(\d{1,2})\2(\d{1,4})$`: the three numbers of a date with separators.
    static func separatedDate(_ token: ArraySlice<Unicode.Scalar>) -> [Int]? {
        func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
        func isSeparator(_ c: Unicode.Scalar) -> Bool { "/\\_.-".unicodeScalars.contains(c) || c.properties.isWhitespace }
        var i = token.startIndex
        func digits(_ maxCount: Int) -> Int? {
            let start = i
            while i < token.endIndex, isDigit(token[i]) { i += 1 }
            guard i > start, i - start <= maxCount else { return nil }
            return number(token[start..<i])
        }
        guard let a = digits(4), i < token.endIndex, isSeparator(token[i]) else { return nil }
        let separator = token[i]
        i += 1
        guard let b = digits(2), i < token.endIndex, token[i] == separator else { return nil }
        i += 1
        guard let c = digits(4), i == token.endIndex else { return nil }
        return [a, b, c]
    }

    /// The year of three numbers read as a date (zxcvbn's `map_ints_to_dmy`), nil if no reading is valid:
    /// a four-digit year first or last with a valid day and month, else a two-digit year.
    static func year(ofDate ints: [Int]) -> Int? {
        guard ints[1] <= 31, ints[1] > 0 else { return nil }
        var over12 = 0, over31 = 0, under1 = 0
        for n in ints {
            if (99 < n && n < dateMinYear) || n > dateMaxYear { return nil }
            if n > 31 { over31 += 1 }
            if n > 12 { over12 += 1 }
            if n <= 0 { under1 += 1 }
        }
        if over31 >= 2 || over12 == 3 || under1 >= 2 { return nil }
        let splits = [(ints[2], [ints[0], ints[1]]), (ints[0], [ints[1], ints[2]])]
        for (y, rest) in splits where (dateMinYear...dateMaxYear).contains(y) {
            return isDayMonth(rest) ? y : nil
        }
        for (y, rest) in splits where isDayMonth(rest) {
            return y > 99 ? y : (y > 50 ? y + 1900 : y + 2000)
        }
        return nil
    }

    /// Whether two numbers are a day and a month in either order.
    static func isDayMonth(_ pair: [Int]) -> Bool {
        ((1...31).contains(pair[0]) && (1...12).contains(pair[1])) || ((1...31).contains(pair[1]) && (1...12).contains(pair[0]))
    }
}
