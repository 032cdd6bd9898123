// The encrypted payload: Entry <-> canonical JSON (Spec/FORMAT.md §5, §11.8).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Entry {
    static let knownMembers: Set<String> = ["path", "created", "modified", "fields", "history", "clock", "moved"]
    /// The members of a payload of envelope version 1 (Spec/FORMAT.md §5.1): `clock` and `moved` are unknown there.
    static let knownMembersVersion1: Set<String> = ["path", "created", "modified", "fields", "history"]

    /// The payload as canonical JSON (the plaintext that gets encrypted), envelope version 2 (Spec/FORMAT.md §11.8).
    func payloadJSON() -> JSONValue {
        var o = unknownMembers
        o["path"] = .string(path.string)
        o["created"] = .string(created.description)
        o["modified"] = .string(modified.description)
        o["clock"] = clock.json
        o["moved"] = .object(["dot": moved.dot.json, "modified": .string(moved.modified.description), "origin": .string(moved.origin)])
        o["fields"] = .object(fields.mapValues { f in
            .object(["value": f.value.json, "modified": .string(f.modified.description), "origin": .string(f.origin), "dot": f.dot.json])
        })
        o["history"] = .array(history.map { h in
            .object(["field": .string(h.field), "value": h.value.json, "modified": .string(h.modified.description),
                     "origin": .string(h.origin), "replaced": .string(h.replaced.description), "reason": .string(h.reason),
                     "dot": h.dot.json])
        })
        return .object(o)
    }

    /// Builds an entry from a decrypted payload of envelope version 2 and the envelope's id (Spec/FORMAT.md §5.5,
    /// §11.8): every dot must be covered by the payload's clock.
    /// - Throws: `CoreError.malformed` for a payload of the wrong shape, `.invalidPath` for a bad inner path.
    public init(id: String, payload: JSONValue) throws {
        try self.init(id: id, payload: payload, conversionDot: nil)
    }

    /// Builds an entry from a payload of envelope version 1 (Spec/FORMAT.md §5), giving every value the dot `dot`
    /// (converting a vault, §11.10): clock `{dot}`, `moved` at the entry's `modified` with origin "".
    package init(id: String, version1Payload payload: JSONValue, dot: Dot) throws {
        try self.init(id: id, payload: payload, conversionDot: dot)
    }

    private init(id: String, payload: JSONValue, conversionDot: Dot?) throws {
        guard let o = payload.objectValue else { throw CoreError.malformed(.notAnObject(.payload)) }
        func str(_ k: String, in obj: [String: JSONValue], ctx: CoreError.FilePart = .payload) throws -> String {
            guard let s = obj[k]?.stringValue else { throw CoreError.malformed(.member(ctx, name: k, expected: .string)) }
            return s
        }
        func time(_ k: String, in obj: [String: JSONValue], ctx: CoreError.FilePart = .payload) throws -> Timestamp {
            let s = try str(k, in: obj, ctx: ctx)
            guard let t = Timestamp(parsing: s) else { throw CoreError.malformed(.member(ctx, name: k, expected: .timestamp)) }
            return t
        }
        func dot(in obj: [String: JSONValue], ctx: CoreError.FilePart) throws -> Dot {
            if let conversionDot { return conversionDot }
            return try Dot(json: obj["dot"], context: ctx)
        }
        let path = try EntryPath(try str("path", in: o))
        guard let fieldsObj = o["fields"]?.objectValue else { throw CoreError.malformed(.member(.payload, name: "fields", expected: .object)) }
        var fields: [String: Field] = [:]
        for (name, v) in fieldsObj {
            try Entry.validateFieldName(name)
            guard let fo = v.objectValue, let value = fo["value"] else { throw CoreError.malformed(.notAnObject(.field(name))) }
            let fv = try FieldValue(json: value)
            if Entry.listFields.contains(name), case .text = fv { throw CoreError.malformed(.member(.field(name), name: "value", expected: .list)) }
            if !Entry.listFields.contains(name), case .list = fv { throw CoreError.malformed(.member(.field(name), name: "value", expected: .text)) }
            fields[name] = Field(value: fv, modified: try time("modified", in: fo, ctx: .field(name)),
                                 origin: try str("origin", in: fo, ctx: .field(name)), dot: try dot(in: fo, ctx: .field(name)))
        }
        guard let histArr = o["history"]?.arrayValue else { throw CoreError.malformed(.member(.payload, name: "history", expected: .array)) }
        let history = try histArr.map { v -> HistoryItem in
            guard let h = v.objectValue, let value = h["value"] else { throw CoreError.malformed(.notAnObject(.historyItem)) }
            return HistoryItem(field: try str("field", in: h, ctx: .historyItem), value: try FieldValue(json: value),
                               modified: try time("modified", in: h, ctx: .historyItem), origin: try str("origin", in: h, ctx: .historyItem),
                               replaced: try time("replaced", in: h, ctx: .historyItem), reason: try str("reason", in: h, ctx: .historyItem),
                               dot: try dot(in: h, ctx: .historyItem))
        }
        let created = try time("created", in: o), modified = try time("modified", in: o)
        let clock: Clock, moved: PathWrite, known: Set<String>
        if let conversionDot {
            clock = Clock([conversionDot.replica: conversionDot.counter])
            moved = PathWrite(modified: modified, origin: "", dot: conversionDot)
            known = Entry.knownMembersVersion1
        } else {
            clock = try Clock(json: o["clock"], context: .payload)
            guard let mo = o["moved"]?.objectValue else { throw CoreError.malformed(.member(.payload, name: "moved", expected: .object)) }
            moved = PathWrite(modified: try time("modified", in: mo, ctx: .moved), origin: try str("origin", in: mo, ctx: .moved),
                              dot: try Dot(json: mo["dot"], context: .moved))
            guard clock.covers(moved.dot), fields.values.allSatisfy({ clock.covers($0.dot) }), history.allSatisfy({ clock.covers($0.dot) }) else {
                throw CoreError.malformed(.dotNotCovered(.payload))
            }
            known = Entry.knownMembers
        }
        self.init(id: id, path: path, created: created, modified: modified, fields: fields, history: history,
                  clock: clock, moved: moved, unknownMembers: o.filter { !known.contains($0.key) })
    }
}
