// The `tresor` command: subcommands, and one place that turns errors into messages and exit codes.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

@main
struct TresorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tresor",
        abstract: "A password vault of encrypted JSON entries in a git repository.",
        discussion: """
            Vault: --vault DIR, else $TRESOR_VAULT, else ~/.tresor. --vault, --passphrase-file and --identity may also \
            come before the command: tresor --vault DIR show Email/gmail.
            Passphrase: asked on the terminal (/dev/tty, whatever stdin is), without one through pinentry \
            ($TRESOR_PINENTRY, else pinentry on $PATH), or the first line of --passphrase-file / $TRESOR_PASSPHRASE_FILE.
            Identity: --identity FILE / $TRESOR_IDENTITY, else ~/.config/tresor/identity when it is a member, unlocks \
            a vault that has it as a member.
            After 'tresor unlock' every command of yours uses the keys in your agent until 'tresor lock' or a timeout.
            """,
        version: TresorCommand.version,
        subcommands: [Init.self, Unlock.self, Lock.self, Add.self, Show.self, List.self, Find.self, Grep.self,
                      Edit.self, Remove.self, Move.self, Copy.self, Generate.self, Rotate.self, Passwd.self,
                      Fsck.self, Audit.self, Log.self, Sync.self, Clone.self, Remote.self, Restore.self, Upgrade.self, Textconv.self,
                      MergeDriver.self, Adopt.self, Clip.self, Otp.self, ViewGuardian.self, ClipboardKeeper.self, UserInterface.self,
                      Import.self, Export.self, IdentityCommand.self, MemberCommand.self, ScopeCommand.self, Rekey.self,
                      Read.self, Run.self, Inject.self, GitCredential.self, SSHAdd.self, BrowserCommand.self, AgentCommand.self]
            .filter { $0.configuration.shouldDisplay || !TresorCommand.dumpingHelp }
    )

    static let version = "0.1.0"

    /// The manual page is generated from `--experimental-dump-help`: it lists the commands people type,
    /// not the internal ones git and tresor itself run (which argument-parser's dump would include).
    static var dumpingHelp: Bool { CommandLine.arguments.dropFirst().contains("--experimental-dump-help") }

    /// The command line; run as `git-credential-tresor` (a link git finds on PATH), it is `tresor git-credential …`.
    static var arguments: [String] {
        let rest = Array(CommandLine.arguments.dropFirst())
        let name = (CommandLine.arguments.first.map { PathName.last($0) }) ?? ""
        return name == "git-credential-tresor" ? [GitCredential.commandName] + rest : rest
    }

    static func main() {
        // Secrets live in this process's memory: no core file, no debugger attaching (README "Security model").
        ProcessHardening.disableCoreDumps()
        // Views a killed or powered-off tresor left behind go at once, whatever the command.
        // Not while a shell asks for completions, which must only read names.
        if ![ViewGuardian.commandName, ClipboardKeeper.commandName, AgentCommand.commandName, "---completion"].contains(CommandLine.arguments.dropFirst().first ?? "") {
            EditorView.sweepOrphans()
        }
        let arguments = UsageErrors.hoistingVaultOptions(Self.arguments)
        if arguments == ["--version"] {
            Output.line(version)
            Glibc.exit(0)
        }
        if arguments.count == 2, arguments[0] == "--generate-completion-script", let script = Completion.script(for: arguments[1]) {
            Output.write(script)
            Glibc.exit(0)
        }
        // `show PATH` and `ls` as typed most often, read without ArgumentParser (they name a command that exists).
        let plain = PlainCommandLine.read(arguments)
        if plain == nil, let message = UsageErrors.passGenerateHabit(arguments) { fail(message, code: ExitCode.validationFailure.rawValue) }
        if plain == nil, let (word, parent) = UsageErrors.unknownCommand(in: arguments) {
            fail(UsageErrors.unknownCommandMessage(word, parent: parent), code: ExitCode.validationFailure.rawValue)
        }
        // Git's start-up from here, beside the parsing (ArgumentParser's reflection of every option, ~16 M instructions),
        // for a command named as one that commits or syncs; once parsed, the command's type decides.
        let early = arguments.first.map(Self.commandsThatCommit.contains) ?? false
        if early { Vault.prepareGitInBackground() }
        // A missing libsodium ends a command that changes the vault (or makes one) before it has done anything.
        if early || arguments.first == Init.configuration.commandName { Vault.openLibraries(git: .onFirstUse) }
        do {
            if let plain {
                try runShowingUsage(of: plain.command) { try plain.run() }
            } else {
                var command = try parseAsRoot(arguments)
                if command is CommitsToGit, !early { Vault.prepareGitInBackground() }
                try runShowingUsage(of: type(of: command)) { try command.run() }
            }
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

    /// Runs a command; a usage error it throws while running ends the program with the command's usage (thrown
    /// while running, argument-parser would show the top-level usage).
    private static func runShowingUsage(of command: ParsableCommand.Type, _ run: () throws -> Void) throws {
        do { try run() } catch let e as ValidationError {
            VaultOptions.printWarnings()
            fail(e.message + "\n" + UsageErrors.usage(of: command), code: ExitCode.validationFailure.rawValue)
        } catch let e as CLIError where e.code == ExitCode.validationFailure.rawValue {
            VaultOptions.printWarnings()
            fail(e.message + "\n" + UsageErrors.usage(of: command), code: e.code)
        }
    }

    /// argument-parser's own usage errors read like tresor's ("tresor: error: Unknown option '--x'").
    static var _errorPrefix: String { "tresor: error: " }

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

extension ArgumentHelp {
    /// `--json` of a command that changes something: what it did, as one JSON object on stdout.
    static let jsonReport: ArgumentHelp = "Print what was done as a JSON object on standard output (see docs/json-and-exit-codes.md)."
}

/// A CLI-level failure with its exit code.
struct CLIError: Error {
    let message: String
    var code: Int32 = ExitStatus.error
    /// A typed answer that breaks a rule: asking again may help.
    var retryable = false
    init(_ message: String, code: Int32 = ExitStatus.error, retryable: Bool = false) { self.message = message; self.code = code; self.retryable = retryable }
}

/// A command that commits or syncs: git's start-up begins on another thread as soon as the command is parsed, or
/// before when its name is in `TresorCommand.commandsThatCommit`.
protocol CommitsToGit {}

extension TresorCommand {
    /// The names of the top-level commands that are `CommitsToGit`, or hold one, for the start before parsing; a list
    /// rather than a look at each command type, whose first casts would scan every conformance record
    /// (`CommandNameTests` checks it against the types); an array: a set's first use would instantiate its type by name.
    static let commandsThatCommit: [String] = ["add", "edit", "rm", "mv", "cp", "rotate", "passwd", "sync", "clone",
                                               "restore", "import", "rekey"]
}
