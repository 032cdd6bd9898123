// The encrypted payload: Entry <-> canonical JSON (Spec/FORMAT.md §5).
import Foundation

extension Entry {
    static let knownMembers: Set<String> = ["path", "created", "modified", "fields", "history"]

    /// The payload as canonical JSON bytes (the plaintext that gets encrypted).
    func payloadJSON() -> JSONValue {
        var o = unknownMembers
        o["path"] = .string(path.string)
        o["created"] = .string(created.description)
        o["modified"] = .string(modified.description)
        o["fields"] = .object(fields.mapValues { f in
            .object(["value": f.value.json, "modified": .string(f.modified.description), "origin": .string(f.origin)])
        })
        o["history"] = .array(history.map { h in
            .object(["field": .string(h.field), "value": h.value.json, "modified": .string(h.modified.description),
                     "origin": .string(h.origin), "replaced": .string(h.replaced.description), "reason": .string(h.reason)])
        })
        return .object(o)
    }

    /// Builds an entry from a decrypted payload and the envelope's id.
    /// - Throws: `CoreError.malformed` for a payload of the wrong shape, `.invalidPath` for a bad inner path.
    public init(id: String, payload: JSONValue) throws {
        guard let o = payload.objectValue else { throw CoreError.malformed("payload is not a JSON object") }
        func str(_ k: String, in obj: [String: JSONValue], ctx: String = "payload") throws -> String {
            guard let s = obj[k]?.stringValue else { throw CoreError.malformed("\(ctx) member \"\(k)\" missing or not a string") }
            return s
        }
        func time(_ k: String, in obj: [String: JSONValue], ctx: String = "payload") throws -> Timestamp {
            let s = try str(k, in: obj, ctx: ctx)
            guard let t = Timestamp(parsing: s) else { throw CoreError.malformed("\(ctx) member \"\(k)\" is not a timestamp: \"\(s)\"") }
            return t
        }
        let path = try EntryPath(try str("path", in: o))
        guard let fieldsObj = o["fields"]?.objectValue else { throw CoreError.malformed("payload member \"fields\" missing or not an object") }
        var fields: [String: Field] = [:]
        for (name, v) in fieldsObj {
            try Entry.validateFieldName(name)
            guard let fo = v.objectValue, let value = fo["value"] else { throw CoreError.malformed("field \"\(name)\" is not an object with a value") }
            let fv = try FieldValue(json: value)
            if Entry.listFields.contains(name), case .text = fv { throw CoreError.malformed("field \"\(name)\" must be a list") }
            if !Entry.listFields.contains(name), case .list = fv { throw CoreError.malformed("field \"\(name)\" must be a string") }
            fields[name] = Field(value: fv, modified: try time("modified", in: fo, ctx: "field \(name)"),
                                 origin: try str("origin", in: fo, ctx: "field \(name)"))
        }
        guard let histArr = o["history"]?.arrayValue else { throw CoreError.malformed("payload member \"history\" missing or not an array") }
        let history = try histArr.map { v -> HistoryItem in
            guard let h = v.objectValue, let value = h["value"] else { throw CoreError.malformed("history item is not an object with a value") }
            return HistoryItem(field: try str("field", in: h, ctx: "history item"), value: try FieldValue(json: value),
                               modified: try time("modified", in: h, ctx: "history item"), origin: try str("origin", in: h, ctx: "history item"),
                               replaced: try time("replaced", in: h, ctx: "history item"), reason: try str("reason", in: h, ctx: "history item"))
        }
        self.init(id: id, path: path, created: try time("created", in: o), modified: try time("modified", in: o),
                  fields: fields, history: history, unknownMembers: o.filter { !Entry.knownMembers.contains($0.key) })
    }
}
