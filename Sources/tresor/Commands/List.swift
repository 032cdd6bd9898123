// `tresor ls` and `tresor find`: entry names, which need no passphrase.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List entries (a tree at a terminal, one path per line otherwise).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Only entries below this folder.", completion: Completion.folders) var prefix: String?
    @Flag(help: "Print a JSON array of objects with \"path\".") var json = false
    @Flag(help: "One path per line even at a terminal.") var flat = false

    func run() throws {
        try List.run(prefix: prefix, json: json, flat: flat, options: options)
    }

    /// The command with its words read (by ArgumentParser or by `PlainCommandLine`).
    static func run(prefix: String?, json: Bool, flat: Bool, options: some VaultChoice) throws {
        let vault = try options.open(unlock: false)
        let listing = vault.listing(prefix: prefix)
        for p in listing.problems { Output.warning("skipping \(Output.quoted(p.file)): \(p.message)") }
        if let prefix, listing.count == 0, !prefix.isEmpty {
            throw VaultError.entryNotFound(path: prefix, suggestions: vault.suggestions(for: prefix))
        }
        if json {
            Output.json(.array(listing.paths.map { .object(["path": .string($0.string)]) }))
        } else if Output.stdoutIsTerminal && !flat {
            Output.line(Tree.render(listing.paths.map(\.components)))
        } else {
            // The listing's own bytes, a path and a line feed each: no string per path.
            Output.lines(bytes: listing.bytes)
        }
    }
}

/// Draws paths as a tree with box characters. Entries and folders beside each other are in name order, an entry just
/// before a folder of the same name (`Email` beside `Email/`); at the top, folders end in "/" and nothing is boxed.
enum Tree {
    static func render(_ paths: [[String]]) -> String {
        var lines: [String] = []
        func draw(_ items: [[String]], indent: String) {
            var groups: [(String, [[String]])] = []
            var leaves: [String] = []
            for p in items {
                if p.count == 1 { leaves.append(p[0]); continue }
                if let i = groups.firstIndex(where: { $0.0 == p[0] }) { groups[i].1.append(Array(p.dropFirst())) }
                else { groups.append((p[0], [Array(p.dropFirst())])) }
            }
            let rows: [(String, [[String]]?)] = (groups.map { ($0.0, $0.1) } + leaves.map { ($0, nil) }).sorted { a, b in
                a.0 == b.0 ? a.1 == nil && b.1 != nil : a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
            }
            for (i, row) in rows.enumerated() {
                let last = i == rows.count - 1
                if indent.isEmpty { lines.append(row.0 + (row.1 != nil ? "/" : "")) }
                else { lines.append(indent + (last ? "└── " : "├── ") + row.0 + (row.1 != nil ? "/" : "")) }
                if let children = row.1 {
                    draw(children, indent: indent.isEmpty ? " " : indent + (last ? "    " : "│   "))
                }
            }
        }
        draw(paths, indent: "")
        return lines.joined(separator: "\n")
    }
}

struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "find", abstract: "Print entry paths containing TEXT (names only; no passphrase needed).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Text to look for in entry paths, ignoring case.") var text: String
    @Flag(help: "Print a JSON array of objects with \"path\".") var json = false

    func run() throws {
        let vault = try options.open(unlock: false)
        let hits = vault.find(text)
        if json { Output.json(.array(hits.map { .object(["path": .string($0.string)]) })) }
        else { Output.lines(hits.map(\.string)) }
        if hits.isEmpty { throw ExitCode(ExitStatus.noMatch) }
    }
}
