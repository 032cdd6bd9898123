// The words for the core's errors: format problems, entry paths, fields, files, the generator and one-time codes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

extension CoreError {
    /// The message (with `hint:` lines where there is a next step).
    var message: String {
        let q = Output.quoted
        switch self {
        case .unsupportedVersion(let v):
            return "unsupported format version \(v) (this tresor reads entry versions 1 and \(FormatVersion.entry) and header versions 1 to \(FormatVersion.newestHeader))\nhint: a newer tresor wrote it: upgrade tresor"
        case .malformed(let problem): return "not a valid Tresor file: \(problem.message)"
        case .badEncoding(let problem): return "bad encoding: \(problem.message)"
        case .kdfOutOfBounds(let problem): return "key derivation parameters refused: \(problem.message)"
        case .authenticationFailed: return "decryption failed: the file was modified or belongs to another vault"
        case .wrongPassphrase: return "wrong passphrase"
        case .pathMismatch(let inner, let outer):
            return "entry file \(q(outer)) holds entry \(q(inner)): it was moved or copied outside tresor\nhint: move it back, or use 'tresor mv'"
        case .invalidPath(let p, let rule): return "invalid entry path \(q(p)): \(rule.message)"
        case .invalidField(let name, let rule): return "invalid field: \(rule.message(name))"
        case .io(let problem): return problem.message
        case .symlink(let p): return "\(q(p)) is a symbolic link; tresor never follows links inside a vault"
        case .headerNotAuthentic:
            return "the vault header's authentication tag does not verify: it was changed by someone who does not hold the vault key"
        case .headerReplayed(let g, let m):
            return "an older vault header (generation \(g), this replica has \(m)) was put back: a replay of an earlier state"
        case .notARecipient: return "the identity is not a member of this vault (no recipient key slot is sealed to its public key)"
        case .memberExists(let name): return "a member \(q(name)) with this name or public key is already in the vault"
        case .noSuchMember(let name): return "no member \(q(name)) in the vault"
        case .differentVault(let ours, let theirs):
            return "cannot merge vault \(theirs) into vault \(ours): they are different vaults\nhint: check the remote's URL"
        }
    }
}

extension CoreError.FilePart {
    /// The part as a noun phrase: "vault header", "field \"notes\"".
    var name: String {
        switch self {
        case .vaultHeader: return "vault header"
        case .scopeHeader: return "scope header"
        case .stateRecord: return "state record"
        case .envelope: return "envelope"
        case .payload: return "payload"
        case .field(let n): return "field \(Output.quoted(n))"
        case .historyItem: return "history item"
        case .moved: return "moved"
        case .keySlot: return "key slot"
        case .passphraseSlot: return "passphrase key slot"
        case .kdf: return "kdf"
        case .recipientSlot: return "recipient key slot"
        case .vaultSlot: return "vault slot"
        case .scope: return "scope"
        case .rekey: return "rekey"
        case .clockMember: return "clock member"
        case .identity: return "identity file"
        case .searchCache: return "search cache"
        case .localRecord: return "local record"
        case .gitTree: return "git tree"
        }
    }

    /// The parts that are whole files: their members are named without the part ("\"version\" is …"), as the
    /// message already names the file.
    var isFile: Bool {
        switch self {
        case .vaultHeader, .scopeHeader, .stateRecord, .envelope, .identity, .searchCache, .localRecord: return true
        default: return false
        }
    }

    /// Member `member` of this part, for a message: `"epoch"`, `recipient key slot "name"`.
    func member(_ member: String) -> String {
        isFile ? Output.quoted(member) : "\(name) \(Output.quoted(member))"
    }

    /// The plural of what is counted in `tooMany`.
    var plural: String {
        switch self {
        case .clockMember: return "replicas in a clock"
        case .scope: return "scopes"
        default: return name + "s"
        }
    }
}

extension CoreError.Expectation {
    /// What the member should be, after "is not" / "is missing or not".
    var text: String {
        switch self {
        case .string: return "a string"
        case .object: return "an object"
        case .array: return "an array"
        case .nonNegativeInteger: return "a non-negative integer"
        case .positiveInteger: return "a positive integer"
        case .lowercaseUUID: return "a lowercase UUID"
        case .value(let v): return Output.quoted(v)
        case .objectID: return "40 lowercase hex digits"
        case .domain: return "\"vault\" or a lowercase UUID"
        case .timestamp: return "a timestamp"
        case .dot: return "a dot of a replica id and a positive number"
        case .clock: return "a clock of replica ids with positive numbers"
        case .list: return "a list"
        case .text: return "a string"
        case .textOrList: return "a string or an array of strings"
        case .memberName: return "1 to 64 bytes of printable NFC text"
        case .sealedKey(let n): return "a sealed key of \(n) bytes"
        case .utf8: return "UTF-8 text"
        }
    }
}

extension CoreError.FormatProblem {
    var message: String {
        let q = Output.quoted
        switch self {
        case .tooLarge(let part, let limit): return "\(part.name) larger than \(Self.size(limit))"
        case .fileTooLarge(let path, let limit): return "\(q(path)) is larger than \(limit) bytes"
        case .empty(let part): return part == .envelope ? "empty file" : "empty \(part.name)"
        case .notJSON(.envelope, let e?): return "not JSON (\(e.message)); the file may be truncated"
        case .notJSON(.payload, nil): return "decrypted payload is not JSON"
        case .notJSON(let part, let e): return "\(part.name) is not JSON" + (e.map { " (\($0.message))" } ?? "")
        case .notAnObject(.field(let n)): return "field \(q(n)) is not an object with a value"
        case .notAnObject(.historyItem): return "history item is not an object with a value"
        case .notAnObject(.scope): return "a scope is not an object of \"folder\" and \"dot\""
        case .notAnObject(.rekey): return "\"rekey\" is not an object of \"proofs\", \"nonce\" and \"keys\""
        case .notAnObject(let part): return "\(part.name) is not a JSON object"
        case .member(.keySlot, "type", _): return "a key slot has no \"type\""
        case .member(.field(let n), "value", .list): return "field \(q(n)) must be a list"
        case .member(.field(let n), "value", .text): return "field \(q(n)) must be a string"
        case .member(let part, let name, let expected):
            return part.isFile && part != .payload
                ? "\(q(name)) is not \(expected.text)" : "\(part.name) member \(q(name)) missing or not \(expected.text)"
        case .unexpectedMember(let part, let name): return "unknown \(part.name) member \(q(name))"
        case .tooMany(let part, let limit): return "more than \(limit) \(part.plural)"
        case .duplicate(.recipientSlot): return "two recipient key slots with one name or one public key"
        case .duplicate(let part): return "two \(part.plural)"
        case .missing(.keySlot): return "no recipient or vault slot"
        case .missing(let part): return "no \(part.name)"
        case .missingFile(let path): return "no \(q(path))"
        case .dotNotCovered(let part): return "the \(part.name) holds a dot its clock does not cover"
        case .truncated(let part): return "truncated \(part.name)"
        case .mismatch(let m): return m.message
        }
    }

    /// A limit in bytes as people write it: "1 MiB", "64 KiB", "1048576 bytes".
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

extension CoreError.Mismatch {
    var message: String {
        let q = Output.quoted
        switch self {
        case .scopeID(let id): return "the scope id \(q(id)) is not a lowercase UUID"
        case .scopeFolder(let f): return "scope folder \(q(f)) is not a valid NFC entry path"
        case .scopesNest(let a, let b): return "scopes \(q(a)) and \(q(b)) nest (nested scopes are refused)"
        case .scopeOfAnotherVault(let p): return "the scope header \(p) belongs to another vault"
        case .scopeIDNotFileName(let p): return "the scope header's id is not its file name \(p)"
        case .scopeNotListed(let s, let f): return "the vault header does not list scope \(s) with folder \(q(f))"
        case .scopeDiffers(let p): return "the scope header \(p) names another scope or folder on the other side"
        case .noSuchScope(let s): return "no scope \(s)"
        case .rekeyAtEpoch(let part, 1): return "a \(part.name) of epoch 1 has \"rekey\""
        case .rekeyAtEpoch(let part, let epoch): return "a \(part.name) of epoch \(epoch) has no \"rekey\""
        case .rekeyChain(let epoch): return "the rekey chain of epoch \(epoch) does not hold \(epoch - 1) keys"
        case .rekeyProofs: return "\"rekey\" does not hold exactly one proof per earlier epoch"
        case .wrappedKeyLength(let n): return "the wrapped key opens to \(n) bytes, not 32"
        case .identityKeys: return "the identity's secret key does not belong to its \"publicKey\""
        case .searchCacheVersion: return "not a search cache of this version"
        case .searchCacheKey: return "the search cache does not open with this key"
        case .gitAttributes: return "not the .gitattributes tresor writes"
        case .rootCommitMadeWithGit: return "a root commit made with git"
        }
    }
}

extension CoreError.EncodingProblem {
    var message: String {
        switch self {
        case .notBase64(let part, let member, let bytes):
            return "\(part.member(member)) is not canonical base64" + (bytes.map { " of \($0) bytes" } ?? "")
        case .wrongLength(let part, let member, let bytes): return "\(part.member(member)) is not \(bytes) bytes"
        case .tooShort(let part, let member, let minimum): return "\(part.member(member)) is shorter than the tag (\(minimum) bytes)"
        case .publicKeyPrefix(let prefix): return "a public key starts with \(Output.quoted(prefix))"
        case .publicKeyForm: return "the public key is not tresor1 and 58 lowercase base32 characters"
        case .publicKeyChecksum: return "the public key's checksum does not match (mistyped?)"
        }
    }
}

extension CoreError.KDFProblem {
    var message: String {
        switch self {
        case .ops(let ops, let allowed): return "ops \(ops) outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case .mem(let mem, let allowed): return "mem \(mem) outside \(allowed.lowerBound)...\(allowed.upperBound) bytes"
        case .saltLength(let n, let expected): return "the salt is \(n) bytes, not \(expected)"
        case .algorithm(let name?): return "unknown KDF algorithm \(Output.quoted(name))"
        case .algorithm(nil): return "unknown KDF algorithm"
        }
    }
}

extension CoreError.FieldRule {
    /// The rule the field `name` broke.
    func message(_ name: String) -> String {
        let q = Output.quoted
        switch self {
        case .nameLength: return "field name \(q(name)) must be 1 to 64 bytes"
        case .nameControlCharacter: return "field name \(q(name)) contains a control character"
        case .nameDotOrEquals: return "field name \(q(name)) may not start with \".\" or contain \"=\""
        case .mustBeList: return "field \(q(name)) must be a list"
        case .mustBeText: return "field \(q(name)) must be a text"
        case .notUTF8: return "field \(q(name)) is not UTF-8 text"
        }
    }
}

extension CoreError.FileType {
    var text: String {
        switch self {
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .symbolicLink: return "a symbolic link"
        case .other: return "not a regular file"
        }
    }
}

extension CoreError.IOProblem {
    var message: String {
        let q = Output.quoted
        switch self {
        case .failed(let operation, let path, let code):
            let verb: String
            switch operation {
            case .read: verb = "cannot read"
            case .create: verb = "cannot create"
            case .write: verb = "cannot write"
            case .replace: verb = "cannot replace"
            case .createDirectory: verb = "cannot create directory"
            case .remove: verb = "cannot remove"
            }
            return "\(verb) \(q(path)): \(String(cString: strerror(code)))"
        case .notRegularFile(let path, .other): return "\(q(path)) is not a regular file"
        case .notRegularFile(let path, let type): return "\(q(path)) is \(type.text), not a regular file"
        case .notADirectory(let path): return "\(q(path)) exists and is not a directory"
        case .noEntryFile(let path): return "no entry file \(q(path))"
        case .other(let what): return "unexpected error: \(Output.escaped(what))"
        }
    }
}

extension EntryPath.Rule {
    /// The rule of Spec/FORMAT.md §4.2, as broken.
    var message: String {
        switch self {
        case .empty: return "empty path"
        case .absolute: return "absolute paths are not allowed"
        case .tooLong(let max): return "longer than \(max) bytes"
        case .controlCharacter: return "control characters are not allowed"
        case .lineSeparator: return "line separators are not allowed"
        case .tooDeep(let max): return "deeper than \(max) levels"
        case .emptyComponent: return "empty path component"
        case .dotComponent: return "\".\" and \"..\" are not allowed"
        case .leadingDot: return "a component may not start with \".\""
        case .spaceOrTrailingDot: return "a component may not start or end with a space or end with \".\""
        case .forbiddenCharacter(let c): return "character \(Output.quoted(String(Character(c)))) is not allowed"
        case .componentTooLong(let max): return "a component is longer than \(max) bytes"
        case .folderEndsInJSON: return "a folder name may not end in \".json\""
        case .gitShortName(let name): return "\(Output.quoted(name)) is the short name of .git, which git refuses"
        }
    }
}

extension JSONValue.ParseError {
    /// "unexpected end of input at byte 12".
    var message: String {
        let what: String
        switch problem {
        case .trailingData: what = "trailing data"
        case .invalidLiteral: what = "invalid literal"
        case .nestingTooDeep: what = "nesting too deep"
        case .unexpectedEnd: what = "unexpected end of input"
        case .expectedKey: what = "expected a string key"
        case .duplicateKey(let k): what = "duplicate key \(Output.quoted(k))"
        case .expectedColon: what = "expected ':'"
        case .expectedCommaOrBrace: what = "expected ',' or '}'"
        case .expectedCommaOrBracket: what = "expected ',' or ']'"
        case .invalidValue: what = "invalid value"
        case .leadingZero: what = "leading zero in number"
        case .invalidNumber: what = "invalid number"
        case .truncatedEscape: what = "truncated \\u escape"
        case .invalidUnicodeEscape: what = "invalid \\u escape"
        case .invalidUTF8: what = "invalid UTF-8"
        case .unterminatedString: what = "unterminated string"
        case .controlCharacter: what = "control character in string"
        case .loneSurrogate: what = "lone surrogate"
        case .invalidEscape: what = "invalid escape"
        }
        return "\(what) at byte \(offset)"
    }
}

extension GeneratorError {
    var message: String {
        let q = Output.quoted
        switch self {
        case let .badPolicy(part, problem):
            return "bad policy \(q(part)): \(problem.message)\nhint: see Spec/GENERATOR.md §1 for the policy syntax"
        case let .lengthOutOfRange(length):
            return "password length \(length) is out of range\nhint: choose a length from 1 to 1024"
        case let .wordCountOutOfRange(count):
            return "word count \(count) is out of range\nhint: choose from 1 to 64 words"
        case .emptyCharacterSet:
            return "the policy leaves no characters to choose from\nhint: add a class or include characters, or exclude fewer"
        case let .emptyClass(name):
            return "every-class needs a \(name) character but the exclusions remove them all\nhint: exclude fewer characters or drop every-class"
        case let .lengthBelowClassCount(length, classes):
            return "every-class needs \(classes) characters but the length is \(length)\nhint: use a length of at least \(classes) or fewer classes"
        case let .badCharacters(field, characters):
            let allowed: String
            switch field {
            case .symbols: allowed = "visible ASCII or Latin-1 characters other than letters and digits"
            case .include: allowed = "visible ASCII or Latin-1 characters (no spaces or control characters)"
            case .separator: allowed = "up to 8 spaces or visible ASCII or Latin-1 characters other than letters and digits"
            }
            return "\(field.rawValue) may not contain \(q(characters))\nhint: \(field.rawValue) may only hold \(allowed)"
        case let .dataFileMissing(name, searched):
            return "data file \(q(name)) not found in " + searched.map(q).joined(separator: ", ")
                + "\nhint: install tresor's data directory as share/tresor next to its bin directory, or set TRESOR_DATA_DIR"
        case let .dataFileUnreadable(path):
            return "cannot read data file \(q(path))"
        case let .dataFileDamaged(path):
            return "data file \(q(path)) is damaged or from another version of tresor\nhint: reinstall tresor's data directory"
        }
    }
}

extension GeneratorError.PolicyProblem {
    var message: String {
        let q = Output.quoted
        switch self {
        case .empty: return "the policy is empty"
        case .emptyPart: return "empty part (stray comma?)"
        case .missingKey: return "missing key"
        case .unknownKey(let key, let known): return "unknown key \(q(key)) (known: \(known.joined(separator: ", ")))"
        case .repeatedKey(let key): return "\(q(key)) given twice"
        case .mixedKinds(let first): return "passphrase and password keys cannot be mixed (\(q(first)) came first)"
        case .flagWithValue(let key): return "\(q(key)) takes no value"
        case .valueMissing(let key): return "\(q(key)) needs a value, as in \(Output.escaped(key))=…"
        case .notAWholeNumber: return "not a whole number"
        case .unknownClass(let name): return "unknown class \(q(name)) (use lower, upper, digits, symbols joined by +, all or none)"
        case .escapeOutsideValue: return "\\ may only escape characters in values"
        case .trailingEscape: return "the policy ends with a lone \\"
        }
    }
}
