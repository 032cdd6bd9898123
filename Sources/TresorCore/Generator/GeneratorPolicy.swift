// A generator policy as one value, and its policy-string form ("length=16,classes=lower+digits").

/// Either a character password policy or a passphrase policy, with a one-line text form for per-entry
/// storage and the command line. Spec/GENERATOR.md §1.
public enum GeneratorPolicy: Equatable, Hashable, Sendable {
    /// A random character password.
    case characters(PasswordPolicy)
    /// A passphrase of EFF words.
    case words(PassphrasePolicy)

    private static let characterKeys = ["length", "classes", "symbols", "include", "exclude", "exclude-similar", "every-class"]
    private static let wordKeys = ["words", "separator", "capitalize", "number"]
    private static let flagKeys: Set<String> = ["exclude-similar", "every-class", "capitalize", "number"]

    /// Parses a policy string such as "length=16,classes=lower+upper+digits,symbols=!#%" or
    /// "words=5,separator=.,capitalize", then checks that the policy can produce a secret.
    /// - Throws: `GeneratorError.badPolicy` naming the part that does not parse, or the error of
    ///   the impossible policy (`.lengthOutOfRange`, `.emptyCharacterSet`, `.emptyClass`, …).
    ///   Spec/GENERATOR.md §1.
    public init(parsing text: String) throws {
        let parts = try Self.split(text)
        var values: [String: String?] = [:]
        var mode: (isWords: Bool, part: String)?
        for (key, value, raw) in parts {
            let isWords = Self.wordKeys.contains(key)
            guard isWords || Self.characterKeys.contains(key) else {
                throw GeneratorError.badPolicy(part: raw, problem: .unknownKey(key, known: Self.characterKeys + Self.wordKeys))
            }
            guard values[key] == nil else { throw GeneratorError.badPolicy(part: raw, problem: .repeatedKey(key)) }
            if let mode, mode.isWords != isWords {
                throw GeneratorError.badPolicy(part: raw, problem: .mixedKinds(first: mode.part))
            }
            mode = mode ?? (isWords, raw)
            if Self.flagKeys.contains(key) {
                guard value == nil else { throw GeneratorError.badPolicy(part: raw, problem: .flagWithValue(key)) }
            } else if value == nil {
                throw GeneratorError.badPolicy(part: raw, problem: .valueMissing(key))
            }
            values[key] = .some(value)
        }
        func raw(_ key: String) -> String { parts.first { $0.key == key }?.raw ?? key }
        func int(_ key: String, default fallback: Int) throws -> Int {
            guard let entry = values[key], let text = entry else { return fallback }
            guard let number = Int(text) else { throw GeneratorError.badPolicy(part: raw(key), problem: .notAWholeNumber) }
            return number
        }
        func string(_ key: String) -> String? { values[key] ?? nil }

        if mode?.isWords == true {
            let policy = PassphrasePolicy(
                words: try int("words", default: 6), separator: string("separator") ?? "-",
                capitalize: values["capitalize"] != nil, withNumber: values["number"] != nil)
            try policy.validate()
            self = .words(policy)
        } else {
            var classes = CharacterClasses.all
            if let list = string("classes") { classes = try Self.parseClasses(list, part: raw("classes")) }
            let policy = PasswordPolicy(
                length: try int("length", default: 24), classes: classes,
                excludeSimilar: values["exclude-similar"] != nil, include: string("include") ?? "",
                exclude: string("exclude") ?? "", everyClass: values["every-class"] != nil, symbols: string("symbols"))
            _ = try policy.resolve()
            self = .characters(policy)
        }
    }

    /// The canonical policy string; parsing it gives back an equal policy (for any valid policy).
    /// Keys come in a fixed order, defaults of `length`, `classes`, `words` and `separator` are
    /// always written, and `\` and `,` inside values are escaped with `\`. Spec/GENERATOR.md §1.
    public var policyString: String {
        var parts: [String] = []
        switch self {
        case .characters(let p):
            parts.append("length=\(p.length)")
            let names = CharacterClasses.named.filter { p.classes.contains($0.0) }.map(\.1)
            parts.append("classes=" + (names.isEmpty ? "none" : names.joined(separator: "+")))
            if let symbols = p.symbols { parts.append("symbols=" + Self.escape(symbols)) }
            if !p.include.isEmpty { parts.append("include=" + Self.escape(p.include)) }
            if !p.exclude.isEmpty { parts.append("exclude=" + Self.escape(p.exclude)) }
            if p.excludeSimilar { parts.append("exclude-similar") }
            if p.everyClass { parts.append("every-class") }
        case .words(let p):
            parts.append("words=\(p.words)")
            parts.append("separator=" + Self.escape(p.separator))
            if p.capitalize { parts.append("capitalize") }
            if p.withNumber { parts.append("number") }
        }
        return parts.joined(separator: ",")
    }

    private static func escape(_ value: String) -> String {
        var out = ""
        for c in value {
            if c == "\\" || c == "," { out.append("\\") }
            out.append(c)
        }
        return out
    }

    private static func parseClasses(_ list: String, part: String) throws -> CharacterClasses {
        if list == "none" { return [] }
        if list == "all" { return .all }
        var classes: CharacterClasses = []
        for name in list.split(separator: "+", omittingEmptySubsequences: false) {
            guard let cls = CharacterClasses.named.first(where: { $0.1 == name })?.0 else {
                throw GeneratorError.badPolicy(part: part, problem: .unknownClass(String(name)))
            }
            classes.insert(cls)
        }
        return classes
    }

    /// Splits on unescaped commas into (key, value, raw text); the key is trimmed of spaces, the value
    /// is kept verbatim with `\x` turned into `x`; a part without `=` has a nil value.
    private static func split(_ text: String) throws -> [(key: String, value: String?, raw: String)] {
        guard !text.isEmpty else { throw GeneratorError.badPolicy(part: "", problem: .empty) }
        var parts: [(key: String, value: String?, raw: String)] = []
        var key = "", value: String?, raw = ""
        var escaping = false
        func finish() throws {
            let trimmed = key.trimmingSpaces()
            guard !trimmed.isEmpty else {
                throw GeneratorError.badPolicy(part: raw, problem: raw.isEmpty ? .emptyPart : .missingKey)
            }
            parts.append((trimmed, value, raw))
            key = ""; value = nil; raw = ""
        }
        for c in text {
            if escaping {
                value?.append(c); raw.append(c); escaping = false
            } else if c == "," {
                try finish()
            } else if value == nil {
                raw.append(c)
                if c == "=" { value = "" } else if c == "\\" {
                    throw GeneratorError.badPolicy(part: raw, problem: .escapeOutsideValue)
                } else { key.append(c) }
            } else {
                raw.append(c)
                if c == "\\" { escaping = true } else { value?.append(c) }
            }
        }
        if escaping { throw GeneratorError.badPolicy(part: raw, problem: .trailingEscape) }
        try finish()
        return parts
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
