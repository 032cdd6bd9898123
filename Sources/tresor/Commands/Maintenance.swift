// `tresor passwd`, `tresor fsck`, `tresor log`: passphrase, integrity and history.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Passwd: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "passwd", abstract: "Change the passphrase (re-wraps the vault key; entries are untouched).")

    @OptionGroup var options: VaultOptions
    @Option(help: ArgumentHelp("Read the new passphrase from the first line of this file.", valueName: "file"))
    var newPassphraseFile: String?
    @Option(help: ArgumentHelp("Argon2id cost of the new key slot (default: the current one's).", valueName: "level"))
    var kdf: KDFLevel?
    @Flag(help: .jsonReport) var json = false
    @Flag(help: "Also rekey (a new vault key, every entry re-encrypted): the old passphrase then opens nothing written afterwards, not even with an old header from git history.")
    var revoke = false

    func run() throws {
        let vault = try options.open(unlock: false)
        try options.unlock(vault, prompt: "Current passphrase for \(PassphraseInput.name(of: vault.root)): ")
        let new = try PassphraseInput.new(file: newPassphraseFile, directory: vault.root)
        // Never weaker than the strongest slot the vault has (README "Security model").
        let level = kdf ?? vault.header.strongestLevel
        warnIfTestCost(level)
        if revoke {
            let outcome = try vault.rekey(passphrase: new, level: level)
            try RekeyOptions().refreshSession(vault, options: options)
            Output.status("Passphrase changed and the vault rekeyed: \(outcome.entries) entr\(outcome.entries == 1 ? "y" : "ies") re-encrypted; the old passphrase opens nothing written from now on.")
            return
        }
        let removed = try vault.changePassphrase(to: new, level: level)
        if json {
            Output.json(.object(["changed": .bool(true), "kdf": .string(level.rawValue), "otherPassphrasesRemoved": .integer(removed)]))
            return
        }
        Output.status("Passphrase changed.")
        if removed > 0 {
            Output.status("\(removed) other passphrase\(removed == 1 ? "" : "s") no longer open\(removed == 1 ? "s" : "") the vault: only the new one does.")
        }
    }
}

struct Fsck: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fsck", abstract: "Decrypt every entry and check paths, ids, permissions and uncommitted files.")

    @OptionGroup var options: VaultOptions
    @Flag(help: "First set files to 0600 and folders to 0700 (after a checkout by the git CLI).") var fixPermissions = false
    @Flag(help: "Print a JSON object: {entriesChecked, problems: [{file, message}]}.") var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        if fixPermissions { try vault.fixPermissions() }
        let progress = ProgressLine("Checking")
        let report = try vault.check(progress: progress.report)
        progress.finish()
        if json {
            Output.json(.object(["entriesChecked": .integer(report.entriesChecked),
                                 "problems": .array(report.problems.map { .object(["file": .string($0.file), "message": .string($0.message)]) }),
                                 "notChecked": .array(report.notChecked.map { .object(["file": .string($0.file), "scope": $0.scope.map(JSONValue.string) ?? .null]) })]))
        } else {
            for p in report.problems { Output.line("\(p.file): \(p.message)") }
            // Entries under keys not held are not damage: one line per key, on stderr beside the summary.
            var byKey: [String: Int] = [:]
            for u in report.notChecked { byKey[u.scope.map { "no key for scope \(Output.quoted($0))" } ?? "the vault key is not held", default: 0] += 1 }
            for (reason, count) in byKey.sorted(by: { $0.key < $1.key }) {
                Output.status("\(count) entr\(count == 1 ? "y" : "ies") not checked (\(reason))")
            }
            Output.status("checked \(report.entriesChecked) entr\(report.entriesChecked == 1 ? "y" : "ies"): \(report.problems.isEmpty ? "no problems" : "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")")")
        }
        if !report.problems.isEmpty { throw ExitCode(ExitStatus.problems) }
    }
}

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "log", 
        abstract: "Show the vault's history, or one entry's: when, and which fields each commit changed.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Only commits touching this entry (decrypts its old versions to name the changed fields).", completion: Completion.entries) var path: String?
    @Option(name: [.customShort("n"), .long], help: "At most this many commits.") var limit: Int?
    @Flag(help: "Print a JSON array.") var json = false

    func run() throws {
        if let path {
            let vault = try options.open(unlock: true)
            let entryPath = try Vault.parsePath(path)
            let changes = try vault.entryLog(entryPath, limit: limit)
            if changes.isEmpty { throw VaultError.entryNotFound(path: entryPath.string, suggestions: vault.suggestions(for: entryPath.string)) }
            if json {
                Output.json(.array(changes.map { c in
                    .object(["id": .string(c.commit.id), "author": .string(c.commit.author.name), "date": .string(Timestamp(c.commit.date).description),
                             "message": .string(c.commit.message), "change": .string(c.kind.rawValue), "fields": .array(c.fields.map(JSONValue.string))])
                }))
            } else {
                for c in changes {
                    let what = c.fields.isEmpty ? c.kind.rawValue : "\(c.kind): \(c.fields.joined(separator: ", "))"
                    Output.line("\(c.commit.id.prefix(8))  \(LocalTime.minutes(c.commit.date))  \(c.commit.author.name)  \(what)  (\(c.commit.summary))")
                }
            }
            return
        }
        let commits = try options.open(unlock: false).history(limit: limit)
        if json {
            Output.json(.array(commits.map { c in
                .object(["id": .string(c.id), "author": .string(c.author.name), "email": .string(c.author.email),
                         "date": .string(Timestamp(c.date).description), "message": .string(c.message)])
            }))
            return
        }
        for c in commits { Output.line("\(c.id.prefix(8))  \(LocalTime.minutes(c.date))  \(c.summary)") }
    }
}

struct Upgrade: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "upgrade",
        abstract: "Upgrade a vault to format version \(FormatVersion.header) (authenticated state; members and scopes).",
        discussion: "One commit, by a holder of the vault key and of every scope key. Run it on each replica: replicas that convert the same commit sync without a join. Older tresor versions cannot read the upgraded vault (docs/sync.md).")

    @OptionGroup var options: VaultOptions
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        guard vault.header.version < FormatVersion.header else {
            Output.report(json: json, "The vault already has format version \(vault.header.version).",
                          .object(["upgraded": .bool(false), "version": .integer(vault.header.version)]))
            return
        }
        try vault.upgrade()
        if json { Output.json(.object(["upgraded": .bool(true), "version": .integer(FormatVersion.header)])); return }
        Output.status("Upgraded the vault to format version \(FormatVersion.header): every change from now on is authenticated by the state records of its keys, and it can have members ('tresor member add').")
    }
}
