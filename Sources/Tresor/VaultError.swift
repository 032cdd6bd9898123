// Errors of the vault layer, with the entry or file they concern and a next step where there is one.
import Foundation
import TresorCore
import TresorGit

/// Every failure the `Tresor` module reports. `errorDescription` is what the user reads.
public enum VaultError: Error, LocalizedError {
    case notAVault(String)
    case notARepository(String)
    case notAVaultRemote(String)
    case alreadyAVault(String)
    case directoryNotEmpty(String)
    case entryNotFound(String, suggestions: [String])
    case entryExists(String)
    case caseCollision(String, existing: String)
    case invalidPath(String, reason: String)
    /// A failure reading or writing one entry: the entry path comes first.
    case entry(String, CoreError)
    /// A failure with the vault header.
    case header(CoreError)
    case wrongPassphrase
    case git(GitError)
    case session(String)
    case nothingChanged(String)
    /// Content fetched from a remote that breaks the vault's rules; nothing was merged.
    case hostileRemote(String, String)
    case sync(String)
    case io(String)
    /// A Have I Been Pwned "Pwned Passwords" file or folder that cannot be used (path, what is wrong).
    case pwnedPasswords(String, PwnedPasswordsProblem)

    public var errorDescription: String? {
        switch self {
        case .notAVault(let d):
            return "\"\(d)\" is not a Tresor vault (no .tresor/vault.json)\nhint: run 'tresor init', or point --vault / TRESOR_VAULT at a vault"
        case .notARepository(let d):
            return "\"\(d)\" is a copy of a vault without its git repository: it can be read but not changed\nhint: work on a clone of the vault's repository to change it"
        case .notAVaultRemote(let url):
            return "the remote \"\(url)\" is not a Tresor vault (no .tresor/vault.json); nothing was kept"
        case .alreadyAVault(let d): return "\"\(d)\" is already a Tresor vault"
        case .directoryNotEmpty(let d): return "\"\(d)\" exists and is not empty\nhint: choose a new or empty directory"
        case .entryNotFound(let p, let s):
            return "no entry \"\(p)\"" + (s.isEmpty ? "\nhint: 'tresor ls' lists entries" : "\nhint: did you mean " + s.map { "\"\($0)\"" }.joined(separator: ", ") + "?")
        case .entryExists(let p): return "entry \"\(p)\" already exists\nhint: use --force to replace it, or 'tresor edit'"
        case .caseCollision(let p, let e):
            return "\"\(p)\" differs only by case from existing \"\(e)\"; such names collide on macOS and Windows\nhint: use the existing name or a different one"
        case .invalidPath(let p, let r): return "invalid entry path \"\(p)\": \(r)"
        case .entry(let p, let e): return "entry \"\(p)\": \(e.errorDescription ?? "\(e)")"
        case .header(let e): return "vault header \(VaultHeader.relativePath): \(e.errorDescription ?? "\(e)")"
        case .wrongPassphrase: return "wrong passphrase"
        case .git(let e): return e.errorDescription ?? "\(e)"
        case .session(let m): return m
        case .nothingChanged(let m): return m
        case .hostileRemote(let file, let why):
            return "refusing \"\(file)\" from the remote: \(why)\nhint: nothing was merged; the local vault is unchanged"
        case .sync(let m): return m
        case .io(let m): return m
        case .pwnedPasswords(let path, let problem):
            switch problem {
            case .missing: return "no Pwned Passwords file or folder at \"\(path)\""
            case .unreadable: return "cannot read the Pwned Passwords data \"\(path)\""
            case .malformed(let offset): return "\"\(path)\" is not a Pwned Passwords SHA-1 file: bad line at byte \(offset)\nhint: use the SHA-1 version ordered by hash (HASH:COUNT lines), or a folder of its range files"
            case .notSHA1: return "\"\(path)\" holds NTLM hashes, not SHA-1\nhint: use the SHA-1 version of Pwned Passwords"
            case .incompleteFolder: return "the Pwned Passwords folder \"\(path)\" lacks range files\nhint: download all 1,048,576 range files, or use the single ordered file"
            }
        }
    }
}
