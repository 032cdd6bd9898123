// The errors of password and passphrase generation: what is wrong and where, for the front end to word.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a generator policy could not be parsed or cannot produce any secret. Spec/GENERATOR.md §1–§2.
public enum GeneratorError: Error, Equatable, Sendable {
    /// A policy string part that does not parse; `part` is the offending text, `problem` says why.
    case badPolicy(part: String, problem: PolicyProblem)
    /// A password length outside 1...1024.
    case lengthOutOfRange(Int)
    /// A word count outside 1...64.
    case wordCountOutOfRange(Int)
    /// Classes, include, exclude and exclude-similar leave no character to draw from.
    case emptyCharacterSet
    /// every-class is on but the named class (`lower`, `upper`, `digits`, `symbols` or `include`) has no character
    /// left after the exclusions.
    case emptyClass(String)
    /// every-class asks for more classes than the password has characters.
    case lengthBelowClassCount(length: Int, classes: Int)
    /// A custom set (`include`, `symbols` or `separator`) holds `characters` it may not hold (Spec/GENERATOR.md §1
    /// says what each may hold).
    case badCharacters(field: CustomSet, characters: String)
    /// A data file (word list, strength dictionary) is in none of the directories searched
    /// (`DataFiles.searchPath()`, in order).
    case dataFileMissing(name: String, searched: [String])
    /// A data file exists but cannot be read.
    case dataFileUnreadable(path: String)
    /// A data file's content is not the one this version ships (its SHA-256 differs).
    case dataFileDamaged(path: String)

    /// The policy keys that hold a set of characters chosen by the user.
    public enum CustomSet: String, Equatable, Sendable {
        /// The symbols class: visible ASCII or Latin-1 characters other than letters and digits.
        case symbols
        /// Extra characters: visible ASCII or Latin-1 characters (no spaces or control characters).
        case include
        /// Between words: up to 8 spaces or visible ASCII or Latin-1 characters other than letters and digits.
        case separator
    }

    /// Why a part of a policy string does not parse (Spec/GENERATOR.md §1).
    public enum PolicyProblem: Equatable, Sendable {
        /// The policy string is empty.
        case empty
        /// An empty part (a stray comma).
        case emptyPart
        /// A part with a value but no key (`=5`).
        case missingKey
        /// A key that is none of `known`.
        case unknownKey(String, known: [String])
        /// A key given twice.
        case repeatedKey(String)
        /// A passphrase key after a password key or the other way round; `first` is the part that chose the kind.
        case mixedKinds(first: String)
        /// A flag given a value.
        case flagWithValue(String)
        /// A key that needs a value given none.
        case valueMissing(String)
        /// A number that is not a plain decimal integer.
        case notAWholeNumber
        /// A class name in `classes` that is none of lower, upper, digits, symbols (nor `all` or `none`).
        case unknownClass(String)
        /// A `\` outside a value.
        case escapeOutsideValue
        /// The policy ends with a lone `\`.
        case trailingEscape
    }
}
