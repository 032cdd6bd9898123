// Entry operations of a vault: list, find, read, add, save an edit, remove, move, copy — each change one transaction.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TresorCore
import TresorGit

/// What saving an edit did.
public struct SaveOutcome: Sendable {
    /// The entry as committed (nil when nothing changed).
    public var entry: Entry?
    /// The fields whose value the commit changed.
    public var changedFields: [String]
    /// The entry had changed since it was read and the two versions were merged field by field; these
    /// are the merge's decisions (losing values are in the entry's history).
    public var resolutions: [MergeResolution]
    /// Whether the edit was merged with a version committed since it was read.
    public var merged: Bool
    /// Where the entry ended up when it had been moved meanwhile, or was re-created elsewhere because
    /// its path had been taken by another entry.
    public var path: EntryPath?
}

extension Vault {
    /// Entry paths (optionally below a folder prefix), with problems met while listing.
    public func list(prefix: String? = nil) -> (paths: [EntryPath], problems: [StoreProblem]) {
        let listing = listing(prefix: prefix)
        return (listing.paths, listing.problems)
    }

    /// `list(prefix:)` as bytes, one path per line, for a program that writes them out as they are.
    package func listing(prefix: String? = nil) -> EntryListing {
        let all = store.entryListing()
        guard let prefix, !prefix.isEmpty else { return all }
        return all.below(prefix.nfc.trimming(ScalarSet(charactersIn: "/")))
    }

    /// Entry paths whose path contains `text`, case-insensitively.
    public func find(_ text: String) -> [EntryPath] {
        let needle = text.nfc.lowercased()
        return store.entryPaths().paths.filter { TextSearch.contains($0.string, lowercasedNeedle: needle) }
    }

    /// Validates a path typed by a person: it is the entry path itself, exactly as `ls` prints it
    /// (`x.json` is the entry whose file is `x.json.json`). - Throws: `VaultError.invalidPath`.
    package static func parsePath(_ raw: String) throws -> EntryPath {
        do { return try EntryPath(raw) } catch CoreError.invalidPath(_, let rule) { throw VaultError.invalidPath(path: raw, rule: rule) }
    }

    /// An existing entry's path; `entryRemoved` when the vault's history has an entry there (its removal or move is
    /// the last commit that touched it), else `entryNotFound` with close names.
    package func existingPath(_ raw: String) throws -> EntryPath {
        let p = try Vault.parsePath(raw)
        switch store.kind(of: p) {
        case .file: return p
        case .symlink: throw VaultError.entry(path: p.string, .symlink(p.filePath))
        case .missing:
            // The last commit that touched it, among the latest few thousand: a quick answer even on a long history.
            // (A copy without its repository has no history to look in: then simply not found.)
            if let repo = try? repository(), let last = try Vault.git({ try repo.log(path: p.filePath, limit: 1, scanning: 5000) }).first {
                throw VaultError.entryRemoved(path: p.string, commit: last.id, summary: last.summary, date: last.date)
            }
            throw VaultError.entryNotFound(path: p.string, suggestions: suggestions(for: p.string))
        default: throw VaultError.entry(path: p.string, .io(.notRegularFile(path: p.filePath, type: store.kind(of: p) == .directory ? .directory : .other)))
        }
    }

    /// Up to three entry paths close to `text`: the path without a `.json` typed after it, the same name in
    /// another folder, a substring, or a small edit distance.
    package func suggestions(for text: String) -> [String] {
        let all = store.entryPaths().paths.map(\.string)
        var exact: [String] = []
        if text.hasSuffix(EntryPath.fileExtension), all.contains(String(text.dropLast(EntryPath.fileExtension.count))) {
            exact.append(String(text.dropLast(EntryPath.fileExtension.count)))
        }
        let t = text.lowercased()
        let last = EntryPath.split(t).last ?? t
        let scored = all.compactMap { p -> (Int, String)? in
            let l = p.lowercased()
            let name = EntryPath.split(l).last ?? l
            if name == last { return (0, p) }
            let d = min(Vault.editDistance(l, t), Vault.editDistance(name, last))
            if d <= (last.count >= 4 ? max(2, last.count / 3) : 1) { return (d, p) }
            if l.contains(t) || (last.count >= 3 && name.contains(last)) { return (3, p) }
            return nil
        }
        return Array((exact + scored.sorted { $0 < $1 }.map(\.1).filter { !exact.contains($0) }).prefix(3))
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// Whether an entry file is at `path` in the work tree (no key needed).
    public func contains(_ path: EntryPath) -> Bool { store.kind(of: path) == .file }

    /// An existing file or folder in the work tree whose name differs from one of `path`'s components only
    /// by case or normalisation (Spec/FORMAT.md §4.3), or nil.
    package func caseCollision(for path: EntryPath) -> String? { store.caseCollision(for: path) }

    /// Refuses early when the vault cannot be changed (a copy without its `.git`).
    /// - Throws: `VaultError.notARepository`.
    package func checkWritable() throws { _ = try repository() }

    /// Decrypts one entry from the work tree, checking that its inner path matches its file.
    public func read(_ path: EntryPath) throws -> Entry {
        let cipher = try cipher(for: path, header: header)
        do { return try cipher.open(try store.readEntryFile(path), expectedPath: path) }
        catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
    }

    /// Decrypts every entry (optionally below a prefix), in path order, on all cores. Failures are
    /// returned per entry, not thrown.
    /// `progress` hears of the entries decrypted.
    public func readAll(prefix: String? = nil, progress: VaultProgressHandler? = nil) throws -> [(path: EntryPath, result: Result<Entry, VaultError>)] {
        try decrypt(list(prefix: prefix).paths, progress: progress)
    }

    /// Decrypts `paths` on all cores, results in the same order; `progress` is called under a lock.
    func decrypt(_ paths: [EntryPath], progress: VaultProgressHandler? = nil) throws -> [(path: EntryPath, result: Result<Entry, VaultError>)] {
        guard isUnlocked else { throw VaultError.vaultLocked }
        let header = self.header
        let ciphers = paths.map { p in Result { try cipher(for: p, header: header) }.mapError { $0 as? VaultError ?? .vaultLocked } }
        var results = [Result<Entry, VaultError>?](repeating: nil, count: paths.count)
        let lock = ThreadLock()
        var done = 0
        let chunks = max(1, min(paths.count, ProcessInfo.processInfo.activeProcessorCount * 4))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for i in stride(from: chunk, to: paths.count, by: chunks) {
                let r: Result<Entry, VaultError>
                do { r = .success(try ciphers[i].get().open(try store.readEntryFile(paths[i]), expectedPath: paths[i])) }
                catch let e as VaultError { r = .failure(e) }
                catch let e as CoreError { r = .failure(.entry(path: paths[i].string, e)) }
                catch { r = .failure(.entry(path: paths[i].string, .io(.other(String(reflecting: error))))) }
                lock.lock()
                results[i] = r
                done += 1
                progress?(.entries(done: done, total: paths.count))
                lock.unlock()
            }
        }
        return zip(paths, results).map { ($0, $1!) }
    }

    /// An early check, before asking a person anything, that `path` can be created (the transaction
    /// checks again). - Throws: `VaultError.entryExists` (unless `force`), `.caseCollision`, `.entry`.
    package func checkNew(_ path: EntryPath, force: Bool) throws {
        // Before asking anything: the key that will seal it (Spec/FORMAT.md §3.12.3).
        if isUnlocked { _ = try cipher(for: path, header: header) }
        switch store.kind(of: path) {
        case .missing: break
        case .file: if !force { throw VaultError.entryExists(path: path.string) }
        case .symlink: throw VaultError.entry(path: path.string, .symlink(path.filePath))
        default: throw VaultError.entry(path: path.string, .io(.notRegularFile(path: path.filePath, type: store.kind(of: path) == .directory ? .directory : .other)))
        }
        if let other = store.caseCollision(for: path) { throw VaultError.caseCollision(path: path.string, existing: other) }
    }

    /// The change an edit made before its transaction makes (a person at an editor): stamped now by this clone, with
    /// `Dot.placeholder`, which the transaction that saves it replaces by its own dot.
    package var pendingChange: Change { Change(time: Timestamp.now(), origin: deviceID, dot: .placeholder) }

    /// A new entry at `path` holding `fields`, each stamped now by this clone (`deviceID`); not yet saved.
    /// - Throws: `VaultError.entry` for a field name or value the format does not allow (Spec/FORMAT.md §5).
    package func makeEntry(_ path: EntryPath, fields: [String: FieldValue]) throws -> Entry {
        let change = pendingChange
        var entry = Entry(path: path, change: change)
        do {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) { try entry.set(name, value, change: change) }
        } catch let e as CoreError { throw VaultError.entry(path: path.string, e) }
        return entry
    }

    /// Adds a new entry holding `fields` (stamped by `makeEntry`) as one commit.
    @discardableResult
    public func add(_ path: EntryPath, fields: [String: FieldValue], force: Bool = false) throws -> Entry {
        try add(try makeEntry(path, fields: fields), force: force)
    }

    /// Changes fields of `original`, an entry as it was read (perhaps before a person spent a while in an
    /// editor): each value in `changes` is set, each nil removes the field, and a value equal to the current one
    /// changes nothing. Stamped now by this clone, then saved with `save(_:basedOn:message:)`, so whatever changed
    /// meanwhile is merged. Returns nil, committing nothing, when no field would change.
    /// - Throws: `VaultError.entry` for a field the format does not allow, and the errors of `save`.
    public func edit(_ original: Entry, changes: [String: FieldValue?], message: String? = nil) throws -> SaveOutcome? {
        let change = pendingChange
        var entry = original
        var changed = false
        do {
            for (name, value) in changes.sorted(by: { $0.key < $1.key }) where try entry.set(name, value, change: change) {
                changed = true
            }
        } catch let e as CoreError { throw VaultError.entry(path: original.path.string, e) }
        guard changed else { return nil }
        return try save(entry, basedOn: original, message: message)
    }

    /// Adds a new entry (or replaces the one at its path with `force`). Commits "Add PATH". Returns the entry as stored
    /// (its values carry the change's dot).
    /// - Throws: `VaultError.entryExists`, `.caseCollision`, and the errors of `transaction`.
    @discardableResult
    public func add(_ entry: Entry, force: Bool = false) throws -> Entry {
        try transaction { txn in
            let replacing = try txn.contains(entry.path)
            try txn.checkNew(entry.path, replacing: force)
            let stored = entry.redotted(to: txn.change.dot)
            try txn.put(stored)
            txn.message = "\(replacing ? "Replace" : "Add") \(entry.path)"
            return stored
        }
    }

    /// Saves `edited`, a copy of `original` as it was read (perhaps long ago, before a person edited it) changed by
    /// edits made with `pendingChange`: the transaction gives those edits its dot. If the entry changed meanwhile, the
    /// stored version and `edited` are joined (Spec/MERGE.md §5: nothing is lost, losing values go to the history). An
    /// entry moved meanwhile is found by its id; one removed meanwhile is saved again (its edit is one the removal did
    /// not see). Commits "Edit PATH: fields" (or `message`) unless nothing changed.
    public func save(_ edited: Entry, basedOn original: Entry, message: String? = nil) throws -> SaveOutcome {
        try transaction { txn in
            var outcome = SaveOutcome(entry: nil, changedFields: [], resolutions: [], merged: false, path: nil)
            let current = try txn.entry(at: original.path).flatMap { $0.id == original.id ? $0 : nil }
                ?? findByID(original.id, in: txn)
            // The edit is made again, now, on what is stored: a change made meanwhile (by another process of this
            // replica, or a sync) stays, and values it replaced go to the history.
            var final: Entry
            do { final = try Entry.rebasing(edited, from: original, onto: current ?? original, change: txn.change) }
            catch let e as CoreError { throw VaultError.entry(path: edited.path.string, e) }
            if let current, !current.isIdentical(to: original) {
                outcome.merged = true
                // A field this edit changes that was changed meanwhile: the edit's value is current, the other in history.
                for name in Set(original.fields.keys).union(edited.fields.keys).sorted()
                where original.fields[name]?.value != edited.fields[name]?.value && current.fields[name] != original.fields[name] {
                    guard let loser = current.fields[name], let winner = final.fields[name], loser.value != winner.value else { continue }
                    outcome.resolutions.append(MergeResolution(
                        entryID: final.id, path: final.path.string, field: name, kind: .fieldConflict,
                        winnerOrigin: winner.origin, winnerModified: winner.modified, loserOrigin: loser.origin, loserModified: loser.modified,
                        description: "field \"\(name)\" of \"\(final.path)\" was changed meanwhile: kept this edit's value; the other is in the history"))
                }
            }
            if current == nil, try txn.contains(final.path) {
                // The path now holds another entry: keep this one beside it (Spec/MERGE.md §9 naming).
                final.path = try freeConflictPath(for: final, in: txn)
            } else if current == nil, let other = try txn.caseCollision(for: final.path) {
                throw VaultError.caseCollision(path: final.path.string, existing: other)
            }
            // The fields this save changes: against the stored version, or (saved again after a removal)
            // against the version it was read as.
            let reference = current ?? original
            let changed = Set(final.fields.keys).union(reference.fields.keys)
                .filter { final.fields[$0]?.value != reference.fields[$0]?.value }.sorted()
            guard !(current.map { final.isIdentical(to: $0) } ?? false) else { return outcome }
            if let current, current.path != final.path { try txn.remove(current.path) }
            try txn.put(final)
            txn.message = message ?? "Edit \(final.path): " + (changed.isEmpty ? "history" : Vault.describeFields(changed))
            outcome.entry = final
            outcome.changedFields = changed
            outcome.path = final.path == edited.path ? nil : final.path
            return outcome
        }
    }

    /// The entry with `id` in the transaction's base, wherever it is now (an envelope scan: only when the
    /// entry is not at the path it was read from).
    func findByID(_ id: String, in txn: VaultTransaction) throws -> Entry? {
        guard let base = txn.base else { return nil }
        for file in try Vault.git({ try txn.repo.treeEntries(at: base) }) {
            guard let path = EntryPath(filePath: file.path) else { continue }
            let bytes = try Vault.git { try txn.repo.blob(id: file.id) }
            guard (try? Envelope.parse(bytes))?.id == id else { continue }  // (not an entry file: not the one)
            return try txn.entry(at: path)
        }
        return nil
    }

    /// `PATH.conflict-<id8>`, then `-2`, `-3`…: the first that is free.
    private func freeConflictPath(for entry: Entry, in txn: VaultTransaction) throws -> EntryPath {
        let stem = entry.path.string + ".conflict-" + entry.id.prefix(8)
        for n in 1...1000 {
            guard let p = try? EntryPath(n == 1 ? stem : stem + "-\(n)") else { break }
            if try !txn.contains(p), try txn.caseCollision(for: p) == nil { return p }
        }
        throw VaultError.entryExists(path: entry.path.string)
    }

    /// "password, notes, 2 custom fields": commit messages are readable by anyone holding the
    /// repository, so standard field names are shown and custom ones (which may say a lot) only counted.
    static func describeFields(_ names: [String]) -> String {
        let standard = Entry.standardFields.filter(names.contains)
        let custom = Set(names).count - standard.count
        return (standard + (custom > 0 ? ["\(custom) custom field\(custom == 1 ? "" : "s")"] : [])).joined(separator: ", ")
    }

    /// Removes an entry. Commits "Remove PATH". - Throws: `VaultError.entryNotFound`.
    public func remove(_ path: EntryPath) throws {
        try transaction { txn in
            guard try txn.contains(path) else {
                throw VaultError.entryNotFound(path: path.string, suggestions: suggestions(for: path.string))
            }
            try txn.remove(path)
            txn.message = "Remove \(path)"
        }
    }

    /// Moves an entry (same id; the inner path is rewritten). Commits "Move OLD to NEW".
    public func move(_ from: EntryPath, to: EntryPath, force: Bool = false) throws {
        guard from != to else { throw VaultError.sameEntry(path: from.string) }
        try transaction { txn in
            var entry = try txn.existingEntry(at: from)
            try txn.remove(from)
            if from.collisionKey != to.collisionKey { try txn.checkNew(to, replacing: force) }
            entry.move(to: to, change: txn.change)
            try txn.put(entry)
            txn.message = "Move \(from) to \(to)"
        }
    }

    /// Copies an entry under a new id. Commits "Copy OLD to NEW".
    public func copy(_ from: EntryPath, to: EntryPath, force: Bool = false) throws {
        guard from != to else { throw VaultError.sameEntry(path: from.string) }
        try transaction { txn in
            let source = try txn.existingEntry(at: from)
            try txn.checkNew(to, replacing: force)
            // A new entry (a new id) holding the source's values and history, made by this change.
            var entry = source
            entry.id = UUID().uuidString.lowercased()
            entry.path = to
            entry.moved = PathWrite(modified: txn.change.time, origin: txn.change.origin, dot: txn.change.dot)
            entry.created = txn.change.time
            entry.record(txn.change)
            try txn.put(entry)
            txn.message = "Copy \(from) to \(to)"
        }
    }
}
