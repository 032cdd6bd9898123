// Everything tresor prints goes through here: stdout for results, stderr for messages.
import Foundation
import TresorCore

enum Output {
    /// A result line on stdout.
    static func line(_ s: String = "") { print(s) }

    /// Text on stdout exactly as given.
    static func write(_ s: String) { FileHandle.standardOutput.write(Data(s.utf8)) }

    /// A status message on stderr (keeps stdout clean for scripts).
    static func status(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

    static func warning(_ s: String) { status(format("warning", s)) }
    static func error(_ s: String) { status(format("error", s)) }

    /// "tresor: error: first line", following lines (hints) unprefixed.
    private static func format(_ label: String, _ s: String) -> String {
        var lines = s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = "tresor: \(label): " + lines[0]
        return lines.joined(separator: "\n")
    }

    /// A JSON value as pretty, stable text on stdout.
    static func json(_ v: JSONValue) {
        print(pretty(v, indent: ""))
    }

    static func pretty(_ v: JSONValue, indent: String) -> String {
        let inner = indent + "  "
        switch v {
        case .array(let a) where !a.isEmpty:
            return "[\n" + a.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let o) where !o.isEmpty:
            let keys = o.keys.sorted()
            return "{\n" + keys.map { k in
                inner + String(decoding: JSONValue.string(k).canonicalBytes(), as: UTF8.self) + ": " + pretty(o[k]!, indent: inner)
            }.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return String(decoding: v.canonicalBytes(), as: UTF8.self)
        }
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
