// `tresor rm`, `tresor mv`, `tresor cp`: remove, rename and copy entries.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Remove: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an entry (git history keeps it; 'tresor restore' brings it back).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Flag(name: [.short, .long], help: "Do not ask for confirmation at a terminal.") var force = false
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        let p = try vault.existingPath(path)
        if Prompt.interactive && !force && !Prompt.confirm("Remove \(p)?") { throw CLIError("not removed", code: ExitStatus.error) }
        try vault.remove(p)
        Output.report(json: json, "Removed \(p)", .object(["path": .string(p.string)]))
    }
}

/// A destination ending in "/" means "into this folder, same name".
func destination(_ raw: String, source: EntryPath) throws -> EntryPath {
    raw.hasSuffix("/") ? try Vault.parsePath(raw + source.name) : try Vault.parsePath(raw)
}

/// What `mv` and `cp` share: a source, a destination, and whether to replace.
struct TransferArguments: ParsableArguments {
    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var source: String
    @Argument(help: "New path, or a folder ending in \"/\".", completion: Completion.destinations) var target: String
    @Flag(name: [.short, .long], help: "Replace an existing entry at the new path.") var force = false
    @Flag(help: .jsonReport) var json = false

    func run(_ done: String, _ action: (Vault, EntryPath, EntryPath, Bool) throws -> Void) throws {
        let vault = try options.open(unlock: true)
        let from = try vault.existingPath(source)
        let to = try destination(target, source: from)
        try action(vault, from, to, force)
        Output.report(json: json, "\(done) \(from) to \(to)", .object(["from": .string(from.string), "to": .string(to.string)]))
    }
}

struct Move: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "mv", abstract: "Rename or move an entry (it keeps its id and history).")
    @OptionGroup var arguments: TransferArguments
    func run() throws { try arguments.run("Moved") { try $0.move($1, to: $2, force: $3) } }
}

struct Copy: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "cp", abstract: "Copy an entry (the copy gets a new id).")
    @OptionGroup var arguments: TransferArguments
    func run() throws { try arguments.run("Copied") { try $0.copy($1, to: $2, force: $3) } }
}
