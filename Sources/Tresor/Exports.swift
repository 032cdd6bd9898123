// The public face of the Tresor library. An app (or the `tresor` CLI) imports `Tresor` alone: the value types
// it needs from the implementation layers are re-exported here, one by one, and nothing else of TresorCore or
// TresorGit is visible to it. TresorInterchange (importers and exporters) is part of the face as a whole.
// Some of the types below are `package` (VaultHeader, RecipientSlot, FileSystem, Envelope, ProcessHardening): the
// CLI and the tests see them through these lines, an app does not (scripts/public-api.sh counts what it sees).

// Entries and their values (Spec/FORMAT.md §4–§5).
@_exported import struct TresorCore.Entry
@_exported import struct TresorCore.EntryPath
@_exported import struct TresorCore.Field
@_exported import enum TresorCore.FieldValue
@_exported import enum TresorCore.JSONValue
@_exported import struct TresorCore.Timestamp
@_exported import enum TresorCore.TextSearch
@_exported import struct TresorCore.StoreProblem
@_exported import struct TresorCore.MergeResolution
@_exported import struct TresorCore.Change
@_exported import struct TresorCore.Dot
@_exported import struct TresorCore.Clock
@_exported import struct TresorCore.PathWrite
@_exported import struct TresorCore.HistoryItem

// The acceptance rule's refusals (Spec/AUTH.md §5).
@_exported import struct TresorCore.AcceptanceRefusal
@_exported import enum TresorCore.AcceptanceRule

// Keys, secrets and the vault header.
@_exported import class TresorCore.SecretBytes
@_exported import struct TresorCore.SecretText
@_exported import struct TresorCore.SecretByteBuilder
@_exported import enum TresorCore.KDFLevel
@_exported import struct TresorCore.VaultHeader
@_exported import enum TresorCore.FormatVersion
@_exported import struct TresorCore.Identity
@_exported import struct TresorCore.RecipientKey
@_exported import struct TresorCore.RecipientSlot
@_exported import enum TresorCore.PassphraseRules
@_exported import enum TresorCore.PassphraseError

// The password generator, the strength estimate and one-time codes.
@_exported import enum TresorCore.Generator
@_exported import enum TresorCore.GeneratorPolicy
@_exported import struct TresorCore.PasswordPolicy
@_exported import struct TresorCore.PassphrasePolicy
@_exported import struct TresorCore.CharacterClasses
@_exported import struct TresorCore.GeneratedSecret
@_exported import enum TresorCore.GeneratorError
@_exported import struct TresorCore.SystemRandomSource
@_exported import enum TresorCore.StrengthEstimator
@_exported import struct TresorCore.StrengthEstimate
@_exported import struct TresorCore.TOTP
@_exported import enum TresorCore.OTPError

// Errors the library's own errors carry.
@_exported import enum TresorCore.CoreError
@_exported import enum TresorGit.GitError
@_exported import struct TresorGit.GitCommit
@_exported import struct TresorGit.GitSignature
@_exported import struct TresorGit.GitCredentials
@_exported import struct TresorGit.GitRemote
@_exported import struct TresorCore.SocketError

// Files written the way the vault writes them (0600, atomically) and process hardening, for front ends that
// put a decrypted view on disk for an editor or run git's merge driver.
@_exported import enum TresorCore.FileSystem
@_exported import struct TresorCore.Envelope
@_exported import enum TresorCore.ProcessHardening

// What the full Foundation gave the CLI and the package links no longer (FoundationEssentials only): NSString's
// path methods, CharacterSet's sets for trimming, hex, NSLock, writes to standard output and error.
@_exported import enum TresorCore.PathName
@_exported import struct TresorCore.ScalarSet
@_exported import enum TresorCore.Hex
@_exported import class TresorCore.ThreadLock
@_exported import enum TresorCore.StandardStream

// Importers and exporters.
@_exported import TresorInterchange
