// `tresor ui`: the vault in a full-screen terminal program (list, entry, new entry, sync).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

struct UserInterface: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Browse, search and change the vault in a full-screen terminal program.",
        discussion: """
            Names are listed at once without the passphrase; it is asked inside the program when an entry is opened
            (the agent's keys after 'tresor unlock', a session or a passphrase file are used instead). The vault locks after
            --timeout minutes without a key press, and when the agent or session it came from drops the keys. Keys: press ? in the program, or see docs/ui.md.
            """)

    @OptionGroup var options: VaultOptions
    @Option(help: ArgumentHelp("Lock after this many minutes without a key press (default 15).", valueName: "min"))
    var timeout: Double = 15
    @Option(help: ArgumentHelp("The remote 's' syncs with (default origin).", valueName: "name"))
    var remote: String = "origin"

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of minutes") }
    }

    func run() throws {
        let vault = try Vault.open(at: options.directory)
        let model = VaultModel(vault: vault)
        try unlockWithoutAsking(model)
        // It decrypts, commits and shows one-time codes: libsodium, libgit2 and libcrypto (opened on first use) are
        // opened before the screen is taken, where a missing one would end the program with the terminal left in the
        // full-screen mode.
        Vault.openLibraries(git: .now, crypto: true)
        let terminal: Terminal
        do { terminal = try Terminal(colors: ColorMode.from(environment: options.environment)) }
        catch let e as TerminalError { throw CLIError(e.message) }
        let app = App(terminal: terminal, model: model, services: .available, remote: remote, idleTimeout: timeout * 60)
        app.run()
        terminal.stop()
    }

    /// Uses the agent's keys, an open session or a passphrase file when there is one; otherwise the UI asks when needed.
    private func unlockWithoutAsking(_ model: VaultModel) throws {
        if options.identity == nil, Agent.enabled, model.vault.header.version >= 2,
           let held = try? Agent.client.keys(for: model.vault), (try? model.unlock(agentKeys: held.keys)) != nil { return }
        if let token = Session.token(vaultID: model.vault.header.vaultID, environment: options.environment) {
            do { try model.unlock(sessionToken: token); return } catch let e as VaultError {
                Output.warning(e.message.split(separator: "\n").first.map(String.init) ?? "")
            }
        }
        if let file = options.passphraseFilePath {
            try model.unlock(passphrase: try VaultOptions.readPassphraseFile(file))
        }
    }
}

extension TerminalError {
    /// The CLI's words for a terminal that cannot run the UI.
    var message: String {
        switch self {
        case .notATerminal:
            return "tresor ui needs a terminal on standard input and output\nhint: 'tresor ls', 'tresor show' and 'tresor grep' work without one"
        case .unknownTerminal(let term):
            return term.isEmpty ? "TERM is not set, so the terminal type is unknown\nhint: set TERM, e.g. TERM=xterm-256color"
                : "no terminal description for TERM=\"\(term.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined())\"\nhint: install ncurses-term or set TERM=xterm-256color"
        }
    }
}
