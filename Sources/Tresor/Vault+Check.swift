// `tresor fsck`: decrypt every entry and check paths, ids, permissions, the work tree and git's lock files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

/// One problem found by `check`, attached to the file it concerns.
public struct CheckProblem: Equatable, Sendable {
    /// What is wrong with the file.
    public enum Kind: Equatable, Sendable {
        /// The listing found a file that is not an entry it can read (bad name, link, not a regular file).
        case listing(StoreProblem)
        /// The entry does not open.
        case unreadable(VaultError)
        /// Two files hold the same entry id.
        case duplicateID(id: String, other: String)
        /// Two names differ only by case or normalisation.
        case caseCollision(other: String)
        /// Readable by other users: `mode` instead of `expected`.
        case permissions(mode: UInt32, expected: UInt32)
        /// A file that is not in the last commit, or differs from it.
        case notCommitted
        /// A temporary file of an interrupted write.
        case temporaryFile
        /// A git lock file, `age` seconds old.
        case gitLock(age: TimeInterval)
        /// An interrupted change the next command finishes (or could not finish: see the warnings).
        case unfinishedTransaction
    }

    /// Vault-relative file path.
    public let file: String
    /// What is wrong with it.
    public let kind: Kind
}

/// An entry file sealed under a key this process does not hold: its envelope, place and id were checked, its
/// contents could not be (Spec/FORMAT.md §3.12.6, what a replica without a key cannot check).
public struct UncheckedEntry: Equatable, Sendable {
    /// Vault-relative file path.
    public let file: String
    /// The folder of the scope whose key seals it; nil for the vault key (a scope-only member).
    public let scope: String?
}

/// What `check` looked at and what it found.
public struct CheckReport: Sendable {
    /// Entries decrypted and checked in full.
    public var entriesChecked = 0
    /// Every problem found, by file.
    public var problems: [CheckProblem] = []
    /// Entries under keys not held: not problems.
    public var notChecked: [UncheckedEntry] = []
}

extension Vault {
    /// Checks the whole vault. Needs `unlock`. Nothing is changed. Entries under keys this process does not hold
    /// (a closed scope, or the vault key for a scope-only member) are checked as far as that goes and listed in
    /// `notChecked`, not as problems.
    public func check(progress: VaultProgressHandler? = nil) throws -> CheckReport {
        var report = CheckReport()
        func problem(_ file: String, _ kind: CheckProblem.Kind) { report.problems.append(CheckProblem(file: file, kind: kind)) }

        let (paths, listing) = store.entryPaths()
        for p in listing { problem(p.file, .listing(p)) }
        var ids: [String: EntryPath] = [:]
        var folded: [String: EntryPath] = [:]
        for (path, result) in try decrypt(paths, progress: progress) {
            if case .failure(.noKeyFor) = result {} else { report.entriesChecked += 1 }
            switch result {
            case .success(let entry):
                if let first = ids[entry.id] { problem(path.filePath, .duplicateID(id: entry.id, other: first.filePath)) }
                else { ids[entry.id] = path }
            case .failure(.noKeyFor(_, let scope)):
                // Sealed under a key not held: the envelope (Spec/FORMAT.md §6.2 steps 1–7) and its id are checked,
                // the contents are not.
                do {
                    let envelope = try Envelope.parse(try store.readEntryFile(path))
                    report.notChecked.append(UncheckedEntry(file: path.filePath, scope: scope))
                    if let first = ids[envelope.id] { problem(path.filePath, .duplicateID(id: envelope.id, other: first.filePath)) }
                    else { ids[envelope.id] = path }
                } catch let e as CoreError { problem(path.filePath, .unreadable(.entry(path: path.string, e))) }
                catch let e as VaultError { problem(path.filePath, .unreadable(e)) }
                catch { problem(path.filePath, .unreadable(.entry(path: path.string, .io(.other(String(reflecting: error)))))) }
            case .failure(let e):
                problem(path.filePath, .unreadable(e))
            }
            if let other = folded[path.collisionKey] { problem(path.filePath, .caseCollision(other: other.filePath)) }
            else { folded[path.collisionKey] = path }
        }
        checkPermissions(&report)
        if FileSystem.kind(root + "/.git") == .directory {
            let repo = try repository()
            for p in try Vault.git({ try repo.uncommittedPaths() }) where !p.hasPrefix(".git/") {
                problem(p, EntryStore.isTemporary(p) ? .temporaryFile : .notCommitted)
            }
            for lock in [".git/index.lock", ".git/HEAD.lock", ".git/refs/heads/main.lock", ".git/packed-refs.lock"] {
                if let age = Vault.age(of: root + "/" + lock) { problem(lock, .gitLock(age: age)) }
            }
            if FileSystem.kind(root + "/" + Journal.relativePath) != .missing { problem(Journal.relativePath, .unfinishedTransaction) }
        }
        report.problems.sort { ($0.file, "\($0.kind)") < ($1.file, "\($1.kind)") }
        report.notChecked.sort { $0.file < $1.file }
        return report
    }

    /// Files must be 0600 and folders 0700: nothing readable by other users.
    private func checkPermissions(_ report: inout CheckReport) {
        func walk(_ rel: String) {
            for name in FileSystem.list(rel.isEmpty ? root : store.absolute(rel)) where name != ".git" {
                let r = rel.isEmpty ? name : rel + "/" + name
                let kind = FileSystem.kind(store.absolute(r))
                guard kind == .file || kind == .directory, let mode = FileSystem.mode(store.absolute(r)) else { continue }
                if mode & 0o077 != 0 {
                    report.problems.append(CheckProblem(file: r, kind: .permissions(mode: mode, expected: kind == .file ? 0o600 : 0o700)))
                }
                if kind == .directory { walk(r) }
            }
        }
        walk("")
    }
}
