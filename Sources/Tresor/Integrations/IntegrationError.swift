// Errors of the ways other programs use the vault: secret references, ssh keys and the ssh agent.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every failure of a secret reference, an ssh key kept in an entry, or the ssh agent. The cases say what failed
/// and where; the CLI phrases them.
package enum IntegrationError: Error, Equatable, Sendable {
    /// `reference` is not a `tresor://` reference: `problem` says why.
    case invalidReference(reference: String, problem: ReferenceProblem)
    /// The entry of `reference` has no field `field`; `available` are the fields it has.
    case noSuchField(reference: String, path: String, field: String, available: [String])
    /// The value of `reference` cannot be used where it is needed (an environment variable cannot hold a NUL byte).
    case unusableValue(reference: String, problem: ValueProblem)

    /// The field `field` of entry `path` does not hold an ssh private key tresor can add: `problem` says why.
    case sshKey(path: String, field: String, problem: SSHKeyProblem)
    /// No ssh agent to talk to: `SSH_AUTH_SOCK` is unset, or connecting to `socket` failed with `errno`.
    case sshAgentUnavailable(socket: String?, errno: Int32)
    /// The agent at `socket` broke off or answered what the protocol does not allow.
    case sshAgentProtocol(socket: String)
    /// The agent refused the request (`SSH_AGENT_FAILURE`): adding a key with constraints it does not support,
    /// or removing a key it does not hold.
    case sshAgentRefused(socket: String, request: SSHAgentRequest)

    /// A file name the browser extension sent (`HOST/ENTRY.gpg`) that names no entry served to it: `problem` says why.
    case browserFile(file: String, problem: BrowserFileProblem)

    package enum BrowserFileProblem: Equatable, Sendable {
        /// It does not end in `.gpg`.
        case fileExtension
        /// It has no `/` after the host.
        case noHost
        /// Its entry part is not a valid entry path (the rule it breaks; nil: its percent-encoding is bad).
        case path(EntryPath.Rule?)
        /// The entry exists but none of its URLs has this host (or, under `(no url)`, it has URLs).
        case notUnderHost(path: String)
        /// The entry exists but has no password, or a password or user name of several lines: it is not served.
        case notServed(path: String)
        /// The one-time code secret of a `save` does not parse.
        case otp(OTPError)
    }

    package enum ReferenceProblem: Equatable, Sendable {
        /// It does not start with `tresor://`.
        case scheme
        /// Fewer than two components (an entry path and a field).
        case tooShort
        /// An empty component (`//`, or a `/` at the end).
        case emptyComponent
        /// A `%` not followed by two hexadecimal digits.
        case percentEncoding
        /// Percent-decoded bytes that are not UTF-8.
        case notUTF8
        /// The entry path breaks this rule of Spec/FORMAT.md §4.2.
        case path(EntryPath.Rule)
        /// The field name (`name`, decoded) breaks this rule of Spec/FORMAT.md §5.3.
        case field(name: String, CoreError.FieldRule)
    }

    package enum ValueProblem: Equatable, Sendable {
        /// A NUL byte, which an environment variable cannot hold.
        case nulByte
    }

    package enum SSHKeyProblem: Equatable, Sendable {
        /// The entry has no such field.
        case missing
        /// Not an OpenSSH private key (`-----BEGIN OPENSSH PRIVATE KEY-----`); `pem` when it is an older PEM key.
        case notOpenSSH(pem: Bool)
        /// The key is protected by a passphrase (cipher `cipher`), which tresor does not decrypt.
        case encrypted(cipher: String)
        /// A key type tresor does not add (`type`, e.g. a security-key type).
        case unsupportedType(type: String)
        /// The file holds `count` keys; tresor adds files of one key.
        case keyCount(count: Int)
        /// The key's encoding is damaged (bad base64, a length past the end, check numbers that differ).
        case malformed
    }

    package enum SSHAgentRequest: Equatable, Sendable {
        case add, remove
    }
}
