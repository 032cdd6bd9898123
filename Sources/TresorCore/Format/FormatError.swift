// Errors of TresorCore: format, crypto and store failures, each with a stable kind for vectors and scripts.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every failure TresorCore reports. `kind` is the stable name used by Spec/vectors. The cases carry what was found
/// and where (the kind of file, the member, the rule broken, the errno), never prose: an app words them (the `tresor`
/// CLI does so in one place).
public enum CoreError: Error, Equatable, Sendable {
    /// The file names a format version this reader does not implement.
    case unsupportedVersion(Int)
    /// Not JSON, or JSON of the wrong shape (missing/extra/mistyped member), or parts that do not agree.
    case malformed(FormatProblem)
    /// A byte string that is not canonical base64 or has the wrong length; a mistyped public key.
    case badEncoding(EncodingProblem)
    /// Argon2id parameters outside the bounds of Spec/FORMAT.md §3.2.
    case kdfOutOfBounds(KDFProblem)
    /// AEAD authentication failed: wrong key or changed bytes.
    case authenticationFailed
    /// No key slot opened with the passphrase.
    case wrongPassphrase
    /// The path inside the ciphertext is not the path of the file (an entry copied or moved by hand).
    case pathMismatch(inner: String, outer: String)
    /// An entry path (as given) that breaks `rule` of Spec/FORMAT.md §4.2.
    case invalidPath(String, rule: EntryPath.Rule)
    /// A field `name` (or its value) that breaks `rule` of the payload (Spec/FORMAT.md §5.3).
    case invalidField(name: String, rule: FieldRule)
    /// A file system failure.
    case io(IOProblem)
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

    /// The stable name of the case, as Spec/vectors and the CLI's JSON output give it (`malformed`, `invalid-path`, …).
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
