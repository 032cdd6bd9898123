// What `CoreError` carries: the kind of file and the member that broke a rule, and what was expected; no prose.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CoreError {
    /// The kinds of file Tresor reads, and the parts of them a rule is about (Spec/FORMAT.md).
    public enum FilePart: Equatable, Sendable {
        /// `.tresor/vault.json` (§3, §11.4).
        case vaultHeader
        /// A scope header `.tresor/scopes/<id>.json` (§3.12.2, §11.11).
        case scopeHeader
        /// A state record `.tresor/state/<domain>.json` (§11.6).
        case stateRecord
        /// An entry file's envelope (§6).
        case envelope
        /// An entry's decrypted payload (§5).
        case payload
        /// The field of that name in a payload (§5.3).
        case field(String)
        /// An item of a payload's `history` (§5.4).
        case historyItem
        /// A payload's `moved` (§11.8).
        case moved
        /// A key slot of unknown type (one whose `type` is not read yet).
        case keySlot
        /// A passphrase key slot (§3.3).
        case passphraseSlot
        /// The `kdf` object of a passphrase key slot or identity file (§3.2).
        case kdf
        /// A recipient key slot (§3.8).
        case recipientSlot
        /// The vault slot of a scope header (§3.12.2).
        case vaultSlot
        /// A member of a vault header's `scopes` (§3.12.1).
        case scope
        /// The `rekey` member of a header (§11.5).
        case rekey
        /// A member of a clock (§11.3).
        case clockMember
        /// An identity file (§3.10).
        case identity
        /// The search cache `.git/tresor/search-cache` (§9).
        case searchCache
        /// A record a replica keeps for itself under `.git/tresor` (trust, event count, earlier keys), never shared.
        case localRecord
        /// A git tree object (of a commit being authenticated).
        case gitTree
    }

    /// What a member should have been.
    public enum Expectation: Equatable, Sendable {
        /// A JSON string.
        case string
        /// A JSON object.
        case object
        /// A JSON array.
        case array
        /// An integer ≥ 0.
        case nonNegativeInteger
        /// An integer ≥ 1.
        case positiveInteger
        /// A lowercase hyphenated UUID.
        case lowercaseUUID
        /// Exactly this string (a file's `format`).
        case value(String)
        /// A git object id: 40 lowercase hexadecimal digits.
        case objectID
        /// A domain: `vault` or a lowercase UUID (§11.2).
        case domain
        /// A timestamp of §1.5.
        case timestamp
        /// A dot: a replica id and a positive number (§11.3).
        case dot
        /// A clock: an object of replica ids and positive numbers (§11.3).
        case clock
        /// A field value that is a list (`urls`, `tags`).
        case list
        /// A field value that is a text (every field but `urls` and `tags`).
        case text
        /// A field value: a string or an array of strings.
        case textOrList
        /// A member name: 1 to 64 bytes of printable NFC text (§3.8).
        case memberName
        /// A sealed key of this many bytes.
        case sealedKey(bytes: Int)
        /// UTF-8 text.
        case utf8
    }

    /// Rules that tie parts (or files) together, and a few checks of one part beyond the shape of its members.
    public enum Mismatch: Equatable, Sendable {
        /// A scope id (a key of `scopes`) that is not a lowercase UUID (§3.12.1).
        case scopeID(String)
        /// A scope folder that is not a valid NFC entry path (§3.12.1).
        case scopeFolder(String)
        /// Two scope folders where one is or lies inside the other (§3.12.1: scopes do not nest).
        case scopesNest(String, String)
        /// The scope header at `path` belongs to another vault (§3.12.2).
        case scopeOfAnotherVault(path: String)
        /// The scope header at `path` names another scope id than its file name.
        case scopeIDNotFileName(path: String)
        /// The vault header does not list scope `scope` with folder `folder`.
        case scopeNotListed(scope: String, folder: String)
        /// The two sides' scope headers at `path` name another scope or folder (Spec/MERGE.md §8).
        case scopeDiffers(path: String)
        /// No scope with that id in the vault header.
        case noSuchScope(String)
        /// A header of `epoch` 1 with a `rekey`, or of a later epoch without one (§11.5).
        case rekeyAtEpoch(FilePart, epoch: UInt64)
        /// The rekey chain of the header of `epoch` does not hold `epoch` − 1 keys (§11.5).
        case rekeyChain(epoch: UInt64)
        /// `rekey.proofs` does not hold exactly one proof per earlier epoch (§11.5).
        case rekeyProofs
        /// A passphrase key slot's key opened to a key of the wrong length.
        case wrappedKeyLength(bytes: Int)
        /// An identity file's secret key does not belong to its `publicKey` (§3.10).
        case identityKeys
        /// The search cache is of another version (then it is rebuilt).
        case searchCacheVersion
        /// The search cache does not open with this vault's key (then it is rebuilt).
        case searchCacheKey
        /// `.gitattributes` is not the one tresor writes (it decides which merge driver git runs).
        case gitAttributes
        /// A root commit made with plain git on a vault's branch.
        case rootCommitMadeWithGit
    }

    /// Why a file was refused as malformed: which part, which member, what was expected.
    public enum FormatProblem: Equatable, Sendable {
        /// The file is larger than `limit` bytes.
        case tooLarge(FilePart, limit: Int)
        /// The file at `path` is larger than `limit` bytes (a read with a limit).
        case fileTooLarge(path: String, limit: Int)
        /// The file is empty.
        case empty(FilePart)
        /// Not JSON of Spec/FORMAT.md §1.3 (where and why, when the parser said; not given for decrypted payloads).
        case notJSON(FilePart, JSONValue.ParseError?)
        /// Not a JSON object (or not one with the members the part has).
        case notAnObject(FilePart)
        /// Member `name` of the part is missing or is not `expected`.
        case member(FilePart, name: String, expected: Expectation)
        /// A member `name` the part does not have in this version.
        case unexpectedMember(FilePart, name: String)
        /// More than `limit` of these parts.
        case tooMany(FilePart, limit: Int)
        /// Two of a part there may be one of (two recipient slots with one name or key, two vault slots).
        case duplicate(FilePart)
        /// A part that must be there is not (no passphrase key slot; a scope header's key slots: neither a recipient
        /// nor a vault slot).
        case missing(FilePart)
        /// The file at `path` (vault-relative) is not there.
        case missingFile(path: String)
        /// The part holds a dot its own clock does not cover (§11.3).
        case dotNotCovered(FilePart)
        /// The data ends inside a record.
        case truncated(FilePart)
        /// Parts or files that do not agree.
        case mismatch(Mismatch)
    }

    /// A byte string or key text that does not decode.
    public enum EncodingProblem: Equatable, Sendable {
        /// `member` of `part` is not canonical base64 (of `bytes` bytes, when the length is checked at once).
        case notBase64(FilePart, member: String, bytes: Int?)
        /// `member` of `part` decodes to another length than `bytes`.
        case wrongLength(FilePart, member: String, bytes: Int)
        /// `member` of `part` decodes to fewer than `minimum` bytes (a ciphertext shorter than its tag).
        case tooShort(FilePart, member: String, minimum: Int)
        /// A public key that does not start with `prefix`.
        case publicKeyPrefix(String)
        /// A public key that is not its prefix and 58 lowercase base32 characters.
        case publicKeyForm
        /// A public key whose checksum does not match (mistyped).
        case publicKeyChecksum
    }

    /// Argon2id parameters outside Spec/FORMAT.md §3.2.
    public enum KDFProblem: Equatable, Sendable {
        /// `ops` outside `allowed`.
        case ops(UInt64, allowed: ClosedRange<UInt64>)
        /// `mem` (bytes) outside `allowed`.
        case mem(UInt64, allowed: ClosedRange<UInt64>)
        /// A salt of `bytes` bytes, not `expected`.
        case saltLength(Int, expected: Int)
        /// An algorithm other than argon2id13 (nil: not a string).
        case algorithm(String?)
    }

    /// The payload rules of Spec/FORMAT.md §5.3 a field can break.
    public enum FieldRule: Equatable, Sendable {
        /// A name of 0 or more than 64 bytes.
        case nameLength
        /// A name with a control character.
        case nameControlCharacter
        /// A name that starts with `.` or contains `=`.
        case nameDotOrEquals
        /// A text given for `urls` or `tags`, which hold lists.
        case mustBeList
        /// A list given for a field other than `urls` and `tags`.
        case mustBeText
        /// A value that is not UTF-8 text.
        case notUTF8
    }

    /// What a file system path turned out to be.
    public enum FileType: Equatable, Sendable {
        /// A directory.
        case directory
        /// A named pipe.
        case fifo
        /// A Unix socket.
        case socket
        /// A character device.
        case characterDevice
        /// A block device.
        case blockDevice
        /// A symbolic link.
        case symbolicLink
        /// Anything else that is not a regular file.
        case other
    }

    /// The file system call that failed.
    public enum Operation: String, Equatable, Sendable {
        /// Opening or reading a file.
        case read
        /// Creating a (temporary) file.
        case create
        /// Writing or syncing a file.
        case write
        /// Renaming a temporary file onto its place.
        case replace
        /// Making a directory.
        case createDirectory
        /// Removing a file.
        case remove
    }

    /// A file system failure.
    public enum IOProblem: Equatable, Sendable {
        /// `operation` on `path` failed with `errno`.
        case failed(Operation, path: String, errno: Int32)
        /// `path` is not a regular file but `type`.
        case notRegularFile(path: String, type: FileType)
        /// `path` is in the way of a folder: it exists and is not a directory.
        case notADirectory(path: String)
        /// No entry file at `path` (to remove).
        case noEntryFile(path: String)
        /// An error of another layer, as Swift describes the value (`String(reflecting:)`); not expected: kept so
        /// that it is not lost.
        case other(String)
    }
}
