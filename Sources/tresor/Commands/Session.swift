// `tresor unlock` and `tresor lock`: start and end a session that skips the passphrase.
import ArgumentParser
import Foundation
import Tresor
import TresorCore

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", 
        abstract: "Unlock the vault for a while; prints the session token to export.",
        discussion: "Use as: eval \"$(tresor unlock)\". The session ends after --timeout minutes or with 'tresor lock'.")

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("Minutes until the session expires.", valueName: "minutes"))
    var timeout: Double = 15

    @Flag(help: "Print only the token.")
    var raw = false

    func run() throws {
        guard timeout > 0, timeout <= 24 * 60 else { throw CLIError("--timeout must be between 0 and 1440 minutes") }
        let vault = try options.open(unlock: true, allowSession: false)
        let token = try Session.start(vault: vault, timeout: timeout * 60, directory: Session.directory())
        if raw {
            Output.line(token)
        } else {
            Output.line("export \(Session.environmentVariable)=\(token)")
            Output.status("Unlocked for \(Int(timeout)) minutes. In a shell run: eval \"$(tresor unlock)\"")
        }
    }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "End the session of this vault.")

    @OptionGroup var options: VaultOptions

    func run() throws {
        let vault = try options.open(unlock: false)
        let had = Session.end(vaultID: vault.header.vaultID, directory: Session.directory())
        Output.status(had ? "Locked." : "No session was open.")
    }
}
