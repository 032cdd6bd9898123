// Access to the EFF large word list: the passphrase alphabet and a dictionary for the estimator.

/// The EFF large word list (7,776 = 6^5 words, CC BY 3.0 US, https://www.eff.org/dice).
///
/// The words are kept in one string literal (`EFFWordList+Words.swift`) and split on first use,
/// because a 7,776-element array literal makes the compiler crawl. Spec/GENERATOR.md §3.
public enum EFFWordList {
    /// The 7,776 words in the list's order; lowercase ASCII letters, four of them with one hyphen.
    public static let words: [String] = raw.split(separator: "\n").map(String.init)

    /// The same words as a set, for the strength estimator's dictionary look-ups.
    static let wordSet: Set<String> = Set(words)
}
