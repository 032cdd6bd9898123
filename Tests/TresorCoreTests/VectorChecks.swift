// The tests of Spec/FORMAT.md §9.1 by kind, and the helpers that read vector members.
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    func kdf(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let pass = try str(i, "passphrase")
        #expect(hex(Array(pass.utf8)) == (try str(i, "passphrase_hex")))
        let params = KDFParameters(ops: try int(i, "ops"), mem: try int(i, "mem"), salt: try bytes(i, "salt"))
        try params.validate()
        let key = try Sodium.argon2id(passphrase: SecretBytes(utf8: pass), salt: params.salt, ops: params.ops, mem: params.mem)
        if let e { #expect(hex(key) == (try str(e, "key"))) }
    }

    func entryKey(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let sub = try Sodium.deriveSubkey(from: SecretBytes(copying: try bytes(i, "vault_key")), id: 1, context: "tresorv1")
        if let e { #expect(hex(sub) == (try str(e, "entry_key"))) }
    }

    func header(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let file = Array(try str(i, "file").utf8)
        let h = try VaultHeader.parse(file)
        let pass = try i["passphrase"].map { _ in try passphrase(i, "passphrase") }
        var key = try pass.map { try h.unlock(passphrase: $0) }
        if i["identity"] != nil { key = try h.unlock(identity: try identity(i)) }
        if let key { try VaultAuthenticator(vaultKey: key).verify(h) }
        guard let e else { return }
        if h.version >= 3 { try recipientSlots(h, e) }
        if h.version >= 4 { #expect(h.scopes == (e["scopes"]?.objectValue ?? [:]).compactMapValues(\.stringValue)) }
        if h.version >= 2, h.version < 5, let key {
            #expect(UInt64(h.generation) == (try int(e, "generation")))
            #expect(hex(try Sodium.deriveSubkey(from: key, id: 3, context: "tresorv1")) == (try str(e, "header_key")))
            #expect(hex(h.authenticatedBytes) == (try str(e, "authenticated_bytes")))
            #expect(h.auth.map(hex) == (try str(e, "auth")))
        }
        #expect(h.vaultID == (try str(e, "vault")))
        #expect(h.serialized() == file, "re-serialising changed the bytes")
        #expect(UInt64(h.otherSlots.count) == (try int(e, "other_slots")))
        let slots = e["key_slots"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(slots.count == h.keySlots.count)
        for (slot, want) in zip(h.keySlots, slots) {
            #expect(slot.id == (try str(want, "id")))
            #expect(slot.kdf == KDFParameters(ops: try int(want, "ops"), mem: try int(want, "mem"), salt: try bytes(want, "salt")))
            #expect(slot.nonce == (try bytes(want, "nonce")))
            #expect(slot.wrappedKey == (try bytes(want, "wrapped_key")))
            // The additional data as Spec/FORMAT.md §3.3 spells it, built here independently of the library.
            let ad = "tresor-keyslot\u{0}1\u{0}\(h.vaultID)\u{0}\(slot.id)\u{0}argon2id13\u{0}\(slot.kdf.ops)\u{0}\(slot.kdf.mem)\u{0}"
                + Data(slot.kdf.salt).base64EncodedString()
            #expect(hex(Array(ad.utf8)) == (try str(want, "additional_data")))
            #expect((want["kek"] != nil) == (pass != nil), "kek is given exactly when a passphrase is")
            if let pass {
                let kek = try Sodium.argon2id(passphrase: pass, salt: slot.kdf.salt, ops: slot.kdf.ops, mem: slot.kdf.mem)
                #expect(hex(kek) == (try str(want, "kek")))
            }
        }
        #expect(key.map(hex) == e["vault_key"]?.stringValue)
    }

    /// Spec/FORMAT.md §6: an entry file of a vault of version 1–4 (envelope version 1), opened as a conversion opens it
    /// (`EntryCipher.openVersion1`, every value given one dot, §11.10).
    func entry(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let file = Array(try str(i, "file").utf8)
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let cipher = try EntryCipher(vaultKey: vaultKey)
        let dot = Dot(replica: "c0c0c0c0c0c0c0c0", counter: 3)
        let entry = try cipher.openVersion1(file, expectedPath: try EntryPath(try str(i, "path")), dot: dot)
        guard let e else { return }
        let env = try Envelope.parse(file, acceptingVersion1: true)
        #expect(env.version == 1)
        #expect(throws: CoreError.unsupportedVersion(1)) { try Envelope.parse(file) }
        let plaintext = Array(try str(e, "plaintext").utf8)
        let entryKey = try Sodium.deriveSubkey(from: vaultKey, id: 1, context: "tresorv1")
        #expect(hex(entryKey) == (try str(e, "entry_key")))
        #expect(env.id == (try str(e, "id")))
        #expect(env.nonce == (try bytes(e, "nonce")))
        #expect(env.associatedData == (try bytes(e, "additional_data")))
        #expect(Array("tresor-entry\u{0}1\u{0}".utf8) == Array(env.associatedData.prefix(15)))
        #expect(UInt64(env.ciphertext.count) == (try int(e, "ciphertext_bytes")))
        #expect(env.serialized() == file, "envelope is not canonical")
        #expect(try cipher.openPayload(env).withBytes { Array($0) } == plaintext)
        // Sealing the plaintext with the vector's id and nonce under the entry key gives the file again (§6.3).
        var again = Envelope(version: 1, id: env.id, nonce: env.nonce, ciphertext: [])
        again.ciphertext = try Sodium.seal(SecretBytes(copying: plaintext), key: entryKey, nonce: env.nonce, ad: again.associatedData)
        #expect(again.serialized() == file, "sealing again differs")
        // The payload is kept whole: the version 2 payload without `clock`, `moved` and the dots is the plaintext, and
        // every dot is the one given.
        #expect(Self.withoutDots(entry.payloadJSON()).canonicalBytes() == plaintext, "payload did not round-trip")
        #expect(entry.clock == Clock([dot.replica: dot.counter]))
        #expect(entry.moved == PathWrite(modified: entry.modified, origin: "", dot: dot))
        #expect(entry.fields.values.allSatisfy { $0.dot == dot } && entry.history.allSatisfy { $0.dot == dot })
        #expect(entry.id == env.id)
        #expect(entry.path.string == (try str(e, "path")))
        #expect(entry.created.description == (try str(e, "created")))
        #expect(entry.modified.description == (try str(e, "modified")))
        #expect(UInt64(entry.history.count) == (try int(e, "history_items")))
        let fields = e["fields"]?.objectValue ?? [:]
        #expect(Set(entry.fields.keys) == Set(fields.keys))
        for (field, want) in fields {
            switch want {
            case .string(let s): #expect(entry.fields[field]?.value == .text(SecretText(s)), "\(field)")
            case .array(let a): #expect(entry.fields[field]?.value == .list(a.compactMap(\.stringValue)), "\(field)")
            default: Issue.record("field \(field) has an unexpected expected value")
            }
        }
        // What a version 5 reader does with it: no version 5 payload (no clock, no moved, no dots).
        #expect(throws: CoreError.self) { try Entry(id: env.id, payload: try JSONValue.parse(plaintext)) }
    }

    /// A version 5 payload without what version 5 added: `clock`, `moved` and every `dot`.
    static func withoutDots(_ payload: JSONValue) -> JSONValue {
        guard var o = payload.objectValue else { return payload }
        o["clock"] = nil
        o["moved"] = nil
        func strip(_ v: JSONValue) -> JSONValue {
            guard var x = v.objectValue else { return v }
            x["dot"] = nil
            return .object(x)
        }
        if let f = o["fields"]?.objectValue { o["fields"] = .object(f.mapValues(strip)) }
        if let h = o["history"]?.arrayValue { o["history"] = .array(h.map(strip)) }
        return .object(o)
    }

    /// Spec/FORMAT.md §3.5: the header after a passphrase change, the new slot made with the given parameters.
    func passwd(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let h = try VaultHeader.parse(Array(try str(i, "file").utf8))
        let key = try h.unlock(passphrase: try passphrase(i, "passphrase"))
        let new = try passphrase(i, "new_passphrase")
        let kdf = KDFParameters(ops: try int(i, "ops"), mem: try int(i, "mem"), salt: try bytes(i, "salt"))
        let slot = try KeySlot.wrap(key, passphrase: new, kdf: kdf, id: try str(i, "slot_id"), nonce: try bytes(i, "nonce"),
                                    vaultID: h.vaultID)
        let changed = h.replacingPassphraseSlots(with: slot, change: nil)
        guard let e else { return }
        #expect(changed.version == h.version, "a passphrase change keeps the header's version")
        #expect(String(decoding: changed.serialized(), as: UTF8.self) == (try str(e, "file")))
        #expect(hex(try VaultHeader.parse(changed.serialized()).unlock(passphrase: new)) == (try str(e, "vault_key")))
        #expect(throws: CoreError.wrongPassphrase) { try changed.unlock(passphrase: try passphrase(i, "passphrase")) }
    }

    // MARK: Members of a vector

    /// A passphrase member as Spec/FORMAT.md §2.1 turns text into bytes (UTF-8 of the NFC form).
    func passphrase(_ o: [String: JSONValue], _ k: String) throws -> SecretBytes {
        guard let p = SecretBytes.passphrase(Array(try str(o, k).utf8)) else { throw VectorError("\"\(k)\" is not UTF-8") }
        return p
    }
    func str(_ o: [String: JSONValue], _ k: String) throws -> String {
        guard let s = o[k]?.stringValue else { throw VectorError("vector has no string \"\(k)\"") }
        return s
    }
    func int(_ o: [String: JSONValue], _ k: String) throws -> UInt64 {
        guard let n = o[k]?.uint64Value else { throw VectorError("vector has no integer \"\(k)\"") }
        return n
    }
    func bytes(_ o: [String: JSONValue], _ k: String) throws -> [UInt8] {
        let s = Array(try str(o, k).utf8)
        guard s.count % 2 == 0 else { throw VectorError("odd hex in \"\(k)\"") }
        return try stride(from: 0, to: s.count, by: 2).map { i in
            guard let b = UInt8(String(decoding: s[i...i + 1], as: UTF8.self), radix: 16) else {
                throw VectorError("bad hex in \"\(k)\"")
            }
            return b
        }
    }
    func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    func hex(_ s: SecretBytes) -> String { s.withBytes { hex(Array($0)) } }
}
