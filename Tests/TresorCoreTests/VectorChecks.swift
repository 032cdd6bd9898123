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
        if h.version >= 2, let key {
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

    func entry(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let file = Array(try str(i, "file").utf8)
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let cipher = try EntryCipher(vaultKey: vaultKey)
        let entry = try cipher.open(file, expectedPath: try EntryPath(try str(i, "path")))
        guard let e else { return }
        let env = try Envelope.parse(file)
        let plaintext = Array(try str(e, "plaintext").utf8)
        #expect(hex(try Sodium.deriveSubkey(from: vaultKey, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(env.id == (try str(e, "id")))
        #expect(env.nonce == (try bytes(e, "nonce")))
        #expect(env.associatedData == (try bytes(e, "additional_data")))
        #expect(UInt64(env.ciphertext.count) == (try int(e, "ciphertext_bytes")))
        #expect(env.serialized() == file, "envelope is not canonical")
        #expect(try cipher.openPayload(env).withBytes { Array($0) } == plaintext)
        #expect(entry.payloadJSON().canonicalBytes() == plaintext, "payload did not round-trip")
        // What `seal` encrypts: the same bytes, serialised in zeroing memory only.
        #expect(entry.payloadJSON().canonicalSecretBytes().withBytes { Array($0) } == plaintext, "zeroing serialisation differs")
        #expect(try cipher.sealPayload(plaintext, id: env.id, nonce: env.nonce) == file, "sealing again differs")
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
    }

    /// Spec/FORMAT.md §3.5: the header after a passphrase change, the new slot made with the given parameters.
    func passwd(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let h = try VaultHeader.parse(Array(try str(i, "file").utf8))
        let key = try h.unlock(passphrase: try passphrase(i, "passphrase"))
        let new = try passphrase(i, "new_passphrase")
        let kdf = KDFParameters(ops: try int(i, "ops"), mem: try int(i, "mem"), salt: try bytes(i, "salt"))
        let slot = try KeySlot.wrap(key, passphrase: new, kdf: kdf, id: try str(i, "slot_id"), nonce: try bytes(i, "nonce"),
                                    vaultID: h.vaultID)
        let changed = h.replacingPassphraseSlots(with: slot)
        guard let e else { return }
        #expect(String(decoding: changed.serialized(), as: UTF8.self) == (try str(e, "file")))
        #expect(hex(try VaultHeader.parse(changed.serialized()).unlock(passphrase: new)) == (try str(e, "vault_key")))
        #expect(throws: CoreError.wrongPassphrase) { try changed.unlock(passphrase: try passphrase(i, "passphrase")) }
    }

    /// Spec/FORMAT.md §7.1: the commit key and the tag of a commit's content.
    func commitAuth(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let content = Array(try str(i, "content").utf8)
        let authenticator = try VaultAuthenticator(vaultKey: vaultKey)
        guard let e else { return }
        #expect(hex(try Sodium.deriveSubkey(from: vaultKey, id: 2, context: "tresorv1")) == (try str(e, "commit_key")))
        let tag = try str(e, "tag")
        #expect((try authenticator.commitTag(content)) == tag)
        #expect(authenticator.verifyCommit(content: content, value: tag))
        #expect(!authenticator.verifyCommit(content: content + [0x0A], value: tag))
    }

    /// The writer rules of Spec/FORMAT.md §5.3 and §5.4: edits applied in order to a payload.
    func edit(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        guard let input = i["entry"]?.objectValue, let payload = input["payload"] else { throw VectorError("no entry") }
        var entry = try Entry(id: try str(input, "id"), payload: payload)
        var changed: [JSONValue] = []
        for op in i["edits"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            guard let time = Timestamp(parsing: try str(op, "time")) else { throw VectorError("bad time") }
            if let name = op["set"]?.stringValue {
                let value: FieldValue?
                switch op["value"] {
                case .string(let s)?: value = .text(SecretText(s))
                case .array(let a)?: value = .list(a.compactMap(\.stringValue))
                default: value = nil
                }
                changed.append(.bool(try entry.set(name, value, at: time, origin: try str(op, "origin"))))
            } else if let path = op["move"]?.stringValue {
                changed.append(.bool(entry.move(to: try EntryPath(path), at: time)))
            } else {
                throw VectorError("unknown edit")
            }
        }
        guard let e else { return }
        #expect(String(decoding: entry.payloadJSON().canonicalBytes(), as: UTF8.self)
                == e["payload"].map { String(decoding: $0.canonicalBytes(), as: UTF8.self) }, "payload after the edits")
        #expect(JSONValue.array(changed) == e["changed"], "which edits changed the entry")
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
