// Errors of TresorCore: format, crypto and store failures, each with a stable kind for vectors and scripts.
import Foundation

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
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unsupportedVersion(let v):
            return "unsupported format version \(v) (this tresor reads version \(FormatVersion.current))\nhint: upgrade tresor"
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
        case .differentVault(let ours, let theirs):
            return "cannot merge vault \(theirs) into vault \(ours): they are different vaults\nhint: check the remote's URL"
        }
    }
}

/// Format version constants.
public enum FormatVersion {
    /// The only version this implementation reads and writes (Spec/FORMAT.md §1).
    public static let current = 1
}
