// Usage errors: an unknown command with a did-you-mean, and a command's own usage line under every usage error.
import ArgumentParser

enum UsageErrors {
    /// The options of `VaultOptions`, which may also come before the command (`tresor --vault DIR show X`, as with
    /// git's `-C`): they are moved behind the command's name, where the command parses them.
    static let vaultOptions = ["--vault", "--passphrase-file", "--identity"]

    /// `arguments` with vault options typed before the command moved to just after its name (and the names of its
    /// subcommands). Anything else is left as typed, so argument-parser reports it as before.
    static func hoistingVaultOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            if vaultOptions.contains(word), i + 1 < arguments.count { leading += [word, arguments[i + 1]]; i += 2; continue }
            if vaultOptions.contains(where: { word.hasPrefix($0 + "=") }) { leading.append(word); i += 1; continue }
            break
        }
        guard !leading.isEmpty, i < arguments.count, !arguments[i].hasPrefix("-") else { return arguments }
        // The command's name and its subcommands' names.
        var current: ParsableCommand.Type = TresorCommand.self
        var end = i
        while end < arguments.count, let next = current.configuration.subcommands.first(where: { names(of: $0).contains(arguments[end]) }) {
            current = next
            end += 1
        }
        guard end > i else { return arguments }
        return Array(arguments[i..<end]) + leading + Array(arguments[end...])
    }

    /// The first word that stands where a command name must be and names none, with the command it
    /// was typed under (`tresor shwo X` → ("shwo", tresor); `tresor remote ad …` → ("ad", remote)).
    static func unknownCommand(in arguments: [String]) -> (word: String, parent: ParsableCommand.Type)? {
        var current: ParsableCommand.Type = TresorCommand.self
        var words = arguments[...]
        // Vault options before the command (`hoistingVaultOptions` moves them when a command follows).
        while let first = words.first, vaultOptions.contains(first) || vaultOptions.contains(where: { first.hasPrefix($0 + "=") }) {
            words = words.dropFirst(first.contains("=") ? 1 : 2)
        }
        for word in words {
            let subcommands = current.configuration.subcommands
            // Options come after the command names; a command without subcommands takes its arguments.
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            if ObjectIdentifier(current) == ObjectIdentifier(TresorCommand.self) && word == "help" { return nil }
            guard let next = subcommands.first(where: { names(of: $0).contains(word) }) else { return (word, current) }
            current = next
        }
        return nil
    }

    /// A command's name and aliases.
    static func names(of command: ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// The visible commands whose names are closest to `word`: within two edits (a swap of two
    /// neighbours is one) and less than half the word, or starting with it.
    static func suggestions(for word: String, among commands: [ParsableCommand.Type]) -> [String] {
        let visible = commands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        let typed = word.lowercased()
        let scored = visible.map { ($0, distance(typed, $0)) }.filter { name, d in
            (d <= 2 && d * 2 < max(typed.count, 2)) || (typed.count >= 2 && name.hasPrefix(typed))
        }
        guard let best = scored.map(\.1).min() else { return [] }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
    static func alternatives(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }

    /// pass's commands that tresor spells otherwise, and what to type instead. Hints rather than aliases: the tresor
    /// commands take other options (`add` asks whether to generate; `find` and `grep` split pass's `search`), and a
    /// silent alias would hide that.
    static let passCommands: [String: String] = [
        "insert": "tresor add PATH (--password-stdin reads the password, --generate makes one)",
        "delete": "tresor rm PATH",
        "remove": "tresor rm PATH",
        "search": "tresor find TEXT (entry names) or tresor grep TEXT (every decrypted field)",
        "cat": "tresor show PATH",
        "git": "git -C VAULT … (the vault is a plain git repository); 'tresor sync' fetches, merges and pushes",
    ]

    /// pass's ways with `generate` (`pass generate NAME 20`, `-n` for no symbols), which tresor's `generate` (it only
    /// prints) does not take: the message with the tresor command that does it, or nil.
    static func passGenerateHabit(_ arguments: [String]) -> String? {
        guard arguments.first == "generate" else { return nil }
        let rest = Array(arguments.dropFirst())
        let takesValue: Set<String> = ["--length", "--classes", "--include", "--exclude", "--symbols", "--words", "--separator", "--policy", "--count"]
        var positional: [String] = []
        var i = 0
        while i < rest.count {
            let word = rest[i]
            if takesValue.contains(word) { i += 2; continue }
            if !word.hasPrefix("-") { positional.append(word) }
            i += 1
        }
        let noSymbols = rest.contains("-n") || rest.contains("--no-symbols")
        guard !positional.isEmpty || noSymbols else { return nil }
        let classes = noSymbols ? " --classes lower,upper,digits" : ""
        if let name = positional.first {
            let length = positional.dropFirst().first.flatMap(Int.init).map { " --length \($0)" } ?? ""
            return "tresor generate only prints a password; it stores nothing (pass's 'generate NAME [LENGTH]')"
                + "\nhint: to store one: tresor add \(Output.escaped(name)) --generate\(length)\(classes); for an existing entry: tresor rotate \(Output.escaped(name))\(length)\(classes)"
                + "\n" + usage(of: Generate.self)
        }
        let others = rest.filter { $0 != "-n" && $0 != "--no-symbols" }.map { " " + Output.escaped($0) }.joined()
        return "-n: tresor generate has no -n (pass's 'no symbols')\nhint: tresor generate\(others)\(classes)\n" + usage(of: Generate.self)
    }

    /// The full message of an unknown command: the word, the nearest commands, the parent's usage.
    static func unknownCommandMessage(_ word: String, parent: ParsableCommand.Type) -> String {
        let near = suggestions(for: word, among: parent.configuration.subcommands)
        let list = parent.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        // `pass Email/gmail` shows an entry; here that is `tresor show`.
        let looksLikeEntry = ObjectIdentifier(parent) == ObjectIdentifier(TresorCommand.self) && word.contains("/") && !word.hasPrefix("/")
        let pass = ObjectIdentifier(parent) == ObjectIdentifier(TresorCommand.self) ? passCommands[word] : nil
        let hint: String
        if let pass { hint = "\nhint: '\(word)' is pass's; in tresor: \(pass)" }
        else if looksLikeEntry { hint = "\nhint: to print an entry: tresor show \(Output.escaped(word))" }
        else { hint = near.isEmpty ? "\nhint: the commands are " + list.joined(separator: ", ") : "\nhint: did you mean \(alternatives(near))?" }
        return "unknown command \(Output.quoted(word))" + hint
            + "\n" + usage(of: parent)
    }

    /// "Usage: tresor generate [--length <n>] …" and where its help is, as argument-parser prints
    /// them under its own parse errors.
    static func usage(of command: ParsableCommand.Type) -> String {
        let line = TresorCommand.usageString(for: command)
        let path = commandPath(to: command) ?? [TresorCommand._commandName]
        return "Usage: \(line)\n  See '\(path.joined(separator: " ")) --help' for more information."
    }

    /// The names from `tresor` down to `command`.
    static func commandPath(to command: ParsableCommand.Type, from root: ParsableCommand.Type = TresorCommand.self) -> [String]? {
        if ObjectIdentifier(root) == ObjectIdentifier(command) { return [root._commandName] }
        for sub in root.configuration.subcommands {
            if let rest = commandPath(to: command, from: sub) { return [root._commandName] + rest }
        }
        return nil
    }
}
