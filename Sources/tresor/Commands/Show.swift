// `tresor show`: print an entry, one field, or the entry as JSON.
import ArgumentParser
import Foundation
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
        let vault = try options.open(unlock: true)
        let entry = try vault.read(try vault.existingPath(path))
        if clip {
            try Clip.copyField(field ?? "password", of: entry, with: clipOptions, json: json)
        } else if let field {
            guard let f = entry.fields[field] else {
                throw CLIError("entry \"\(entry.path)\" has no field \"\(field)\"" +
                               (entry.fields.isEmpty ? "" : "\nhint: it has " + entry.fields.keys.sorted().joined(separator: ", ")), code: ExitStatus.notFound)
            }
            if json {
                let value: JSONValue
                switch f.value {
                case .text(let s): value = .string(s)
                case .list(let l): value = .array(l.map(JSONValue.string))
                }
                Output.json(.object(["path": .string(entry.path.string), "field": .string(field), "value": value]))
            } else {
                Output.line(f.value.displayText)
            }
        } else if json {
            Output.json(TresorJSON.object(entry))
        } else {
            Output.line(EntryText.render(entry))
        }
    }
}

/// The human form of an entry: `name: value` lines, multi-line values indented.
enum EntryText {
    static func render(_ e: Entry) -> String {
        var lines: [String] = []
        func add(_ name: String, _ value: String) {
            let parts = value.split(separator: "\n", omittingEmptySubsequences: false)
            if parts.count > 1 { lines.append("\(name):"); lines += parts.map { "  " + $0 } } else { lines.append("\(name): \(value)") }
        }
        if let p = e.text("password") { add("password", p) }
        if let u = e.text("username") { add("username", u) }
        for u in e.list("urls") { add("url", u) }
        for n in e.customFieldNames { add(n, e.text(n) ?? "") }
        if !e.list("tags").isEmpty { add("tags", e.list("tags").joined(separator: ", ")) }
        if let n = e.text("notes") { add("notes", n) }
        lines.append("modified: \(e.modified)")
        if !e.history.isEmpty { lines.append("history: \(e.history.count) earlier value\(e.history.count == 1 ? "" : "s") (--json shows them)") }
        return lines.joined(separator: "\n")
    }
}
