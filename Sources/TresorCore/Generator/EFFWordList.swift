// Access to the EFF large word list: the passphrase alphabet, read from a data file on first use.

/// The EFF large word list (7,776 = 6^5 words, CC BY 3.0 US, https://www.eff.org/dice), stored as the
/// data file `eff_large_wordlist.txt` (one word a line, in the list's order; provenance and licence in
/// `Sources/TresorData/Resources/README.md`). Spec/GENERATOR.md §3.
package enum EFFWordList {
    /// Number of words; the data file's digest guarantees it.
    package static let count = 7776

    /// The 7,776 words in the list's order; lowercase ASCII letters, four of them with one hyphen.
    /// Read once, on first use.
    /// - Throws: `GeneratorError.dataFileMissing`, `.dataFileUnreadable` or `.dataFileDamaged`.
    package static func words() throws -> [String] { try loaded.get() }

    private static let loaded: Result<[String], Error> = Result {
        let words = DataFiles.lines(try DataFiles.read("eff_large_wordlist.txt")).map(String.init)
        guard words.count == count else { throw GeneratorError.dataFileDamaged(path: "eff_large_wordlist.txt") }
        return words
    }
}
