// `tresor unlock` and `tresor lock`: start and end a session that skips the passphrase.
import ArgumentParser
import Foundation
import Tresor

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", 
        abstract: "Unlock the vault for a while; prints the session token to export.",
        discussion: """
            Use as: eval "$(tresor unlock)". The token goes into a variable of this vault's own \
            (TRESOR_SESSION_ and 12 hex digits of the vault id), so several vaults can be unlocked in one shell; \
            with --raw, put it into TRESOR_SESSION yourself. The session ends after --timeout minutes or with 'tresor lock'.
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("Minutes until the session expires.", valueName: "minutes"))
    var timeout: Double = 15

    @Flag(help: "Print only the token.")
    var raw = false

    @Flag(help: "Print a JSON object: {variable, token, timeoutMinutes}.")
    var json = false

    func validate() throws {
        if raw && json { throw ValidationError("--raw: use --raw or --json, not both") }
    }

    func run() throws {
        guard timeout > 0, timeout <= 24 * 60 else { throw CLIError("--timeout must be between 0 and 1440 minutes") }
        let vault = try options.open(unlock: true, allowSession: false)
        let token = try Session.start(vault: vault, timeout: timeout * 60, directory: Session.directory())
        if json {
            Output.json(.object(["variable": .string(Session.environmentVariable(vaultID: vault.header.vaultID)), "token": .string(token),
                                 "timeoutMinutes": .number(Clip.format(timeout))]))
        } else if raw {
            Output.line(token)
        } else {
            Output.line("export \(Session.environmentVariable(vaultID: vault.header.vaultID))=\(token)")
            Output.status("Unlocked for \(Self.describe(seconds: timeout * 60)). In a shell run: eval \"$(tresor unlock)\"")
        }
    }
}

extension Unlock {
    /// A duration as people say it: "3 seconds", "1 hour 30 minutes"; never "0 minutes".
    static func describe(seconds: Double) -> String {
        let total = max(1, Int(seconds.rounded()))
        let parts = [(total / 3600, "hour"), (total / 60 % 60, "minute"), (total % 60, "second")]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " ")
    }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "End the session of this vault.",
        discussion: "The session file is removed, so the token is useless from now on. Prints the unset line for the token's variable: eval \"$(tresor lock)\" also clears it from the shell.")

    @OptionGroup var options: VaultOptions
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let vault = try options.open(unlock: false)
        let had = Session.end(vaultID: vault.header.vaultID, directory: Session.directory())
        let variable = Session.environmentVariable(vaultID: vault.header.vaultID)
        if json {
            Output.json(.object(["sessionEnded": .bool(had), "variable": .string(variable)]))
        } else {
            Output.line("unset \(variable)")
            Output.status(had ? "Locked." : "No session was open.")
        }
    }
}
