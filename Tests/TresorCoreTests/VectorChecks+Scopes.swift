// The tests of Spec/FORMAT.md §9.1 for scopes of version 4 vaults (§3.12): scope headers and which key seals an entry.
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// The vector's version 4 vault header, checked with the vault key when one is given.
    func scopedVault(_ i: [String: JSONValue]) throws -> (VaultHeader, SecretBytes?) {
        let h = try VaultHeader.parse(Array(try str(i, "vault_header").utf8))
        let key = i["vault_key"] != nil ? SecretBytes(copying: try bytes(i, "vault_key")) : nil
        if let key { try VaultAuthenticator(vaultKey: key).verify(h) }
        return (h, key)
    }

    /// Spec/FORMAT.md §3.12.2 and §3.12.4: parse, check the place, open (vault slot first), authenticate.
    func openScope(_ h: VaultHeader, _ vaultKey: SecretBytes?, _ i: [String: JSONValue], path: String, file: [UInt8]) throws -> (ScopeHeader, SecretBytes) {
        let s = try ScopeHeader.parse(file)
        try s.checkPlace(in: h, path: path)
        let key: SecretBytes
        if let vaultKey, s.vaultSlot != nil { key = try s.unlock(vaultKey: vaultKey) }
        else if i["identity"] != nil { key = try s.unlock(identity: try identity(i)) }
        else if let vaultKey { key = try s.unlock(vaultKey: vaultKey) }
        else { throw CoreError.notARecipient }
        try VaultAuthenticator(vaultKey: key).verify(s)
        #expect(s.serialized() == file, "re-serialising the scope header changed the bytes")
        return (s, key)
    }

    func scope(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let (h, vaultKey) = try scopedVault(i)
        let (s, key) = try openScope(h, vaultKey, i, path: try str(i, "path"), file: Array(try str(i, "file").utf8))
        guard let e else { return }
        #expect(s.scopeID == (try str(e, "scope")))
        #expect(s.folder == (try str(e, "folder")))
        #expect(s.generation == (try int(e, "generation")))
        #expect(hex(key) == (try str(e, "scope_key")))
        #expect(hex(try Sodium.deriveSubkey(from: key, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(hex(try Sodium.deriveSubkey(from: key, id: 3, context: "tresorv1")) == (try str(e, "header_key")))
        #expect(hex(s.authenticatedBytes) == (try str(e, "authenticated_bytes")))
        #expect(s.auth.map(hex) == (try str(e, "auth")))
        let want = e["recipient_slots"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(want.count == s.recipientSlots.count)
        for (slot, w) in zip(s.recipientSlots, want) {
            #expect(slot.id == (try str(w, "id")))
            #expect(slot.name == (try str(w, "name")))
            #expect(slot.publicKey.bytes == (try bytes(w, "public_key")))
            #expect(slot.sealedKey == (try bytes(w, "sealed_key")))
            // The binding as Spec/FORMAT.md §3.12.2 spells it, built here independently of the library.
            let binding = "tresor-scope-recipient\u{0}1\u{0}\(s.vaultID)\u{0}\(s.scopeID)\u{0}\(slot.id)\u{0}"
            #expect(hex(Array(binding.utf8)) == (try str(w, "binding")))
        }
        #expect((e["vault_slot"] != nil) == (s.vaultSlot != nil))
        if let w = e["vault_slot"]?.objectValue, let slot = s.vaultSlot {
            #expect(slot.nonce == (try bytes(w, "nonce")))
            #expect(slot.wrappedKey == (try bytes(w, "wrapped_key")))
            #expect(hex(Array("tresor-scope-vault\u{0}1\u{0}\(s.vaultID)\u{0}\(s.scopeID)".utf8)) == (try str(w, "additional_data")))
            if let vaultKey {
                #expect(hex(try Sodium.deriveSubkey(from: vaultKey, id: 4, context: "tresorv1")) == (try str(w, "scope_wrap_key")))
            }
        }
    }

    /// Spec/FORMAT.md §3.12.3: the entry's scope key, or the vault key outside every scope.
    func scopedEntry(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let (h, vaultKey) = try scopedVault(i)
        let path = try EntryPath(try str(i, "path"))
        let key: SecretBytes, owner: String
        if let id = h.scope(containing: path) {
            let file = ScopeHeader.relativePath(scopeID: id)
            guard let text = i["scopes"]?.objectValue?[file]?.stringValue else { throw VectorError("no scope header \(file)") }
            key = try openScope(h, vaultKey, i, path: file, file: Array(text.utf8)).1
            owner = id
        } else {
            guard let vaultKey else { throw CoreError.notARecipient }
            key = vaultKey
            owner = "vault"
        }
        let cipher = try EntryCipher(vaultKey: key)
        let file = Array(try str(i, "file").utf8)
        _ = try cipher.openVersion1(file, expectedPath: path, dot: Dot(replica: "c0c0c0c0c0c0c0c0", counter: 1))
        guard let e else { return }
        #expect(owner == (try str(e, "key")))
        #expect(hex(try Sodium.deriveSubkey(from: key, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(try cipher.openPayload(try Envelope.parse(file, acceptingVersion1: true)).withBytes { Array($0) } == Array(try str(e, "plaintext").utf8))
    }
}
