// What a random character password may contain, and the alphabet and classes that follow from it.

/// The rules for a random character password. Spec/GENERATOR.md §2.
///
/// The alphabet is: the chosen classes, plus `include`, minus `exclude`, minus the similar characters
/// when `excludeSimilar` is set. Exclusions always win. `include` characters that are in none of the
/// chosen classes form one more class, "include", which `everyClass` then also requires.
public struct PasswordPolicy: Equatable, Hashable, Sendable {
    /// The allowed lengths.
    static let lengthRange = 1...1024

    /// The number of characters, 1...1024.
    public var length: Int
    /// The built-in classes to draw from.
    public var classes: CharacterClasses
    /// Drop the look-alikes `CharacterSets.similar` ("0 1 I O l |").
    public var excludeSimilar: Bool
    /// Extra characters to draw from (visible ASCII or Latin-1).
    public var include: String
    /// Characters never to use; these win over classes and `include`.
    public var exclude: String
    /// Require at least one character of every chosen class (and of the "include" class, if any).
    public var everyClass: Bool
    /// A symbol set replacing `CharacterSets.defaultSymbols`; no ASCII letters or digits. `nil` means default.
    public var symbols: String?

    /// A policy; the defaults give 24 characters from all four classes.
    public init(
        length: Int = 24, classes: CharacterClasses = .all, excludeSimilar: Bool = false,
        include: String = "", exclude: String = "", everyClass: Bool = false, symbols: String? = nil
    ) {
        self.length = length
        self.classes = classes
        self.excludeSimilar = excludeSimilar
        self.include = include
        self.exclude = exclude
        self.everyClass = everyClass
        self.symbols = symbols
    }
}

/// The alphabet a valid `PasswordPolicy` resolves to: disjoint, non-empty-where-required classes.
struct ResolvedAlphabet: Equatable {
    /// A named, deduplicated class; `chars` may be empty for a class every-class does not require.
    struct CharacterClass: Equatable {
        let name: String
        let chars: [Unicode.Scalar]
    }

    /// The classes in order lower, upper, digits, symbols, include; only those the policy chose.
    let classes: [CharacterClass]
    /// Whether every class must appear at least once.
    let everyClass: Bool
    /// The password length.
    let length: Int

    /// The whole alphabet: the classes concatenated in order. Spec/GENERATOR.md §2 fixes this order,
    /// which makes the output for a given random sequence reproducible.
    var alphabet: [Unicode.Scalar] { classes.flatMap(\.chars) }
}

extension PasswordPolicy {
    /// Checks the policy and computes its classes.
    /// - Throws: `GeneratorError.lengthOutOfRange`, `.badCharacters`, `.emptyCharacterSet`, `.emptyClass`
    ///   or `.lengthBelowClassCount`.
    func resolve() throws -> ResolvedAlphabet {
        guard Self.lengthRange.contains(length) else { throw GeneratorError.lengthOutOfRange(length) }
        let symbolSet = symbols ?? CharacterSets.defaultSymbols
        let badSymbols = symbolSet.unicodeScalars.filter {
            !CharacterSets.isAllowedCustom($0) || CharacterSets.isASCIIAlphanumeric($0)
        }
        if !badSymbols.isEmpty {
            throw GeneratorError.badCharacters(field: .symbols, characters: String(String.UnicodeScalarView(badSymbols)))
        }
        let badInclude = include.unicodeScalars.filter { !CharacterSets.isAllowedCustom($0) }
        if !badInclude.isEmpty {
            throw GeneratorError.badCharacters(field: .include, characters: String(String.UnicodeScalarView(badInclude)))
        }

        var removed = Set(exclude.unicodeScalars)
        if excludeSimilar { removed.formUnion(CharacterSets.similar.unicodeScalars) }

        var seen = Set<Unicode.Scalar>()   // every character of the chosen classes, before removal
        var classes: [ResolvedAlphabet.CharacterClass] = []
        func addClass(_ name: String, _ source: some Sequence<Unicode.Scalar>) {
            var chars: [Unicode.Scalar] = []
            for scalar in source where seen.insert(scalar).inserted && !removed.contains(scalar) {
                chars.append(scalar)
            }
            classes.append(.init(name: name, chars: chars))
        }
        let sources = [CharacterSets.lower, CharacterSets.upper, CharacterSets.digits, symbolSet]
        for ((cls, name), source) in zip(CharacterClasses.named, sources) where self.classes.contains(cls) {
            addClass(name, source.unicodeScalars)
        }
        if include.unicodeScalars.contains(where: { !seen.contains($0) }) {
            addClass("include", include.unicodeScalars)
        }

        let resolved = ResolvedAlphabet(classes: classes, everyClass: everyClass, length: length)
        guard !resolved.alphabet.isEmpty else { throw GeneratorError.emptyCharacterSet }
        if everyClass {
            if let empty = classes.first(where: { $0.chars.isEmpty }) {
                throw GeneratorError.emptyClass(empty.name)
            }
            guard length >= classes.count else {
                throw GeneratorError.lengthBelowClassCount(length: length, classes: classes.count)
            }
        }
        return resolved
    }
}
