// Keyboard runs on a QWERTY layout and years and dates, for the strength estimator.

import Foundation

extension StrengthMatchers {
    /// QWERTY keys as unshifted+shifted pairs; row r starts at column 0 (top row) or 1 (the others).
    /// In these slanted coordinates each key touches (x−1,y) (x+1,y) (x,y−1) (x+1,y−1) (x,y+1) (x−1,y+1),
    /// the same adjacency zxcvbn uses.
    private static let rows: [(x0: Int, keys: [String])] = [
        (0, ["`~", "1!", "2@", "3#", "4$", "5%", "6^", "7&", "8*", "9(", "0)", "-_", "=+"]),
        (1, ["qQ", "wW", "eE", "rR", "tT", "yY", "uU", "iI", "oO", "pP", "[{", "]}", "\\|"]),
        (1, ["aA", "sS", "dD", "fF", "gG", "hH", "jJ", "kK", "lL", ";:", "'\""]),
        (1, ["zZ", "xX", "cC", "vV", "bB", "nN", "mM", ",<", ".>", "/?"]),
    ]
    private static let directions = [(-1, 0), (0, -1), (1, -1), (1, 0), (0, 1), (-1, 1)]

    /// Each character's key position and whether it needs shift.
    private static let keyOf: [Character: (x: Int, y: Int, shifted: Bool)] = {
        var out: [Character: (Int, Int, Bool)] = [:]
        for (y, row) in rows.enumerated() {
            for (i, key) in row.keys.enumerated() {
                out[key.first!] = (row.x0 + i, y, false)
                out[key.last!] = (row.x0 + i, y, true)
            }
        }
        return out
    }()
    private static let positions: Set<[Int]> = Set(keyOf.values.map { [$0.x, $0.y] })
    /// zxcvbn's s (starting positions: every character of the layout) and d (mean neighbours per key).
    private static let startingPositions = Double(keyOf.count)
    private static let averageDegree: Double = {
        let degrees = positions.map { p in directions.filter { positions.contains([p[0] + $0.0, p[1] + $0.1]) }.count }
        return Double(degrees.reduce(0, +)) / Double(degrees.count)
    }()

    /// Runs of 3+ characters where each is on a key next to the previous one ("qwerty", "asdf",
    /// "1qaz", "zxcvbn"). zxcvbn's guesses: Σ_{i=2}^{L} Σ_{j=1}^{min(t,i−1)} C(i−1, j−1)·s·d^j for t
    /// turns, times the shift variations.
    static func keyboard(_ chars: [Character]) -> [StrengthMatch] {
        func step(_ a: Character, _ b: Character) -> Int? {
            guard let p = keyOf[a], let q = keyOf[b] else { return nil }
            return directions.firstIndex { p.x + $0.0 == q.x && p.y + $0.1 == q.y }
        }
        var out: [StrengthMatch] = []
        var i = 0
        while i + 2 < chars.count {
            var j = i, turns = 0, last: Int?
            while j + 1 < chars.count, let d = step(chars[j], chars[j + 1]) {
                if d != last { turns += 1; last = d }
                j += 1
            }
            let length = j - i + 1
            guard length >= 3 else { i += 1; continue }
            var guesses = 0.0
            for k in 2...length {
                for t in 1...min(turns, k - 1) {
                    guesses += binomial(k - 1, t - 1) * startingPositions * pow(averageDegree, Double(t))
                }
            }
            let shifted = chars[i...j].filter { keyOf[$0]?.shifted == true }.count, plain = length - shifted
            if shifted > 0 {
                guesses *= plain == 0 ? 2 : (1...min(shifted, plain)).reduce(0) { $0 + binomial(length, $1) }
            }
            out.append(StrengthMatch(start: i, end: j + 1, guesses: guesses, warning: "keyboard run \"\(String(chars[i...j]))\""))
            i = j
        }
        return out
    }

    // MARK: years and dates

    /// The year guesses are measured from (zxcvbn uses the current year too).
    static var referenceYear: Int { Calendar(identifier: .gregorian).component(.year, from: Date()) }

    /// Years 1900–2099 (guesses: distance from the reference year, at least 20) and dates with or
    /// without separators, day-month-year, month-day-year or year-month-day with 2- or 4-digit years
    /// (guesses: 365 × the year's, ×4 with a separator).
    static func dates(_ chars: [Character]) -> [StrengthMatch] {
        let reference = referenceYear
        func yearGuesses(_ year: Int) -> Double { Double(max(abs(year - reference), 20)) }
        func fullYear(_ text: Substring) -> Int? {
            guard let v = Int(text) else { return nil }
            if text.count == 4 { return (1900...2099).contains(v) ? v : nil }
            return text.count == 2 ? (v >= 50 ? 1900 + v : 2000 + v) : nil
        }
        /// The year of the best reading of three parts as a date, if any reading is valid.
        func dateYear(_ parts: [Substring]) -> Int? {
            var years: [Int] = []
            func valid(_ d: Substring, _ m: Substring, _ y: Substring) {
                guard d.count <= 2, m.count <= 2, let day = Int(d), let month = Int(m), let year = fullYear(y),
                      (1...31).contains(day), (1...12).contains(month) else { return }
                years.append(year)
            }
            valid(parts[2], parts[1], parts[0])   // y m d
            valid(parts[0], parts[1], parts[2])   // d m y
            valid(parts[1], parts[0], parts[2])   // m d y
            return years.min { abs($0 - reference) < abs($1 - reference) }
        }
        var out: [StrengthMatch] = []
        func add(_ i: Int, _ j: Int, _ guesses: Double) {
            out.append(StrengthMatch(start: i, end: j, guesses: guesses, warning: "looks like a year or date \"\(String(chars[i..<j]))\""))
        }
        func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
        let separators: Set<Character> = [" ", "/", "\\", "_", ".", "-"]
        for i in chars.indices where isDigit(chars[i]) {
            // Digits only: a 4-digit year, or 4–8 digits split into three parts that read as a date.
            var run = ""
            for c in chars[i..<min(chars.count, i + 8)] {
                guard isDigit(c) else { break }
                run.append(c)
            }
            if run.count >= 4, let year = fullYear(Substring(run.prefix(4))), run.prefix(4).count == 4 {
                add(i, i + 4, yearGuesses(year))
            }
            if run.count >= 4 {
                for end in 4...run.count {
                    let text = Substring(run.prefix(end))
                    var best: Int?
                    for a in 1...4 {
                        for b in 1...4 where a + b < end && end - a - b <= 4 {
                            let parts = [text.prefix(a), text.dropFirst(a).prefix(b), text.dropFirst(a + b)]
                            if let y = dateYear(parts), best.map({ abs(y - reference) < abs($0 - reference) }) ?? true { best = y }
                        }
                    }
                    if let year = best { add(i, i + end, 365 * yearGuesses(year)) }
                }
            }
            // With a separator used twice: 1–4 digits, separator, 1–2 digits, separator, 1–4 digits.
            var parts: [Substring] = [], current = "", separator: Character?, j = i
            while j < chars.count, j - i < 10 {
                let c = chars[j]
                if isDigit(c) {
                    current.append(c)
                } else if separators.contains(c), !current.isEmpty, parts.count < 2, separator == nil || separator == c {
                    separator = c
                    parts.append(Substring(current))
                    current = ""
                } else {
                    break
                }
                j += 1
                if parts.count == 2, !current.isEmpty, let year = dateYear(parts + [Substring(current)]) {
                    add(i, j, 365 * yearGuesses(year) * 4)
                }
            }
        }
        return out
    }
}
