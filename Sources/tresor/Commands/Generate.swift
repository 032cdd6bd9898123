// `tresor generate` and `tresor rotate`: passwords and passphrases with exact entropy, and strength checks.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", 
        abstract: "Print a generated password or passphrase, or check a password's strength.",
        discussion: "Every output is drawn uniformly from the strings the policy allows; --json reports the exact entropy.")

    @OptionGroup(title: "Generator options") var generator: GeneratorOptions
    @Option(help: "How many to print (default 1; with --json, an array).") var count: Int?
    @Flag(help: "Print JSON: {\"password\", \"entropyBits\"} (an array with --count).") var json = false
    @Flag(help: "Read a password from standard input and print its strength estimate instead.") var check = false

    func run() throws {
        if check { return try runCheck() }
        let n = count ?? 1
        guard (1...10_000).contains(n) else { throw ValidationError("--count must be between 1 and 10000") }
        let policy = try generator.resolve()
        let secrets = try (0..<n).map { _ in try GeneratorOptions.generate(policy) }
        if json {
            let objects = secrets.map { JSONValue.object(["password": .secret($0.secret), "entropyBits": jsonEntropy($0.entropyBits)]) }
            Output.json(count == nil ? objects[0] : .array(objects))
        } else {
            for s in secrets {
                var line = SecretByteBuilder(capacity: s.secret.count + 1)
                line.append(s.secret)
                line.append(0x0A)
                try Output.write(secret: line.finish())
            }
            if Output.stdoutIsTerminal { Output.status(String(printf: "%.1f bits of entropy each (", secrets[0].entropyBits) + policy.policyString + ")") }
        }
    }

    func runCheck() throws {
        let password = try readPasswordFromStdin()
        let e = try StrengthEstimator.estimateOnce(password)
        if json {
            Output.json(.object(["score": .integer(e.score), "guesses": .number(String(printf: "%.0f", e.guesses)),
                                 "guessesLog10": .number(String(printf: "%.2f", e.guessesLog10)),
                                 "warnings": .array(e.warnings.map(JSONValue.string)),
                                 "weaknesses": .array(e.weaknesses.map { .string($0.rawValue) })]))
        } else {
            Output.line(String(printf: "score %d/4, about 10^%.1f guesses", e.score, e.guessesLog10))
            e.warnings.forEach { Output.line("- " + $0) }
        }
    }
}

struct Rotate: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Replace an entry's password with a new one under its policy (the old one goes to history).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Flag(help: .jsonReport) var json = false
    @OptionGroup(title: "Generator options (also stored as the entry's policy)") var generator: GeneratorOptions

    func run() throws {
        let vault = try options.open(unlock: true)
        let original = try vault.read(try vault.existingPath(path))
        let entry = original
        let stored: GeneratorPolicy?
        do { stored = try entry.text("policy").map { try GeneratorPolicy(parsing: $0) } }
        catch { throw CLIError("entry \"\(entry.path)\" has a policy that does not parse: \(ErrorReport.of(error)?.message ?? "\(error)")\nhint: tresor edit \(entry.path) --set policy=...") }
        let policy = try generator.resolve(base: stored)
        let g = try GeneratorOptions.generate(policy)
        var changes: [String: FieldValue?] = ["password": .text(g.secret)]
        if generator.isSpecified { changes["policy"] = .text(SecretText(policy.policyString)) }
        let outcome = try vault.edit(original, changes: changes, message: "Rotate password of \(entry.path)")
        if !json, let outcome { reportMerge(outcome) }
        Output.report(json: json, "Rotated the password of " + entry.path.string + String(printf: " (%.1f bits; the old one is in the entry's history).", g.entropyBits),
                      Edit.report(path: outcome?.path ?? entry.path, changed: outcome?.changedFields ?? [], entropy: g.entropyBits, outcome: outcome))
    }
}
