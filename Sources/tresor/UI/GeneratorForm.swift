// The generator options of the new-entry screen as one value: switches and sliders in, a policy and a password out.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// What the new-entry screen's options describe. Every change makes a new password at once.
struct GeneratorForm {
    /// The length slider's range (the generator itself allows 1–1024).
    static let lengths = 4...100
    /// The word-count slider's range.
    static let wordCounts = 1...20

    var characters = PasswordPolicy()
    var words = PassphrasePolicy()
    var passphraseMode = false
    /// The classes to go back to when "only uppercase" is switched off.
    private var classesBeforeOnlyUppercase: CharacterClasses = .all

    var policy: GeneratorPolicy { passphraseMode ? .words(words) : .characters(characters) }

    var onlyUppercase: Bool { characters.classes == [.upper] }

    mutating func setOnlyUppercase(_ on: Bool) {
        if on {
            if !onlyUppercase { classesBeforeOnlyUppercase = characters.classes }
            characters.classes = [.upper]
        } else if onlyUppercase {
            characters.classes = classesBeforeOnlyUppercase == [.upper] ? .all : classesBeforeOnlyUppercase
        }
    }

    mutating func toggle(_ c: CharacterClasses) {
        if characters.classes.contains(c) { characters.classes.remove(c) } else { characters.classes.insert(c) }
    }

    mutating func changeLength(by delta: Int) {
        characters.length = min(Self.lengths.upperBound, max(Self.lengths.lowerBound, characters.length + delta))
    }

    mutating func changeWords(by delta: Int) {
        words.words = min(Self.wordCounts.upperBound, max(Self.wordCounts.lowerBound, words.words + delta))
    }

    /// A new password under the current options. - Throws: `GeneratorError` for an impossible policy
    /// (no character class chosen, a separator with letters).
    func generate() throws -> GeneratedSecret {
        var rng = SystemRandomSource()
        return try Generator.generate(policy, using: &rng)
    }

    /// "very weak" … "very strong" for an estimator score 0–4.
    static func strengthName(_ score: Int) -> String {
        ["very weak", "weak", "fair", "strong", "very strong"][max(0, min(4, score))]
    }
}
