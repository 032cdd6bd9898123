// Plain Swift values the git layer hands out: signatures, commits and changed paths.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who made a commit. libgit2 rejects names or emails containing `<`, `>` or newlines.
public struct GitSignature: Sendable, Equatable {
    public var name: String
    public var email: String

    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

/// One commit as read from history.
public struct GitCommit: Sendable, Equatable {
    /// Full 40-character hex id.
    public var id: String
    /// Parent ids, first parent first; empty for a root commit, two for a merge.
    public var parents: [String]
    public var author: GitSignature
    /// The author date (what `git log` shows), to the second.
    public var date: Date
    /// The full message, as stored (normally ending in a newline).
    public var message: String
    /// The first paragraph of the message, on one line.
    public var summary: String
}

/// A path changed by a commit, relative to the work tree with `/` separators.
package struct GitChange: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case added
        case modified
        case deleted
        /// Moved from `from` without changing its content (content-changing moves appear as
        /// a deletion plus an addition, because encrypted files share no similar lines).
        case renamed(from: String)
    }

    package var path: String
    package var kind: Kind

    package init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}
