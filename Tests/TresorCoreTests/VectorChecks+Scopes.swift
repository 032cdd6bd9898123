// The tests of Spec/FORMAT.md §9.1 for scopes (§3.12): scope headers, which key seals an entry, version 4 commit tags,
// and a rekey of one scope.
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// The vector's version 4 vault header, checked with the vault key when one is given.
    private func scopedVault(_ i: [String: JSONValue]) throws -> (VaultHeader, SecretBytes?) {
        let h = try VaultHeader.parse(Array(try str(i, "vault_header").utf8))
        let key = i["vault_key"] != nil ? SecretBytes(copying: try bytes(i, "vault_key")) : nil
        if let key { try VaultAuthenticator(vaultKey: key).verify(h) }
        return (h, key)
    }

    /// Spec/FORMAT.md §3.12.2 and §3.12.4: parse, check the place, open (vault slot first), authenticate.
    private func openScope(_ h: VaultHeader, _ vaultKey: SecretBytes?, _ i: [String: JSONValue], path: String, file: [UInt8]) throws -> (ScopeHeader, SecretBytes) {
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
        _ = try cipher.open(file, expectedPath: path)
        guard let e else { return }
        #expect(owner == (try str(e, "key")))
        #expect(hex(try Sodium.deriveSubkey(from: key, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(try cipher.openPayload(try Envelope.parse(file)).withBytes { Array($0) } == Array(try str(e, "plaintext").utf8))
    }

    /// Spec/FORMAT.md §3.12.6: C without every tag line; each key's tag must be carried and verify.
    func commitAuthV4(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let (content, found) = CommitTags.split(Array(try str(i, "commit").utf8))
        guard let fields = found else { throw CoreError.malformed("a tag field twice or continued") }
        var keys: [String: [UInt8]] = [:]
        if i["vault_key"] != nil { keys[CommitTags.vaultField] = try bytes(i, "vault_key") }
        for (id, k) in i["scope_keys"]?.objectValue ?? [:] { keys[CommitTags.field(scopeID: id)] = try bytes(["k": k], "k") }
        for (field, key) in keys {
            let auth = try VaultAuthenticator(vaultKey: SecretBytes(copying: key))
            guard let value = fields[field], auth.verifyCommit(content: content, fields: Array(fields.keys), value: value) else {
                throw CoreError.authenticationFailed
            }
            if let tags = e?["tags"]?.objectValue { #expect(tags[field]?.stringValue == value) }
        }
        guard let e else { return }
        #expect(content == Array(try str(e, "content").utf8))
        #expect(fields.keys.sorted() == (e["fields"]?.arrayValue ?? []).compactMap(\.stringValue))
        #expect(UInt64(e["tags"]?.objectValue?.count ?? 0) == UInt64(keys.count))
        // What every tag covers, spelled out here.
        let names = fields.keys.sorted()
        let covered = names == ["tresor-auth"] ? Array("tresor-commit\u{0}".utf8) + content
            : Array("tresor-commit\u{0}".utf8) + content + Array("\u{0}tresor-fields\u{0}".utf8) + names.flatMap { Array($0.utf8) + [0] }
        #expect(hex(covered) == (try str(e, "tagged_message")))
    }

    /// Spec/FORMAT.md §3.12.6: the files a commit changes and the tag fields each needs, by `CommitKeyRule` from the
    /// differences of the given trees (path → mode and blob id) and each vault header's scopes.
    func commitKeyRule(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        func files(_ o: [String: JSONValue]) -> [String: String] { (o["files"]?.objectValue ?? [:]).compactMapValues(\.stringValue) }
        func scopes(_ o: [String: JSONValue]) -> [String: String] { (o["scopes"]?.objectValue ?? [:]).compactMapValues(\.stringValue) }
        let own = files(i)
        let parents = (i["parents"]?.arrayValue ?? []).compactMap(\.objectValue).map { p in
            let theirs = files(p)
            return (scopes: scopes(p), changed: Set(own.keys).union(theirs.keys).filter { own[$0] != theirs[$0] })
        }
        let all = (i["parents"]?.arrayValue ?? []).compactMap(\.objectValue).reduce(Set(own.keys)) { $0.union(files($1).keys) }
        let required = CommitKeyRule.requiredFields(scopes: scopes(i), parents: parents, files: { all })
        let expected = (e?["changed"]?.objectValue ?? [:]).mapValues { ($0.arrayValue ?? []).compactMap(\.stringValue) }
        #expect(required.mapValues { $0.sorted() } == expected)
    }

    /// Spec/FORMAT.md §3.12.5: the library's own scope rekey compared with the vector's up to the sealed boxes and
    /// nonces (fresh randomness), each opened; the entry sealed again with the given nonce.
    func scopeRekey(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let (h, vaultKey) = try scopedVault(i)
        let path = try str(i, "path")
        let (s, oldKey) = try openScope(h, vaultKey, i, path: path, file: Array(try str(i, "file").utf8))
        let newKey = SecretBytes(copying: try bytes(i, "new_scope_key"))
        let proof = try VaultAuthenticator(vaultKey: oldKey).rekeyProof(newKey: newKey)
        let ours = try VaultAuthenticator(vaultKey: newKey).authenticated(
            try s.rekeyed(newKey: newKey, vaultKey: vaultKey, removing: i["remove"]?.stringValue, proof: proof))
        guard let e else { return }
        let theirs = try ScopeHeader.parse(Array(try str(e, "file").utf8))
        try theirs.checkPlace(in: h, path: path)
        try VaultAuthenticator(vaultKey: newKey).verify(theirs)
        #expect(throws: CoreError.headerNotAuthentic) { try VaultAuthenticator(vaultKey: oldKey).verify(theirs) }
        if let vaultKey { #expect(hex(try theirs.unlock(vaultKey: vaultKey)) == hex(newKey)); #expect(hex(try ours.unlock(vaultKey: vaultKey)) == hex(newKey)) }
        #expect(theirs.generation == (try int(e, "generation")))
        #expect(ours.generation == theirs.generation)
        #expect(ours.rekeyProof.map(hex) == (try str(e, "rekey_proof")))
        #expect(theirs.rekeyProof == ours.rekeyProof)
        #expect(ours.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] } == theirs.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] })
        let oldCipher = try EntryCipher(vaultKey: oldKey), newCipher = try EntryCipher(vaultKey: newKey)
        let oldFile = Array(try str(i, "entry").utf8), newFile = Array(try str(e, "entry").utf8)
        let env = try Envelope.parse(oldFile)
        #expect(try oldCipher.openPayload(env).withBytes { try newCipher.sealPayload(Array($0), id: env.id, nonce: try bytes(i, "entry_nonce")) } == newFile)
        #expect(hex(try Sodium.deriveSubkey(from: newKey, id: 1, context: "tresorv1")) == (try str(e, "entry_key")))
        #expect(throws: CoreError.authenticationFailed) { try oldCipher.open(newFile, expectedPath: nil) }
    }
}
