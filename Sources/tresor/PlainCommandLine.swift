// The command lines typed most often, read without ArgumentParser's reflection (Benchmarks/README.md, start-up).
import ArgumentParser

/// `tresor show PATH` and `tresor ls` in their plain forms, made into the very command values ArgumentParser would
/// make. ArgumentParser reflects every option of the whole command tree on each run, and each first dynamic cast
/// scans every protocol-conformance record of the static binary: about half of a `show`. A plain form is long options
/// only, each at most once, each with a non-empty value that does not begin with "-", and positional words that do
/// not begin with "-". Anything else — help, a short flag, "--", an unknown or repeated option, a missing or
/// extra argument — is nil and goes to ArgumentParser, which parses it or explains the mistake as before.
/// `PlainCommandLineTests` checks over generated command lines that every value made here is the one ArgumentParser
/// makes from the same words, every stored option included.
enum PlainCommandLine {
    static func command(_ arguments: [String]) -> ParsableCommand? {
        guard let name = arguments.first else { return nil }
        let words = arguments.dropFirst()
        switch name {
        case Show.configuration.commandName:
            guard let line = Words(words, options: VaultOptions.names.union(["field"]), flags: ["json"]),
                  line.positional.count == 1 else { return nil }
            var show = Show()
            show.options = line.vaultOptions
            show.path = line.positional[0]
            show.field = line.values["field"]
            show.json = line.flags.contains("json")
            show.clip = false
            var clip = ClipOptions()
            clip.clearAfter = nil
            show.clipOptions = clip
            return show
        case List.configuration.commandName:
            guard let line = Words(words, options: VaultOptions.names, flags: ["json", "flat"]),
                  line.positional.count <= 1 else { return nil }
            var list = List()
            list.options = line.vaultOptions
            list.prefix = line.positional.first
            list.json = line.flags.contains("json")
            list.flat = line.flags.contains("flat")
            return list
        default:
            return nil
        }
    }

    /// The words after the command's name, split into option values, flags and positional words; nil when one of
    /// them is not in the plain form.
    private struct Words {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var positional: [String] = []

        init?(_ words: ArraySlice<String>, options: Set<String>, flags known: Set<String>) {
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
                    guard known.contains(String(body)), flags.insert(String(body)).inserted else { return nil }
                    continue
                }
                guard let value, !value.isEmpty, !value.hasPrefix("-"), values[name] == nil else { return nil }
                values[name] = value
            }
        }

        var vaultOptions: VaultOptions {
            var options = VaultOptions()
            options.vault = values["vault"]
            options.passphraseFile = values["passphrase-file"]
            options.identity = values["identity"]
            return options
        }
    }
}

extension VaultOptions {
    /// The long names of the options every vault command takes, without their dashes.
    static let names = Set(UsageErrors.vaultOptions.map { String($0.dropFirst(2)) })
}
