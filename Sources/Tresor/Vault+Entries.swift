// Entry operations of a vault: list, find, read, add, edit, remove, move, copy — each change one commit.
import Foundation
import TresorCore
import TresorGit

extension Vault {
    /// Entry paths (optionally below a folder prefix), with problems met while listing.
    public func list(prefix: String? = nil) -> (paths: [EntryPath], problems: [StoreProblem]) {
        let all = store.entryPaths()
        guard let prefix, !prefix.isEmpty else { return all }
        let p = prefix.precomposedStringWithCanonicalMapping.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return (all.paths.filter { $0.string == p || $0.string.hasPrefix(p + "/") }, all.problems)
    }

    /// Entry paths whose path contains `text`, case-insensitively.
    public func find(_ text: String) -> [EntryPath] {
        let needle = text.precomposedStringWithCanonicalMapping.lowercased()
        return store.entryPaths().paths.filter { $0.string.lowercased().contains(needle) }
    }

    /// Validates a path typed by the user. - Throws: `VaultError.invalidPath`.
    public static func parsePath(_ raw: String) throws -> EntryPath {
        var s = raw
        if s.hasSuffix(EntryPath.fileExtension) { s.removeLast(EntryPath.fileExtension.count) }
        do { return try EntryPath(s) } catch CoreError.invalidPath(_, let reason) { throw VaultError.invalidPath(raw, reason: reason) }
    }

    /// An existing entry's path, or `entryNotFound` with close names.
    public func existingPath(_ raw: String) throws -> EntryPath {
        let p = try Vault.parsePath(raw)
        switch store.kind(of: p) {
        case .file: return p
        case .symlink: throw VaultError.entry(p.string, .symlink(p.filePath))
        case .missing: throw VaultError.entryNotFound(p.string, suggestions: suggestions(for: p.string))
        default: throw VaultError.entry(p.string, .io("\"\(p.filePath)\" is not a regular file"))
        }
    }

    /// Up to three entry paths close to `text`: same name in another folder, a substring, or a small edit distance.
    public func suggestions(for text: String) -> [String] {
        let all = store.entryPaths().paths.map(\.string)
        let t = text.lowercased()
        let last = t.split(separator: "/").last.map(String.init) ?? t
        let scored = all.compactMap { p -> (Int, String)? in
            let l = p.lowercased()
            let name = l.split(separator: "/").last.map(String.init) ?? l
            if name == last { return (0, p) }
            let d = min(Vault.editDistance(l, t), Vault.editDistance(name, last))
            if d <= (last.count >= 4 ? max(2, last.count / 3) : 1) { return (d, p) }
            if l.contains(t) || (last.count >= 3 && name.contains(last)) { return (3, p) }
            return nil
        }
        return scored.sorted { $0 < $1 }.prefix(3).map(\.1)
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

    /// Decrypts one entry, checking that its inner path matches its file.
    public func read(_ path: EntryPath) throws -> Entry {
        let cipher = try requireCipher()
        do { return try cipher.open(try store.readEntryFile(path), expectedPath: path) }
        catch let e as CoreError { throw VaultError.entry(path.string, e) }
    }

    /// Decrypts every entry (optionally below a prefix), in path order, on all cores. Failures are
    /// returned per entry, not thrown.
    public func readAll(prefix: String? = nil) throws -> [(path: EntryPath, result: Result<Entry, VaultError>)] {
        try decrypt(list(prefix: prefix).paths)
    }

    /// Decrypts `paths` on all cores, results in the same order.
    func decrypt(_ paths: [EntryPath]) throws -> [(path: EntryPath, result: Result<Entry, VaultError>)] {
        let cipher = try requireCipher()
        var results = [Result<Entry, VaultError>?](repeating: nil, count: paths.count)
        let lock = NSLock()
        let chunks = max(1, min(paths.count, ProcessInfo.processInfo.activeProcessorCount * 4))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for i in stride(from: chunk, to: paths.count, by: chunks) {
                let r: Result<Entry, VaultError>
                do { r = .success(try cipher.open(try store.readEntryFile(paths[i]), expectedPath: paths[i])) }
                catch let e as CoreError { r = .failure(.entry(paths[i].string, e)) }
                catch { r = .failure(.io("\(error)")) }
                lock.lock(); results[i] = r; lock.unlock()
            }
        }
        return zip(paths, results).map { ($0, $1!) }
    }

    /// Refuses to create `path` when an entry is there (unless `force`), it is not a plain file, or its name
    /// collides by case with an existing one.
    public func checkNew(_ path: EntryPath, force: Bool) throws {
        switch store.kind(of: path) {
        case .missing: break
        case .file: if !force { throw VaultError.entryExists(path.string) }
        case .symlink: throw VaultError.entry(path.string, .symlink(path.filePath))
        default: throw VaultError.entry(path.string, .io("\"\(path.filePath)\" is not a regular file"))
        }
        if let other = store.caseCollision(for: path) { throw VaultError.caseCollision(path.string, existing: other) }
    }

    func write(_ entry: Entry) throws {
        let cipher = try requireCipher()
        do { try store.writeEntryFile(try cipher.seal(entry), for: entry.path) }
        catch let e as CoreError { throw VaultError.entry(entry.path.string, e) }
    }

    /// Adds a new entry (or replaces one with `force`). Commits "Add PATH".
    public func add(_ entry: Entry, force: Bool = false) throws {
        _ = try repository()  // refuse before touching any file
        try checkNew(entry.path, force: force)
        let replacing = store.kind(of: entry.path) == .file
        try write(entry)
        try commit("\(replacing ? "Replace" : "Add") \(entry.path)", adding: [entry.path.filePath])
    }

    /// Writes a changed entry at its path. Commits "<verb> PATH: field, field".
    public func update(_ entry: Entry, changedFields: [String], verb: String = "Edit") throws {
        _ = try repository()  // refuse before touching any file
        guard !changedFields.isEmpty else { throw VaultError.nothingChanged("nothing changed in \"\(entry.path)\"") }
        try write(entry)
        try commit("\(verb) \(entry.path): \(Vault.describeFields(changedFields))", adding: [entry.path.filePath])
    }

    /// "password, notes, 2 custom fields": commit messages are readable by anyone holding the
    /// repository, so standard field names are shown and custom ones (which may say a lot) only counted.
    static func describeFields(_ names: [String]) -> String {
        let standard = Entry.standardFields.filter(names.contains)
        let custom = Set(names).count - standard.count
        return (standard + (custom > 0 ? ["\(custom) custom field\(custom == 1 ? "" : "s")"] : [])).joined(separator: ", ")
    }

    /// Commits a change with a custom message (e.g. "Rotate password of PATH").
    public func update(_ entry: Entry, message: String) throws {
        _ = try repository()  // refuse before touching any file
        try write(entry)
        try commit(message, adding: [entry.path.filePath])
    }

    /// Removes an entry. Commits "Remove PATH".
    public func remove(_ path: EntryPath) throws {
        _ = try repository()  // refuse before touching any file
        do { try store.removeEntryFile(path) } catch let e as CoreError { throw VaultError.entry(path.string, e) }
        try commit("Remove \(path)", removing: [path.filePath])
    }

    /// Moves an entry (same id; the inner path is rewritten). Commits "Move OLD to NEW".
    public func move(_ from: EntryPath, to: EntryPath, force: Bool = false) throws {
        _ = try repository()  // refuse before touching any file
        guard from != to else { throw VaultError.nothingChanged("\"\(from)\" and \"\(to)\" are the same entry") }
        var entry = try read(from)
        if from.collisionKey != to.collisionKey { try checkNew(to, force: force) }
        entry.path = to
        entry.modified = max(entry.modified, Timestamp.now())
        try write(entry)
        do { try store.removeEntryFile(from) } catch let e as CoreError { throw VaultError.entry(from.string, e) }
        try commit("Move \(from) to \(to)", adding: [to.filePath], removing: [from.filePath])
    }

    /// Copies an entry under a new id. Commits "Copy OLD to NEW".
    public func copy(_ from: EntryPath, to: EntryPath, force: Bool = false) throws {
        _ = try repository()  // refuse before touching any file
        let source = try read(from)
        try checkNew(to, force: force)
        let now = Timestamp.now()
        var entry = source
        entry.id = UUID().uuidString.lowercased()
        entry.path = to
        entry.created = now
        entry.modified = now
        try write(entry)
        try commit("Copy \(from) to \(to)", adding: [to.filePath])
    }
}
