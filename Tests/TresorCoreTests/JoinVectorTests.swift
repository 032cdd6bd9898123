// Spec/vectors/join/*.json against the joins of TresorCore (Spec/MERGE.md §10), one test case per vector, each joined
// in both orders of its sides: entries (EntryJoin), states of one or several domains (StateJoin), headers (HeaderJoin).
import Foundation
import Testing
@testable import TresorCore

@Suite struct JoinVectorTests {
    static let names = VectorFiles.names("join")

    @Test func thereAreCasesOfEveryKind() throws {
        let cases = try Self.names.map { try VectorFiles.load($0, "join") }
        #expect(cases.contains { $0["header"] == .bool(true) && $0["scopeHeader"] == nil })
        #expect(cases.contains { $0["scopeHeader"] == .bool(true) })
        #expect(cases.contains { $0["domains"] == .bool(true) })
        #expect(cases.contains { $0["expected"]?.objectValue?["entry"] != nil })
        #expect(cases.contains { $0["expected"]?.objectValue?["entries"] != nil && $0["domains"] == nil })
        #expect(cases.contains { $0["error"] != nil })
    }

    @Test(arguments: names) func join(_ name: String) throws {
        if let issue = KnownVectorIssues.join[name] {
            withKnownIssue(Comment(rawValue: issue)) { try run(name) }
        } else {
            try run(name)
        }
    }

    func run(_ name: String) throws {
        let v = try VectorFiles.load(name, "join")
        #expect(v["description"]?.stringValue != nil, "no description")
        #expect(v["rule"]?.stringValue?.hasPrefix("MERGE.md §") == true, "no rule")
        let expected = v["expected"]?.objectValue, error = v["error"]?.stringValue
        try #require((expected == nil) != (error == nil), "needs exactly one of expected and error")
        let a = try #require(v["a"]), b = try #require(v["b"])
        for (x, y, order) in [(a, b, "a ⊔ b"), (b, a, "b ⊔ a")] {
            let outcome: Result<(JSONValue, [JSONValue]), Error>
            do {
                if v["header"] == .bool(true) {
                    outcome = .success(try headerJoin(x, y, scope: v["scopeHeader"] == .bool(true), keys: v["keys"]?.objectValue))
                } else if v["domains"] == .bool(true) {
                    outcome = .success(try domainsJoin(x, y, v))
                } else if expected?["entry"] != nil || (x.objectValue?["payload"] != nil) {
                    outcome = .success(try entryJoin(x, y))
                } else {
                    outcome = .success(try stateJoin(x, y))
                }
            } catch {
                outcome = .failure(error)
            }
            switch (outcome, error) {
            case (.failure(let e), let want?):
                #expect(specKind(of: e) == want, "\(order): \(e)")
            case (.failure(let e), nil):
                Issue.record("\(order): failed with \(e)")
            case (.success, let want?):
                Issue.record("\(order): joined, expected [\(want)]")
            case (.success(let (result, records)), nil):
                let want = try #require(expected)
                var resultMember = want["entry"] ?? want["header"] ?? .object(["entries": want["entries"] ?? .array([])])
                if v["keys"] != nil { resultMember = Self.withoutSealedKeys(resultMember) }
                #expect(text(result) == text(resultMember), "\(order): the result")
                #expect(text(.array(records)) == text(want["resolutions"] ?? .array([])), "\(order): the records")
            }
        }
    }

    func text(_ v: JSONValue) -> String { String(decoding: v.canonicalBytes(), as: UTF8.self) }

    /// A record as the vectors write it: Spec/MERGE.md §9's members but `description`.
    func record(_ r: MergeResolution) -> JSONValue {
        guard var o = r.json.objectValue else { return r.json }
        o["description"] = nil
        return .object(o)
    }

    func entry(_ v: JSONValue) throws -> Entry {
        let o = try #require(v.objectValue)
        return try Entry(id: try #require(o["id"]?.stringValue), payload: try #require(o["payload"]))
    }

    func json(_ e: Entry) -> JSONValue { .object(["id": .string(e.id), "payload": e.payloadJSON()]) }

    /// Spec/MERGE.md §5: two versions of one entry.
    func entryJoin(_ a: JSONValue, _ b: JSONValue) throws -> (JSONValue, [JSONValue]) {
        let (joined, records) = EntryJoin.join(try entry(a), try entry(b))
        return (json(joined), records.map(record))
    }

    /// Spec/MERGE.md §4.2, §6: two states of the vault domain (`clock` and `entries`).
    func stateJoin(_ a: JSONValue, _ b: JSONValue) throws -> (JSONValue, [JSONValue]) {
        func side(_ v: JSONValue) throws -> JoinSide {
            let o = try #require(v.objectValue)
            return JoinSide(entries: try (o["entries"]?.arrayValue ?? []).map(entry), clocks: [Domain.vault: try Clock(json: o["clock"], context: .payload)],
                            domain: { _ in Domain.vault })
        }
        let r = StateJoin.join(try side(a), try side(b), domain: { _ in Domain.vault }, readable: { _ in true })
        if !r.conflicts.isEmpty { throw JoinStopped(conflicts: r.conflicts) }
        return (.object(["entries": .array(r.entries.map(json))]), r.resolutions.map(record))
    }

    /// Spec/MERGE.md §4: two states of several domains, the merger reading `reads`; the result's domain clocks are the
    /// join of the two sides' for every domain read (§4.5).
    func domainsJoin(_ a: JSONValue, _ b: JSONValue, _ v: [String: JSONValue]) throws -> (JSONValue, [JSONValue]) {
        let reads = Set((v["reads"]?.arrayValue ?? []).compactMap(\.stringValue))
        let scopes = (v["scopes"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        func domain(_ scopes: [String: String]) -> (EntryPath) -> String {
            { StateRecord.governingDomain(of: $0.filePath, scopes: scopes) ?? Domain.vault }
        }
        func clocks(_ o: [String: JSONValue]) throws -> [String: Clock] {
            try (o["clocks"]?.objectValue ?? [:]).mapValues { try Clock(json: $0, context: .payload) }
        }
        func side(_ v: JSONValue) throws -> JoinSide {
            let o = try #require(v.objectValue)
            let unread = (o["unreadIds"]?.objectValue ?? [:]).values.flatMap { ($0.arrayValue ?? []).compactMap(\.stringValue) }
            return JoinSide(entries: try (o["entries"]?.arrayValue ?? []).map(entry), clocks: try clocks(o),
                            domain: domain((o["scopes"]?.objectValue ?? [:]).compactMapValues(\.stringValue)), unreadIDs: Set(unread))
        }
        let r = StateJoin.join(try side(a), try side(b), domain: domain(scopes), readable: { reads.contains($0) })
        if !r.conflicts.isEmpty { throw JoinStopped(conflicts: r.conflicts) }
        // The result's clock of each domain read is the join of the sides' and of its entries' (§4.5). Domains not read are taken whole from
        // one side (§4.4): TresorCore has no function for that choice (it is `Vault.wholeDomain` in
        // Sources/Tresor/Sync+Join.swift), so the vector's clocks of those domains are not checked here.
        let ca = try clocks(try #require(a.objectValue)), cb = try clocks(try #require(b.objectValue))
        if let want = v["expected"]?.objectValue?["clocks"]?.objectValue {
            for d in reads {
                #expect(StateJoin.domainClock(ca[d] ?? .empty, cb[d] ?? .empty, of: d, entries: r.entries, domain: domain(scopes))
                        == (try Clock(json: want[d], context: .payload)), "the clock of \(d)")
            }
        }
        let out: [String: JSONValue] = ["entries": .array(r.entries.map(json))]
        return (.object(out), r.resolutions.map(record))
    }

    /// Spec/MERGE.md §8: two vault headers or two scope headers. When the epochs differ the newer side's key is the
    /// result's (the caller's decision, as in `Vault.join`); a slot of the older side is sealed again to it (`keys`),
    /// with a fresh ephemeral key, so those slots are compared up to their sealed bytes.
    func headerJoin(_ a: JSONValue, _ b: JSONValue, scope: Bool, keys: [String: JSONValue]?) throws -> (JSONValue, [JSONValue]) {
        let newKey = try keys.map { k -> SecretBytes in
            guard let hexKey = k["new_key"]?.stringValue else { throw VectorError("keys without new_key") }
            guard let key = StateRecord.hexBytes(hexKey), key.count == 32 else { throw VectorError("new_key is not 32 bytes of hex") }
            return SecretBytes(copying: key)
        }
        func bytes(_ v: JSONValue) -> [UInt8] { v.canonicalBytes() + [0x0A] }
        let result: JSONValue, records: [MergeResolution]
        if scope {
            let x = try ScopeHeader.parse(bytes(a)), y = try ScopeHeader.parse(bytes(b))
            let side: HeaderJoin.KeySide? = x.epoch == y.epoch ? nil : (x.epoch > y.epoch ? .a : .b)
            let (h, r) = try HeaderJoin.join(x, y, keySide: side, reseal: { slot in
                guard let newKey else { throw VectorError("a slot to seal again, and no key") }
                return try x.resealing(slot, to: newKey)
            }, rewrap: { _ in throw VectorError("a vault slot to wrap again: no vault key in the vector") })
            (result, records) = (h.json(includingAuth: false), r)
        } else {
            let x = try VaultHeader.parse(bytes(a)), y = try VaultHeader.parse(bytes(b))
            let side: HeaderJoin.KeySide? = x.epoch == y.epoch ? nil : (x.epoch > y.epoch ? .a : .b)
            let (h, r) = try HeaderJoin.join(x, y, keySide: side) { slot in
                guard let newKey else { throw VectorError("a slot to seal again, and no key") }
                return try RecipientSlot.seal(newKey, to: slot.publicKey, name: slot.name, vaultID: x.vaultID, id: slot.id, dot: slot.dot)
            }
            (result, records) = (h.json(includingAuth: false), r)
        }
        return (keys == nil ? result : Self.withoutSealedKeys(result), records.map(record))
    }

    /// A header without the sealed bytes of its recipient slots (sealed with fresh ephemeral keys).
    static func withoutSealedKeys(_ header: JSONValue) -> JSONValue {
        guard var o = header.objectValue else { return header }
        o["keySlots"] = o["keySlots"]?.arrayValue.map { slots in
            .array(slots.map { s in
                guard var x = s.objectValue, x["type"]?.stringValue == "recipient" else { return s }
                x["sealedKey"] = nil
                return .object(x)
            })
        }
        return .object(o)
    }
}
