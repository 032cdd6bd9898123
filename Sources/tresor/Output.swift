// Everything tresor prints goes through here: stdout for results, stderr for messages.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

enum Output {
    /// A result line on stdout, through stdio's buffer as `print` writes (so that a command's lines go out in few
    /// writes, in order with what `print` and `write(secret:)` write) but without `print`'s first dynamic casts, which
    /// scan every protocol-conformance record of the binary.
    static func line(_ s: String = "") { lines([s]) }

    /// One line per item, in one write to stdio's buffer.
    static func lines(_ items: [String]) {
        guard !items.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.reduce(0) { $0 + $1.utf8.count + 1 })
        for item in items {
            bytes.append(contentsOf: item.utf8)
            bytes.append(0x0A)
        }
        lines(bytes: bytes)
    }

    /// Lines already joined, each ending in a line feed, in one write to stdio's buffer.
    static func lines(bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
    }

    /// Text on stdout exactly as given, after what stdio's buffer holds.
    static func write(_ s: String) {
        fflush(stdout)
        StandardStream.write(1, s)
    }

    /// A status message on stderr (keeps stdout clean for scripts).
    static func status(_ s: String) { StandardStream.write(2, (s + "\n")) }

    static func warning(_ s: String) { status(format("warning", s)) }
    static func error(_ s: String) { status(format("error", s)) }

    /// "tresor: error: first line", following lines (hints) unprefixed.
    private static func format(_ label: String, _ s: String) -> String {
        var lines = s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = "tresor: \(label): " + lines[0]
        return lines.joined(separator: "\n")
    }

    /// What a command did: with `--json` the document alone on stdout, else the sentence on stderr
    /// (README "JSON output").
    static func report(json: Bool, _ text: @autoclosure () -> String, _ document: @autoclosure () -> JSONValue) {
        if json { Output.json(document()) } else { status(text()) }
    }

    /// A JSON value as pretty, stable text on stdout. It may hold field values (`show --json`): it is built
    /// and written from zeroing memory, never as a `String`. A failed write is ignored, as `print` does.
    static func json(_ v: JSONValue) {
        try? write(secret: v.prettySecretBytes(trailingNewline: true))
    }

    /// Bytes that hold secrets, written to stdout straight from their zeroing buffer with write(2) (no
    /// `String` or `Data` copy); what `print` buffered goes first. - Throws: `CLIError` if stdout fails.
    static func write(secret: SecretBytes) throws {
        fflush(nil)
        let written = secret.withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(STDOUT_FILENO, b, path: "standard output") } }
        if case .failure(let e) = written { throw CLIError("cannot write to standard output: \(String(cString: strerror(e.errno)))") }
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Text that came from elsewhere (file names, remotes, imported data) with control characters, C1
    /// controls and bidirectional overrides shown as escapes, so it cannot drive the terminal.
    static func escaped(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out.append(contentsOf: String(printf: scalar.value < 0x100 ? "\\x%02x" : "\\u{%04x}", scalar.value).unicodeScalars)
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `escaped` in double quotes: how messages name a file, entry, remote or folder.
    static func quoted(_ s: String) -> String { "\"" + escaped(s) + "\"" }
}
