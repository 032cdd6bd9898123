// Tresor's own JSON export: an array of entries in the `tresor show --json` shape, written and read back.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// The JSON export (README "Export"): one array of objects with `path`, `id`, `password`, `username`,
/// `urls`, `notes`, `fields`, `tags`, `created`, `modified` and `history`, as `tresor show --json`
/// prints them, plus `policy` for an entry that has a generator policy.
public enum TresorJSON {
    /// The export document of `entries`.
    public static func document(_ entries: [Entry]) -> JSONValue {
        .array(entries.map(object))
    }

    /// One entry in the `show --json` shape (plus `policy` when present).
    public static func object(_ e: Entry) -> JSONValue {
        var custom: [String: JSONValue] = [:]
        // Text values stay in their zeroing buffers (`.secret`); lists, names and times are not secret.
        for name in e.customFieldNames { custom[name] = .secret(e.secret(name) ?? "") }
        var o: [String: JSONValue] = [
            "path": .string(e.path.string), "id": .string(e.id),
            "password": e.secret("password").map(JSONValue.secret) ?? .null,
            "username": e.secret("username").map(JSONValue.secret) ?? .null,
            "urls": .array(e.list("urls").map(JSONValue.string)),
            "notes": e.secret("notes").map(JSONValue.secret) ?? .null,
            "fields": .object(custom),
            "tags": .array(e.list("tags").map(JSONValue.string)),
            "created": .string(e.created.description), "modified": .string(e.modified.description),
            "history": .array(e.history.map { h in
                .object(["field": .string(h.field), "value": .secret(h.value.secretText), "modified": .string(h.modified.description),
                         "replaced": .string(h.replaced.description), "origin": .string(h.origin), "reason": .string(h.reason)])
            }),
        ]
        if let p = e.secret("policy") { o["policy"] = .secret(p) }
        return .object(o)
    }

    /// Reads a JSON export back. Paths are kept as they are (they are valid entry paths already); ids are
    /// not: every imported entry gets a new id. - Throws: `.cannotRead`, `.malformed`.
    public static func read(_ path: String) throws -> InterchangeDocument {
        try document(from: JSONFile.read(path), file: path)
    }

    static func document(from root: JSONValue, file: String) throws -> InterchangeDocument {
        guard let array = root.arrayValue else { throw InterchangeError.malformed(path: file, .notAnArray) }
        var doc = InterchangeDocument()
        for (i, v) in array.enumerated() {
            guard let o = v.objectValue, let p = o["path"]?.stringValue else {
                throw InterchangeError.malformed(path: file, .badItem(index: i + 1))
            }
            var parts = p.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            var item = InterchangeEntry(folder: [], title: parts.removeLast())
            item.folder = parts
            item.vaultPath = p
            item.password = o["password"]?.stringValue.map { SecretBytes(utf8: $0) }
            item.username = o["username"]?.stringValue
            item.urls = (o["urls"]?.arrayValue ?? []).compactMap(\.stringValue)
            item.notes = o["notes"]?.stringValue.map { SecretBytes(utf8: $0) }
            item.tags = (o["tags"]?.arrayValue ?? []).compactMap(\.stringValue)
            item.policy = o["policy"]?.stringValue
            for (name, value) in (o["fields"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let s = value.stringValue else { continue }
                if name == OTPAuth.fieldName && OTPAuth.isURI(s) { item.otp = SecretBytes(utf8: s) } else { item.addField(name, s) }
            }
            item.created = o["created"]?.stringValue.flatMap { Timestamp(parsing: $0) }
            item.modified = o["modified"]?.stringValue.flatMap { Timestamp(parsing: $0) }
            for h in o["history"]?.arrayValue ?? [] {
                guard let ho = h.objectValue, let field = ho["field"]?.stringValue, let value = ho["value"]?.stringValue,
                      let replaced = ho["replaced"]?.stringValue.flatMap({ Timestamp(parsing: $0) }) else {
                    throw InterchangeError.malformed(path: file, .badHistoryItem(path: p))
                }
                item.history.append(InterchangeHistoryItem(field: field, value: SecretBytes(utf8: value),
                                                           modified: ho["modified"]?.stringValue.flatMap { Timestamp(parsing: $0) },
                                                           replaced: replaced, origin: ho["origin"]?.stringValue, reason: ho["reason"]?.stringValue))
            }
            doc.entries.append(item)
        }
        return doc
    }
}
