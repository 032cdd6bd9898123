// `tresor show`: print an entry, one field, or the entry as JSON.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Decrypt and print an entry.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path, e.g. Email/gmail.", completion: Completion.entries) var path: String
    @Option(help: ArgumentHelp("Print only this field's value (password, username, urls, notes, tags or a custom field).", valueName: "name"))
    var field: String?
    @Flag(help: "Print the entry as a JSON object (with --field: {path, field, value}; with --clip: what was copied).") var json = false
    @Flag(name: [.customShort("c"), .customLong("clip")], help: "Copy the field (default: password) to the clipboard instead of printing it; see 'tresor clip'.")
    var clip = false
    @OptionGroup var clipOptions: ClipOptions

    func run() throws {
        try Show.run(path: path, field: field, json: json, clip: clip ? clipOptions : nil, options: options)
    }

    /// The command with its words read (by ArgumentParser or by `PlainCommandLine`).
    static func run(path: String, field: String?, json: Bool, clip: ClipOptions?, options: some VaultChoice) throws {
        let vault = try options.open(unlock: true)
        let entry = try vault.read(try vault.existingPath(path))
        if let clip {
            try Clip.copyField(field ?? "password", of: entry, with: clip, json: json)
        } else if let field {
            guard let f = entry.fields[field] else {
                throw CLIError("entry \"\(entry.path)\" has no field \"\(field)\"" +
                               (entry.fields.isEmpty ? "" : "\nhint: it has " + entry.fields.keys.sorted().joined(separator: ", ")), code: ExitStatus.notFound)
            }
            if json {
                let value: JSONValue
                switch f.value {
                case .text(let s): value = .secret(s)
                case .list(let l): value = .array(l.map(JSONValue.string))
                }
                Output.json(.object(["path": .string(entry.path.string), "field": .string(field), "value": value]))
            } else {
                var out = SecretByteBuilder()
                out.append(f.value.secretText)
                out.append(0x0A)
                try Output.write(secret: out.finish())
            }
        } else if json {
            Output.json(TresorJSON.object(entry))
        } else {
            try Output.write(secret: EntryText.render(entry))
        }
    }
}

/// The human form of an entry: `name: value` lines, multi-line values indented, ending in a newline. Built in
/// zeroing memory: the values are copied from their buffers, never into a `String`.
enum EntryText {
    static func render(_ e: Entry) -> SecretBytes {
        var out = SecretByteBuilder()
        func add(_ name: String, _ value: SecretText) {
            if value.withUTF8({ $0.contains(0x0A) }) {
                out.append("\(name):\n  ")
                out.append(value, indentingLinesBy: "  ")
            } else {
                out.append("\(name): ")
                out.append(value)
            }
            out.append(0x0A)
        }
        // URLs and tags are not secret (Strings); they go through the same layout.
        func add(_ name: String, _ value: String) { add(name, SecretText(value)) }
        if let p = e.secret("password") { add("password", p) }
        if let u = e.secret("username") { add("username", u) }
        for u in e.list("urls") { add("url", u) }
        for n in e.customFieldNames { add(n, e.secret(n) ?? "") }
        if !e.list("tags").isEmpty { add("tags", e.list("tags").joined(separator: ", ")) }
        if let n = e.secret("notes") { add("notes", n) }
        out.append("modified: \(e.modified)\n")
        if !e.history.isEmpty { out.append("history: \(e.history.count) earlier value\(e.history.count == 1 ? "" : "s") (--json shows them)\n") }
        return out.finish()
    }
}
