// `tresor import`: bring entries from another password manager into the vault in one commit.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Import: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "import", 
        abstract: "Import entries from another password manager (one commit).",
        discussion: """
            Formats: pass, gopass (a store directory, decrypted with your gpg), kdbx (KeePass/KeePassXC database),
            keepass-xml, keepassxc-csv, bitwarden (unencrypted JSON), 1pux, 1password-csv, chrome, firefox,
            json (a 'tresor export json' file). Existing entries are never changed without --force.
            Names are made valid entry paths by percent-encoding what is not allowed (docs/import-export.md).
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "The format of the source (see below).") var format: String
    @Argument(help: "The store directory or export file.", completion: .file()) var source: String
    @Option(help: ArgumentHelp("Import below this folder.", valueName: "folder")) var prefix: String?
    @Flag(help: "Show what would be imported; change nothing.") var dryRun = false
    @Flag(name: [.short, .long], help: "Give existing entries the imported values (old values go to their history).") var force = false
    @Flag(help: "Print the summary as JSON.") var json = false
    @Option(help: ArgumentHelp("A KeePass key file.", valueName: "file")) var keyFile: String?
    @Option(help: ArgumentHelp("Read the KeePass database password from the first line of this file.", valueName: "file"))
    var sourcePassphraseFile: String?

    func validate() throws {
        guard ImportFormat(name: format) != nil else {
            throw ValidationError("<format>: unknown format \"\(displayable(format))\"; use one of: " + ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        let fmt = ImportFormat(name: format)!
        let prefixComponents = try prefix.map { try Vault.parsePath($0.hasSuffix("/") ? String($0.dropLast()) : $0).components } ?? []
        let vault = try options.open(unlock: true)
        if !dryRun { try vault.checkWritable() }

        var password: SecretBytes?
        if fmt.needsPassword {
            if let f = sourcePassphraseFile { password = try VaultOptions.readPassphraseFile(f) }
            else if Prompt.interactive { password = try Prompt.secret("Password for \"\(printable(source))\" (empty if none): ") }
            else if keyFile == nil { throw CLIError("no password for \"\(printable(source))\"\nhint: use --source-passphrase-file FILE or --key-file FILE", code: ExitStatus.auth) }
            if password?.count == 0 { password = nil }
        }
        let progress = ProgressLine(dryRun ? "Reading" : "Importing")
        let document = try fmt.read(source, password: password, keyFile: keyFile, progress: { done, total in progress.show(done, total) })
        let target = ImportTarget(entry: { p in vault.contains(p) ? try vault.read(p) : nil },
                                  caseCollision: { vault.caseCollision(for: $0) }, origin: vault.deviceID)
        let plan = try ImportPlan.make(document, prefix: prefixComponents, force: force, target: target,
                                       progress: { progress.show($0, document.entries.count, label: "Checking") })
        progress.finish()
        if !dryRun, !plan.additions.isEmpty || !plan.updates.isEmpty {
            var message = "Import \(plan.additions.count) entr\(plan.additions.count == 1 ? "y" : "ies") from \(fmt.rawValue)"
            if !plan.updates.isEmpty { message += ", update \(plan.updates.count)" }
            try vault.importEntries(adding: plan.additions, updating: plan.updates, originals: plan.originals, message: message)
        }
        if json { Output.json(summaryJSON(plan, format: fmt)) } else { printSummary(plan, format: fmt) }
        if plan.outcomes.contains(where: { $0.skipReason?.isFailure == true }) { throw ExitCode(ExitStatus.error) }
    }

    func printSummary(_ plan: ImportPlan, format: ImportFormat) {
        for o in plan.outcomes {
            let name = printable(o.path ?? o.source)
            switch o.status {
            case .skipped: Output.line("skipped  \(printable(o.source)): \(o.skipReason?.text ?? "")")
            case .updated: Output.line("updated  \(name): \(o.changedFields.map(printable).joined(separator: ", "))")
            case .added: if o.renames.isEmpty && o.omitted.isEmpty { Output.line("added    \(name)") }
            }
            if o.status != .skipped {
                for r in o.renames { Output.line("renamed  \(name) (\(r.text))") }
                if !o.omitted.isEmpty { Output.line("partly   \(name): not imported: \(o.omitted.map(printable).joined(separator: ", "))") }
            }
        }
        let verb = dryRun ? "Would import" : "Imported"
        Output.line("\(verb) \(plan.addedCount) new and \(plan.updatedCount) updated entr\(plan.addedCount + plan.updatedCount == 1 ? "y" : "ies") from \(format.rawValue); "
                    + "\(plan.renamedCount) renamed, \(plan.skippedCount) skipped.")
    }

    func summaryJSON(_ plan: ImportPlan, format: ImportFormat) -> JSONValue {
        .object([
            "format": .string(format.rawValue), "dryRun": .bool(dryRun),
            "added": .integer(plan.addedCount), "updated": .integer(plan.updatedCount),
            "renamed": .integer(plan.renamedCount), "skipped": .integer(plan.skippedCount),
            "items": .array(plan.outcomes.map { o in
                var item: [String: JSONValue] = ["source": .string(o.source), "status": .string(o.status.rawValue),
                                                 "path": o.path.map(JSONValue.string) ?? .null, "renames": .array(o.renames.map(\.json))]
                if let r = o.skipReason { item["reason"] = .string(r.kind); item["message"] = .string(r.text) }
                if !o.changedFields.isEmpty { item["changedFields"] = .array(o.changedFields.map(JSONValue.string)) }
                if !o.omitted.isEmpty { item["omitted"] = .array(o.omitted.map(JSONValue.string)) }
                return .object(item)
            }),
        ])
    }
}

