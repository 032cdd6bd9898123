// The command lines typed most often, read without ArgumentParser (Benchmarks/README.md, start-up).
import ArgumentParser

/// `tresor show PATH` and `tresor ls` in their plain forms, read into the values their commands run with.
/// ArgumentParser reflects every option of the whole command tree on each run, and each first dynamic cast scans every
/// protocol-conformance record of the static binary: about half of a `show`; even making its command value builds
/// every option's definition. A plain form is long options only, each at most once, each with a non-empty value that
/// does not begin with "-", and positional words that do not begin with "-". Anything else — help, a short flag,
/// "--", an unknown or repeated option, a missing or extra argument — is nil and goes to ArgumentParser, which parses
/// it or explains the mistake as before. `PlainCommandLineTests` checks over generated command lines that each value
/// read here is the one ArgumentParser reads from the same words, and that the commands have no option this leaves out.
enum PlainCommandLine: Equatable {
    case show(path: String, field: String?, json: Bool, options: PlainVaultOptions)
    case list(prefix: String?, json: Bool, flat: Bool, options: PlainVaultOptions)

    static func read(_ arguments: [String]) -> PlainCommandLine? {
        guard let name = arguments.first else { return nil }
        let words = arguments.dropFirst()
        switch name {
        case Show.configuration.commandName:
            guard let line = Words(words, options: VaultOptions.names + ["field"], flags: ["json"]),
                  line.positional.count == 1 else { return nil }
            return .show(path: line.positional[0], field: line.value("field"), json: line.has("json"),
                         options: line.vaultOptions)
        case List.configuration.commandName:
            guard let line = Words(words, options: VaultOptions.names, flags: ["json", "flat"]),
                  line.positional.count <= 1 else { return nil }
            return .list(prefix: line.positional.first, json: line.has("json"), flat: line.has("flat"),
                         options: line.vaultOptions)
        default:
            return nil
        }
    }

    /// The command, for its usage line under an error.
    var command: ParsableCommand.Type {
        switch self {
        case .show: return Show.self
        case .list: return List.self
        }
    }

    func run() throws {
        switch self {
        case let .show(path, field, json, options): try Show.run(path: path, field: field, json: json, clip: nil, options: options)
        case let .list(prefix, json, flat, options): try List.run(prefix: prefix, json: json, flat: flat, options: options)
        }
    }

    /// The words after the command's name, split into option values, flags and positional words; nil when one of
    /// them is not in the plain form. (Arrays of a few names, not sets or dictionaries: the first of those would
    /// instantiate its type by name, a scan of every conformance record of the binary.)
    private struct Words {
        var values: [(name: String, value: String)] = []
        var flags: [String] = []
        var positional: [String] = []

        init?(_ words: ArraySlice<String>, options: [String], flags known: [String]) {
            var rest = words[...]
            while let word = rest.popFirst() {
                guard word.hasPrefix("-") else {
                    guard !word.isEmpty else { return nil }
                    positional.append(word)
                    continue
                }
                guard word.hasPrefix("--") else { return nil }
                let body = word.dropFirst(2)
                let name: String, value: String?
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    value = String(body[body.index(after: equals)...])
                    guard options.contains(name) else { return nil }
                } else if options.contains(String(body)) {
                    name = String(body)
                    value = rest.popFirst()
                } else {
                    guard known.contains(String(body)), !has(String(body)) else { return nil }
                    flags.append(String(body))
                    continue
                }
                guard let value, !value.isEmpty, !value.hasPrefix("-"), self.value(name) == nil else { return nil }
                values.append((name, value))
            }
        }

        func has(_ flag: String) -> Bool { flags.contains(flag) }
        func value(_ name: String) -> String? { values.first { $0.name == name }?.value }

        var vaultOptions: PlainVaultOptions {
            PlainVaultOptions(vault: value("vault"), passphraseFile: value("passphrase-file"), identity: value("identity"))
        }
    }
}

extension VaultOptions {
    /// The long names of the options every vault command takes, without their dashes.
    static let names = UsageErrors.vaultOptions.map { String($0.dropFirst(2)) }
}
