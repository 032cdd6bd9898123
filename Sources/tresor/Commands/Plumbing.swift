// `tresor restore`, and the commands git itself runs: `textconv` (decrypted diffs) and `merge-driver`.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Restore: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "restore", 
        abstract: "Bring back a deleted or older version of an entry as a new commit.",
        discussion: "Without --at: the version before the last commit that touched the entry (undoes a delete or the last edit). Current values go to history.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Option(help: ArgumentHelp("A commit (as 'tresor log PATH' shows it).", valueName: "rev")) var at: String?
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        let p = try Vault.parsePath(path)
        let source = try vault.restore(p, at: at)
        Output.report(json: json, "Restored \(p) from \(source.prefix(8)).", .object(["path": .string(p.string), "from": .string(source)]))
    }
}

struct Textconv: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "textconv", 
        abstract: "Print an entry file decrypted (git's textconv for 'git diff' and 'git log -p').", shouldDisplay: false)

    @OptionGroup var options: VaultOptions
    @Argument(help: "The file git gives.") var file: String

    func run() throws {
        let bytes = try FileSystem.read(file, limit: Envelope.maxFileBytes)
        let vault = try Vault.open(at: options.directory)
        // Git runs this for every file it shows: use a session or passphrase file if there is one,
        // never prompt, and never fail the diff.
        if let unlocked = try? options.open(unlock: true, interactive: false) { Output.write(unlocked.textconv(bytes)) }
        else { Output.write(vault.textconv(bytes)) }
    }
}

struct MergeDriver: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-driver", abstract: "Merge three versions of an entry file (git's merge driver).", shouldDisplay: false)

    @OptionGroup var options: VaultOptions
    @Flag(help: "The files are vault headers (.tresor/vault.json).") var header = false
    @Argument(help: "Ancestor's version (%O).") var base: String
    @Argument(help: "Our version, replaced by the result (%A).") var ours: String
    @Argument(help: "Their version (%B).") var theirs: String
    @Argument(help: "The path in the work tree (%P).") var path: String

    func run() throws {
        func load(_ f: String) throws -> [UInt8] { try FileSystem.read(f, limit: Envelope.maxFileBytes) }
        let b = try load(base), o = try load(ours), t = try load(theirs)
        let merged: [UInt8], resolutions: [MergeResolution]
        let vault = try options.open(unlock: true, interactive: false)
        do {
            if header {
                (merged, resolutions) = try vault.mergeHeaderFiles(base: b, ours: o, theirs: t)
            } else {
                guard let entryPath = EntryPath(filePath: path) else { throw CLIError("\(Output.quoted(path)) is not an entry file") }
                (merged, resolutions) = try vault.mergeEntryFiles(base: b, ours: o, theirs: t, path: entryPath)
            }
        } catch VaultError.entry(_, .authenticationFailed), VaultError.header(.headerNotAuthentic), VaultError.header(.wrongPassphrase),
                VaultError.header(.notARecipient), VaultError.noKeyFor {
            // A file under a key that arrives with this very merge (a scope made or rekeyed on the other side): git
            // leaves it as a conflict, and `tresor adopt` joins the merge from its two sides once git commits it.
            Output.status("tresor: \(Output.quoted(path)) is under a key that comes with this merge: commit the merge as it is; tresor then joins it by its own rules")
            throw ExitCode(1)
        }
        try FileSystem.writeAtomically(merged, to: ours)
        for r in resolutions { Output.status("tresor: " + r.description) }
    }
}

struct Adopt: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "adopt", 
        abstract: "Check and authenticate commits made with plain git, and make files git checked out private (run by git's hooks).",
        shouldDisplay: false)

    @OptionGroup var options: VaultOptions

    func run() throws {
        // Git runs this after every commit and merge: without a session or passphrase file it leaves the
        // work to the next tresor command instead of failing git's command.
        guard let vault = try? options.open(unlock: true, interactive: false) else {
            Output.status("tresor: commits made with git are checked and authenticated by the next tresor command")
            return
        }
        // Git checks files out with the umask; a vault's files are private.
        try vault.fixPermissions()
        let keyBefore = try? vault.currentVaultKey()
        do { try vault.transaction { _ in } }
        catch VaultError.rekeyedElsewhere where vault.credential == nil && (options.identityPath != nil || options.passphraseFilePath != nil) {
            // Opened with the agent's (or a session's) keys: the merge brought a rekey, whose header needs the passphrase
            // or identity itself; asked of no one, only taken from where the environment names it.
            if let path = options.identityPath { vault.credential = .identity(try IdentityFile.read(path)) }
            else { vault.credential = .passphrase(try options.passphrase(prompt: "")) }
            try vault.transaction { _ in }
        }
        try vault.rekeyStaleScopes()
        // What git brought changed the keys (a rekey taken in): the agent holds the new ones, as after a sync, so that the
        // next git command's drivers open this replica's state with them. Only once all of it was taken in.
        if let after = try? vault.currentVaultKey(), keyBefore.map({ !$0.constantTimeEquals(after) }) ?? true { Agent.refreshKeys(of: vault) }
    }
}
