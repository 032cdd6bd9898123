// Plans an import: entry paths by the path rule, collisions, and what happens to entries already in the vault.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// What happened (or, for a dry run, would happen) to one item of the source.
public struct ImportOutcome {
    public enum Status: String, Sendable { case added, updated, skipped }
    /// The item's name in the source (unescaped: print with control characters escaped).
    public var source: String
    /// The entry path it got, nil if no valid path could be made.
    public var path: String?
    public var status: Status
    /// How names were changed.
    public var renames: [RenameNote]
    /// Why it was skipped.
    public var skipReason: SkipReason?
    /// For `updated`: the fields that changed.
    public var changedFields: [String]
    /// What the source held that was not imported (attachments and the like).
    public var omitted: [String] = []
}

/// The vault as the planner sees it (the CLI passes closures over `Vault`).
public struct ImportTarget {
    /// The decrypted entry at exactly this path, nil if none.
    public var entry: (EntryPath) throws -> Entry?
    /// An existing file or folder differing from a component of the path only by case (vault-relative).
    public var caseCollision: (EntryPath) -> String?
    /// This device's id, the origin of imported fields.
    public var origin: String
    public init(entry: @escaping (EntryPath) throws -> Entry?, caseCollision: @escaping (EntryPath) -> String?, origin: String) {
        self.entry = entry; self.caseCollision = caseCollision; self.origin = origin
    }
}

/// The entries to write and what happened to each item of the source.
public struct ImportPlan {
    /// New entries.
    public var additions: [Entry] = []
    /// Existing entries changed by a forced import.
    public var updates: [Entry] = []
    /// For each of `updates`, the version it was made from (read before the import's transaction): the transaction
    /// makes the changes again on what is stored then.
    public var originals: [Entry] = []
    public var outcomes: [ImportOutcome] = []

    public var addedCount: Int { outcomes.filter { $0.status == .added }.count }
    public var updatedCount: Int { outcomes.filter { $0.status == .updated }.count }
    public var skippedCount: Int { outcomes.filter { $0.status == .skipped }.count }
    public var renamedCount: Int { outcomes.filter { !$0.renames.isEmpty && $0.status != .skipped }.count }

    /// Plans the import of `document` below `prefix` (valid path components). Existing entries are
    /// skipped unless `force`; then they get the imported values as an edit. `progress` is called
    /// with the number of items planned so far.
    public static func make(_ document: InterchangeDocument, prefix: [String], force: Bool, target: ImportTarget,
                            now: Timestamp = .now(), progress: (Int) -> Void = { _ in }) throws -> ImportPlan {
        var plan = ImportPlan()
        for (name, reason) in document.skipped {
            plan.outcomes.append(ImportOutcome(source: name, path: nil, status: .skipped, renames: [], skipReason: reason, changedFields: []))
        }
        var paths = ImportPaths(prefix: prefix, target: target)
        for (index, item) in document.entries.enumerated() {
            defer { progress(index + 1) }
            var outcome = ImportOutcome(source: item.sourceName, path: nil, status: .skipped, renames: [], skipReason: nil, changedFields: [])
            outcome.omitted = item.omitted
            guard let path = paths.assign(item, outcome: &outcome) else { plan.outcomes.append(outcome); continue }
            try plan.planEntry(item, at: path, outcome: outcome, force: force, target: target, now: now)
        }
        return plan
    }

    /// Plans `item` at `path` (its place in this import): added when nothing is there, an update of the entry there
    /// (see `planUpdate`), or skipped when a field cannot be converted or another entry's name differs only by case.
    /// - Throws: what `target.entry` and `EntryConversion` throw other than a field that cannot be converted.
    private mutating func planEntry(_ item: InterchangeEntry, at path: EntryPath, outcome: ImportOutcome, force: Bool,
                                    target: ImportTarget, now: Timestamp) throws {
        var outcome = outcome
        let converted: Entry
        do {
            let (e, notes) = try EntryConversion.entry(from: item, path: path, change: Change(time: now, origin: target.origin, dot: .placeholder))
            converted = e
            outcome.renames += notes
        } catch InterchangeError.core(let e) {
            return skip(outcome, .invalidField(e))
        }
        if let original = try target.entry(path) {
            return try planUpdate(original, to: converted, at: path, outcome: outcome, force: force, target: target,
                                  now: now)
        }
        if let other = target.caseCollision(path) {
            return skip(outcome, .caseCollision(path: path.string, existing: other))
        }
        outcome.status = .added
        additions.append(converted)
        outcomes.append(outcome)
    }

    /// Plans the entry `original` already at `path` getting the imported values of `converted` as an edit: skipped
    /// when it holds them already, or without `force`; otherwise an update, with the fields that change.
    private mutating func planUpdate(_ original: Entry, to converted: Entry, at path: EntryPath, outcome: ImportOutcome,
                                     force: Bool, target: ImportTarget, now: Timestamp) throws {
        var outcome = outcome
        var existing = original
        let sameValues = existing.fields.mapValues(\.value) == converted.fields.mapValues(\.value)
            || (existing.fields.filter { $0.key != "policy" }.mapValues(\.value) == converted.fields.mapValues(\.value) && converted.fields["policy"] == nil)
        if sameValues && converted.history.allSatisfy({ c in existing.history.contains { $0.isSameValue(as: c) } }) {
            return skip(outcome, .identical(path: path.string))
        }
        guard force else { return skip(outcome, .exists(path: path.string)) }
        let changed = try EntryConversion.apply(converted, to: &existing, change: Change(time: now, origin: target.origin, dot: .placeholder))
        guard !changed.isEmpty else { return skip(outcome, .identical(path: path.string)) }
        outcome.status = .updated
        outcome.changedFields = changed
        updates.append(existing)
        originals.append(original)
        outcomes.append(outcome)
    }

    /// Records `outcome` as skipped for `reason`.
    private mutating func skip(_ outcome: ImportOutcome, _ reason: SkipReason) {
        var outcome = outcome
        outcome.skipReason = reason
        outcomes.append(outcome)
    }
}

/// The entry paths one import gives its items: the item's own path or the path rule's, one spelling per folder name
/// ignoring case (within the import and with the vault), and a numbered suffix where two items would collide.
private struct ImportPaths {
    let prefix: [String]
    let target: ImportTarget
    var taken: Set<String> = []           // collision keys of paths this import uses
    var folderSpelling: [String: String] = [:]  // lower-cased folder path -> the spelling used

    init(prefix: [String], target: ImportTarget) { self.prefix = prefix; self.target = target }

    /// The entry path for `item`, set in `outcome` with the renames it took; nil, with `outcome.skipReason` set, when
    /// no valid and free path can be made.
    mutating func assign(_ item: InterchangeEntry, outcome: inout ImportOutcome) -> EntryPath? {
        guard let ruled = sourcePath(item, outcome: &outcome) else { return nil }
        // Folders: one spelling per name ignoring case, within the import and with the vault.
        var path: EntryPath
        do { path = try EntryPath(spellFoldersAlike(ruled, renames: &outcome.renames)) } catch {
            outcome.skipReason = .invalidPath(PathRule.Failure(error))
            return nil
        }
        path = spellFoldersAsInTheVault(path, renames: &outcome.renames)
        if taken.contains(path.collisionKey) {
            guard let found = freeSuffixed(path) else {
                outcome.skipReason = .invalidPath(.noFreeName)
                return nil
            }
            outcome.renames.append(.suffixed(original: path.string))
            path = found
        }
        taken.insert(path.collisionKey)
        outcome.path = path.string
        return path
    }

    /// The path `item` names itself below the prefix when it is valid and within the limits, else the path rule's
    /// from its folder and title (its renames set in `outcome`); nil, with `outcome.skipReason` set, when the rule
    /// makes none.
    func sourcePath(_ item: InterchangeEntry, outcome: inout ImportOutcome) -> String? {
        if let v = item.vaultPath, (try? EntryPath(v)) != nil, v.split(separator: "/").count + prefix.count <= EntryPath.maxDepth,
           (prefix + [v]).joined(separator: "/").utf8.count <= EntryPath.maxBytes {
            return (prefix + [v]).joined(separator: "/")
        }
        let made = PathRule.path(prefix: prefix, folder: item.folder, title: item.title)
        outcome.renames = made.notes
        guard let p = made.path else {
            outcome.skipReason = .invalidPath(made.failure ?? .invalid)
            return nil
        }
        return p
    }

    /// `pathString` with each folder spelled as the first path of this import with that folder (ignoring case)
    /// spelled it; a new folder's spelling is recorded.
    mutating func spellFoldersAlike(_ pathString: String, renames: inout [RenameNote]) -> String {
        var parts = pathString.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for i in 0..<(parts.count - 1) {
            let key = parts[...i].joined(separator: "/").lowercased()
            if let spelled = folderSpelling[key] {
                let last = spelled.split(separator: "/").last.map(String.init) ?? parts[i]
                if last != parts[i] { renames.append(.folderCase(original: parts[i], used: last)); parts[i] = last }
            } else {
                folderSpelling[key] = parts[...i].joined(separator: "/")
            }
        }
        return parts.joined(separator: "/")
    }

    /// `path` with its folders spelled as an existing folder of the vault that differs only by case (recorded for
    /// the import's later paths).
    mutating func spellFoldersAsInTheVault(_ path: EntryPath, renames: inout [RenameNote]) -> EntryPath {
        guard let other = target.caseCollision(path), other.split(separator: "/").count < path.components.count else { return path }
        let otherParts = other.split(separator: "/").map(String.init)
        var p = path.components
        for (i, o) in otherParts.enumerated() where p[i] != o {
            renames.append(.folderCase(original: p[i], used: o)); p[i] = o
            folderSpelling[p[...i].joined(separator: "/").lowercased()] = p[...i].joined(separator: "/")
        }
        return (try? EntryPath(p.joined(separator: "/"))) ?? path
    }

    /// The first of `path` suffixed ` (2)`, ` (3)`… (`PathRule.suffixed`) that this import does not use yet.
    func freeSuffixed(_ path: EntryPath) -> EntryPath? {
        for n in 2..<10_000 {
            if let s = PathRule.suffixed(path.string, n), let p = try? EntryPath(s), !taken.contains(p.collisionKey) { return p }
        }
        return nil
    }
}
