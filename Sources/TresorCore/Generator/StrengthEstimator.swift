// A port of zxcvbn's password strength estimate: the guesses of the cheapest way to guess a password, and why.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// How hard a password is to guess. Spec/GENERATOR.md §5.
public struct StrengthEstimate: Equatable, Sendable {
    /// 0 (under 10^3 guesses) … 4 (10^10 guesses or more), with zxcvbn's thresholds.
    public let score: Int
    /// Estimated number of guesses an attacker who knows the patterns needs.
    public let guesses: Double
    /// log10 of `guesses`.
    public let guessesLog10: Double
    /// What makes the password weak, most important first; empty for score 4. Never quotes the password.
    public let weaknesses: [StrengthWeakness]

    /// The weaknesses as sentences for people.
    public var warnings: [String] { weaknesses.map(\.description) }
}

/// A kind of weakness, named without quoting any part of the password (Spec/GENERATOR.md §5.3).
public enum StrengthWeakness: String, Sendable, CaseIterable, CustomStringConvertible {
    case empty = "empty"
    case short = "short"
    case topTenPassword = "top-10-password"
    case topHundredPassword = "top-100-password"
    case commonPassword = "common-password"
    case containsCommonPassword = "contains-common-password"
    case commonWord = "common-word"
    case commonName = "common-name"
    case misspelledWord = "misspelled-word"
    case capitalizedWord = "capitalized-word"
    case uppercaseWord = "uppercase-word"
    case reversedWord = "reversed-word"
    case substitutions = "substitutions"
    case straightRow = "straight-row"
    case keyboardPattern = "keyboard-pattern"
    case repeatedCharacters = "repeated-characters"
    case repeatedPattern = "repeated-pattern"
    case sequence = "sequence"
    case recentYear = "recent-year"
    case date = "date"

    public var description: String {
        switch self {
        case .empty: return "the password is empty"
        case .short: return "shorter than 12 characters"
        case .topTenPassword: return "one of the 10 most common passwords"
        case .topHundredPassword: return "one of the 100 most common passwords"
        case .commonPassword: return "a very common password"
        case .containsCommonPassword: return "contains a common password"
        case .commonWord: return "contains a common word"
        case .commonName: return "contains a common name or surname"
        case .misspelledWord: return "contains a common word with one letter dropped, added or swapped"
        case .capitalizedWord: return "a capital first or last letter adds little"
        case .uppercaseWord: return "writing a word in capitals adds little"
        case .reversedWord: return "a word spelt backwards adds little"
        case .substitutions: return "predictable substitutions of digits or symbols for letters add little"
        case .straightRow: return "contains a straight row of keys"
        case .keyboardPattern: return "contains a short keyboard pattern"
        case .repeatedCharacters: return "contains a repeated character"
        case .repeatedPattern: return "contains a repeated group of characters"
        case .sequence: return "contains a sequence of letters or digits"
        case .recentYear: return "contains a recent year"
        case .date: return "contains a date"
        }
    }
}

/// Estimates password strength with zxcvbn's model (Wheeler, USENIX Security 2016): it finds words of
/// ranked frequency lists (as typed, reversed, with l33t substitutions), keyboard walks, repeats,
/// sequences, recent years and dates, then the split into those and brute-forced stretches that needs
/// the fewest guesses. Spec/GENERATOR.md §5.
public enum StrengthEstimator {
    /// Only this many leading characters (Unicode scalars) are analysed: an underestimate for longer
    /// passwords, the safe side (zxcvbn refuses passwords over 72 characters).
    static let maxAnalysedLength = 100
    /// Passwords shorter than this are reported as short (unless they score 4).
    static let shortLength = 12

    /// The current year, which zxcvbn measures years and dates from.
    static var currentYear: Int { Calendar(identifier: .gregorian).component(.year, from: Date()) }

    /// The strength of `password`, with years measured from `referenceYear` (default: this year).
    /// - Throws: `GeneratorError.dataFileMissing`, `.dataFileUnreadable` or `.dataFileDamaged` when the
    ///   dictionaries cannot be loaded (they are read once, on first use).
    public static func estimate(_ password: String, referenceYear: Int? = nil) throws -> StrengthEstimate {
        var scalars = Array(password.unicodeScalars.prefix(maxAnalysedLength))
        defer { wipe(&scalars) }
        return try estimate(scalars: scalars, referenceYear: referenceYear)
    }

    /// The strength of a password held in zeroing memory: its scalars are decoded from the bytes into one
    /// array of the right capacity (never reallocated, wiped afterwards), without a `String`. Bytes that are
    /// not UTF-8 count as U+FFFD, as `String(decoding:)` would read them.
    public static func estimate(_ password: SecretText, referenceYear: Int? = nil) throws -> StrengthEstimate {
        try estimate(password, referenceYear: referenceYear, once: false)
    }

    /// The same estimate as `estimate(_:referenceYear:)`, for a process that makes only this one: the lists
    /// are read for the words this password can match instead of being put whole into a table that stays
    /// for the next estimates (Spec/GENERATOR.md §5.4). - Throws: as `estimate(_:referenceYear:)`.
    public static func estimateOnce(_ password: SecretText, referenceYear: Int? = nil) throws -> StrengthEstimate {
        try estimate(password, referenceYear: referenceYear, once: true)
    }

    /// The estimate of `password`, with the shared lists or (`once`) those read for it alone.
    private static func estimate(_ password: SecretText, referenceYear: Int?, once: Bool) throws -> StrengthEstimate {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(min(password.count, maxAnalysedLength))
        defer { wipe(&scalars) }
        password.withUTF8 { bytes in
            var input = bytes.makeIterator()
            var decoder = UTF8()
            decoding: while scalars.count < maxAnalysedLength {
                switch decoder.decode(&input) {
                case .scalarValue(let scalar): scalars.append(scalar)
                case .emptyInput: break decoding
                case .error: scalars.append("\u{FFFD}")
                }
            }
        }
        return try estimate(scalars: scalars, referenceYear: referenceYear, once: once)
    }

    private static func estimate(scalars: [Unicode.Scalar], referenceYear: Int?, once: Bool = false) throws -> StrengthEstimate {
        let year = referenceYear ?? currentYear
        let data = once ? try StrengthData.forOnePassword { _ = StrengthMatcher(data: $0, referenceYear: year).omnimatch(scalars) }
            : try StrengthData.shared()
        guard !scalars.isEmpty else { return StrengthEstimate(score: 0, guesses: 1, guessesLog10: 0, weaknesses: [.empty]) }
        let matcher = StrengthMatcher(data: data, referenceYear: year)
        let (log10Guesses, sequence) = matcher.mostGuessableSequence(scalars, matcher.omnimatch(scalars))
        let guesses = pow(10, log10Guesses)
        let score = score(guesses: guesses)
        let weaknesses = score == 4 ? [] : weaknesses(sequence, length: scalars.count)
        return StrengthEstimate(score: score, guesses: guesses, guessesLog10: log10Guesses, weaknesses: weaknesses)
    }

    /// zxcvbn's thresholds (with its margin of 5 guesses): < 10^3 → 0, < 10^6 → 1, < 10^8 → 2, < 10^10 → 3, else 4.
    public static func score(guesses: Double) -> Int {
        switch guesses {
        case ..<(1e3 + 5): return 0
        case ..<(1e6 + 5): return 1
        case ..<(1e8 + 5): return 2
        case ..<(1e10 + 5): return 3
        default: return 4
        }
    }

    /// The weaknesses of the matches of the cheapest sequence, in order, without repeats.
    static func weaknesses(_ sequence: [StrengthMatch], length: Int) -> [StrengthWeakness] {
        var out: [StrengthWeakness] = []
        func add(_ w: StrengthWeakness) { if !out.contains(w) { out.append(w) } }
        let sole = sequence.count == 1
        for m in sequence {
            switch m.pattern {
            case let .dictionary(dictionary, rank, reversed, l33t, capitalization):
                switch dictionary {
                case .passwords where sole && !reversed && !l33t:
                    add(rank <= 10 ? .topTenPassword : rank <= 100 ? .topHundredPassword : .commonPassword)
                case .passwords: add(.containsCommonPassword)
                case .englishWikipedia, .usTVAndFilm: add(.commonWord)
                case .femaleNames, .maleNames, .surnames: add(.commonName)
                }
                if capitalization == .first { add(.capitalizedWord) }
                if capitalization == .all { add(.uppercaseWord) }
                if reversed { add(.reversedWord) }
                if l33t { add(.substitutions) }
            case let .misspelling(_, l33t, capitalization):
                add(.misspelledWord)
                if capitalization == .first { add(.capitalizedWord) }
                if capitalization == .all { add(.uppercaseWord) }
                if l33t { add(.substitutions) }
            case .spatial(let turns): add(turns == 1 ? .straightRow : .keyboardPattern)
            case .repeated(let unit): add(unit == 1 ? .repeatedCharacters : .repeatedPattern)
            case .sequence: add(.sequence)
            case .year: add(.recentYear)
            case .date: add(.date)
            case .bruteforce: break
            }
        }
        if length < shortLength { add(.short) }
        return out
    }

    private static func wipe(_ scalars: inout [Unicode.Scalar]) {
        for i in scalars.indices { scalars[i] = "\0" }
    }
}
