// The patterns the strength estimator looks for: words, repeats, sequences, keyboard runs, dates.

import Foundation

/// A guessable piece of a password: characters `start..<end`, how many guesses an attacker who knows
/// the pattern needs, and the warning shown when the piece weakens the password.
struct StrengthMatch {
    let start: Int
    let end: Int
    let guesses: Double
    let warning: String

    /// The matched text for a warning, cut to 24 characters so a long run is not echoed whole.
    static func quote(_ text: some StringProtocol) -> String {
        "\"" + (text.count > 24 ? text.prefix(24) + "…" : String(text)) + "\""
    }
}

/// Finds every match of every pattern in `chars` (Spec/GENERATOR.md §5). `repeatGuesses` estimates
/// the guesses of a repeated unit, so repeats of words or sequences are priced as such.
enum StrengthMatchers {
    static func all(_ chars: [Character], repeatGuesses: ([Character]) -> Double) -> [StrengthMatch] {
        dictionary(chars) + repeats(chars, unitGuesses: repeatGuesses) + sequences(chars) + keyboard(chars) + dates(chars)
    }

    // MARK: dictionary words, with case, l33t and reversal

    /// The l33t substitutions undone before a look-up (as in zxcvbn).
    static let l33t: [Character: [Character]] = [
        "4": ["a"], "@": ["a"], "8": ["b"], "(": ["c"], "{": ["c"], "[": ["c"], "<": ["c"], "3": ["e"],
        "6": ["g"], "9": ["g"], "1": ["i", "l"], "!": ["i"], "|": ["i", "l"], "7": ["l", "t"], "0": ["o"],
        "$": ["s"], "5": ["s"], "+": ["t"], "%": ["x"], "2": ["z"],
    ]
    private static let maxWordLength = max(
        EFFWordList.words.map(\.count).max() ?? 0, CommonPasswords.ranked.map(\.count).max() ?? 0)

    static func dictionary(_ chars: [Character]) -> [StrengthMatch] {
        let lower = chars.map { c -> Character in
            let l = c.lowercased()
            return l.count == 1 ? Character(l) : c
        }
        var out: [StrengthMatch] = []
        for i in chars.indices {
            let last = min(chars.count, i + maxWordLength)
            guard last >= i + 3 else { continue }
            for j in (i + 3)...last {
                let token = Array(lower[i..<j])
                let original = Array(chars[i..<j])
                for (variant, subs) in unl33t(token) {
                    for reversed in [false, true] {
                        let word = String(reversed ? variant.reversed() : variant)
                        guard let base = baseGuesses(word) else { continue }
                        var guesses = base * uppercaseVariations(original) * l33tVariations(token, subs)
                        if reversed { guesses *= 2 }
                        var warning = "contains the dictionary word \"\(word)\""
                        if String(original) != word { warning += reversed ? " reversed" : " (as \"\(String(original))\")" }
                        out.append(StrengthMatch(start: i, end: j, guesses: guesses, warning: warning))
                    }
                }
            }
        }
        return out
    }

    /// Rank in the common-password list, else 7,776 for any EFF word (an attacker enumerating the list).
    private static func baseGuesses(_ word: String) -> Double? {
        if let rank = CommonPasswords.rank[word] { return Double(rank) }
        return EFFWordList.wordSet.contains(word) ? Double(EFFWordList.words.count) : nil
    }

    /// The token itself plus each consistent de-l33ting (every occurrence of a l33t character
    /// replaced by the same letter), with the substitutions made; none when there would be over 32.
    private static func unl33t(_ token: [Character]) -> [([Character], [Character: Character])] {
        var keys: [Character] = []
        for c in token where l33t[c] != nil && !keys.contains(c) { keys.append(c) }
        var maps: [[Character: Character]] = [[:]]
        for key in keys {
            maps = maps.flatMap { map in l33t[key]!.map { letter in map.merging([key: letter]) { $1 } } }
        }
        guard !keys.isEmpty, maps.count <= 32 else { return [(token, [:])] }
        return [(token, [:])] + maps.map { map in (token.map { map[$0] ?? $0 }, map) }
    }

    /// zxcvbn: all lower 1; first, last or all upper 2; otherwise Σ_{i=1}^{min(U,L)} C(U+L, i).
    static func uppercaseVariations(_ token: [Character]) -> Double {
        let letters = token.filter(\.isLetter)
        let upper = letters.filter(\.isUppercase).count, lower = letters.count - upper
        if upper == 0 { return 1 }
        if lower == 0 || (upper == 1 && (token.first?.isUppercase == true || token.last?.isUppercase == true)) { return 2 }
        return (1...min(upper, lower)).reduce(0) { $0 + binomial(upper + lower, $1) }
    }

    /// zxcvbn: per substitution, 2 when every such letter is substituted, else Σ_{i=1}^{min(S,U)} C(S+U, i).
    private static func l33tVariations(_ token: [Character], _ subs: [Character: Character]) -> Double {
        subs.reduce(1.0) { acc, sub in
            let s = token.filter { $0 == sub.key }.count, u = token.filter { $0 == sub.value }.count
            return acc * (u == 0 ? 2 : (1...min(s, u)).reduce(0) { $0 + binomial(s + u, $1) })
        }
    }

    static func binomial(_ n: Int, _ k: Int) -> Double {
        guard k >= 0 && k <= n else { return 0 }
        return (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }

    // MARK: repeats

    /// "aaaa", "abcabc": the longest repeat of a unit of 1–32 characters starting at each position
    /// (then continuing after it); guesses = guesses of the unit × number of copies.
    static func repeats(_ chars: [Character], unitGuesses: ([Character]) -> Double) -> [StrengthMatch] {
        var out: [StrengthMatch] = []
        var i = 0
        while i < chars.count {
            var best: (unit: Int, copies: Int)?
            for unit in 1...32 where i + 2 * unit <= chars.count {
                var copies = 1
                while i + (copies + 1) * unit <= chars.count,
                      chars[(i + copies * unit)..<(i + (copies + 1) * unit)] == chars[i..<(i + unit)] {
                    copies += 1
                }
                let covered = unit * copies
                if copies >= 2, covered >= 3, covered > (best.map { $0.unit * $0.copies } ?? 0) { best = (unit, copies) }
            }
            guard let (unit, copies) = best else { i += 1; continue }
            let end = i + unit * copies
            let text = String(chars[i..<end])
            out.append(StrengthMatch(
                start: i, end: end, guesses: unitGuesses(Array(chars[i..<(i + unit)])) * Double(copies),
                warning: (unit == 1 ? "repeated characters " : "repeated pattern ") + StrengthMatch.quote(text)))
            i = end
        }
        return out
    }

    // MARK: sequences

    /// Runs of 3+ letters or digits with a constant step of 1–5 ("abcd", "1234", "9876", "aceg").
    /// zxcvbn's guesses: 4 for an obvious start (a, A, z, Z, 0, 1, 9), else 10 or 26; ×2 descending; × length.
    static func sequences(_ chars: [Character]) -> [StrengthMatch] {
        func kind(_ c: Character) -> Int? {
            guard c.isASCII else { return nil }
            if c.isLowercase { return 0 }
            if c.isUppercase { return 1 }
            return c.isNumber ? 2 : nil
        }
        func code(_ c: Character) -> Int { Int(c.asciiValue ?? 0) }
        var out: [StrengthMatch] = []
        var i = 0
        while i + 2 < chars.count {
            let delta = code(chars[i + 1]) - code(chars[i])
            guard let k = kind(chars[i]), kind(chars[i + 1]) == k, (1...5).contains(abs(delta)) else { i += 1; continue }
            var j = i + 1
            while j + 1 < chars.count, kind(chars[j + 1]) == k, code(chars[j + 1]) - code(chars[j]) == delta { j += 1 }
            if j - i + 1 >= 3 {
                let first = chars[i]
                var base: Double = "aAzZ019".contains(first) ? 4 : (k == 2 ? 10 : 26)
                if delta < 0 { base *= 2 }
                let text = String(chars[i...j])
                out.append(StrengthMatch(start: i, end: j + 1, guesses: base * Double(j - i + 1), warning: "sequence \"\(text)\""))
            }
            i = j
        }
        return out
    }
}
