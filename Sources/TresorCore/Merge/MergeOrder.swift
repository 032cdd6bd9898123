// The byte-exact comparisons and total orders every merge decision rests on (Spec/MERGE.md §2).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Swift's `String ==` treats canonically equivalent texts as equal, but a password in NFC and in NFD
/// are different secrets and must never be merged into one. Everything here compares UTF-8 bytes.
enum MergeOrder {
    /// -1, 0 or 1 by the UTF-8 bytes of `a` and `b` (unsigned, a prefix first).
    static func compare(_ a: String, _ b: String) -> Int {
        if let r = a.utf8.withContiguousStorageIfAvailable({ x in b.utf8.withContiguousStorageIfAvailable { y in compareBytes(x, y) } }),
           let r { return r }
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()  // (a string not stored as UTF-8)
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    private static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(x.count, y.count)
        let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
        if c != 0 { return c < 0 ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.elementsEqual(b) { return 0 }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    static func compare(_ a: Timestamp, _ b: Timestamp) -> Int {
        a == b ? 0 : (a < b ? -1 : 1)
    }

    static func same(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && compare(a, b) == 0 }

    /// Byte equality of two secret texts, in constant time for equal lengths.
    static func same(_ a: SecretText, _ b: SecretText) -> Bool { a == b }

    static func compare(_ a: SecretBytes, _ b: SecretBytes) -> Int {
        a.withBytes { x in b.withBytes { y in SecretText.compare(x, y) } }
    }

    /// -1, 0 or 1 by the canonical JSON bytes of two values, serialised into zeroing memory. Not constant
    /// time: this is an order, and only decides which of two versions a merge keeps.
    static func compareValues(_ a: FieldValue, _ b: FieldValue) -> Int {
        switch (a, b) {
        // A JSON string sorts before an array (`"` < `[`), as the canonical bytes would.
        case (.text, .list): return -1
        case (.list, .text): return 1
        default: return compare(a.json.canonicalSecretBytes(), b.json.canonicalSecretBytes())
        }
    }

    /// The same write: value, `modified`, `origin` and dot equal byte for byte (Spec/MERGE.md §3).
    static func same(_ a: Field?, _ b: Field?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return a.dot == b.dot && a.modified == b.modified && same(a.origin, b.origin) && same(a.value, b.value)
        default: return false
        }
    }

    /// The same value written twice: equal value, `modified` and `origin`, whatever the dots (Spec/MERGE.md §5.1 step 3).
    static func sameButDot(_ a: Field, _ b: Field) -> Bool {
        a.modified == b.modified && same(a.origin, b.origin) && same(a.value, b.value)
    }

    static func same(_ a: FieldValue, _ b: FieldValue) -> Bool {
        switch (a, b) {
        case (.text(let x), .text(let y)): return same(x, y)
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default: return false
        }
    }

    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return a.canonicalBytes() == b.canonicalBytes()
        default: return false
        }
    }

    /// Entries are the same if id and payload bytes are.
    static func same(_ a: Entry?, _ b: Entry?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?):
            guard same(a.id, b.id), same(a.path.string, b.path.string), a.created == b.created, a.modified == b.modified,
                  a.clock == b.clock, a.moved.dot == b.moved.dot, a.moved.modified == b.moved.modified, same(a.moved.origin, b.moved.origin),
                  a.fields.count == b.fields.count, a.history.count == b.history.count,
                  a.unknownMembers.count == b.unknownMembers.count else { return false }
            // Keys are looked up with `String ==`, so compare the key bytes too.
            for (name, f) in a.fields {
                guard let i = b.fields.index(forKey: name), same(b.fields[i].key, name), same(f, b.fields[i].value) else { return false }
            }
            for (x, y) in zip(a.history, b.history) where historyCompare(x, y) != 0 { return false }
            for (name, v) in a.unknownMembers {
                guard let i = b.unknownMembers.index(forKey: name), same(b.unknownMembers[i].key, name),
                      same(v, b.unknownMembers[i].value) else { return false }
            }
            return true
        default: return false
        }
    }

    /// The order of writes (Spec/MERGE.md §3): `modified`, then `origin` bytes, then canonical value bytes, then the dot.
    /// True if `a` loses to `b`.
    static func fieldLess(_ a: Field, _ b: Field) -> Bool {
        if a.modified != b.modified { return a.modified < b.modified }
        let o = compare(a.origin, b.origin)
        if o != 0 { return o < 0 }
        let v = compareValues(a.value, b.value)
        if v != 0 { return v < 0 }
        return a.dot < b.dot
    }

    /// The order of history items (the canonical order of Spec/FORMAT.md §5.4 with the dot last, §11.8): `replaced`,
    /// field, `modified`, origin, canonical value bytes, reason, dot; strings by bytes. -1, 0 or 1; 0 only for two
    /// items that are byte for byte the same.
    static func historyCompare(_ a: HistoryItem, _ b: HistoryItem) -> Int {
        var c = compare(a.replaced, b.replaced)
        if c == 0 { c = compare(a.field, b.field) }
        if c == 0 { c = compare(a.modified, b.modified) }
        if c == 0 { c = compare(a.origin, b.origin) }
        if c == 0 { c = compareValues(a.value, b.value) }
        if c == 0 { c = compare(a.reason, b.reason) }
        if c == 0 { c = a.dot == b.dot ? 0 : (a.dot < b.dot ? -1 : 1) }
        return c
    }

    /// Union of history lists (Spec/MERGE.md §5.4, Spec/FORMAT.md §11.8): one item per value (field, `modified`, origin
    /// and canonical value bytes; the greatest item in history order), sorted oldest first, then capped to the newest
    /// `Entry.historyLimitPerField` items of each field.
    static func mergedHistory(_ lists: [[HistoryItem]]) -> [HistoryItem] {
        let sorted = lists.joined().sorted { historyCompare($0, $1) < 0 }
        // The greatest item of each value is the last of its value in the sorted list.
        var last: [ValueKey: Int] = [:]
        for (i, item) in sorted.enumerated() { last[ValueKey(item)] = i }
        let unique = sorted.indices.filter { last[ValueKey(sorted[$0])] == $0 }.map { sorted[$0] }
        return capped(unique)
    }

    /// What makes two history items the same value (Spec/FORMAT.md §11.8): field bytes, `modified`, origin bytes and
    /// canonical value bytes — one write of one value, whatever dot it carries.
    struct ValueKey: Hashable {
        var field: [UInt8]
        var modified: Timestamp
        var origin: [UInt8]
        var value: FieldValue
        init(_ item: HistoryItem) { field = Array(item.field.utf8); modified = item.modified; origin = Array(item.origin.utf8); value = item.value }
    }

    /// Keeps the newest `Entry.historyLimitPerField` items per field name (bytes) of a sorted list.
    static func capped(_ sorted: [HistoryItem]) -> [HistoryItem] {
        var counts: [[UInt8]: Int] = [:]
        var keep = [Bool](repeating: false, count: sorted.count)
        for i in sorted.indices.reversed() {
            let key = Array(sorted[i].field.utf8)
            let n = counts[key, default: 0]
            if n < Entry.historyLimitPerField { keep[i] = true; counts[key] = n + 1 }
        }
        return sorted.indices.filter { keep[$0] }.map { sorted[$0] }
    }

    /// The distinct names of `keys`, sorted by bytes. Canonically equivalent spellings count once, as the
    /// byte-smallest spelling, so the choice does not depend on which side had which spelling.
    static func unionSorted(_ keys: [String]) -> [String] {
        var out: [String] = []
        for k in keys.sorted(by: { compare($0, $1) < 0 }) where !out.contains(where: { $0 == k }) { out.append(k) }
        return out
    }
}

extension HistoryItem {
    /// Whether `other` is the same write of the same value as this item (field, `modified`, origin and value; the dots
    /// aside): one value, however many times it was recorded (Spec/FORMAT.md §11.8).
    public func isSameValue(as other: HistoryItem) -> Bool { MergeOrder.ValueKey(self) == MergeOrder.ValueKey(other) }
}
