// Secret references: `tresor://Email/gmail/password` names one field of one entry (README "Secrets in programs").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// A reference to one field of one entry: `tresor://` followed by the entry path and then the field name, each
/// component percent-encoded where needed. `%` is always written `%25` and a `/` inside a field name `%2F`; any other
/// byte may be written `%XX` (a space `%20`, a `}` in a template `%7D`). Entry paths cannot hold a `/` in a component,
/// so the last component is always the field: `tresor://Email/gmail/password`, `tresor://Bank/ing/pin`,
/// `tresor://Servers/web/api%2Ftoken` (the field `api/token`).
package struct SecretReference: Hashable, Sendable, CustomStringConvertible {
    package static let scheme = "tresor://"

    /// The entry path.
    package let path: EntryPath
    /// The field name (`password`, `username`, `urls`, `notes`, `tags`, `otp` or a custom field).
    package let field: String
    /// The reference as it was written.
    package let text: String

    package var description: String { text }

    /// Whether `text` is meant as a reference (starts with `tresor://`), valid or not.
    package static func isReference(_ text: String) -> Bool { text.hasPrefix(scheme) }

    /// Parses `text`. - Throws: `IntegrationError.invalidReference` naming what is wrong.
    package init(parsing text: String) throws {
        func fail(_ p: IntegrationError.ReferenceProblem) -> IntegrationError { .invalidReference(reference: text, problem: p) }
        guard text.hasPrefix(SecretReference.scheme) else { throw fail(.scheme) }
        let rest = text.utf8.dropFirst(SecretReference.scheme.utf8.count)
        let raw = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard raw.count >= 2 else { throw fail(.tooShort) }
        var components: [String] = []
        for part in raw {
            guard !part.isEmpty else { throw fail(.emptyComponent) }
            guard let bytes = SecretReference.percentDecode(part) else { throw fail(.percentEncoding) }
            guard let s = String(validating: bytes, as: UTF8.self) else { throw fail(.notUTF8) }
            components.append(s)
        }
        let field = components.removeLast()
        do { path = try EntryPath(components.joined(separator: "/")) } catch CoreError.invalidPath(_, let rule) {
            throw fail(.path(rule))
        }
        do { try Entry.validateFieldName(field) } catch CoreError.invalidField(let name, let rule) {
            throw fail(.field(name: name, rule))
        }
        self.field = field
        self.text = text
    }

    /// The reference to `field` of `path`, encoded as described above (only what must be encoded is).
    package init(path: EntryPath, field: String) {
        self.path = path
        self.field = field
        text = SecretReference.scheme + path.components.map { SecretReference.encode($0, slash: false) }
            .joined(separator: "/") + "/" + SecretReference.encode(field, slash: true)
    }

    /// `%` (and `/` when `slash`) percent-encoded, and control characters, which a reference cannot show.
    static func encode(_ s: String, slash: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v == 0x25 || (slash && v == 0x2F) || v < 0x20 || v == 0x7F {
                out.append(contentsOf: ("%" + Hex.upper([UInt8(v)])).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `%XX` sequences decoded; nil for a `%` without two hexadecimal digits.
    static func percentDecode<C: Collection>(_ bytes: C) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let c = bytes[i]
            if c == 0x25 {
                let j = bytes.index(after: i)
                guard j != bytes.endIndex, let k = Optional(bytes.index(after: j)), k != bytes.endIndex,
                      let hi = Hex.digit(bytes[j]), let lo = Hex.digit(bytes[k]) else { return nil }
                out.append(hi << 4 | lo)
                i = bytes.index(after: k)
            } else {
                out.append(c)
                i = bytes.index(after: i)
            }
        }
        return out
    }
}

extension Vault {
    /// The value of each reference, reading each entry once: a text field as it is, a list (`urls`, `tags`) one
    /// item per line. Results in the order of `references`.
    /// - Throws: the first failure in that order: `VaultError.entryNotFound` (and the errors of `read`) for a missing
    ///   entry, `IntegrationError.noSuchField` for a missing field.
    package func resolve(_ references: [SecretReference]) throws -> [SecretText] {
        var entries: [EntryPath: Entry] = [:]
        var values: [SecretText] = []
        for ref in references {
            let entry: Entry
            if let e = entries[ref.path] { entry = e } else {
                entry = try read(try existingPath(ref.path.string))
                entries[ref.path] = entry
            }
            guard let field = entry.fields[ref.field] else {
                throw IntegrationError.noSuchField(reference: ref.text, path: ref.path.string, field: ref.field,
                                                   available: entry.fields.keys.sorted())
            }
            values.append(field.value.secretText)
        }
        return values
    }
}
