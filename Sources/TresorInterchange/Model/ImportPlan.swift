// Plans an import: entry paths by the path rule, collisions, and what happens to entries already in the vault.
import Foundation
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
        var taken: Set<String> = []           // collision keys of paths this import uses
        var folderSpelling: [String: String] = [:]  // lower-cased folder path -> the spelling used
        for (index, item) in document.entries.enumerated() {
            defer { progress(index + 1) }
            var outcome = ImportOutcome(source: item.sourceName, path: nil, status: .skipped, renames: [], skipReason: nil, changedFields: [])
            outcome.omitted = item.omitted
            func skip(_ r: SkipReason) { outcome.skipReason = r; plan.outcomes.append(outcome) }

            var pathString: String
            if let v = item.vaultPath, (try? EntryPath(v)) != nil, v.split(separator: "/").count + prefix.count <= EntryPath.maxDepth,
               (prefix + [v]).joined(separator: "/").utf8.count <= EntryPath.maxBytes {
                pathString = (prefix + [v]).joined(separator: "/")
            } else {
                let made = PathRule.path(prefix: prefix, folder: item.folder, title: item.title)
                outcome.renames = made.notes
                guard let p = made.path else { skip(.invalidPath(made.failure ?? "invalid")); continue }
                pathString = p
            }
            // Folders: one spelling per name ignoring case, within the import and with the vault.
            var parts = pathString.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            for i in 0..<(parts.count - 1) {
                let key = parts[...i].joined(separator: "/").lowercased()
                if let spelled = folderSpelling[key] {
                    let last = spelled.split(separator: "/").last.map(String.init) ?? parts[i]
                    if last != parts[i] { outcome.renames.append(.folderCase(original: parts[i], used: last)); parts[i] = last }
                } else {
                    folderSpelling[key] = parts[...i].joined(separator: "/")
                }
            }
            pathString = parts.joined(separator: "/")
            guard var path = try? EntryPath(pathString) else { skip(.invalidPath("invalid")); continue }
            if let other = target.caseCollision(path), other.split(separator: "/").count < path.components.count {
                // An existing folder spelled differently: use its spelling.
                let otherParts = other.split(separator: "/").map(String.init)
                var p = path.components
                for (i, o) in otherParts.enumerated() where p[i] != o {
                    outcome.renames.append(.folderCase(original: p[i], used: o)); p[i] = o
                    folderSpelling[p[...i].joined(separator: "/").lowercased()] = p[...i].joined(separator: "/")
                }
                if let fixed = try? EntryPath(p.joined(separator: "/")) { path = fixed }
            }
            if taken.contains(path.collisionKey) {
                var n = 2
                var found: EntryPath?
                while n < 10_000, found == nil {
                    if let s = PathRule.suffixed(path.string, n), let p = try? EntryPath(s), !taken.contains(p.collisionKey) { found = p }
                    n += 1
                }
                guard let found else { skip(.invalidPath("no free name")); continue }
                outcome.renames.append(.suffixed(original: path.string))
                path = found
            }
            taken.insert(path.collisionKey)
            outcome.path = path.string

            let converted: Entry
            do {
                let (e, notes) = try EntryConversion.entry(from: item, path: path, change: Change(time: now, origin: target.origin, dot: .placeholder))
                converted = e
                outcome.renames += notes
            } catch InterchangeError.core(let e) {
                skip(.invalidField(e.errorDescription ?? "\(e)")); continue
            }
            if let original = try target.entry(path) {
                var existing = original
                let sameValues = existing.fields.mapValues(\.value) == converted.fields.mapValues(\.value)
                    || (existing.fields.filter { $0.key != "policy" }.mapValues(\.value) == converted.fields.mapValues(\.value) && converted.fields["policy"] == nil)
                if sameValues && converted.history.allSatisfy({ c in existing.history.contains { $0.isSameValue(as: c) } }) { skip(.identical(path: path.string)); continue }
                guard force else { skip(.exists(path: path.string)); continue }
                let changed = try EntryConversion.apply(converted, to: &existing, change: Change(time: now, origin: target.origin, dot: .placeholder))
                guard !changed.isEmpty else { skip(.identical(path: path.string)); continue }
                outcome.status = .updated
                outcome.changedFields = changed
                plan.updates.append(existing)
                plan.originals.append(original)
                plan.outcomes.append(outcome)
                continue
            }
            if let other = target.caseCollision(path) { skip(.caseCollision(path: path.string, existing: other)); continue }
            outcome.status = .added
            plan.additions.append(converted)
            plan.outcomes.append(outcome)
        }
        return plan
    }
}
