// The errors of password and passphrase generation, each with a message a user can act on.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a generator policy could not be parsed or cannot produce any secret. Spec/GENERATOR.md §1–§2.
public enum GeneratorError: LocalizedError, Equatable, Sendable {
    /// A policy string part that does not parse; `part` is the offending text, `reason` says why.
    case badPolicy(part: String, reason: String)
    /// A password length outside 1...1024.
    case lengthOutOfRange(Int)
    /// A word count outside 1...64.
    case wordCountOutOfRange(Int)
    /// Classes, include, exclude and exclude-similar leave no character to draw from.
    case emptyCharacterSet
    /// every-class is on but the named class has no character left after the exclusions.
    case emptyClass(String)
    /// every-class asks for more classes than the password has characters.
    case lengthBelowClassCount(length: Int, classes: Int)
    /// A custom set (`include`, `symbols` or `separator`) holds characters it may not hold.
    case badCharacters(field: String, characters: String, allowed: String)
    /// A data file (word list, strength dictionary) is in none of the directories searched
    /// (`DataFiles.searchPath()`, in order).
    case dataFileMissing(name: String, searched: [String])
    /// A data file exists but cannot be read.
    case dataFileUnreadable(path: String)
    /// A data file's content is not the one this version ships (its SHA-256 differs).
    case dataFileDamaged(path: String)

    public var errorDescription: String? {
        switch self {
        case let .badPolicy(part, reason):
            return "bad policy \"\(part)\": \(reason)\nhint: see Spec/GENERATOR.md §1 for the policy syntax"
        case let .lengthOutOfRange(length):
            return "password length \(length) is out of range\nhint: choose a length from 1 to 1024"
        case let .wordCountOutOfRange(count):
            return "word count \(count) is out of range\nhint: choose from 1 to 64 words"
        case .emptyCharacterSet:
            return "the policy leaves no characters to choose from\nhint: add a class or include characters, or exclude fewer"
        case let .emptyClass(name):
            return "every-class needs a \(name) character but the exclusions remove them all\nhint: exclude fewer characters or drop every-class"
        case let .lengthBelowClassCount(length, classes):
            return "every-class needs \(classes) characters but the length is \(length)\nhint: use a length of at least \(classes) or fewer classes"
        case let .badCharacters(field, characters, allowed):
            return "\(field) may not contain \"\(characters)\"\nhint: \(field) may only hold \(allowed)"
        case let .dataFileMissing(name, searched):
            return "data file \"\(name)\" not found in " + searched.map { "\"\($0)\"" }.joined(separator: ", ")
                + "\nhint: install tresor's data directory as share/tresor next to its bin directory, or set \(DataFiles.environmentVariable)"
        case let .dataFileUnreadable(path):
            return "cannot read data file \"\(path)\""
        case let .dataFileDamaged(path):
            return "data file \"\(path)\" is damaged or from another version of tresor\nhint: reinstall tresor's data directory"
        }
    }
}
