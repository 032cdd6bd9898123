// The tests of Spec/FORMAT.md §9.1 for recipient key slots, identity files and rekey (§3.8 to §3.11).
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// The identity of a vector's `identity` member (with `identity_passphrase` when protected).
    func identity(_ i: [String: JSONValue], file: String = "identity", passphraseMember: String = "identity_passphrase") throws -> Identity {
        let pass = try i[passphraseMember].map { _ in try passphrase(i, passphraseMember) }
        return try Identity.parse(Array(try str(i, file).utf8), passphrase: pass)
    }

    /// Spec/FORMAT.md §3.8: every recipient slot as the vector describes it; the binding spelled out here.
    func recipientSlots(_ h: VaultHeader, _ e: [String: JSONValue]) throws {
        let want = e["recipient_slots"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(want.count == h.recipientSlots.count)
        for (slot, w) in zip(h.recipientSlots, want) {
            #expect(slot.id == (try str(w, "id")))
            #expect(slot.name == (try str(w, "name")))
            #expect(slot.publicKey.bytes == (try bytes(w, "public_key")))
            #expect(slot.publicKey.fingerprint == (try str(w, "fingerprint")))
            #expect(slot.sealedKey == (try bytes(w, "sealed_key")))
            let binding = "tresor-recipient\u{0}1\u{0}\(h.vaultID)\u{0}\(slot.id)\u{0}"
            #expect(hex(Array(binding.utf8)) == (try str(w, "binding")))
        }
    }

    /// Spec/FORMAT.md §3.10: an identity file's keys and the text form of its public key.
    func identityFile(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let id = try identity(i, file: "file", passphraseMember: "passphrase")
        guard let e else { return }
        #expect(hex(id.secretKey) == (try str(e, "secret_key")))
        #expect(hex(id.publicKey.bytes) == (try str(e, "public_key")))
        #expect(id.publicKey.text == (try str(e, "public_key_text")))
        #expect(try RecipientKey(text: try str(e, "public_key_text")) == id.publicKey)
        #expect(id.publicKey.fingerprint == (try str(e, "fingerprint")))
        if let kek = e["kek"]?.stringValue {
            let o = try JSONValue.parse(Array(try str(i, "file").utf8)).objectValue!
            let k = o["kdf"]!.objectValue!
            let salt = Data(base64Encoded: k["salt"]!.stringValue!)!
            let derived = try Sodium.argon2id(passphrase: try passphrase(i, "passphrase"), salt: Array(salt),
                                              ops: k["ops"]!.uint64Value!, mem: k["mem"]!.uint64Value!)
            #expect(hex(derived) == kek)
        }
        // Written again, without or with the same passphrase parameters, it reads back as the same identity.
        let again = try Identity.parse(try id.serialized(passphrase: nil))
        #expect(again.publicKey == id.publicKey)
    }

    /// Spec/FORMAT.md §3.11: the header and an entry after a rekey. Sealed boxes use a fresh ephemeral key, so
    /// the library's own rekey is compared with the vector's up to the sealed keys, and each is opened.
    func rekey(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let h = try VaultHeader.parse(Array(try str(i, "file").utf8))
        let pass = try passphrase(i, "passphrase")
        let oldKey = try h.unlock(passphrase: pass)
        try VaultAuthenticator(vaultKey: oldKey).verify(h)
        let newKey = SecretBytes(copying: try bytes(i, "new_vault_key"))
        let kdf = KDFParameters(ops: try int(i, "ops"), mem: try int(i, "mem"), salt: try bytes(i, "salt"))
        let slot = try KeySlot.wrap(newKey, passphrase: pass, kdf: kdf, id: try str(i, "slot_id"), nonce: try bytes(i, "nonce"), vaultID: h.vaultID)
        let ours = try VaultAuthenticator(vaultKey: newKey).authenticated(
            try h.rekeyed(newKey: newKey, passphraseSlot: slot, removing: i["remove"]?.stringValue,
                          proof: try VaultAuthenticator(vaultKey: oldKey).rekeyProof(newKey: newKey)))
        guard let e else { return }
        let theirs = try VaultHeader.parse(Array(try str(e, "file").utf8))
        #expect(hex(try theirs.unlock(passphrase: pass)) == hex(newKey))
        try VaultAuthenticator(vaultKey: newKey).verify(theirs)
        #expect(throws: CoreError.headerNotAuthentic) { try VaultAuthenticator(vaultKey: oldKey).verify(theirs) }
        #expect(UInt64(theirs.generation) == (try int(e, "generation")))
        #expect(ours.generation == theirs.generation)
        #expect(ours.keySlots == theirs.keySlots)
        #expect(ours.rekeyProof == theirs.rekeyProof)
        #expect(ours.rekeyProof.map(hex) == (try str(e, "rekey_proof")))
        #expect(try VaultAuthenticator(vaultKey: oldKey).verifyRekeyProof(theirs.rekeyProof, newKey: newKey))
        #expect(!(try VaultAuthenticator(vaultKey: newKey).verifyRekeyProof(theirs.rekeyProof, newKey: oldKey)))
        #expect(ours.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] } == theirs.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] })
        for (name, text) in i["identities"]?.objectValue ?? [:] {
            let file = Array(text.stringValue!.utf8)
            let id = try Identity.parse(file, passphrase: Identity.isProtected(file) ? SecretBytes(utf8: "identity passphrase") : nil)
            if theirs.member(named: name) != nil {
                #expect(hex(try theirs.unlock(identity: id)) == hex(newKey))
                #expect(hex(try ours.unlock(identity: id)) == hex(newKey))
            } else {
                #expect(throws: CoreError.notARecipient) { try theirs.unlock(identity: id) }
                // The removed member's old slot opens the old key only, which opens nothing rekeyed.
                #expect(hex(try h.unlock(identity: id)) == hex(oldKey))
            }
        }
        // The entry: the vector's file is the old one's payload sealed under the new key with the given nonce.
        let oldCipher = try EntryCipher(vaultKey: oldKey), newCipher = try EntryCipher(vaultKey: newKey)
        let oldFile = Array(try str(i, "entry").utf8), newFile = Array(try str(e, "entry").utf8)
        let env = try Envelope.parse(oldFile)
        let payload = try oldCipher.openPayload(env)
        #expect(payload.withBytes { try! newCipher.sealPayload(Array($0), id: env.id, nonce: try! bytes(i, "entry_nonce")) } == newFile)
        #expect(hex(try Sodium.deriveSubkey(from: newKey, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(throws: CoreError.authenticationFailed) { try oldCipher.open(newFile, expectedPath: nil) }
        let resealed = try newCipher.reseal(oldFile, from: oldCipher)
        #expect(try newCipher.open(resealed, expectedPath: nil) == (try newCipher.open(newFile, expectedPath: nil)))
    }
}
