// The tests of Spec/FORMAT.md §9.1 for version 5 headers, scope headers, entries and edits (§11.4, §11.8, §11.11).
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// What a header tag covers, computed here from the file as parsed (Spec/FORMAT.md §11.4: "the header as parsed,
    /// every member at every depth included, known or not"), not from the library's model of it.
    func coveredBytes(prefix: String, file: [UInt8]) throws -> [UInt8] {
        guard var o = try JSONValue.parse(file).objectValue else { throw VectorError("the header is not an object") }
        o["auth"] = nil
        return Array(prefix.utf8) + [0] + JSONValue.object(o).canonicalBytes()
    }

    func clock(_ v: JSONValue?) throws -> Clock { try Clock(json: v, context: .payload) }

    func dot(_ v: JSONValue?) throws -> Dot { try Dot(json: v, context: .payload) }

    func subkey(_ key: SecretBytes, _ id: UInt64) throws -> String { hex(try Sodium.deriveSubkey(from: key, id: id, context: "tresorv1")) }

    /// Spec/FORMAT.md §11.4: parse (reader checks in their order), open with the credential, verify the tag; the parsed
    /// header written again is the file.
    func v5Header(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let file = Array(try str(i, "file").utf8)
        // A version 5 vault's reader takes version 5 only, checked first (§11.4).
        let h = try VaultHeader.parse(file, onlyVersion: FormatVersion.header)
        var key: SecretBytes?
        if i["passphrase"] != nil { key = try h.unlock(passphrase: try passphrase(i, "passphrase")) }
        if i["identity"] != nil { key = try h.unlock(identity: try identity(i)) }
        if let key { try VaultAuthenticator(vaultKey: key).verify(h) }
        guard let e else { return }
        #expect(h.vaultID == (try str(e, "vault")))
        #expect(h.epoch == (try int(e, "epoch")))
        #expect(h.clock == (try clock(e["clock"])))
        let slots = (e["key_slots"]?.arrayValue ?? []).compactMap(\.objectValue)
        let ours: [(String, String, Dot?)] = h.keySlots.map { ("passphrase", $0.id, $0.dot) } + h.recipientSlots.map { ("recipient", $0.id, $0.dot) }
        #expect(ours.count == slots.count)
        for (slot, want) in zip(ours, slots) {
            #expect(slot.0 == (try str(want, "type")))
            #expect(slot.1 == (try str(want, "id")))
            #expect(slot.2 == (try dot(want["dot"])))
        }
        #expect(UInt64(h.otherSlots.count) == (try int(e, "other_slots")))
        let scopes = e["scopes"]?.objectValue ?? [:]
        #expect(h.scopes == scopes.compactMapValues { $0.objectValue?["folder"]?.stringValue })
        #expect(h.scopeDots == (try scopes.mapValues { try dot($0.objectValue?["dot"]) }))
        #expect(h.serialized() == file, "re-serialising changed the bytes")
        #expect(h.authenticatedBytes == (try coveredBytes(prefix: "tresor-header", file: file)), "the tag covers the header as parsed")
        #expect(key.map(hex) == e["vault_key"]?.stringValue)
        guard let key else { return }
        #expect(try subkey(key, 3) == (try str(e, "header_key")))
        #expect(hex(h.authenticatedBytes) == (try str(e, "authenticated_bytes")))
        #expect(h.auth.map(hex) == (try str(e, "auth")))
        #expect(try VaultAuthenticator(vaultKey: key).authenticated(h).auth == h.auth, "the library's tag is the file's")
        let earlier = try h.rekeyChain.map { try $0.headerKeys(vaultID: h.vaultID, domain: Domain.vault, epoch: h.epoch, key: key) } ?? []
        #expect(earlier.map(hex) == (e["earlier_header_keys"]?.arrayValue ?? []).compactMap(\.stringValue))
        if h.epoch > 1 { #expect(e["earlier_header_keys"] != nil) }
    }

    /// Spec/FORMAT.md §11.11: a scope header of version 2, checked against its vault header and place, opened through
    /// the vault slot or the identity's slot, its tag verified.
    func v5Scope(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let vaultHeader = try VaultHeader.parse(Array(try str(i, "vault_header").utf8))
        let vaultKey = i["vault_key"] != nil ? SecretBytes(copying: try bytes(i, "vault_key")) : nil
        if let vaultKey { try VaultAuthenticator(vaultKey: vaultKey).verify(vaultHeader) }
        let path = try str(i, "path"), file = Array(try str(i, "file").utf8)
        // A version 5 vault holds scope headers of version 2 only, checked first (§11.1).
        let s = try ScopeHeader.parse(file, onlyVersion: FormatVersion.scopeHeader)
        try s.checkPlace(in: vaultHeader, path: path)
        let key: SecretBytes
        if let vaultKey, s.vaultSlot != nil { key = try s.unlock(vaultKey: vaultKey) }
        else if i["identity"] != nil { key = try s.unlock(identity: try identity(i)) }
        else if let vaultKey { key = try s.unlock(vaultKey: vaultKey) }
        else { throw VectorError("no credential") }
        try VaultAuthenticator(vaultKey: key).verify(s)
        guard let e else { return }
        #expect(s.serialized() == file, "re-serialising the scope header changed the bytes")
        #expect(s.authenticatedBytes == (try coveredBytes(prefix: "tresor-scope", file: file)), "the tag covers the header as parsed")
        #expect(s.scopeID == (try str(e, "scope")))
        #expect(s.folder == (try str(e, "folder")))
        #expect(s.epoch == (try int(e, "epoch")))
        #expect(s.clock == (try clock(e["clock"])))
        let slots = (e["key_slots"]?.arrayValue ?? []).compactMap(\.objectValue)
        let ours: [(String, String?, Dot?)] = s.recipientSlots.map { ("recipient", $0.id, $0.dot) } + (s.vaultSlot.map { [("vault", nil, $0.dot)] } ?? [])
        #expect(ours.count == slots.count)
        for (slot, want) in zip(ours, slots) {
            #expect(slot.0 == (try str(want, "type")))
            #expect(slot.1 == want["id"]?.stringValue)
            #expect(slot.2 == (try dot(want["dot"])))
        }
        #expect(hex(key) == (try str(e, "scope_key")))
        #expect(try subkey(key, 1) == (try str(e, "entry_key")))
        #expect(try subkey(key, 3) == (try str(e, "header_key")))
        #expect(try subkey(key, 6) == (try str(e, "state_key")))
        #expect(try subkey(key, 7) == (try str(e, "chain_key")))
        #expect(hex(s.authenticatedBytes) == (try str(e, "authenticated_bytes")))
        #expect(s.auth.map(hex) == (try str(e, "auth")))
        let earlier = try s.rekeyChain.map { try $0.headerKeys(vaultID: s.vaultID, domain: s.scopeID, epoch: s.epoch, key: key) } ?? []
        #expect(earlier.map(hex) == (e["earlier_header_keys"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// Spec/FORMAT.md §11.8: an entry file of envelope version 2 opened with its domain's key; the plaintext sealed with
    /// the vector's id and nonce is the file; the library writes the payload back as it read it, but for the members
    /// of field objects, history items and `moved` it does not know (accepted and dropped by a writer).
    func v5Entry(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let key = SecretBytes(copying: try bytes(i, "key"))
        let file = Array(try str(i, "file").utf8)
        let cipher = try EntryCipher(vaultKey: key)
        let entry = try cipher.open(file, expectedPath: try EntryPath(try str(i, "path")))
        guard let e else { return }
        let env = try Envelope.parse(file)
        let plaintext = Array(try str(e, "plaintext").utf8)
        #expect(env.version == 2)
        #expect(try subkey(key, 1) == (try str(e, "entry_key")))
        #expect(env.id == (try str(e, "id")))
        #expect(entry.id == env.id)
        #expect(env.nonce == (try bytes(e, "nonce")))
        #expect(env.associatedData == (try bytes(e, "additional_data")))
        #expect(env.associatedData.starts(with: Array("tresor-entry\u{0}2\u{0}".utf8)))
        #expect(env.serialized() == file, "envelope is not canonical")
        #expect(try cipher.openPayload(env).withBytes { Array($0) } == plaintext)
        #expect(try cipher.sealPayload(plaintext, id: env.id, nonce: env.nonce) == file, "sealing again differs")
        let written = entry.payloadJSON()
        #expect(written.canonicalBytes() == Self.knownMembersOnly(try JSONValue.parse(plaintext)).canonicalBytes(), "payload did not round-trip")
        #expect(written.canonicalSecretBytes().withBytes { Array($0) } == written.canonicalBytes(), "zeroing serialisation differs")
    }

    /// A payload with only the members a writer writes inside field objects, history items and `moved` (Spec/FORMAT.md
    /// §5.3, §5.4, §11.8); payload members of the top level are all kept.
    static func knownMembersOnly(_ payload: JSONValue) -> JSONValue {
        guard var o = payload.objectValue else { return payload }
        func keep(_ v: JSONValue, _ names: Set<String>) -> JSONValue {
            guard let x = v.objectValue else { return v }
            return .object(x.filter { names.contains($0.key) })
        }
        if let f = o["fields"]?.objectValue { o["fields"] = .object(f.mapValues { keep($0, ["value", "modified", "origin", "dot"]) }) }
        if let h = o["history"]?.arrayValue {
            o["history"] = .array(h.map { keep($0, ["field", "value", "modified", "origin", "replaced", "reason", "dot"]) })
        }
        if let m = o["moved"] { o["moved"] = keep(m, ["dot", "modified", "origin"]) }
        return .object(o)
    }

    /// Spec/FORMAT.md §11.8: edits of one event each (set, move, create, restore) applied in order.
    func v5Edit(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        var entry: Entry?
        if let input = i["entry"]?.objectValue, let payload = input["payload"] {
            entry = try Entry(id: try str(input, "id"), payload: payload)
        }
        var changed: [JSONValue] = []
        for op in (i["edits"]?.arrayValue ?? []).compactMap(\.objectValue) {
            let dot = try self.dot(op["dot"])
            func change() throws -> Change {
                guard let time = Timestamp(parsing: try str(op, "time")) else { throw VectorError("bad time") }
                return Change(time: time, origin: try str(op, "origin"), dot: dot)
            }
            if let name = op["set"]?.stringValue {
                guard entry != nil else { throw VectorError("set without an entry") }
                changed.append(.bool(try entry!.set(name, try fieldValue(op["value"]), change: try change())))
            } else if let path = op["move"]?.stringValue {
                guard entry != nil else { throw VectorError("move without an entry") }
                changed.append(.bool(entry!.move(to: try EntryPath(path), change: try change())))
            } else if let path = op["create"]?.stringValue {
                let c = try change()
                var made = Entry(path: try EntryPath(path), change: c)
                for (name, value) in op["fields"]?.objectValue ?? [:] { try made.set(name, try fieldValue(value), change: c) }
                entry = made
                changed.append(.bool(true))
            } else if let versions = op["restore"]?.arrayValue {
                // Spec/MERGE.md §7: the deleted versions joined in the order given, then only the clock includes the
                // restoring event (Spec/FORMAT.md §11.8 *restore*; `Vault.restore` does the same with `Clock.advance`).
                let id = try str(op, "id")
                let entries = try versions.map { try Entry(id: id, payload: $0) }
                guard var restored = entries.first else { throw VectorError("nothing to restore") }
                for v in entries.dropFirst() { restored = EntryJoin.join(restored, v).entry }
                restored.clock.advance(to: dot)
                entry = restored
                changed.append(.bool(true))
            } else {
                throw VectorError("unknown edit")
            }
        }
        guard let e else { return }
        let result = try #require(entry)
        #expect(String(decoding: result.payloadJSON().canonicalBytes(), as: UTF8.self)
                == e["payload"].map { String(decoding: $0.canonicalBytes(), as: UTF8.self) }, "payload after the edits")
        #expect(JSONValue.array(changed).canonicalBytes() == e["changed"]?.canonicalBytes(), "which edits changed the entry")
        // What the edits wrote reads back (every dot covered by the clock).
        #expect(try Entry(id: result.id, payload: result.payloadJSON()).isIdentical(to: result))
    }

    /// A field value of a vector: text, a list of texts, or null (remove).
    func fieldValue(_ v: JSONValue?) throws -> FieldValue? {
        switch v {
        case .string(let s)?: return .text(SecretText(s))
        case .array(let a)?: return .list(a.compactMap(\.stringValue))
        case .null?, nil: return nil
        default: throw VectorError("a field value is neither text, list nor null")
        }
    }
}
