// What the list knows about decrypted entries while the vault is unlocked: a hint per entry and its fields, lowercased, for `/`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Built from every entry on a background thread after unlocking; dropped and zeroed when the vault locks.
final class SearchIndex {
    struct Item {
        /// Username, else the host of the first URL.
        var hint: String
        /// Field names and their lowercased UTF-8 text (lists joined by newlines).
        var fields: [(name: String, text: [UInt8])]
    }

    private(set) var items: [EntryPath: Item] = [:]
    /// Entries that could not be decrypted, with why.
    private(set) var failures: [EntryPath: String] = [:]

    init(_ results: [(path: EntryPath, result: Result<Entry, VaultError>)]) {
        items.reserveCapacity(results.count)
        for (path, result) in results {
            switch result {
            case .success(let e): items[path] = SearchIndex.item(e)
            case .failure(let error): failures[path] = error.message
            }
        }
    }

    static func item(_ e: Entry) -> Item {
        let fields = e.fields.keys.sorted().map { name in (name, Array(FieldText.whole(e.fields[name]!.value).lowercased().utf8)) }
        return Item(hint: hint(e), fields: fields)
    }

    /// The username, else the host of the first URL (the URL itself when it has no host).
    static func hint(_ e: Entry) -> String {
        if let u = FieldText.text(e, "username"), !u.isEmpty { return u }
        guard let url = FieldText.text(e, "urls", index: 0) else { return "" }
        if let host = URLComponents(string: url)?.host, !host.isEmpty { return host }
        return url
    }

    func hint(for path: EntryPath) -> String? {
        if let item = items[path] { return item.hint }
        return failures[path] != nil ? "unreadable" : nil
    }

    /// After a change made from the UI.
    func update(_ e: Entry) { wipe(items[e.path]); items[e.path] = SearchIndex.item(e); failures[e.path] = nil }
    func remove(_ path: EntryPath) { wipe(items[path]); items[path] = nil; failures[path] = nil }

    /// The first field (in name order) of `path` whose text contains `needle` (lowercased UTF-8), or nil.
    func matchingField(_ path: EntryPath, needle: [UInt8]) -> String? {
        guard !needle.isEmpty, let item = items[path] else { return nil }
        for f in item.fields where SearchIndex.contains(f.text, needle) { return f.name }
        return nil
    }

    /// Whether `needle` occurs in `haystack` (bytes; both already lowercased).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        let n = needle.count, last = haystack.count - n
        guard n > 0, last >= 0 else { return n == 0 }
        let first = needle[0]
        var i = 0
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < n, haystack[i + j] == needle[j] { j += 1 }
                if j == n { return true }
            }
            i += 1
        }
        return false
    }

    private func wipe(_ item: Item?) {
        guard var item else { return }
        for i in item.fields.indices { SecretBytes.wipe(&item.fields[i].text) }
    }

    /// Zeroes every decrypted text it holds.
    func wipeAll() {
        for path in Array(items.keys) {
            for i in items[path]!.fields.indices { SecretBytes.wipe(&items[path]!.fields[i].text) }
        }
        items = [:]
        failures = [:]
    }
}
