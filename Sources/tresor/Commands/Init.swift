// `tresor init`: create a vault and its git repository.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

extension KDFLevel: ExpressibleByArgument {}

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "Create a new vault (a git repository) in the vault directory.")

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("Argon2id cost: interactive, moderate or sensitive (minimum is for tests only).", valueName: "level"))
    var kdf: KDFLevel = .moderate

    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let passphrase = try PassphraseInput.new(file: options.passphraseFilePath, directory: options.directory)
        warnIfTestCost(kdf)
        let vault = try Vault.create(at: options.directory, passphrase: passphrase, level: kdf)
        Output.report(json: json, "Initialized a vault in \(vault.root) (Argon2id \(kdf.rawValue))",
                      .object(["vault": .string(vault.root), "kdf": .string(kdf.rawValue)]))
    }
}

/// `minimum` exists so tests run fast; a vault with it falls to a passphrase guesser quickly.
func warnIfTestCost(_ level: KDFLevel) {
    if level == .minimum {
        Output.warning("--kdf minimum is for tests only: anyone with the repository can try passphrases very fast\nhint: use interactive, moderate (the default) or sensitive for a real vault")
    }
}
