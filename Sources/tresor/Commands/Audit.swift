// `tresor audit`: which passwords to change — weak, reused, old, breached (offline), missing — and urls without https.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

extension Audit {
    /// `--removed NAME`: what that member could read and may have copied, still current. Exit 6 if any.
    func auditRemoved(_ name: String, _ vault: Vault) throws {
        if vault.header.member(named: name) != nil {
            throw CLIError("\(Output.quoted(name)) is still a member\nhint: 'tresor member rm \(Output.escaped(name))' removes them and rekeys")
        }
        let exposure = try vault.exposure(ofRemoved: name)
        if json {
            Output.json(.object(["member": .string(name), "removedIn": .string(exposure.removal.id),
                                 "entries": .array(exposure.entries.map { .object(["path": .string($0.path.string), "fields": .array($0.fields.map(JSONValue.string))]) })]))
        } else {
            for e in exposure.entries { Output.line("\(Output.escaped(e.path.string)): \(e.fields.map(Output.escaped).joined(separator: ", "))") }
            Output.status(exposure.entries.isEmpty
                ? "Nothing \(Output.quoted(name)) could read is still current."
                : "\(exposure.entries.count) entr\(exposure.entries.count == 1 ? "y" : "ies") hold values \(Output.quoted(name)) could read before the removal in \(exposure.removal.id.prefix(12)).\nhint: change them where they are used, then 'tresor rotate PATH' (or edit) here")
        }
        if !exposure.entries.isEmpty { throw ExitCode(ExitStatus.problems) }
    }
}

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", 
        abstract: "Check every entry's password: weak, reused, old, breached (offline), missing; and urls without https.",
        discussion: """
            Nothing secret is printed: reuse is found by a keyed hash under a key drawn for this run only, and
            weaknesses are named by kind. Exit status: 0 nothing found, 6 findings, 2 an error (including an
            entry that could not be read).
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "Only entries below this folder.", completion: Completion.folders) var prefix: String?
    @Option(help: ArgumentHelp("A password unchanged for this many days is old (default 365).", valueName: "days")) var maxAge: Int = 365
    @Option(help: ArgumentHelp("Have I Been Pwned's Pwned Passwords (SHA-1): the file ordered by hash, or a folder of its range files. Never uses the network.", valueName: "path"))
    var hibp: String?
    @Flag(help: "Print JSON: {entries: [{path, findings}], totals, errors} (see docs/generator-and-audit.md).") var json = false
    @Option(help: ArgumentHelp("Instead: the entries a removed member could read whose values are still current (to rotate).", valueName: "name"))
    var removed: String?

    func validate() throws {
        guard maxAge >= 0 else { throw ValidationError("--max-age must be 0 or more days") }
    }

    func run() throws {
        let vault = try options.open(unlock: true)
        if let removed { return try auditRemoved(removed, vault) }
        let pwned = try hibp.map { try PwnedPasswords(path: $0) }
        let report = try vault.audit(prefix: prefix, options: AuditOptions(maxAgeDays: maxAge, pwnedPasswords: pwned))
        // Entries under keys this member does not hold (Spec/FORMAT.md §3.12.4) are skipped and counted, not errors.
        let skipped = report.failures.filter { if case .noKeyFor = $0.error { return true }; return false }.count
        let failures = report.failures.filter { if case .noKeyFor = $0.error { return false }; return true }
        for failure in failures { Output.warning(failure.error.message) }
        let totals = report.totals
        if json {
            Output.json(.object([
                "entries": .array(report.flagged.map { entry in
                    .object(["path": .string(entry.path.string), "findings": .array(entry.findings.map(Audit.json))])
                }),
                "totals": .object(["audited": .integer(report.entries.count), "flagged": .integer(report.flagged.count),
                                   "unreadable": .integer(failures.count)]
                                  .merging(skipped == 0 ? [:] : ["skipped": .integer(skipped)]) { a, _ in a }
                                  .merging(Audit.reasons.map { ($0, JSONValue.integer(totals[$0] ?? 0)) }) { a, _ in a }),
                "errors": .array(failures.map { failure -> JSONValue in
                    .object(["path": .string(failure.path.string), "message": .string(failure.error.message)])
                }),
            ]))
        } else {
            for entry in report.flagged {
                for finding in entry.findings { Output.line("\(entry.path): \(Audit.text(finding))") }
            }
            let counts = Audit.reasons.compactMap { reason in totals[reason].map { "\($0) \(Audit.label[reason]!)" } }
            Output.line("audited \(report.entries.count) entr\(report.entries.count == 1 ? "y" : "ies"): "
                        + (report.flagged.isEmpty ? "nothing found" : "\(report.flagged.count) with findings (" + counts.joined(separator: ", ") + ")")
                        + (failures.isEmpty ? "" : "; \(failures.count) could not be read")
                        + (skipped == 0 ? "" : "; \(skipped) skipped (sealed under keys you do not hold)"))
        }
        if !failures.isEmpty { throw ExitCode(ExitStatus.error) }
        if !report.flagged.isEmpty { throw ExitCode(ExitStatus.problems) }
    }

    /// The reasons in the order totals are shown, and their words in the summary line.
    static let reasons = ["weak", "reused", "old", "breached", "no-password", "insecure-url"]
    static let label = ["weak": "weak", "reused": "reused", "old": "old", "breached": "breached",
                        "no-password": "without password", "insecure-url": "insecure url"]

    static func text(_ f: AuditFinding) -> String {
        switch f {
        case let .weak(score, log10, weaknesses):
            return String(printf: "weak: score %d/4, about 10^%.0f guesses", score, log10)
                + (weaknesses.isEmpty ? "" : " (" + weaknesses.map(\.description).joined(separator: "; ") + ")")
        case .reused(let others): return "reused: same password as " + others.map(\.string).joined(separator: ", ")
        case let .old(days, modified): return "old: password unchanged for \(days) days (since \(modified.description.prefix(10)))"
        case .breached(let count): return "breached: seen \(count) time\(count == 1 ? "" : "s") in Pwned Passwords"
        case .noPassword: return "no password"
        case let .insecureURL(scheme, host):
            return "insecure url: " + (scheme.map { "\($0)://" } ?? "no scheme") + (host.map { " (\(Audit.escaped($0)))" } ?? "")
        }
    }

    static func json(_ f: AuditFinding) -> JSONValue {
        var o: [String: JSONValue] = ["reason": .string(f.reason)]
        switch f {
        case let .weak(score, log10, weaknesses):
            o["score"] = .integer(score)
            o["guessesLog10"] = .number(String(printf: "%.2f", log10))
            o["weaknesses"] = .array(weaknesses.map { .string($0.rawValue) })
        case .reused(let others): o["others"] = .array(others.map { .string($0.string) })
        case let .old(days, modified): o["days"] = .integer(days); o["modified"] = .string(modified.description)
        case .breached(let count): o["count"] = .integer(count)
        case .noPassword: break
        case let .insecureURL(scheme, host):
            o["scheme"] = scheme.map(JSONValue.string) ?? .null
            o["host"] = host.map(JSONValue.string) ?? .null
        }
        return .object(o)
    }

    /// A host from an entry, with control characters escaped for the terminal.
    static func escaped(_ s: String) -> String {
        s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? String(printf: "\\x%02x", $0.value) : String($0) }.joined()
    }
}
