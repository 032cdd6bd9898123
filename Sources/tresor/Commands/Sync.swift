// `tresor sync`, `tresor clone`, `tresor remote`: share a vault through any git remote.
import ArgumentParser
import Foundation
import Tresor

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch, merge entries field by field, and push.",
        discussion: "Conflicting edits merge in process with the real merge base; every losing value goes into the entry's history. See README \"Sync\".")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote name.") var remote: String = "origin"
    @Flag(help: "Print a JSON object describing what happened.") var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        var outcome: SyncOutcome
        do { outcome = try vault.sync(remote: remote, credentials: .standard()) }
        catch VaultError.rekeyedElsewhere where vault.credential == nil
                && (options.identityPath != nil || options.passphraseFilePath != nil || Prompt.interactive) {
            // Unlocked by a session: the rekeyed header's slots need the passphrase or identity itself.
            if let path = options.identityPath { vault.credential = .identity(try IdentityFile.read(path)) }
            else { vault.credential = .passphrase(try options.passphrase(prompt: "The vault was rekeyed on \(remote); passphrase: ")) }
            outcome = try vault.sync(remote: remote, credentials: .standard())
        }
        if outcome.rekeyed { try RekeyOptions().refreshSession(vault, options: options) }
        if json {
            Output.json(.object([
                "remote": .string(outcome.remote), "pulled": .bool(outcome.pulled), "pushed": .bool(outcome.pushed),
                "fastForwarded": .bool(outcome.fastForwarded), "initializedRemote": .bool(outcome.initializedRemote),
                "passphraseChanged": .bool(outcome.passphraseChanged), "rekeyed": .bool(outcome.rekeyed),
                "rolledBack": outcome.rolledBack.map { .object(["from": .string($0.from), "to": .string($0.to)]) } ?? .null,
                "mergedEntries": .array(outcome.mergedEntries.map(JSONValue.string)),
                "recoveryRef": outcome.recoveryRef.map(JSONValue.string) ?? .null,
                "resolutions": .array(outcome.resolutions.map(\.json)),  // Spec/MERGE.md §8 records
            ]))
            return
        }
        if let back = outcome.rolledBack {
            Output.warning("the remote \(Output.quoted(remote)) went back from \(back.from.prefix(12)) to an older state \(back.to.prefix(12)) (a force-push?)"
                           + (outcome.pushed ? "; this replica's state was pushed again" : ""))
        }
        if !outcome.pulled && !outcome.pushed { Output.line("Already up to date with \(remote)."); return }
        if outcome.fastForwarded { Output.line("Pulled from \(remote) (fast-forward).") }
        if !outcome.fastForwarded && outcome.pulled {
            Output.line("Merged \(remote): \(outcome.mergedEntries.count) entr\(outcome.mergedEntries.count == 1 ? "y" : "ies") changed" +
                        (outcome.mergedEntries.isEmpty ? "." : ": " + outcome.mergedEntries.map { String($0.dropLast(5)) }.joined(separator: ", ")))
        }
        let me = "device " + vault.deviceID.prefix(8)
        for r in outcome.resolutions { Output.line("  resolved: " + r.description.replacingOccurrences(of: me, with: "this device")) }
        if outcome.pushed { Output.line(outcome.initializedRemote ? "Pushed the vault to the empty remote \(remote)." : "Pushed to \(remote).") }
        if outcome.rekeyed {
            Output.line("The vault was rekeyed on another replica: this replica uses the new key from now on, and what it changed meanwhile was re-encrypted under it.")
        } else if outcome.passphraseChanged { Output.line("The passphrase was changed on another replica: unlock with the new one from now on.") }
        if let ref = outcome.recoveryRef { Output.status("The state before this sync is kept at \(ref).") }
    }
}

struct Clone: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Clone a vault from a git remote and check every entry.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote URL: a path, file://, ssh://, https:// or git://.") var url: String
    @Argument(help: "Directory (default: the vault location).") var directory: String?

    func run() throws {
        let target = directory ?? options.directory
        let vault = try Vault.clone(url: url, to: target, credentials: .standard())
        do {
            // An open session of the same vault (same vault id) saves asking again.
            if let token = ProcessInfo.processInfo.environment[Session.environmentVariable], !token.isEmpty,
               let key = try? Session.vaultKey(token: token, vaultID: vault.header.vaultID, directory: Session.directory()) {
                try vault.unlock(vaultKey: key)
            } else {
                try options.unlock(vault)
            }
            try vault.completeClone()
        } catch {
            vault.discardClone()
            throw error
        }
        Output.status("Cloned \(url) into \(vault.root): \(vault.list().paths.count) entries, all verified.")
    }
}

struct Remote: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage the vault's git remotes.",
                                                    subcommands: [RemoteAdd.self, RemoteRemove.self, RemoteList.self],
                                                    defaultSubcommand: RemoteList.self)
}

struct RemoteAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
    @OptionGroup var options: VaultOptions
    @Argument var name: String
    @Argument var url: String
    func run() throws {
        try options.open(unlock: false).addRemote(name: name, url: url)
        Output.status("Added remote \(name) (\(url)).")
    }
}

struct RemoteRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a remote.", aliases: ["rm"])
    @OptionGroup var options: VaultOptions
    @Argument var name: String
    func run() throws {
        try options.open(unlock: false).removeRemote(name: name)
        Output.status("Removed remote \(name).")
    }
}

struct RemoteList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List remotes.")
    @OptionGroup var options: VaultOptions
    func run() throws {
        for r in try options.open(unlock: false).remotes() { Output.line("\(r.name)\t\(r.url)") }
    }
}
