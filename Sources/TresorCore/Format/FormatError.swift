// Errors of TresorCore: format, crypto and store failures, each with a stable kind for vectors and scripts.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every failure TresorCore reports. `kind` is the stable name used by Spec/vectors.
public enum CoreError: Error, Equatable, LocalizedError {
    /// The file names a format version this reader does not implement.
    case unsupportedVersion(Int)
    /// Not JSON, or JSON of the wrong shape (missing/extra/mistyped member).
    case malformed(String)
    /// A byte string that is not canonical base64 or has the wrong length.
    case badEncoding(String)
    /// Argon2id parameters outside the bounds of Spec/FORMAT.md §3.2.
    case kdfOutOfBounds(String)
    /// AEAD authentication failed: wrong key or changed bytes.
    case authenticationFailed
    /// No key slot opened with the passphrase.
    case wrongPassphrase
    /// The path inside the ciphertext is not the path of the file (an entry copied or moved by hand).
    case pathMismatch(inner: String, outer: String)
    /// An entry path that breaks the rules of Spec/FORMAT.md §4.
    case invalidPath(String, reason: String)
    /// A field name or value that breaks the payload rules.
    case invalidField(String)
    /// A file system failure.
    case io(String)
    /// A symbolic link where a file or directory was expected.
    case symlink(String)
    /// Two vault headers with different vault ids cannot be merged (Spec/MERGE.md §10).
    case differentVault(ours: String, theirs: String)
    /// A version 2 header whose authentication tag does not verify with the vault key: it was changed by
    /// someone who does not hold the key (Spec/FORMAT.md §3.5).
    case headerNotAuthentic
    /// A version 2 header older (by `generation`) than one this replica already has: a replay.
    case headerReplayed(generation: UInt64, minimum: UInt64)
    /// No recipient key slot is sealed to the identity's public key (Spec/FORMAT.md §3.8).
    case notARecipient
    /// A member of that name or public key is already in the header.
    case memberExists(String)
    /// No member of that name.
    case noSuchMember(String)

    public var kind: String {
        switch self {
        case .unsupportedVersion: return "unsupported-version"
        case .malformed: return "malformed"
        case .badEncoding: return "bad-encoding"
        case .kdfOutOfBounds: return "kdf-out-of-bounds"
        case .authenticationFailed: return "authentication-failed"
        case .wrongPassphrase: return "wrong-passphrase"
        case .pathMismatch: return "path-mismatch"
        case .invalidPath: return "invalid-path"
        case .invalidField: return "invalid-field"
        case .io: return "io"
        case .symlink: return "symlink"
        case .differentVault: return "different-vault"
        case .headerNotAuthentic: return "header-not-authentic"
        case .headerReplayed: return "header-replayed"
        case .notARecipient: return "not-a-recipient"
        case .memberExists: return "member-exists"
        case .noSuchMember: return "no-such-member"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unsupportedVersion(let v):
            return "unsupported format version \(v) (this tresor reads entry versions 1 and \(FormatVersion.entry) and header versions 1 to \(FormatVersion.newestHeader))\nhint: a newer tresor wrote it: upgrade tresor"
        case .malformed(let why): return "not a valid Tresor file: \(why)"
        case .badEncoding(let what): return "bad encoding: \(what)"
        case .kdfOutOfBounds(let why): return "key derivation parameters refused: \(why)"
        case .authenticationFailed: return "decryption failed: the file was modified or belongs to another vault"
        case .wrongPassphrase: return "wrong passphrase"
        case .pathMismatch(let inner, let outer):
            return "entry file \"\(outer)\" holds entry \"\(inner)\": it was moved or copied outside tresor\nhint: move it back, or use 'tresor mv'"
        case .invalidPath(let p, let reason): return "invalid entry path \"\(p)\": \(reason)"
        case .invalidField(let why): return "invalid field: \(why)"
        case .io(let why): return why
        case .symlink(let p): return "\"\(p)\" is a symbolic link; tresor never follows links inside a vault"
        case .headerNotAuthentic:
            return "the vault header's authentication tag does not verify: it was changed by someone who does not hold the vault key"
        case .headerReplayed(let g, let m):
            return "an older vault header (generation \(g), this replica has \(m)) was put back: a replay of an earlier state"
        case .notARecipient: return "the identity is not a member of this vault (no recipient key slot is sealed to its public key)"
        case .memberExists(let name): return "a member \"\(name)\" with this name or public key is already in the vault"
        case .noSuchMember(let name): return "no member \"\(name)\" in the vault"
        case .differentVault(let ours, let theirs):
            return "cannot merge vault \(theirs) into vault \(ours): they are different vaults\nhint: check the remote's URL"
        }
    }
}

/// Format version constants (Spec/FORMAT.md §1.4, §11.1).
package enum FormatVersion {
    /// The entry envelope version written (Spec/FORMAT.md §11.8): payloads with dots and clocks.
    package static let entry = 2
    /// The envelope of vaults of versions 1–4, read only to convert them (Spec/FORMAT.md §11.10).
    package static let entryVersion1 = 1
    /// The vault header version written: authenticated state (Spec/FORMAT.md §11). Versions 1–4 are read to convert them.
    package static let header = 5
    /// Version 4: version 3 with scopes (Spec/FORMAT.md §3.12.1), the last version before authenticated state.
    package static let scopedHeader = 4
    package static let newestHeader = 5
    /// The scope header version of a version 5 vault (Spec/FORMAT.md §11.11); version 1 belongs to version 4 vaults.
    package static let scopeHeader = 2
    /// The version of the passphrase key slot format, named in a slot's additional data (unchanged in
    /// header version 2).
    static let keySlot = 1
}
