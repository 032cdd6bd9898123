// `tresor init`: create a vault and its git repository.
import ArgumentParser
import Foundation
import Tresor
import TresorCore

extension KDFLevel: ExpressibleByArgument {}

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a new vault (a git repository) in the vault directory.")

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("Argon2id cost: interactive, moderate or sensitive (minimum is for tests only).", valueName: "level"))
    var kdf: KDFLevel = .moderate

    func run() throws {
        let passphrase: SecretBytes
        if let f = options.passphraseFilePath {
            passphrase = try VaultOptions.readPassphraseFile(f)
        } else {
            passphrase = try Prompt.secret("New passphrase: ")
            let again = try Prompt.secret("Repeat passphrase: ")
            guard passphrase.constantTimeEquals(again) else { throw CLIError("the passphrases do not match") }
            guard passphrase.count > 0 else { throw CLIError("the passphrase is empty") }
        }
        let vault = try Vault.create(at: options.directory, passphrase: passphrase, level: kdf)
        Output.status("Initialized a vault in \(vault.root) (Argon2id \(kdf.rawValue))")
    }
}
