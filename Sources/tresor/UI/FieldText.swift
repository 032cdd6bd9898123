// The one place `tresor ui` turns field values into text and typed text into field values.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Field values shown and typed as single lines: one URL of `urls` at a time, `tags` joined by ", ".
enum FieldText {
    /// The text of a field, or of one item of a list field when `index` is given; nil when absent.
    static func text(_ e: Entry, _ field: String, index: Int? = nil) -> String? {
        if let index { let l = e.list(field); return l.indices.contains(index) ? l[index] : nil }
        if field == "tags" { return e.fields[field] == nil ? nil : e.list(field).joined(separator: ", ") }
        return e.text(field)
    }

    /// The whole value as text, lists one item per line (for search and history).
    static func whole(_ value: FieldValue) -> String { value.displayText }

    /// The value typed `text` stands for in `field` of `base`: with `index`, that item of the list
    /// replaced, added, or removed when empty; tags split at commas; any other field as text.
    static func value(_ text: String, for field: String, index: Int? = nil, in base: Entry?) -> FieldValue {
        if let index {
            var list = base?.list(field) ?? []
            if list.indices.contains(index) { if text.isEmpty { list.remove(at: index) } else { list[index] = text } }
            else if !text.isEmpty { list.append(text) }
            return .list(list)
        }
        if field == "tags" {
            return .list(text.split(separator: ",").map { $0.trimming(.whitespaces) }.filter { !$0.isEmpty })
        }
        return .text(SecretText(text))
    }
}
