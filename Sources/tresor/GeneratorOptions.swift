// Generator options shared by `generate`, `add --generate`, `edit --generate` and `rotate`.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// A password's entropy in JSON output: bits with two decimals.
func jsonEntropy(_ bits: Double) -> JSONValue { .number(String(printf: "%.2f", bits)) }

struct GeneratorOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Password length, 1 to 1024 (default 24).", valueName: "n")) var length: Int?
    @Option(help: ArgumentHelp("Character classes joined by + or ,: lower, upper, digits, symbols (default all).", valueName: "list")) var classes: String?
    @Flag(help: "Leave out look-alike characters: 0 1 I O l |.") var excludeSimilar = false
    @Option(help: ArgumentHelp("Extra characters to allow.", valueName: "chars")) var include: String?
    @Option(help: ArgumentHelp("Characters never to use.", valueName: "chars")) var exclude: String?
    @Option(help: ArgumentHelp("The symbol set to use instead of the default.", valueName: "chars")) var symbols: String?
    @Flag(help: "Require at least one character of every chosen class.") var everyClass = false
    @Option(help: ArgumentHelp("Make a passphrase of this many words from the EFF large list (default 6 with --separator etc.).", valueName: "n")) var words: Int?
    @Option(help: ArgumentHelp("Word separator (default \"-\").", valueName: "s")) var separator: String?
    @Flag(help: "Capitalize each word.") var capitalize = false
    @Flag(help: "Add a random digit to one word.") var withNumber = false
    @Option(help: ArgumentHelp("A whole policy, e.g. \"length=16,classes=lower+upper+digits,symbols=!#%\" or \"words=5,separator=.\".", valueName: "policy"))
    var policy: String?

    /// True if any option was given.
    var isSpecified: Bool {
        length != nil || classes != nil || excludeSimilar || include != nil || exclude != nil || symbols != nil || everyClass
            || words != nil || separator != nil || capitalize || withNumber || policy != nil
    }

    /// The policy these options describe, starting from `base` (an entry's stored policy) or the default.
    func resolve(base: GeneratorPolicy? = nil) throws -> GeneratorPolicy {
        var result = try policy.map { try GeneratorPolicy(parsing: $0) } ?? base ?? .characters(PasswordPolicy())
        let wantsWords = words != nil || separator != nil || capitalize || withNumber
        let wantsChars = length != nil || classes != nil || excludeSimilar || include != nil || exclude != nil || symbols != nil || everyClass
        if wantsWords && wantsChars {
            throw ValidationError("choose character options (--length, --classes, …) or passphrase options (--words, --separator, …), not both")
        }
        // Out-of-range numbers are usage errors of their option (a stored policy's are the policy's errors).
        if let length, !(1...1024).contains(length) { throw ValidationError("--length: password length \(length) is out of range (1 to 1024)") }
        if let words, !(1...64).contains(words) { throw ValidationError("--words: word count \(words) is out of range (1 to 64)") }
        if wantsWords {
            var p: PassphrasePolicy
            if case .words(let w) = result { p = w } else { p = PassphrasePolicy() }
            if let words { p.words = words }
            if let separator { p.separator = separator }
            if capitalize { p.capitalize = true }
            if withNumber { p.withNumber = true }
            result = .words(p)
        } else if wantsChars {
            var p: PasswordPolicy
            if case .characters(let c) = result { p = c } else { p = PasswordPolicy() }
            if let length { p.length = length }
            if let classes { p.classes = try GeneratorOptions.parseClasses(classes) }
            if excludeSimilar { p.excludeSimilar = true }
            if let include { p.include = include }
            if let exclude { p.exclude = exclude }
            if let symbols { p.symbols = symbols }
            if everyClass { p.everyClass = true }
            result = .characters(p)
        }
        return result
    }

    static func parseClasses(_ s: String) throws -> CharacterClasses {
        var c: CharacterClasses = []
        for name in s.split(whereSeparator: { $0 == "+" || $0 == "," }) {
            switch name.lowercased() {
            case "lower", "lowercase": c.insert(.lower)
            case "upper", "uppercase": c.insert(.upper)
            case "digits", "digit", "numbers": c.insert(.digits)
            case "symbols", "symbol", "special": c.insert(.symbols)
            case "all": c = .all
            default: throw ValidationError("--classes: unknown character class \"\(name)\" (use lower, upper, digits, symbols)")
            }
        }
        guard !c.isEmpty else { throw ValidationError("--classes needs at least one class") }
        return c
    }

    /// One secret under `policy` from the system's random source.
    static func generate(_ policy: GeneratorPolicy) throws -> GeneratedSecret {
        var rng = SystemRandomSource()
        return try Generator.generate(policy, using: &rng)
    }
}

/// Warns on stderr about a weak password a person chose; the password is still used. The warning names
/// kinds of weakness, never any part of the password.
func warnIfWeak(_ password: SecretText) {
    let e: StrengthEstimate
    do { e = try StrengthEstimator.estimateOnce(password) } catch {
        Output.warning("cannot check the password's strength: " + (ErrorReport.of(error)?.message ?? "\(error)"))
        return
    }
    guard e.score < 3 else { return }
    let why = e.warnings.isEmpty ? "" : ": " + e.warnings.joined(separator: "; ")
    Output.warning(String(printf: "weak password (score %d/4, about 10^%.0f guesses)", e.score, e.guessesLog10) + why)
}
