// `tresor fsck`: decrypt every entry and check paths, ids, permissions and the repository.
import Foundation
import TresorCore
import TresorGit

/// One problem found by `check`, attached to the file it concerns.
public struct CheckProblem: Equatable, Sendable {
    public let file: String
    public let message: String
}

/// What `check` looked at and what it found.
public struct CheckReport: Sendable {
    public var entriesChecked = 0
    public var problems: [CheckProblem] = []
}

extension Vault {
    /// Checks the whole vault. Needs `unlock`. Nothing is changed.
    public func check() throws -> CheckReport {
        var report = CheckReport()
        func problem(_ file: String, _ message: String) { report.problems.append(CheckProblem(file: file, message: message)) }

        let (paths, listing) = store.entryPaths()
        for p in listing { problem(p.file, p.message) }
        var ids: [String: EntryPath] = [:]
        var folded: [String: EntryPath] = [:]
        for (path, result) in try decrypt(paths) {
            report.entriesChecked += 1
            switch result {
            case .success(let entry):
                if let first = ids[entry.id] {
                    problem(path.filePath, "same entry id \(entry.id) as \"\(first.filePath)\" (copied outside tresor?)\nhint: 'tresor cp' gives a copy its own id")
                } else { ids[entry.id] = path }
            case .failure(.entry(_, let e)):
                problem(path.filePath, e.errorDescription ?? "\(e)")
            case .failure(let e):
                problem(path.filePath, e.errorDescription ?? "\(e)")
            }
            if let other = folded[path.collisionKey] {
                problem(path.filePath, "differs only by case from \"\(other.filePath)\"; they collide on macOS and Windows")
            } else { folded[path.collisionKey] = path }
        }
        checkPermissions(&report)
        do {
            for p in try repository().uncommittedPaths() where !p.hasPrefix(".git/") {
                if EntryStore.isTemporary(p) {
                    problem(p, "left over from an interrupted write; it holds nothing stored\nhint: 'tresor sync' removes it, or delete it")
                    continue
                }
                problem(p, "not committed\nhint: changes made outside tresor are not synced; commit or remove them")
            }
        } catch let e as VaultError { problem(".git", e.errorDescription ?? "\(e)") }
        report.problems.sort { ($0.file, $0.message) < ($1.file, $1.message) }
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
                    report.problems.append(CheckProblem(
                        file: r, message: String(format: "permissions %04o let other users read it (expected %04o)\nhint: chmod %o \"%@\"",
                                                 mode, kind == .file ? 0o600 : 0o700, kind == .file ? 0o600 : 0o700, store.absolute(r))))
                }
                if kind == .directory { walk(r) }
            }
        }
        walk("")
    }
}
