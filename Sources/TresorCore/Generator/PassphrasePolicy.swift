// What a passphrase of EFF words looks like: word count, separator, capitals and an optional digit.

/// The rules for a passphrase of words drawn from `EFFWordList`. Spec/GENERATOR.md §3.
public struct PassphrasePolicy: Equatable, Hashable, Sendable {
    /// The allowed word counts.
    static let wordRange = 1...64

    /// The number of words, 1...64.
    public var words: Int
    /// Put between words; at most 8 spaces or visible ASCII or Latin-1 characters, no letters or digits (so
    /// every passphrase splits back into its words in exactly one way). May be empty.
    public var separator: String
    /// Upper-case the first letter of every word (deterministic, so it adds no entropy).
    public var capitalize: Bool
    /// Append one random digit to one randomly chosen word.
    public var withNumber: Bool

    /// A policy; the defaults give six lowercase words joined by "-".
    public init(words: Int = 6, separator: String = "-", capitalize: Bool = false, withNumber: Bool = false) {
        self.words = words
        self.separator = separator
        self.capitalize = capitalize
        self.withNumber = withNumber
    }

    /// Checks the word count and the separator.
    /// - Throws: `GeneratorError.wordCountOutOfRange` or `.badCharacters`.
    func validate() throws {
        guard Self.wordRange.contains(words) else { throw GeneratorError.wordCountOutOfRange(words) }
        let bad = separator.unicodeScalars.filter {
            !(CharacterSets.isAllowedCustom($0) || $0 == " ") || CharacterSets.isASCIIAlphanumeric($0)
                || $0.properties.isAlphabetic
        }
        if !bad.isEmpty || separator.unicodeScalars.count > 8 {
            throw GeneratorError.badCharacters(field: .separator, characters: bad.isEmpty ? separator : String(String.UnicodeScalarView(bad)))
        }
    }
}
