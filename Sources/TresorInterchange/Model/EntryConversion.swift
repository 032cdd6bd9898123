// Conversions between the neutral model and Tresor entries: the one place where secret bytes become field text.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Turns imported entries into Tresor entries and Tresor entries into the neutral model for export.
public enum EntryConversion {
    /// A secret as an ordinary `String` (for text formats built as strings: pass). - Throws:
    /// `InterchangeError.core(.invalidField)` for invalid UTF-8.
    static func text(_ s: SecretBytes, field: String) throws -> String {
        guard let t = s.utf8String() else { throw InterchangeError.core(.invalidField(name: field, rule: .notUTF8)) }
        return t
    }

    /// A secret as field text, sharing its zeroing buffer. - Throws: `InterchangeError.core(.invalidField)`
    /// for invalid UTF-8.
    static func secretText(_ s: SecretBytes, field: String) throws -> SecretText {
        guard let t = SecretText(validating: s) else { throw InterchangeError.core(.invalidField(name: field, rule: .notUTF8)) }
        return t
    }

    /// The Tresor entry for `item` at `path`, made by `change` (its dot and origin): fields written at the source's
    /// modification time (else the change's time), history converted, custom field names made valid (`notes` says how).
    public static func entry(from item: InterchangeEntry, path: EntryPath, change: Change) throws -> (Entry, [RenameNote]) {
        let origin = change.origin
        let modified = item.modified ?? item.created ?? change.time
        let created = min(item.created ?? modified, modified)
        var entry = Entry(path: path, change: Change(time: created, origin: origin, dot: change.dot))
        var notes: [RenameNote] = []
        let write = Change(time: modified, origin: origin, dot: change.dot)
        func set(_ name: String, _ value: FieldValue?) throws {
            do { try entry.set(name, value, change: write) } catch let e as CoreError { throw InterchangeError.core(e) }
        }
        if let p = item.password { try set("password", .text(try secretText(p, field: "password"))) }
        if let u = item.username { try set("username", .text(SecretText(u))) }
        let urls = item.urls.filter { !$0.isEmpty }
        if !urls.isEmpty { try set("urls", .list(urls)) }
        if let n = item.notes { try set("notes", .text(try secretText(n, field: "notes"))) }
        var tags: [String] = []
        for t in item.tags where !t.isEmpty && !tags.contains(t) { tags.append(t) }
        if !tags.isEmpty { try set("tags", .list(tags)) }
        if let p = item.policy, (try? GeneratorPolicy(parsing: p)) != nil { try set("policy", .text(SecretText(p))) }
        var used = Set(Entry.standardFields)
        if let otp = item.otp { try set(OTPAuth.fieldName, .text(try secretText(otp, field: OTPAuth.fieldName))); used.insert(OTPAuth.fieldName) }
        var renamedFields: [String: String] = [:]
        for f in item.fields {
            let name = fieldName(f.name, used: used)
            used.insert(name)
            if name != f.name { notes.append(.fieldRenamed(from: f.name, to: name)); renamedFields[f.name] = name }
            try set(name, .text(try secretText(f.value, field: name)))
        }
        // Source history: Entry.set wrote no history (each field set once); add the source's own.
        entry.history = try item.history.filter { $0.value.count > 0 }.map { h in
            let known = Entry.standardFields.contains(h.field) || h.field == OTPAuth.fieldName
            let field = renamedFields[h.field] ?? (known ? h.field : escapeFieldName(h.field))
            let t = try secretText(h.value, field: field)
            // List items (URLs, tags) are not secret and become Strings.
            let value: FieldValue = Entry.listFields.contains(field) ? .list(t.makeString().split(separator: "\n").map(String.init)) : .text(t)
            return HistoryItem(field: field, value: value, modified: h.modified ?? min(h.replaced, created), origin: h.origin ?? origin,
                               replaced: h.replaced, reason: h.reason ?? "edit", dot: change.dot)
        }
        entry.capHistory()
        entry.created = created
        entry.modified = max(modified, entry.history.map { $0.replaced }.max() ?? modified)
        return (entry, notes)
    }

    /// A valid custom field name for `raw` not in `used`: percent-encoding as for paths (control
    /// characters, `=`, a leading `.`), cut to 64 bytes, then ` (2)`, ` (3)`… while taken.
    static func fieldName(_ raw: String, used: Set<String>) -> String {
        let name = escapeFieldName(raw)
        guard used.contains(name) else { return name }
        for n in 2... {
            let candidate = PathRule.cut(name, to: 64 - " (\(n))".utf8.count) + " (\(n))"
            if !used.contains(candidate) { return candidate }
        }
        return name
    }

    /// `raw` with control characters, `=` and a leading `.` percent-encoded, cut to 64 bytes.
    static func escapeFieldName(_ raw: String) -> String {
        var name = ""
        for (i, s) in raw.nfc.unicodeScalars.enumerated() {
            if s.value < 0x20 || s.value == 0x7F || s == "=" || (i == 0 && s == ".") {
                for b in String(s).utf8 { name += "%" + Hex.upper([b]) }
            } else {
                name.unicodeScalars.append(s)
            }
        }
        if name.isEmpty { name = "field" }
        return PathRule.cut(name, to: 64)
    }

    /// Changes `existing` to hold the imported values as one edit (old values go to its history); the
    /// policy is kept when the import has none. Returns the names of the changed fields.
    public static func apply(_ imported: Entry, to existing: inout Entry, change: Change) throws -> [String] {
        var changed: [String] = []
        for name in Set(existing.fields.keys).union(imported.fields.keys).sorted() {
            if name == "policy" && imported.fields[name] == nil { continue }
            do {
                if try existing.set(name, imported.fields[name]?.value, change: change) { changed.append(name) }
            } catch let e as CoreError { throw InterchangeError.core(e) }
        }
        let known = Set(existing.history)
        let added = imported.history.filter { !known.contains($0) }
        if !added.isEmpty {
            existing.history += added
            existing.record(change)
            existing.capHistory()
            for h in added where !changed.contains(h.field) { changed.append(h.field) }
        }
        return changed.sorted()
    }

    /// The neutral form of a Tresor entry for export: the `otp` field becomes the OTP URI, `policy` the policy.
    public static func interchange(from entry: Entry) -> InterchangeEntry {
        var item = InterchangeEntry(folder: entry.path.components.dropLast().map { $0 }, title: entry.path.name)
        item.vaultPath = entry.path.string
        item.username = entry.text("username")
        item.password = entry.secret("password")?.bytes
        item.urls = entry.list("urls")
        item.notes = entry.secret("notes")?.bytes
        item.tags = entry.list("tags")
        item.policy = entry.text("policy")
        for name in entry.customFieldNames {
            let value = entry.secret(name) ?? ""
            if name == OTPAuth.fieldName && OTPAuth.isURI(value) { item.otp = value.bytes; continue }
            item.fields.append(InterchangeField(name: name, value: value.bytes))
        }
        item.history = entry.history.map {
            InterchangeHistoryItem(field: $0.field, value: $0.value.secretText.bytes, modified: $0.modified,
                                   replaced: $0.replaced, origin: $0.origin, reason: $0.reason)
        }
        item.created = entry.created
        item.modified = entry.modified
        return item
    }
}
