// `tresor read` and `tresor inject`: the value of a secret reference, and a template with its references filled in.
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

/// Resolving the references one command needs: the vault is opened (and unlocked) only when there is one, every
/// reference is checked before anything is used, and each failure names its reference.
enum References {
    /// The value of each reference, in order. - Throws: `CLIError` naming every reference that could not be
    /// resolved (exit 4 when each is a missing entry or field), or the error of opening the vault.
    static func resolve(_ refs: [SecretReference], options: VaultOptions) throws -> [SecretText] {
        guard !refs.isEmpty else { return [] }
        let vault = try options.open(unlock: true, interactive: Prompt.interactive)
        var values: [SecretText] = []
        var failures: [(SecretReference, Error)] = []
        for ref in refs {
            do { values.append(contentsOf: try vault.resolve([ref])) } catch { failures.append((ref, error)) }
        }
        guard !failures.isEmpty else { return values }
        var lines: [String] = []
        var hints: [String] = []
        var allMissing = true
        for (ref, error) in failures {
            let report = ErrorReport.of(error) ?? ErrorReport(message: "\(error)", code: ExitStatus.error)
            if report.code != ExitStatus.notFound { allMissing = false }
            let parts = report.message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // A field error already names its reference; an entry error gets it in front.
            lines.append(parts[0].hasPrefix(Output.escaped(ref.text)) ? parts[0] : Output.escaped(ref.text) + ": " + parts[0])
            for h in parts.dropFirst() where !hints.contains(h) { hints.append(h) }
        }
        throw CLIError((lines + hints).joined(separator: "\n"), code: allMissing ? ExitStatus.notFound : ErrorReport.of(failures[0].1)?.code ?? ExitStatus.error)
    }

    /// Parses `text` as a reference. - Throws: `IntegrationError.invalidReference`.
    static func parse(_ text: String) throws -> SecretReference { try SecretReference(parsing: text) }
}

struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print the value a secret reference names (tresor://ENTRY/PATH/FIELD).",
        discussion: """
            A reference is tresor:// followed by the entry path and the field name: tresor://Email/gmail/password. \
            Write % as %25 and a / in a field name as %2F; any other character may be percent-encoded (%20 for a space). \
            A list field (urls, tags) prints one item per line.
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "The reference, e.g. tresor://Email/gmail/password.") var reference: String
    @Flag(name: [.short, .customLong("no-newline")], help: "Do not print a newline after the value.") var noNewline = false

    func run() throws {
        let ref = try References.parse(reference)
        let value = try References.resolve([ref], options: options)[0]
        var out = SecretByteBuilder(capacity: value.count + 1)
        value.withUTF8 { out.append($0) }
        if !noNewline { out.append(0x0A) }
        try Output.write(secret: out.finish())
    }
}

struct Inject: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Fill in the secret references of a template: {{ tresor://ENTRY/PATH/FIELD }}.",
        discussion: """
            Each {{ tresor://… }} (spaces inside the braces optional, on one line) becomes the value it names; other text, \
            and {{ … }} that hold no tresor:// reference, stay as they are. Every reference is resolved before anything is \
            written. With --output the result goes to a new file readable only by you (0600), written atomically: a reader \
            sees the old file or the new one. Without it, to standard output.
            """)

    @OptionGroup var options: VaultOptions
    @Option(name: [.short, .customLong("in-file")], help: ArgumentHelp("The template (default: standard input).", valueName: "file"), completion: .file())
    var input: String?
    @Option(name: [.short, .customLong("out-file")], help: ArgumentHelp("Write the result to this file (0600, atomically) instead of standard output.", valueName: "file"),
            completion: .file())
    var output: String?

    /// Templates are configuration files: 16 MiB is far more than one needs.
    static let maxTemplateBytes = 16 << 20

    func run() throws {
        let bytes: [UInt8]
        if let input, input != "-" {
            do { bytes = try FileSystem.read(input, limit: Inject.maxTemplateBytes) } catch let e as CoreError {
                throw CLIError("cannot read the template \(Output.quoted(input)): \(e.message)")
            }
        } else {
            bytes = try Inject.readStandardInput(limit: Inject.maxTemplateBytes)
        }
        let name = input.map(Output.quoted) ?? "standard input"
        let template: Template
        do { template = try Template(bytes) } catch let e as Template.Problem {
            throw CLIError("template \(name), line \(e.line): \(e.message)")
        }
        let refs = try template.references.map { r -> SecretReference in
            do { return try References.parse(r.text) } catch let e as IntegrationError {
                throw CLIError("template \(name), line \(r.line): \(e.message)", code: e.exitCode)
            }
        }
        let values = try References.resolve(refs, options: options)
        let result = template.render(values)
        if let output { try Inject.writePrivate(result, to: output) } else { try Output.write(secret: result) }
    }

    static func readStandardInput(limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.readSome(STDIN_FILENO, into: b, path: "standard input") } }.get() }
            catch { throw CLIError("cannot read standard input: \(String(cString: strerror(error.errno)))") }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
            guard bytes.count <= limit else { throw CLIError("the template on standard input is larger than \(limit) bytes") }
        }
        return bytes
    }

    /// `bytes` in a new 0600 file beside `path` (synced), then renamed over it: `path` holds the old file or the
    /// new one, never a part, and never a copy readable by others. - Throws: `CLIError` naming the file.
    static func writePrivate(_ bytes: SecretBytes, to path: String) throws {
        let dir = PathName.deletingLast(path).isEmpty ? "." : PathName.deletingLast(path)
        let tmp = dir + "/." + PathName.last(path) + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        func fail(_ e: Int32) -> CLIError { CLIError("cannot write \(Output.quoted(path)): \(String(cString: strerror(e)))") }
        let written = bytes.withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.createNew(tmp, mode: 0o600, bytes: b) } }
        if case .failure(let e) = written { throw fail(e.errno) }
        do { try FileSystem.replace(path, withTemporary: tmp, durable: true) } catch let e as CoreError {
            throw CLIError("cannot write \(Output.quoted(path)): \(e.message)")
        }
    }
}

/// A template: text with `{{ tresor://… }}` placeholders.
struct Template {
    struct Problem: Error { let line: Int; let message: String }
    struct Reference { let text: String; let line: Int; let range: Range<Int> }

    let bytes: [UInt8]
    let references: [Reference]

    /// - Throws: `Problem` for a `{{ tresor://` without `}}` on its line.
    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        var refs: [Reference] = []
        var i = 0, line = 1
        let n = bytes.count
        let scheme = Array(SecretReference.scheme.utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        while i < n {
            if bytes[i] == 0x0A { line += 1; i += 1; continue }
            guard bytes[i] == 0x7B, i + 1 < n, bytes[i + 1] == 0x7B else { i += 1; continue }
            var j = i + 2
            while j < n, isSpace(bytes[j]) { j += 1 }
            guard bytes[j..<min(n, j + scheme.count)].elementsEqual(scheme) else { i += 2; continue }
            // The reference runs to the next "}}" on this line.
            var k = j
            while k + 1 < n, bytes[k] != 0x0A, !(bytes[k] == 0x7D && bytes[k + 1] == 0x7D) { k += 1 }
            guard k + 1 < n, bytes[k] == 0x7D, bytes[k + 1] == 0x7D else {
                throw Problem(line: line, message: "a {{ tresor:// reference is not closed by }} on its line")
            }
            var end = k
            while end > j, isSpace(bytes[end - 1]) { end -= 1 }
            refs.append(Reference(text: String(decoding: bytes[j..<end], as: UTF8.self), line: line, range: i..<(k + 2)))
            i = k + 2
        }
        references = refs
    }

    /// The text with each placeholder replaced by its value (`values` in the order of `references`).
    func render(_ values: [SecretText]) -> SecretBytes {
        var out = SecretByteBuilder(capacity: bytes.count + values.reduce(0) { $0 + $1.count })
        var at = 0
        for (ref, value) in zip(references, values) {
            bytes[at..<ref.range.lowerBound].withUnsafeBytes { out.append($0) }
            value.withUTF8 { out.append($0) }
            at = ref.range.upperBound
        }
        bytes[at...].withUnsafeBytes { out.append($0) }
        return out.finish()
    }
}
