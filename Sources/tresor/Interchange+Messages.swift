// The words for import and export: error messages, skip reasons and renames, with names from imported data escaped.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Names that came from another program's data, made safe to print: control characters, line and
/// paragraph separators and DEL become `\n`, `\t`, `\r` or `\u{XX}`, and `\` becomes `\\`.
func printable(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case "\\": out += "\\\\"
        default:
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

extension InterchangeError {
    /// The message (with a hint line where there is a next step) and exit code.
    var message: String {
        switch self {
        case .cannotRead(let path, let reason): return "cannot read \"\(printable(path))\": \(reason)"
        case .malformed(let path, let reason): return "cannot import \"\(printable(path))\": \(printable(reason))\nhint: check the format name ('tresor import --help' lists them)"
        case .wrongKey(let path): return "wrong password or key file for \"\(printable(path))\""
        case .unsupported(let path, let feature): return "\"\(printable(path))\" uses \(feature), which tresor cannot import"
        case .toolFailed(let program, let path, let status, let message):
            if status == 127 { return "\(program): \(message)\nhint: install GnuPG (Debian: apt-get install gnupg)" }
            return "\(program) failed on \"\(printable(path))\" (exit status \(status)): \(printable(message))"
        case .outputExists(let path): return "\"\(printable(path))\" already exists; an export never replaces a file\nhint: name a new file or an empty directory"
        case .cannotWrite(let path, let reason): return "cannot write \"\(printable(path))\": \(reason)"
        case .unrepresentable(let path, let reason): return "entry \"\(printable(path))\" cannot be exported in this format: \(reason)"
        case .core(let e): return e.errorDescription ?? "\(e)"
        }
    }

    var exitCode: Int32 {
        switch self {
        case .wrongKey: return ExitStatus.auth
        case .outputExists: return ExitStatus.exists
        default: return ExitStatus.error
        }
    }
}

extension SkipReason {
    /// Why an item was skipped, in words.
    var text: String {
        switch self {
        case .exists(let p): return "an entry \"\(printable(p))\" is already there (--force gives it the imported values)"
        case .identical(let p): return "\"\(printable(p))\" already holds the same values"
        case .caseCollision(let p, let other): return "\"\(printable(p))\" differs only by case from existing \"\(printable(other))\""
        case .invalidPath(let why): return "no valid entry path: \(why)"
        case .invalidField(let why): return printable(why)
        case .deleted: return "in the recycle bin or trash"
        case .unsupported(let what): return "not imported: \(printable(what))"
        case .unreadable(let why): return "could not be read: \(printable(why))"
        }
    }

    /// Whether the item was left out because of a problem with it (not a choice such as an existing entry).
    var isFailure: Bool {
        switch self {
        case .invalidPath, .invalidField, .unreadable: return true
        default: return false
        }
    }

    var kind: String {
        switch self {
        case .exists: return "exists"
        case .identical: return "identical"
        case .caseCollision: return "case-collision"
        case .invalidPath: return "invalid-path"
        case .invalidField: return "invalid-field"
        case .deleted: return "deleted"
        case .unsupported: return "unsupported"
        case .unreadable: return "unreadable"
        }
    }
}

extension RenameNote {
    var text: String {
        switch self {
        case .escaped(let o): return "from \"\(printable(o))\": characters not allowed in entry paths were percent-encoded"
        case .truncated(let o): return "from \"\(printable(o))\": the name was too long and was cut"
        case .suffixed(let o): return "\"\(printable(o))\" was already taken by another imported entry"
        case .fieldRenamed(let from, let to): return "field \"\(printable(from))\" is named \"\(printable(to))\""
        case .folderCase(let o, let used): return "folder \"\(printable(o))\" is spelled \"\(printable(used))\" like an existing folder"
        }
    }

    var json: JSONValue {
        switch self {
        case .escaped(let o): return .object(["kind": .string("escaped"), "original": .string(o)])
        case .truncated(let o): return .object(["kind": .string("truncated"), "original": .string(o)])
        case .suffixed(let o): return .object(["kind": .string("suffixed"), "original": .string(o)])
        case .fieldRenamed(let f, let t): return .object(["kind": .string("field-renamed"), "original": .string(f), "name": .string(t)])
        case .folderCase(let o, let u): return .object(["kind": .string("folder-case"), "original": .string(o), "name": .string(u)])
        }
    }
}
