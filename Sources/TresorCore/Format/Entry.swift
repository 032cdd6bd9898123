// The decrypted entry: fields with per-field time and origin, history, and preserved unknown members.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A field value: text, or a list of texts (`urls`, `tags`). Two values are equal when their bytes are:
/// a password in NFC and the same password in NFD are different secrets (Spec/MERGE.md §2), although
/// Swift's `String ==` would call them equal.
///
/// A text value is secret and lives in a zeroing buffer (`SecretText`, compared in constant time); the
/// items of a list field (URLs and tags, shown and searched as plain text) are not, and stay `String`.
public enum FieldValue: Hashable, Sendable {
    case text(SecretText)
    case list([String])

    public static func == (a: FieldValue, b: FieldValue) -> Bool { MergeOrder.same(a, b) }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .text(let s): hasher.combine(0); hasher.combine(s)
        case .list(let l): hasher.combine(1); for s in l { hasher.combine(Array(s.utf8)) }
        }
    }

    /// Text form for display and search, as an ordinary `String` that cannot be wiped: lists joined by
    /// newlines. Prefer `secretText` where the bytes are only written out.
    public var displayText: String {
        switch self {
        case .text(let s): return s.makeString()
        case .list(let l): return l.joined(separator: "\n")
        }
    }

    /// The same text as `displayText` in a zeroing buffer (a text value is shared, not copied).
    public var secretText: SecretText {
        switch self {
        case .text(let s): return s
        case .list(let l): return SecretText(l.joined(separator: "\n"))
        }
    }

    var json: JSONValue {
        switch self {
        case .text(let s): return .secret(s)
        case .list(let l): return .array(l.map(JSONValue.string))
        }
    }
    init(json: JSONValue) throws {
        switch json {
        case .secret(let s): self = .text(s)
        case .string(let s): self = .text(SecretText(s))
        case .array(let a):
            self = .list(try a.map { guard let s = $0.stringValue else { throw CoreError.malformed(.member(.payload, name: "value", expected: .textOrList)) }; return s })
        default: throw CoreError.malformed(.member(.payload, name: "value", expected: .textOrList))
        }
    }
}

/// One field of an entry with the time and device of its last change, and the change that wrote it
/// (Spec/FORMAT.md §5.3, §11.8).
public struct Field: Hashable, Sendable {
    public var value: FieldValue
    public var modified: Timestamp
    public var origin: String
    package var dot: Dot
    package init(value: FieldValue, modified: Timestamp, origin: String, dot: Dot) {
        self.value = value; self.modified = modified; self.origin = origin; self.dot = dot
    }
}

/// A previous value of a field (Spec/FORMAT.md §5.4, §11.8).
public struct HistoryItem: Hashable, Sendable {
    public var field: String
    public var value: FieldValue
    public var modified: Timestamp
    public var origin: String
    /// When it stopped being the current value.
    public var replaced: Timestamp
    /// Why: `edit`, `delete` or `merge`.
    public var reason: String
    /// The change that had written the value.
    package var dot: Dot
    package init(field: String, value: FieldValue, modified: Timestamp, origin: String, replaced: Timestamp, reason: String, dot: Dot) {
        self.field = field; self.value = value; self.modified = modified; self.origin = origin
        self.replaced = replaced; self.reason = reason; self.dot = dot
    }
}

/// The write that set an entry's path: its creation or its last move (Spec/FORMAT.md §11.8 `moved`).
package struct PathWrite: Hashable, Sendable {
    package var modified: Timestamp
    package var origin: String
    package var dot: Dot
    package init(modified: Timestamp, origin: String, dot: Dot) { self.modified = modified; self.origin = origin; self.dot = dot }
}

/// A decrypted entry (Spec/FORMAT.md §5).
public struct Entry: Equatable, Sendable {
    /// The standard fields; every other name is a custom field.
    public static let standardFields = ["password", "username", "urls", "notes", "tags", "policy"]
    public static let listFields: Set<String> = ["urls", "tags"]
    /// History items kept per field; older ones are dropped (git history still has them).
    static let historyLimitPerField = 64

    public var id: String
    public var path: EntryPath
    public var created: Timestamp
    public var modified: Timestamp
    public var fields: [String: Field]
    public var history: [HistoryItem]
    /// Every write to this entry this version has seen (Spec/FORMAT.md §11.8).
    public var clock: Clock
    /// The write that set `path`.
    package var moved: PathWrite
    /// Payload members this version does not know, kept verbatim on rewrite.
    var unknownMembers: [String: JSONValue]

    /// A new, empty entry with a fresh random id, created by `change`.
    public init(path: EntryPath, change: Change) {
        self.init(id: UUID().uuidString.lowercased(), path: path, created: change.time, modified: change.time,
                  fields: [:], history: [], clock: Clock([change.dot.replica: change.dot.counter]),
                  moved: PathWrite(modified: change.time, origin: change.origin, dot: change.dot), unknownMembers: [:])
    }

    package init(id: String, path: EntryPath, created: Timestamp, modified: Timestamp, fields: [String: Field],
                history: [HistoryItem], clock: Clock, moved: PathWrite, unknownMembers: [String: JSONValue]) {
        self.id = id; self.path = path; self.created = created; self.modified = modified
        self.fields = fields; self.history = history; self.clock = clock; self.moved = moved
        self.unknownMembers = unknownMembers
    }

    /// The text of a field as an ordinary `String` copy (a list joined by newlines), nil if absent. The copy
    /// cannot be wiped: for values that must be parsed as text (`policy`, the otpauth URI) or shown in a list;
    /// `secret(_:)` gives the value without copying it.
    public func text(_ name: String) -> String? { fields[name]?.value.displayText }
    /// The text of a text field in its zeroing buffer, nil if absent or a list.
    public func secret(_ name: String) -> SecretText? {
        if case .text(let t)? = fields[name]?.value { return t }
        return nil
    }
    /// The list of a list field, empty if absent.
    public func list(_ name: String) -> [String] {
        switch fields[name]?.value {
        case .list(let l): return l
        case .text(let t): return [t.makeString()]
        case nil: return []
        }
    }
    /// Names of the custom fields, sorted.
    public var customFieldNames: [String] { fields.keys.filter { !Entry.standardFields.contains($0) }.sorted() }

    /// Checks a field name: 1–64 bytes, no control characters, no leading dot, no `=` (Spec/FORMAT.md §5.3).
    /// Tested on scalars, not Characters, so a combining mark cannot hide a `.` or `=`.
    /// - Throws: `CoreError.invalidField`.
    public static func validateFieldName(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 64 else { throw CoreError.invalidField(name: name, rule: .nameLength) }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw CoreError.invalidField(name: name, rule: .nameControlCharacter)
        }
        guard name.utf8.first != 0x2E && !name.utf8.contains(0x3D) else {
            throw CoreError.invalidField(name: name, rule: .nameDotOrEquals)
        }
    }

    /// Sets (or with nil removes) a field as `change` (Spec/FORMAT.md §11.8 *set*): the previous value goes into the
    /// history with its dot; any change also normalises the whole history (§5.4, §11.8). Returns true if anything
    /// changed. An empty text or list removes the field.
    /// - Throws: `CoreError.invalidField` for a bad name, or a text for `urls`/`tags` or a list for any
    ///   other field (a reader would refuse such a payload, Spec/FORMAT.md §5.3).
    @discardableResult
    public mutating func set(_ name: String, _ value: FieldValue?, change: Change) throws -> Bool {
        try Entry.validateFieldName(name)
        switch value {
        case .text? where Entry.listFields.contains(name): throw CoreError.invalidField(name: name, rule: .mustBeList)
        case .list? where !Entry.listFields.contains(name): throw CoreError.invalidField(name: name, rule: .mustBeText)
        default: break
        }
        var newValue = value
        if case .text(let t)? = newValue, t.isEmpty { newValue = nil }
        if case .list(let l)? = newValue, l.isEmpty { newValue = nil }
        let old = fields[name]
        guard old?.value != newValue else { return false }
        if let old {
            history.append(HistoryItem(field: name, value: old.value, modified: old.modified, origin: old.origin,
                                       replaced: change.time, reason: newValue == nil ? "delete" : "edit", dot: old.dot))
        }
        if let newValue {
            fields[name] = Field(value: newValue, modified: change.time, origin: change.origin, dot: change.dot)
        } else {
            fields[name] = nil
        }
        record(change)
        capHistory()
        return true
    }

    /// Moves the entry to `path` (same id) as `change`. Returns true if the path changed.
    /// Like every change, normalises the history (Spec/FORMAT.md §5.4, §11.8).
    @discardableResult
    public mutating func move(to path: EntryPath, change: Change) -> Bool {
        guard !MergeOrder.same(path.string, self.path.string) else { return false }
        self.path = path
        moved = PathWrite(modified: change.time, origin: change.origin, dot: change.dot)
        record(change)
        capHistory()
        return true
    }

    /// A change of this entry by `change`: its clock includes it and `modified` is no earlier (Spec/FORMAT.md §11.8).
    public mutating func record(_ change: Change) {
        clock.advance(to: change.dot)
        modified = max(modified, change.time)
    }

    /// Keeps one history item per value (field, dot and value; the greatest), in canonical order, and the newest
    /// `historyLimitPerField` items of each field name (by its bytes). Spec/FORMAT.md §5.4, §11.8
    public mutating func capHistory() {
        history = MergeOrder.mergedHistory([history])
    }
}

extension HistoryItem {
    /// Oldest first: `replaced`, then field, `modified`, origin, canonical value bytes, reason and dot, every
    /// string by its UTF-8 bytes (Swift `String` comparison would make NFC and NFD spellings equal).
    /// Total: two items are equal in it only if they are the same item byte for byte. Spec/FORMAT.md §5.4, §11.8
    static func canonicalOrder(_ a: HistoryItem, _ b: HistoryItem) -> Bool {
        MergeOrder.historyCompare(a, b) < 0
    }
}

extension Entry {
    /// Whether `other` is this entry byte for byte: same id and payload (Spec/MERGE.md §3), where `==` would call
    /// canonically equivalent texts equal.
    public func isIdentical(to other: Entry) -> Bool { MergeOrder.same(self, other) }
}

extension Entry {
    /// Whether a value of this entry was written by `Dot.placeholder` (a change not numbered yet).
    public var hasPlaceholderDots: Bool {
        clock[Dot.placeholder.replica] > 0 || moved.dot == .placeholder || fields.values.contains { $0.dot == .placeholder }
            || history.contains { $0.dot == .placeholder }
    }

    /// This entry with every value written by `Dot.placeholder` given `dot` instead, and its clock including `dot`
    /// rather than the placeholder (for changes planned before their transaction numbered them).
    package func redotted(to dot: Dot) -> Entry {
        var e = self
        for (name, f) in e.fields where f.dot == .placeholder { e.fields[name]?.dot = dot }
        for i in e.history.indices where e.history[i].dot == .placeholder { e.history[i].dot = dot }
        if e.moved.dot == .placeholder { e.moved.dot = dot }
        var counters = e.clock.counters
        counters[Dot.placeholder.replica] = nil
        e.clock = Clock(counters)
        e.clock.advance(to: dot)
        return e
    }
}

extension Entry {
    /// `current` with the changes that turned `original` into `edited` made again by `change`: each field whose value
    /// `edited` gives differently from `original` is set (or removed), and the path moved when `edited` moved it.
    /// For an edit made on a version read earlier (a person at an editor, an import planned before its transaction):
    /// what changed meanwhile stays, and the edit is a write this replica makes now, after it (Spec/FORMAT.md §11.8).
    /// - Throws: `CoreError.invalidField`.
    public static func rebasing(_ edited: Entry, from original: Entry, onto current: Entry, change: Change) throws -> Entry {
        var out = current
        for name in Set(original.fields.keys).union(edited.fields.keys).sorted() where original.fields[name]?.value != edited.fields[name]?.value {
            try out.set(name, edited.fields[name]?.value, change: change)
        }
        if !MergeOrder.same(original.path.string, edited.path.string) { out.move(to: edited.path, change: change) }
        // History items the edit brought (an import's own history) join the current ones.
        let known = Set(original.history.map(MergeOrder.ValueKey.init))
        let added = edited.history.filter { !known.contains(MergeOrder.ValueKey($0)) }
        if !added.isEmpty {
            out.history += added.map { var h = $0; if h.dot == .placeholder { h.dot = change.dot }; return h }
            out.record(change)
            out.capHistory()
        }
        return out
    }
}
