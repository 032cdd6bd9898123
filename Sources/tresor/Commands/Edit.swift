// `tresor edit`: change an entry in $EDITOR (decrypted only in memory-backed private files) or with --set/--unset.
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

struct Edit: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "edit", 
        abstract: "Edit an entry in $EDITOR, or change fields with --set/--unset (--add/--remove for one URL or tag).",
        discussion: """
            The editor works on a file in /dev/shm (or a 0700 private directory) that is removed whatever happens. vim, \
            neovim, nano, emacs, micro and helix are started without swap, backup, undo and history files \
            (docs/entries.md); another editor gets a warning. A changed password moves the old one into history.
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a field (repeatable; repeat urls=/tags= for several values).", valueName: "name=value"))
    var sets: [String] = []
    @Option(name: .customLong("set-file"), help: ArgumentHelp("Set a field to the contents of a file, e.g. ssh-key=~/.ssh/id_ed25519 (repeatable).", valueName: "name=file"),
            completion: .file())
    var setFiles: [String] = []
    @Option(name: .customLong("unset"), help: ArgumentHelp("Remove a field (repeatable).", valueName: "name")) var unsets: [String] = []
    @Option(name: .customLong("add"), help: ArgumentHelp("Add one value to a list field, keeping the others: urls=URL or tags=TAG (repeatable).", valueName: "list=value"))
    var adds: [String] = []
    @Option(name: .customLong("remove"), help: ArgumentHelp("Remove one value from a list field: urls=URL or tags=TAG (repeatable).", valueName: "list=value"))
    var removes: [String] = []
    @Flag(help: "Read a new password from standard input.") var passwordStdin = false
    @Flag(help: "Generate a new password (see generator options).") var generate = false
    @Option(help: ArgumentHelp("Set the one-time code secret (an otpauth://totp/ URI, or - to read it from standard input).", valueName: "uri"))
    var otpUri: String?
    @Flag(help: .jsonReport) var json = false
    @OptionGroup(title: "Generator options") var generator: GeneratorOptions

    func run() throws {
        let vault = try options.open(unlock: true)
        let original = try vault.read(try vault.existingPath(path))
        let entry = original
        var target: [String: FieldValue?] = [:]
        var entropy: Double?
        /// What an edit that changes nothing reports.
        func unchanged() { Output.report(json: json, "No changes.", Edit.report(path: entry.path, changed: [], entropy: nil, outcome: nil)) }

        if otpUri == "-" && passwordStdin { throw ValidationError("--password-stdin and --otp-uri - both read standard input") }
        if sets.isEmpty && setFiles.isEmpty && unsets.isEmpty && adds.isEmpty && removes.isEmpty && !passwordStdin && !generate && otpUri == nil {
            guard let edited = try runEditor(entry) else { unchanged(); return }
            for name in Set(entry.fields.keys).union(edited.keys) { target[name] = edited[name] }
        } else {
            var lists: [String: [String]] = [:]
            if sets.contains(where: { $0.hasPrefix("password=") }) {
                Output.warning("a password on the command line is visible to other users (ps, /proc) and kept in shell history\nhint: use --password-stdin")
            }
            for s in sets {
                let (name, value) = try parseAssignment(s, option: "--set")
                if Entry.listFields.contains(name) { lists[name, default: []].append(value); continue }
                guard target[name] == nil else { throw ValidationError("--set: field \"\(name)\" is set twice") }
                target[name] = .text(SecretText(value))
            }
            for (name, values) in lists { target[name] = .list(values) }
            for spec in setFiles {
                let (name, value) = try readFieldFile(spec, option: "--set-file")
                guard !Entry.listFields.contains(name) else { throw ValidationError("--set-file: \"\(name)\" is a list: use --set \(name)=…") }
                guard target[name] == nil else { throw ValidationError("--set-file: field \"\(name)\" is set twice") }
                target[name] = .text(value)
            }
            try applyListChanges(to: entry, target: &target)
            for name in unsets {
                // Removing what is not there leaves the entry as asked: a note, not a failure.
                guard entry.fields[name] != nil else {
                    Output.status("Note: \(entry.path) has no field \"\(displayable(name))\"; nothing to unset.")
                    continue
                }
                guard target[name] == nil else { throw ValidationError("--unset: field \"\(name)\" is also given to --set") }
                target[name] = .some(nil)
            }
            if let otpUri {
                guard target[TOTP.fieldName] == nil else { throw ValidationError("use --otp-uri or --set otp=, not both") }
                target[TOTP.fieldName] = .text(SecretText(try OTPURI.read(otpUri)))
            }
            if case .text(let uri)?? = target[TOTP.fieldName] { _ = try OTPURI.parse(uri.makeString()) }
            if passwordStdin { target["password"] = .text(try readPasswordFromStdin()) }
            if generate {
                let base = try entry.text("policy").map { try GeneratorPolicy(parsing: $0) }
                let policy = try generator.resolve(base: base)
                let g = try GeneratorOptions.generate(policy)
                target["password"] = .text(g.secret)
                if generator.isSpecified { target["policy"] = .text(SecretText(policy.policyString)) }
                entropy = g.entropyBits
                if !json { Output.status(String(printf: "Generated a password with %.1f bits of entropy.", g.entropyBits)) }
            }
        }
        if case .text(let p)?? = target["password"], !generate, p != entry.secret("password") { warnIfWeak(p) }
        if case .text(let p)?? = target["policy"] { _ = try GeneratorPolicy(parsing: p.makeString()) }
        // Stamped when saved, not when read: an editor may have been open for a while.
        guard let outcome = try vault.edit(original, changes: target) else { unchanged(); return }
        if !json { reportMerge(outcome) }
        Output.report(json: json, "Edited \(outcome.path ?? entry.path): \(outcome.changedFields.joined(separator: ", "))",
                      Edit.report(path: outcome.path ?? entry.path, changed: outcome.changedFields, entropy: entropy, outcome: outcome))
    }

    /// `--add` and `--remove`: one value more or less in `urls` or `tags`, starting from what `--set` gave or else
    /// from the entry. A value already there (added) or not there (removed) is a note, not an error.
    func applyListChanges(to entry: Entry, target: inout [String: FieldValue?]) throws {
        for (option, assignments, adding) in [("--add", adds, true), ("--remove", removes, false)] {
            for s in assignments {
                let (name, value) = try parseAssignment(s, option: option)
                guard Entry.listFields.contains(name) else {
                    throw ValidationError("\(option): \"\(displayable(name))\" is not a list field: \(option) works on urls and tags\nhint: use --set \(displayable(name))=VALUE or --unset \(displayable(name))")
                }
                var list: [String]
                if case .list(let l)?? = target[name] { list = l } else { list = entry.list(name) }
                if adding {
                    if list.contains(value) { Output.status("Note: \(entry.path) has \(name) \(Output.quoted(value)) already."); continue }
                    list.append(value)
                } else {
                    guard let i = list.firstIndex(of: value) else {
                        Output.status("Note: \(entry.path) has no \(name) \(Output.quoted(value)); nothing to remove.")
                        continue
                    }
                    list.remove(at: i)
                }
                target[name] = list.isEmpty ? .some(nil) : .list(list)
            }
        }
    }

    /// `--json` of edit and rotate: the entry, the fields the commit changed (names, never values), the
    /// entropy of a generated password, and whether a change made meanwhile was merged.
    static func report(path: EntryPath, changed: [String], entropy: Double?, outcome: SaveOutcome?) -> JSONValue {
        .object(["path": .string(path.string), "changedFields": .array(changed.map(JSONValue.string)),
                 "entropyBits": entropy.map(jsonEntropy) ?? .null, "merged": .bool(outcome?.merged ?? false),
                 "resolutions": .array((outcome?.resolutions ?? []).map(\.json))])
    }

    /// Runs the editor on the decrypted view until the text parses; nil if nothing changed.
    func runEditor(_ entry: Entry) throws -> [String: FieldValue]? {
        let original = try EditorText.render(entry)
        let view = try EditorView()
        defer { view.remove() }
        var shown = original.withBytes { Array($0) }
        defer { SecretBytes.wipe(&shown) }
        try FileSystem.writeAtomically(shown, to: view.file)
        let editor = ProcessEnvironment.value("VISUAL").flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessEnvironment.value("EDITOR").flatMap { $0.isEmpty ? nil : $0 } ?? "vi"
        let launch = EditorSetup.launch(editor, viewDirectory: view.directory)
        if let warning = launch.warning { Output.warning(warning) }
        while true {
            let status = try Editor.run(editor, arguments: launch.arguments, file: view.file)
            guard status == 0 else { throw CLIError("the editor \"\(editor)\" exited with status \(status); nothing was changed") }
            var bytes = (try? FileSystem.read(view.file, limit: 1 << 20)) ?? []
            defer { SecretBytes.wipe(&bytes) }
            // Unchanged means the same bytes: the view is compared and parsed where it was read, never as a String.
            if bytes == shown { return nil }
            do {
                let parsed = try bytes.withUnsafeBytes { try EditorText.parse($0) }
                if case .text(let uri)? = parsed[TOTP.fieldName] {
                    do { _ = try TOTP(uri: uri.makeString()) } catch let e as OTPError {
                        throw EditorText.ParseError(line: bytes.withUnsafeBytes { EditorText.line(of: TOTP.fieldName, in: $0) }, message: "otp: \(e.message)")
                    }
                }
                if parsed.isEmpty, !entry.fields.isEmpty, !(Prompt.interactive && Prompt.confirm("The edit removes every field. Save it?")) {
                    throw CLIError("the edited entry is empty; nothing was changed")
                }
                return parsed
            } catch let e as EditorText.ParseError {
                let message = "line \(e.line): \(e.message)"
                guard Prompt.interactive, Prompt.confirm("\(message). Edit again?", defaultYes: true) else {
                    throw CLIError("invalid edit of \"\(entry.path)\": \(message); nothing was changed")
                }
            }
        }
    }
}

/// Tells the person that the entry changed while they were editing and how the two versions were merged.
func reportMerge(_ outcome: SaveOutcome) {
    guard outcome.merged else { return }
    Output.status("The entry was changed by another command meanwhile: both changes were merged field by field.")
    for r in outcome.resolutions { Output.status("  resolved: " + r.description) }
}

/// Runs `$VISUAL`/`$EDITOR` so that it gets the terminal.
enum Editor {
    /// Runs `editor arguments… file` through the shell (so the variable may hold arguments, as in `code --wait`;
    /// `arguments` are tresor's own, quoted for the shell: EditorSetup)
    /// in tresor's own process group: when tresor is the terminal's foreground job, so is the editor,
    /// and Ctrl-C, Ctrl-Z and the keys reach it as they would without tresor. Meanwhile tresor catches
    /// the signals a terminal sends (Ctrl-C, Ctrl-\\, hang-up) and SIGTERM with a handler that does
    /// nothing, so it lives on to remove the view; the editor gets them with their default action.
    /// The terminal's settings are put back afterwards. Returns the exit status (128 + signal if killed).
    static func run(_ editor: String, arguments: [String] = [], file: String) throws -> Int32 {
        let signals = [SIGINT, SIGQUIT, SIGHUP, SIGTERM]
        let previous = signals.map { signal($0, { _ in }) }
        defer { for (s, handler) in zip(signals, previous) { signal(s, handler) } }
        // Job control: when the editor stops itself (Ctrl-Z in vi signals the whole group), tresor must
        // stop with it so the shell gets the terminal back, even if it was started with these ignored.
        let jobSignals = [SIGTSTP, SIGTTIN, SIGTTOU]
        let previousJob = jobSignals.map { signal($0, SIG_DFL) }
        defer { for (s, handler) in zip(jobSignals, previousJob) { signal(s, handler) } }
        let terminal = TerminalState.save()
        defer { terminal?.restore() }
        let pid = try Spawn.start("/bin/sh", ["-c", ([editor] + arguments + ["\"$1\""]).joined(separator: " "), "tresor-edit", file])
        return Spawn.wait(pid)
    }
}
