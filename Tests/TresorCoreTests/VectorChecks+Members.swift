// The tests of Spec/FORMAT.md §9.1 for recipient key slots and identity files (§3.8 to §3.10).
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
}
