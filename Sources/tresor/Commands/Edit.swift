// `tresor edit`: change an entry in $EDITOR (decrypted only in memory-backed private files) or with --set/--unset.
import ArgumentParser
import Foundation
import Tresor
import TresorCore

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit an entry in $EDITOR, or change fields with --set/--unset.",
        discussion: "The editor works on a file in /dev/shm (or a 0700 private directory) that is removed whatever happens. A changed password moves the old one into history.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.") var path: String
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a field (repeatable; repeat urls=/tags= for several values).", valueName: "name=value"))
    var sets: [String] = []
    @Option(name: .customLong("unset"), help: ArgumentHelp("Remove a field (repeatable).", valueName: "name")) var unsets: [String] = []
    @Flag(help: "Read a new password from standard input.") var passwordStdin = false
    @Flag(help: "Generate a new password (see generator options).") var generate = false
    @OptionGroup(title: "Generator options") var generator: GeneratorOptions

    func run() throws {
        let vault = try options.open(unlock: true)
        let original = try vault.read(try vault.existingPath(path))
        var entry = original
        let origin = vault.deviceID
        var target: [String: FieldValue?] = [:]

        if sets.isEmpty && unsets.isEmpty && !passwordStdin && !generate {
            guard let edited = try runEditor(entry) else { Output.status("No changes."); return }
            for name in Set(entry.fields.keys).union(edited.keys) { target[name] = edited[name] }
        } else {
            var lists: [String: [String]] = [:]
            if sets.contains(where: { $0.hasPrefix("password=") }) {
                Output.warning("a password on the command line is visible to other users (ps, /proc) and kept in shell history\nhint: use --password-stdin")
            }
            for s in sets {
                let (name, value) = try parseAssignment(s)
                if Entry.listFields.contains(name) { lists[name, default: []].append(value); continue }
                guard target[name] == nil else { throw ValidationError("field \"\(name)\" is set twice") }
                target[name] = .text(value)
            }
            for (name, values) in lists { target[name] = .list(values) }
            for name in unsets {
                guard entry.fields[name] != nil else { throw CLIError("entry \"\(entry.path)\" has no field \"\(name)\"", code: ExitStatus.notFound) }
                target[name] = .some(nil)
            }
            if passwordStdin { target["password"] = .text(try readPasswordFromStdin()) }
            if generate {
                let base = try entry.text("policy").map { try GeneratorPolicy(parsing: $0) }
                let policy = try generator.resolve(base: base)
                let g = try GeneratorOptions.generate(policy)
                target["password"] = .text(g.value)
                if generator.isSpecified { target["policy"] = .text(policy.policyString) }
                Output.status(String(format: "Generated a password with %.1f bits of entropy.", g.entropyBits))
            }
        }
        if case .text(let p)?? = target["password"], !generate, p != entry.text("password") { warnIfWeak(p) }
        if case .text(let p)?? = target["policy"] { _ = try GeneratorPolicy(parsing: p) }
        // Stamped when saved, not when read: an editor may have been open for a while.
        let now = Timestamp.now()
        var changed: [String] = []
        for (name, value) in target.sorted(by: { $0.key < $1.key }) where try entry.set(name, value, at: now, origin: origin) {
            changed.append(name)
        }
        guard !changed.isEmpty else { Output.status("No changes."); return }
        let outcome = try vault.save(entry, basedOn: original)
        reportMerge(outcome)
        Output.status("Edited \(outcome.path ?? entry.path): \(outcome.changedFields.joined(separator: ", "))")
    }

    /// Runs the editor on a private temporary file until the text parses; nil if nothing changed.
    func runEditor(_ entry: Entry) throws -> [String: FieldValue]? {
        let dir = try PrivateTemp.makeDirectory()
        let file = dir + "/entry.txt"
        defer { PrivateTemp.remove(dir: dir, file: file) }
        let original = try EditorText.render(entry)
        try FileSystem.writeAtomically(Array(original.utf8), to: file)
        let editor = ProcessInfo.processInfo.environment["VISUAL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["EDITOR"].flatMap { $0.isEmpty ? nil : $0 } ?? "vi"
        while true {
            let status = PrivateTemp.runEditor(editor, file: file)
            guard status == 0 else { throw CLIError("the editor \"\(editor)\" exited with status \(status); nothing was changed") }
            var bytes = (try? FileSystem.read(file, limit: 1 << 20)) ?? []
            defer { Sodium.wipe(&bytes) }
            let text = String(decoding: bytes, as: UTF8.self)
            if text == original { return nil }
            do {
                let parsed = try EditorText.parse(text)
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

/// Private temporary files for decrypted views: in /dev/shm (memory) when possible, always in a 0700 directory.
enum PrivateTemp {
    static func makeDirectory() throws -> String {
        let env = ProcessInfo.processInfo.environment
        var bases = ["/dev/shm"]
        if let r = env["XDG_RUNTIME_DIR"], !r.isEmpty { bases.append(r) }
        for base in bases where FileSystem.kind(base) == .directory {
            removeStale(in: base)
            var template = Array((base + "/tresor-edit-XXXXXX").utf8CString)
            if mkdtemp(&template) != nil { return String(cString: template) }
        }
        throw CLIError("no private place for the decrypted view: /dev/shm and $XDG_RUNTIME_DIR are unavailable\nhint: use 'tresor edit PATH --set NAME=VALUE'")
    }

    /// Removes views an earlier edit could not clean up (killed with SIGKILL, power loss on a
    /// persistent $XDG_RUNTIME_DIR): this user's `tresor-edit-*` directories older than an hour.
    static func removeStale(in base: String) {
        for name in FileSystem.list(base) where name.hasPrefix("tresor-edit-") {
            let dir = base + "/" + name
            var st = stat()
            guard lstat(dir, &st) == 0, st.st_uid == getuid(), st.st_mode & S_IFMT == S_IFDIR,
                  time(nil) - st.st_mtim.tv_sec > 3600 else { continue }
            remove(dir: dir, file: dir + "/entry.txt")
        }
    }

    /// Overwrites and removes the file, then the directory (and anything an editor left in it).
    static func remove(dir: String, file: String) {
        if let size = try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int, size > 0,
           let h = FileHandle(forWritingAtPath: file) {
            try? h.write(contentsOf: Data(count: size))
            try? h.synchronize()
            try? h.close()
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Runs `$EDITOR file` through the shell (so EDITOR may hold arguments). Meanwhile tresor catches
    /// the signals a terminal sends (Ctrl-C, Ctrl-\\, hang-up) and SIGTERM with a handler that does
    /// nothing, so it lives on to remove the decrypted view. A handler, not SIG_IGN: caught signals
    /// are reset to their default in the editor when it starts, ignored ones would stay ignored.
    static func runEditor(_ editor: String, file: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", editor + " \"$1\"", "tresor-edit", file]
        let signals = [SIGINT, SIGQUIT, SIGHUP, SIGTERM]
        let previous = signals.map { signal($0, { _ in }) }
        defer { for (s, handler) in zip(signals, previous) { signal(s, handler) } }
        do { try p.run() } catch { return 127 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
