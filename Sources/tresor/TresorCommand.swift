// The `tresor` command: subcommands, and one place that turns errors into messages and exit codes.
import ArgumentParser
import Foundation
import Tresor

@main
struct TresorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tresor",
        abstract: "A password vault of encrypted JSON entries in a git repository.",
        discussion: """
            Vault: --vault DIR, else $TRESOR_VAULT, else ~/.tresor.
            Passphrase: prompted at the terminal, or the first line of --passphrase-file / $TRESOR_PASSPHRASE_FILE.
            Identity: --identity FILE / $TRESOR_IDENTITY unlocks a vault that has this identity as a member.
            After 'eval "$(tresor unlock)"' commands use the session in $TRESOR_SESSION until it expires.
            """,
        version: "0.1.0",
        subcommands: [Init.self, Unlock.self, Lock.self, Add.self, Show.self, List.self, Find.self, Grep.self,
                      Edit.self, Remove.self, Move.self, Copy.self, Generate.self, Rotate.self, Passwd.self,
                      Fsck.self, Audit.self, Log.self, Sync.self, Clone.self, Remote.self, Restore.self, Upgrade.self, Textconv.self,
                      MergeDriver.self, Adopt.self, Clip.self, Otp.self, ViewGuardian.self, ClipboardKeeper.self, UserInterface.self,
                      Import.self, Export.self, IdentityCommand.self, MemberCommand.self, Rekey.self]
    )

    static func main() {
        // Secrets live in this process's memory: no core file, no debugger attaching (README "Security model").
        ProcessHardening.disableCoreDumps()
        // Views a killed or powered-off tresor left behind go at once, whatever the command.
        if ![ViewGuardian.commandName, ClipboardKeeper.commandName].contains(CommandLine.arguments.dropFirst().first ?? "") { EditorView.sweepOrphans() }
        do {
            var command = try parseAsRoot()
            try command.run()
            VaultOptions.printWarnings()
        } catch let e as ExitCode {
            VaultOptions.printWarnings()
            Glibc.exit(e.rawValue)
        } catch {
            VaultOptions.printWarnings()
            guard let report = ErrorReport.of(error) else { exit(withError: error) }
            fail(report.message, code: report.code)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        Output.error(message)
        Glibc.exit(code)
    }
}

/// Exit codes (README "Exit codes").
enum ExitStatus {
    static let noMatch: Int32 = 1
    static let error: Int32 = 2
    static let auth: Int32 = 3
    static let notFound: Int32 = 4
    static let exists: Int32 = 5
    static let problems: Int32 = 6

}

/// A CLI-level failure with its exit code.
struct CLIError: Error {
    let message: String
    var code: Int32 = ExitStatus.error
    init(_ message: String, code: Int32 = ExitStatus.error) { self.message = message; self.code = code }
}
