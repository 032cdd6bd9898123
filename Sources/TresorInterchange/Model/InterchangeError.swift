// Errors of the import and export layer, with the file or item they concern; the CLI words them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Why an item of the source was not imported.
public enum SkipReason: Equatable, Sendable {
    /// An entry is already at the path and the import does not replace it.
    case exists(path: String)
    /// An entry is already at the path with the same values.
    case identical(path: String)
    /// The path differs only by case from an existing entry's.
    case caseCollision(path: String, existing: String)
    /// No valid entry path could be made (the rule that failed).
    case invalidPath(String)
    /// A field the entry cannot hold (invalid UTF-8, a name that stays invalid).
    case invalidField(String)
    /// In the source's recycle bin or trash.
    case deleted
    /// A kind of item this reader does not import (e.g. a file attachment or an `.age` secret).
    case unsupported(String)
    /// The item could not be decrypted or parsed (the underlying message).
    case unreadable(String)
}

/// Every failure of TresorInterchange. Cases carry the file, item and underlying cause; the CLI words them.
public enum InterchangeError: Error {
    /// The source file or directory is missing or unreadable (path, errno text).
    case cannotRead(path: String, reason: String)
    /// The source is not in the expected format (path, what was wrong).
    case malformed(path: String, reason: String)
    /// The source is encrypted with a key the caller did not give, or the key is wrong.
    case wrongKey(path: String)
    /// The source uses a feature this reader does not implement (path, feature).
    case unsupported(path: String, feature: String)
    /// A helper program (gpg) is missing or failed (program, file, its exit status, its stderr).
    case toolFailed(program: String, path: String, status: Int32, message: String)
    /// An output that would overwrite something (path).
    case outputExists(path: String)
    /// An output could not be written (path, reason).
    case cannotWrite(path: String, reason: String)
    /// A value an export format cannot represent (entry path, what).
    case unrepresentable(path: String, reason: String)
    /// A Tresor-level failure (invalid path, field) while converting.
    case core(CoreError)
}
