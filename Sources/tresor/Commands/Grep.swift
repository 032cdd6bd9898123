// `tresor grep`: search the decrypted contents of every entry, in process.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Grep: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "grep", abstract: "Search every field of every entry (decrypts in process; no per-file subprocess).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Text to look for, ignoring case.") var text: String
    @Option(help: "Only entries below this folder.", completion: Completion.folders) var prefix: String?
    @Flag(help: "Print a JSON array of {path, matches: [{field, line}]}.") var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        let needle = text.lowercased()
        var results: [JSONValue] = []
        var failed = false
        var any = false
        var locked = 0
        let progress = ProgressLine("Searching")
        // The local search cache decrypts only what changed since the last search (Spec/FORMAT.md §10).
        let all = try vault.searchCandidates(lowercasedNeedle: needle, prefix: prefix, progress: progress.report)
        progress.finish()
        for candidate in all.candidates {
            let path = candidate.path
            var matches: [(String, String)] = []
            switch candidate.entry {
            case nil: break  // its payload cannot contain the text: only the path may match
            case .failure(.noKeyFor)?: locked += 1; continue  // under a key this member does not hold: skipped, counted
            case .failure(let e)?: Output.warning(e.message); failed = true; continue
            case .success(let entry)?:
                for name in entry.fields.keys.sorted() {
                    // A text value that cannot match is skipped in its buffer, without a String copy.
                    if case .text(let t) = entry.fields[name]!.value, !TextSearch.mayContain(t, lowercasedNeedle: needle),
                       !TextSearch.contains(name, lowercasedNeedle: needle) { continue }
                    for line in Grep.lines(entry.fields[name]!.value.displayText) where TextSearch.contains(line, lowercasedNeedle: needle) {
                        matches.append((name, line))
                    }
                    if TextSearch.contains(name, lowercasedNeedle: needle) && !matches.contains(where: { $0.0 == name }) {
                        matches.append((name, entry.fields[name]!.value.displayText.split(separator: "\n").first.map(String.init) ?? ""))
                    }
                }
            }
            if matches.isEmpty && TextSearch.contains(path.string, lowercasedNeedle: needle) { matches.append(("path", path.string)) }
            guard !matches.isEmpty else { continue }
            any = true
            if json {
                results.append(.object(["path": .string(path.string),
                                        "matches": .array(matches.map { .object(["field": .string($0.0), "line": .string($0.1)]) })]))
            } else {
                for (f, l) in matches { Output.line("\(path): \(f): \(l)") }
            }
        }
        if json { Output.json(.array(results)) }
        if locked > 0 { Output.status("skipped \(locked) entr\(locked == 1 ? "y" : "ies") sealed under keys you do not hold") }
        if failed { throw ExitCode(ExitStatus.error) }
        if !any { throw ExitCode(ExitStatus.noMatch) }
    }

    /// The lines of `text` as `split(separator: "\n")` gives them. Without a CR (which makes "\r\n" one
    /// Character) that is a split of the bytes, much cheaper than walking Characters.
    static func lines(_ text: String) -> [String] {
        guard !text.utf8.contains(0x0D) else { return text.split(separator: "\n").map(String.init) }
        let bytes = Array(text.utf8)
        var lines: [String] = [], start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
            if i > start { lines.append(String(decoding: bytes[start..<i], as: UTF8.self)) }
            start = i + 1
        }
        return lines
    }
}
