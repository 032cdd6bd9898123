// `tresor sync`, `tresor clone`, `tresor remote`: share a vault through any git remote.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Sync: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "sync", 
        abstract: "Fetch, check, join entries field by field, and push.",
        discussion: "The remote's state is taken only if it passes the acceptance rule (Spec/AUTH.md); concurrent edits join field by field and every losing value goes into the entry's history. While other replicas push at the same moment, the sync starts again after a growing random delay, for up to --retry-time seconds. See docs/sync.md.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote name.", completion: Completion.remotes) var remote: String = "origin"
    @Flag(help: "Print a JSON object describing what happened.") var json = false
    @Flag(name: .shortAndLong, help: "List every merged entry (otherwise the first \(Sync.listed)).") var verbose = false
    @Option(help: ArgumentHelp("How long to keep trying while the remote keeps moving (default 60; TRESOR_SYNC_RETRY_TIME).", valueName: "seconds"))
    var retryTime: Double?
    @Flag(help: "When the remote holds a state tresor refuses: join what is authentic there and push the result over it, naming what was discarded.")
    var repairRemote = false

    /// How many merged entries the report names without --verbose.
    static let listed = 10

    func run() throws {
        let vault = try options.open(unlock: true)
        let progress = ProgressLine("Syncing")
        var outcome: SyncOutcome
        let retry = retryTime ?? ProcessEnvironment.value("TRESOR_SYNC_RETRY_TIME").flatMap(Double.init) ?? Vault.defaultRetryTime
        do { defer { progress.finish() }; outcome = try vault.sync(remote: remote, credentials: .standard(), retryTime: retry, repair: repairRemote, progress: progress.report) }
        catch VaultError.rekeyedElsewhere where vault.credential == nil
                && (options.identityPath != nil || options.passphraseFilePath != nil || Prompt.interactive) {
            // Unlocked by a session: the rekeyed header's slots need the passphrase or identity itself.
            if let path = options.identityPath { vault.credential = .identity(try IdentityFile.read(path)) }
            else { vault.credential = .passphrase(try options.passphrase(prompt: "The vault was rekeyed on \(remote); passphrase: ")) }
            let again = ProgressLine("Syncing")
            defer { again.finish() }
            outcome = try vault.sync(remote: remote, credentials: .standard(), retryTime: retry, repair: repairRemote, progress: again.report)
        }
        if outcome.rekeyed { try RekeyOptions().refreshSession(vault, options: options) }
        if json {
            Output.json(Sync.json(outcome))
            return
        }
        defer {
            for folder in outcome.offeredScopes {
                Output.status("note: the scope \(Output.quoted(folder)) has a slot for your identity but was not accepted: without the vault key, "
                              + "tresor cannot tell who made it. If you expected it: 'tresor scope accept \(Output.escaped(folder))'")
            }
        }
        for back in outcome.rolledBack {
            let what = back.domain == "vault" ? "the vault" : "the scope \(Output.quoted(back.domain))"
            Output.warning("the remote \(Output.quoted(remote)) went back: \(what) is older there than what this replica last took from it"
                           + (outcome.pushed ? "; this replica's state was pushed over it" : ""))
        }
        for (domain, refusal) in outcome.discarded {
            let what = domain == "vault" ? "the vault domain" : "the scope \(Output.quoted(vault.header.scopes[domain] ?? domain))"
            Output.warning("discarded from \(Output.quoted(remote)): \(what): \(refusal.message)")
        }
        if outcome.remoteChanges > 0 { Output.status("The remote changed \(outcome.remoteChanges) time\(outcome.remoteChanges == 1 ? "" : "s") while syncing; joined each time.") }
        if !outcome.pulled && !outcome.pushed { Output.line("Already up to date with \(remote)."); return }
        if outcome.fastForwarded { Output.line("Pulled from \(remote) (fast-forward).") }
        if !outcome.fastForwarded && outcome.pulled {
            let names = outcome.mergedEntries.map { Output.escaped(String($0.dropLast(5))) }
            switch names.count {
            case 0: Output.line("Merged \(remote): 0 entries changed.")
            case 1: Output.line("Merged \(remote): 1 entry changed: \(names[0])")
            default:
                // One per line; a long list is cut unless asked for.
                Output.line("Merged \(remote): \(names.count) entries changed:")
                let shown = verbose ? names.count : min(names.count, Self.listed)
                for name in names.prefix(shown) { Output.line("  " + name) }
                if shown < names.count { Output.line("  … and \(names.count - shown) more (--verbose lists all)") }
            }
        }
        let me = "device " + vault.deviceID.prefix(8)
        for r in outcome.resolutions { Output.line("  resolved: " + r.description.replacingAll(me, with: "this device")) }
        if outcome.pushed { Output.line(outcome.initializedRemote ? "Pushed the vault to the empty remote \(remote)." : "Pushed to \(remote).") }
        if outcome.rekeyed {
            Output.line("The vault was rekeyed on another replica: this replica uses the new key from now on, and what it changed meanwhile was re-encrypted under it.")
        } else if outcome.passphraseChanged { Output.line("The passphrase was changed on another replica: unlock with the new one from now on.") }
        // Only a merge needs the way back; a fast-forward lost nothing.
        if let ref = outcome.recoveryRef, outcome.pulled, !outcome.fastForwarded { Output.status("The state before this merge is kept at \(ref).") }
    }

    /// The JSON object `sync --json` prints.
    static func json(_ outcome: SyncOutcome) -> JSONValue {
        let rolled: [JSONValue] = outcome.rolledBack.map { .object(["domain": .string($0.domain), "from": $0.from.json, "to": $0.to.json]) }
        let discarded: [JSONValue] = outcome.discarded.map { .object(["domain": .string($0.domain), "rule": .string($0.refusal.rule.rawValue)]) }
        var o: [String: JSONValue] = [:]
        o["remote"] = .string(outcome.remote)
        o["upToDate"] = .bool(outcome.upToDate)
        o["pulled"] = .bool(outcome.pulled)
        o["pushed"] = .bool(outcome.pushed)
        o["fastForwarded"] = .bool(outcome.fastForwarded)
        o["initializedRemote"] = .bool(outcome.initializedRemote)
        o["passphraseChanged"] = .bool(outcome.passphraseChanged)
        o["rekeyed"] = .bool(outcome.rekeyed)
        o["rolledBack"] = .array(rolled)
        o["discarded"] = .array(discarded)
        o["attempts"] = .integer(outcome.rounds)
        o["remoteChanges"] = .integer(outcome.remoteChanges)
        o["bytesReceived"] = .integer(UInt64(outcome.bytesReceived))
        o["bytesSent"] = .integer(UInt64(outcome.bytesSent))
        o["mergedEntries"] = .array(outcome.mergedEntries.map(JSONValue.string))
        o["recoveryRef"] = outcome.recoveryRef.map(JSONValue.string) ?? .null
        o["resolutions"] = .array(outcome.resolutions.map(\.json))  // Spec/MERGE.md §9 records
        o["offeredScopes"] = .array(outcome.offeredScopes.map(JSONValue.string))
        return .object(o)
    }
}

struct Clone: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "clone", abstract: "Clone a vault from a git remote and check every entry.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote URL: a path, file://, ssh://, https:// or git://.") var url: String
    @Argument(help: "Directory (default: the vault location).", completion: .directory) var directory: String?
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let target = directory ?? options.directory
        // One line for every step, so the delay counts from the start of the command.
        let progress = ProgressLine("Cloning")
        let vault: Vault
        do { defer { progress.finish() }; vault = try Vault.clone(url: url, to: target, credentials: .standard(), progress: progress.report) }
        do {
            // An open session of the same vault (same vault id) saves asking again.
            if let token = Session.token(vaultID: vault.header.vaultID, environment: ProcessEnvironment.values),
               let keys = try? Session.keys(token: token, vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values)) {
                try vault.unlock(session: keys)
            } else {
                try options.unlock(vault)
            }
            progress.relabel("Checking")
            defer { progress.finish() }
            try vault.completeClone(progress: progress.report)
        } catch {
            vault.discardClone()
            throw error
        }
        let paths = vault.list().paths
        let readable = Clone.readable(paths, in: vault)
        let count = paths.count, entries = "\(count) entr\(count == 1 ? "y" : "ies")"
        // A member of some scopes only opens their entries; the rest were checked for their form, not decrypted.
        let others = count - readable
        let opened = readable == 0 ? "you can open none of them"
            : readable == 1 ? "the one you can open was decrypted and verified" : "the \(readable) you can open were decrypted and verified"
        let rest = readable == 0 ? "" : others == 1 ? ", the other one is under a key you do not hold" : ", the other \(others) are under keys you do not hold"
        let summary = readable == count ? "\(entries), all verified." : "\(entries); \(opened)\(rest) (checked for their form only)."
        Output.report(json: json, "Cloned \(url) into \(vault.root): \(summary)",
                      .object(["url": .string(url), "vault": .string(vault.root), "entries": .integer(count), "readable": .integer(readable)]))
    }

    /// How many of `paths` this process can decrypt: those in a scope whose key it holds, and, with the vault key, the
    /// rest outside scopes.
    static func readable(_ paths: [EntryPath], in vault: Vault) -> Int {
        let scopes = (try? vault.scopes()) ?? []
        return paths.filter { p in
            if let scope = scopes.first(where: { EntryPath.isInside(p.string, folder: $0.folder) }) { return scope.isHeld }
            return vault.holdsVaultKey
        }.count
    }
}

struct Remote: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remote", abstract: "Manage the vault's git remotes.",
                                                    subcommands: [RemoteAdd.self, RemoteRemove.self, RemoteList.self],
                                                    defaultSubcommand: RemoteList.self)
}

struct RemoteAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote name.") var name: String
    @Argument(help: "Remote URL: a path, file://, ssh://, https:// or git://.") var url: String
    @Flag(help: .jsonReport) var json = false
    func run() throws {
        let vault = try options.open(unlock: false)
        try vault.addRemote(name: name, url: url)
        // As stored: a local path is made absolute.
        let stored = (try? vault.remotes())?.first { $0.name == name }?.url ?? url
        Output.report(json: json, "Added remote \(name) (\(stored)).", .object(["name": .string(name), "url": .string(stored)]))
    }
}

struct RemoteRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a remote.", aliases: ["rm"])
    @OptionGroup var options: VaultOptions
    @Argument(help: "Remote name.", completion: Completion.remotes) var name: String
    @Flag(help: .jsonReport) var json = false
    func run() throws {
        try options.open(unlock: false).removeRemote(name: name)
        Output.report(json: json, "Removed remote \(name).", .object(["name": .string(name)]))
    }
}

struct RemoteList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List remotes.")
    @OptionGroup var options: VaultOptions
    @Flag(help: "Print a JSON array of {name, url}.") var json = false
    func run() throws {
        let remotes = try options.open(unlock: false).remotes()
        if json { Output.json(.array(remotes.map { .object(["name": .string($0.name), "url": .string($0.url)]) })); return }
        for r in remotes { Output.line("\(r.name)\t\(r.url)") }
    }
}
