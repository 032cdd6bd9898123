// The words for import and export: error messages, skip reasons and renames, with names from imported data escaped.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
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
        case .cannotRead(let path, let problem): return "cannot read \"\(printable(path))\": \(problem.message)"
        case .malformed(let path, let problem):
            return "cannot import \"\(printable(path))\": \(problem.message)\nhint: check the format name ('tresor import --help' lists them)"
        case .wrongKey(let path): return "wrong password or key file for \"\(printable(path))\""
        case .unsupported(let path, let feature): return "\"\(printable(path))\" uses \(feature.message), which tresor cannot import"
        case .toolFailed(let program, _, 127, ""):
            return "\(program): \(program) was not found on PATH\nhint: install GnuPG (Debian: apt-get install gnupg)"
        case .toolFailed(let program, _, 127, let message):
            return "\(program): \(printable(message))\nhint: install GnuPG (Debian: apt-get install gnupg)"
        case .toolFailed(let program, let path, let status, let message):
            return "\(program) failed on \"\(printable(path))\" (exit status \(status)): \(printable(message))"
        case .outputExists(let path): return "\"\(printable(path))\" already exists; an export never replaces a file\nhint: name a new file or an empty directory"
        case .cannotWrite(let path, let problem): return "cannot write \"\(printable(path))\": \(problem.message)"
        case .unrepresentable(let path, .passwordLineBreak):
            return "entry \"\(printable(path))\" cannot be exported in this format: the password contains a line break"
        case .core(let e): return e.message
        }
    }

    /// For an item skipped as unreadable: what went wrong, without the file (the item is named already).
    var itemMessage: String {
        switch self {
        case .toolFailed(_, _, let status, ""): return "gpg exited with status \(status)"
        case .toolFailed(_, _, _, let message): return printable(message)
        case .malformed(_, let problem): return problem.message
        default: return message
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
        case .invalidPath(let failure): return "no valid entry path: \(failure.message)"
        case .invalidField(let e): return e.message
        case .deleted: return "in the recycle bin or trash"
        case .unsupported(let what): return "not imported: \(what.message)"
        case .unreadable(let e): return "could not be read: \(e.itemMessage)"
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

extension PathRule.Failure {
    var message: String {
        switch self {
        case .noRoomBelowPrefix: return "the prefix leaves no room for entries"
        case .foldersTooLong(let max): return "the folder names are longer than \(max) bytes"
        case .rule(let rule): return rule.message
        case .noFreeName: return "no free name"
        case .invalid: return "invalid"
        }
    }
}

extension UnsupportedItem {
    var message: String {
        switch self {
        case .bitwardenItemType(let type): return "Bitwarden item type \(type)"
        case .ageSecret: return "age-encrypted secret"
        case .symbolicLink: return "symbolic link"
        }
    }
}

extension InterchangeError.ReadProblem {
    var message: String {
        switch self {
        case .errno(let code): return String(cString: strerror(code))
        case .isDirectory: return "it is a directory"
        case .noSuchDirectory: return "no such directory"
        case .notADirectory: return "not a directory"
        }
    }
}

extension InterchangeError.WriteProblem {
    var message: String {
        switch self {
        case .errno(let code): return String(cString: strerror(code))
        case .core(let e): return e.message
        case .zlib: return "zlib failed to start"
        case .other(let text): return "unexpected error: \(printable(text))"
        }
    }
}

extension InterchangeError.Feature {
    var message: String {
        switch self {
        case .encryptedBitwardenExport: return "an encrypted Bitwarden export (export as unencrypted JSON)"
        case .kdbxVersion(let v): return "KDBX version \(v)"
        case .cipher(let uuid): return "the cipher \(uuid) (Twofish?)"
        case .chacha20InKDBX3: return "ChaCha20 in a KDBX 3 file"
        case .aesRounds(let rounds, let maximum): return "AES-KDF with \(rounds) rounds (more than \(maximum))"
        case .kdf(let uuid): return "the KDF \(uuid)"
        case .argon2(let memory, let iterations, let lanes, let version):
            return "Argon2 with \(memory >> 20) MiB, \(iterations) iterations, \(lanes) lanes, version \(version)"
        case .argon2Refused: return "Argon2 with these parameters (libargon2 refused them)"
        case .protectedStream(let id): return "the protected-value stream \(id)"
        case .kdfParametersVersion(let v): return "KDF parameters version \(v)"
        }
    }
}

extension InterchangeError.SourceProblem {
    var message: String {
        switch self {
        case .notUTF8: return "not UTF-8 text"
        case .tooLarge(let limit): return "larger than \(limit >> 20) MiB"
        case .notJSON(let e): return "not JSON: \(e.message)"
        case .notAnObject: return "not an export of this format (no top-level object)"
        case .notAnArray: return "not a Tresor JSON export (no top-level array)"
        case .missingMember(let name): return "not an export of this format (no \"\(printable(name))\")"
        case .badItem(let index?): return "item \(index) is not an entry object with a \"path\""
        case .badItem(nil): return "an item is not an object"
        case .badHistoryItem(let path): return "a history item of \"\(printable(path))\" lacks field, value or replaced"
        case .other(let text): return "unexpected error: \(printable(text))"
        case .noHeaderRow: return "no header row"
        case .missingColumn(let name, let columns):
            return "no column \"\(printable(name))\" (the columns are \(columns.map(printable).joined(separator: ", ")))"
        case .notZip: return "not a zip archive"
        case .missingArchiveMember(let name): return "no \(printable(name)) in the archive"
        case .archiveMemberTooLarge(let name, let limit): return "\(printable(name)) is larger than \(limit >> 20) MiB"
        case .unpack(let name, let damage): return "\(printable(name)) does not unpack: \(damage.message)"
        case .xml(let line, let problem): return "the XML does not parse (line \(line)): \(problem.message)"
        case .emptyXML: return "empty XML"
        case .notKeePassXML: return "not a KeePass XML document (no KeePassFile/Root/Group)"
        case .zlib: return "zlib failed to start"
        case .compressedDataDamaged: return "the compressed data is damaged"
        case .compressedDataTruncated: return "the compressed data is truncated"
        case .decompressedTooLarge(let limit): return "the data decompresses to more than \(limit >> 20) MiB"
        case .notKeePass: return "not a KeePass database (wrong signature)"
        case .headerIncomplete: return "the header lacks the cipher, master seed or IV"
        case .kdfParametersMissing: return "the header lacks the KDF parameters"
        case .kdfParametersIncomplete: return "the KDF parameters are incomplete"
        case .headerChecksum: return "the header checksum does not match (damaged file)"
        case .negativeBlockSize: return "negative block size"
        case .blockMAC(let index): return "block \(index) fails its HMAC (damaged file)"
        case .blockHash: return "a block fails its hash (damaged file)"
        case .payloadDoesNotDecrypt: return "the payload does not decrypt (damaged file)"
        case .ivLength(let expected): return "the IV must be \(expected) bytes"
        case .truncated(let offset): return "truncated at byte \(offset)"
        case .protectedValueWithoutKey: return "protected values in a file without their key"
        case .protectedValueNotBase64: return "a protected value is not base64"
        }
    }
}

extension InterchangeError.ArchiveDamage {
    var message: String {
        switch self {
        case .encrypted: return "it is encrypted"
        case .localHeaderMissing: return "its local header is missing"
        case .truncated: return "it is truncated"
        case .compressedDataDamaged: return "the compressed data is damaged"
        case .compressionMethod(let method): return "compression method \(method) is not supported"
        case .sizeMismatch: return "its size is not the one the archive gives"
        case .checksumMismatch: return "its CRC-32 does not match"
        }
    }
}

extension InterchangeError.XMLProblem {
    var message: String {
        switch self {
        case .noRootElement: return "the document has no root element"
        case .extraContent: return "extra content at the end of the document"
        case .misplacedDoctype: return "a DOCTYPE is only allowed once, before the root element"
        case .internalSubset: return "the document declares its own entities or elements (a DOCTYPE internal subset), which is not supported"
        case .notClosed(.doctype): return "the DOCTYPE is not closed"
        case .notClosed(let markup): return "a \(markup.name) is not closed"
        case .processingInstructionWithoutTarget: return "a processing instruction has no target"
        case .misplacedDeclaration: return "an XML declaration is only allowed at the start"
        case .endTagNotClosed(let name): return "the end tag </\(printable(name))> is not closed"
        case .endTagWithoutStartTag: return "an end tag without a start tag"
        case .mismatchedEndTag(let start, let end): return "the start tag <\(printable(start))> ends with </\(printable(end))>"
        case .cdataOutsideRoot: return "a CDATA section outside the root element"
        case .startTagNotClosed(let name): return "the start tag <\(printable(name))> is not closed"
        case .tooDeep(let limit): return "elements nested more than \(limit) deep"
        case .textOutsideRoot: return "text outside the root element"
        case .elementNotClosed(let name): return "the element <\(printable(name))> is not closed"
        case .attributesNotSeparated(let element): return "attributes of <\(printable(element))> are not separated by spaces"
        case .attributeWithoutValue(let name, let element): return "the attribute \(printable(name)) of <\(printable(element))> has no value"
        case .attributeNotQuoted(let name): return "the value of the attribute \(printable(name)) is not quoted"
        case .lessThanInAttribute(let name): return "the value of the attribute \(printable(name)) holds \"<\""
        case .attributeNotClosed(let name): return "the value of the attribute \(printable(name)) is not closed"
        case .duplicateAttribute(let name, let element): return "the attribute \(printable(name)) appears twice in <\(printable(element))>"
        case .nameExpected: return "a name was expected"
        case .ampersandWithoutReference: return "an \"&\" that starts no reference"
        case .undefinedReference(let name): return "the reference &\(printable(name)); is not defined or not a character XML allows"
        case .characterNotAllowed(let scalar) where scalar < 0x20:
            return "the control character U+\(String(scalar, radix: 16, uppercase: true)) is not allowed in XML"
        case .characterNotAllowed(let scalar): return "the character U+\(String(scalar, radix: 16, uppercase: true)) is not allowed in XML"
        }
    }
}

extension InterchangeError.XMLProblem.Markup {
    var name: String {
        switch self {
        case .xmlDeclaration: return "XML declaration"
        case .doctype: return "DOCTYPE"
        case .comment: return "comment"
        case .cdataSection: return "CDATA section"
        case .processingInstruction: return "processing instruction"
        }
    }
}
