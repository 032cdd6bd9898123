// The tests of Spec/FORMAT.md §9.1 for state records, rekeys with epochs and the conversion of older vaults (§11.5,
// §11.6, §11.10).
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// A vector's tree: path → file bytes.
    func tree(_ v: JSONValue?) throws -> [String: [UInt8]] {
        guard let o = v?.objectValue else { throw VectorError("no tree") }
        return try o.mapValues { guard let s = $0.stringValue else { throw VectorError("a file is not text") }; return Array(s.utf8) }
    }

    /// The epoch of `domain`'s header in `files`.
    func headerEpoch(_ domain: String, _ files: [String: [UInt8]]) throws -> UInt64 {
        if domain == Domain.vault { return try VaultHeader.parse(try #require(files[VaultHeader.relativePath])).epoch }
        return try ScopeHeader.parse(try #require(files[ScopeHeader.relativePath(scopeID: domain)])).epoch
    }

    /// Spec/FORMAT.md §11.6: the state record of `domain` in `tree`: its reader checks (`StateRecord.parse`), then the
    /// checks against the commit's tree as `Acceptance.decide` makes them (rules state-record [malformed], state-files,
    /// state-authentic [not-authentic]) with the domain's key when one is given.
    func v5State(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let files = try tree(i["tree"])
        let domain = try str(i, "domain")
        let recordBytes = try #require(files[StateRecord.relativePath(domain: domain)])
        let record = try StateRecord.parse(recordBytes)
        let header = try VaultHeader.parse(try #require(files[VaultHeader.relativePath]))
        let key = i["key"] != nil ? SecretBytes(copying: try bytes(i, "key")) : nil
        let held = try key.map { [domain: [EpochKey(epoch: try headerEpoch(domain, files), key: $0)]] } ?? [:]
        let tip = try FlatTree.tip(contents: files)
        let verdicts = try Acceptance.decide(tip: tip, vaultID: header.vaultID, held: held, opened: [:], trust: TrustRecord(), local: [:])
        guard let e else { return }
        let verdict = try #require(verdicts[domain])
        #expect(verdict.verified == (key != nil))
        #expect(record.epoch == (try int(e, "epoch")))
        #expect(verdict.epoch == record.epoch)
        #expect(record.clock == (try clock(e["clock"])))
        #expect(verdict.clock == record.clock)
        #expect(record.tree == (try str(e, "tree")))
        #expect(try DomainTree.id(domain: domain, scopes: header.scopes, source: tip) == (try str(e, "tree")))
        let ours = tip.files.filter { StateRecord.governingDomain(of: $0.path, scopes: header.scopes) == domain }
            .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        let want = (e["files"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(ours.map(\.path) == want.compactMap { $0["path"]?.stringValue }, "the files the domain governs")
        #expect(ours.map(\.blob) == want.compactMap { $0["blob"]?.stringValue })
        #expect(record.serialized() == recordBytes, "re-serialising the state record changed the bytes")
        guard let key else { return }
        let authenticator = try VaultAuthenticator(vaultKey: key)
        #expect(try subkey(key, 6) == (try str(e, "state_key")))
        #expect(hex(Array("tresor-state".utf8) + [0] + record.authenticatedJSON) == (try str(e, "authenticated_bytes")))
        #expect(record.auth.map(hex) == (try str(e, "auth")))
        #expect(record.isAuthentic(under: authenticator))
        #expect(try record.authenticated(by: authenticator).serialized() == recordBytes, "the library's record is the file")
    }

    /// Spec/FORMAT.md §11.5. `follow`: open the later header with the credential, verify its tag, and follow it only when
    /// the proof from the held epoch verifies (`RekeyChain.vouches`, a yes or no). `vault` and `scope`: the rekey built
    /// from the library's parts as `Vault.rekey` and `Vault.rekeyScope` build it, with the vector's keys and nonces;
    /// sealed boxes use fresh ephemeral keys (no API takes the vector's), so those are compared up to the sealed bytes.
    func v5Rekey(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        switch try str(i, "rekey") {
        case "follow": try follow(i, e)
        case "vault": try rekeyVault(i, e)
        case "scope": try rekeyScope(i, e)
        case let mode: throw VectorError("unknown rekey \(mode)")
        }
    }

    private func follow(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let file = Array(try str(i, "file").utf8)
        let domain = i["domain"]?.stringValue ?? Domain.vault
        let key: SecretBytes, chain: RekeyChain?, epoch: UInt64, vaultID: String
        if domain == Domain.vault {
            let h = try VaultHeader.parse(file)
            key = i["identity"] != nil ? try h.unlock(identity: try identity(i)) : try h.unlock(passphrase: try passphrase(i, "passphrase"))
            try VaultAuthenticator(vaultKey: key).verify(h)
            (chain, epoch, vaultID) = (h.rekeyChain, h.epoch, h.vaultID)
        } else {
            let s = try ScopeHeader.parse(file)
            #expect(s.scopeID == domain)
            key = try s.unlock(identity: try identity(i))
            try VaultAuthenticator(vaultKey: key).verify(s)
            (chain, epoch, vaultID) = (s.rekeyChain, s.epoch, s.vaultID)
        }
        let held = SecretBytes(copying: try bytes(i, "held_key")), heldEpoch = try int(i, "held_epoch")
        guard let chain, chain.vouches(heldKey: held, heldEpoch: heldEpoch, newKey: key, epoch: epoch, vaultID: vaultID, domain: domain) else {
            throw RefusedWithoutKind(function: "RekeyChain.vouches", specKind: "not-authentic")
        }
        guard let e else { return }
        #expect(epoch == (try int(e, "epoch")))
        #expect(hex(key) == (try str(e, "key")))
        let earlier = try chain.headerKeys(vaultID: vaultID, domain: domain, epoch: epoch, key: key)
        #expect(earlier.map(hex) == (e["earlier_header_keys"]?.arrayValue ?? []).compactMap(\.stringValue))
        // The key held verifies its own header key among them: the chain holds hk_held.
        if heldEpoch >= 1, heldEpoch < epoch { #expect(hex(earlier[Int(heldEpoch) - 1]) == (try subkey(held, 3))) }
    }

    /// A header's JSON as the comparison of two rekeys sees it: no tag, and for each slot sealed with fresh randomness
    /// (recipient slots, the vault slot) neither its sealed bytes nor its nonce.
    func withoutSealedBytes(_ json: JSONValue) -> [UInt8] {
        guard var o = json.objectValue else { return json.canonicalBytes() }
        o["auth"] = nil
        o["keySlots"] = o["keySlots"]?.arrayValue.map { slots in
            .array(slots.map { s in
                guard var x = s.objectValue, x["type"]?.stringValue == "recipient" || x["type"]?.stringValue == "vault" else { return s }
                x["sealedKey"] = nil
                x["wrappedKey"] = nil
                x["nonce"] = nil
                return .object(x)
            })
        }
        return JSONValue.object(o).canonicalBytes()
    }

    /// The change of a rekey: only its dot is written (§11.5 step 3).
    private func rekeyChange(_ i: [String: JSONValue]) throws -> Change {
        Change(time: Timestamp(milliseconds: 0), origin: "", dot: try dot(i["dot"]))
    }

    /// Every entry file of `domain` in `before` sealed again under `newKey` with the vector's nonces: compared with the
    /// vector's files, and the library's own reseal (fresh nonce) opens to the same entry.
    private func checkResealed(_ domain: String, header: VaultHeader, before: [String: [UInt8]], after: [String: [UInt8]],
                               oldKey: SecretBytes, newKey: SecretBytes, nonces: [String: JSONValue]) throws -> [String] {
        let oldCipher = try EntryCipher(vaultKey: oldKey), newCipher = try EntryCipher(vaultKey: newKey)
        var paths: [String] = []
        for (path, file) in before {
            guard let entryPath = EntryPath(filePath: path), header.domain(of: entryPath) == domain else { continue }
            paths.append(path)
            let env = try Envelope.parse(file)
            let nonce = try bytes(nonces, path)
            let theirs = try #require(after[path], "\(path) is gone after the rekey")
            #expect(try oldCipher.openPayload(env).withBytes { try newCipher.sealPayload(Array($0), id: env.id, nonce: nonce) } == theirs,
                    "\(path) sealed again under the new key")
            let resealed = try newCipher.reseal(file, from: oldCipher)
            #expect(try newCipher.open(resealed, expectedPath: entryPath).isIdentical(to: try newCipher.open(theirs, expectedPath: entryPath)))
            #expect(throws: CoreError.authenticationFailed) { try oldCipher.open(theirs, expectedPath: entryPath) }
        }
        return paths
    }

    /// The vector's state record of `domain` after a change: the clock before with the event, the header's epoch, the
    /// id of the domain's tree in `after`, tagged under `key`: as the library writes it, byte for byte.
    private func checkStateRecord(_ domain: String, before: [String: [UInt8]], after: [String: [UInt8]], scopes: [String: String],
                                  key: SecretBytes, change: Change) throws {
        let path = StateRecord.relativePath(domain: domain)
        let old = try StateRecord.parse(try #require(before[path]))
        let theirs = try #require(after[path])
        var clock = old.clock
        clock.advance(to: change.dot)
        let tree = try DomainTree.id(domain: domain, scopes: scopes, source: FileMapTree(after.mapValues { GitBlobID.of($0) }))
        let ours = try StateRecord(vaultID: old.vaultID, domain: domain, epoch: try headerEpoch(domain, after), clock: clock, tree: tree)
            .authenticated(by: try VaultAuthenticator(vaultKey: key))
        #expect(ours.serialized() == theirs, "the state record of \(domain)")
    }

    private func rekeyVault(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let before = try tree(i["tree"])
        let h = try VaultHeader.parse(try #require(before[VaultHeader.relativePath]))
        let oldKey = SecretBytes(copying: try bytes(i, "vault_key")), newKey = SecretBytes(copying: try bytes(i, "new_vault_key"))
        try VaultAuthenticator(vaultKey: oldKey).verify(h)
        let pass = try passphrase(i, "passphrase")
        let r = try #require(i["randomness"]?.objectValue)
        let change = try rekeyChange(i)
        let ps = try #require(r["passphrase_slot"]?.objectValue)
        var slot = try KeySlot.wrap(newKey, passphrase: pass, kdf: KDFParameters(ops: try int(ps, "ops"), mem: try int(ps, "mem"), salt: try bytes(ps, "salt")),
                                    id: try str(ps, "id"), nonce: try bytes(ps, "nonce"), vaultID: h.vaultID)
        slot.dot = change.dot
        let chain = try RekeyChain.make(vaultID: h.vaultID, domain: Domain.vault, epoch: h.epoch + 1, newKey: newKey, previousKey: oldKey,
                                        previousChain: h.rekeyChain, nonce: try bytes(r, "rekey_nonce"))
        let ours = try VaultAuthenticator(vaultKey: newKey).authenticated(
            try h.rekeyed(newKey: newKey, passphraseSlot: slot, removing: i["remove"]?.stringValue, chain: chain, change: change))
        guard let e else { return }
        let after = try tree(e["tree"])
        let theirs = try VaultHeader.parse(try #require(after[VaultHeader.relativePath]))
        try VaultAuthenticator(vaultKey: newKey).verify(theirs)
        #expect(throws: CoreError.headerNotAuthentic) { try VaultAuthenticator(vaultKey: oldKey).verify(theirs) }
        #expect(hex(try theirs.unlock(passphrase: pass)) == hex(newKey))
        #expect(withoutSealedBytes(ours.json(includingAuth: true)) == withoutSealedBytes(theirs.json(includingAuth: true)), "the vault header")
        #expect(ours.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text, $0.dot?.description ?? ""] }
                == theirs.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text, $0.dot?.description ?? ""] })
        #expect(chain.vouches(heldKey: oldKey, heldEpoch: h.epoch, newKey: newKey, epoch: h.epoch + 1, vaultID: h.vaultID, domain: Domain.vault))
        var changed = [VaultHeader.relativePath, StateRecord.relativePath(domain: Domain.vault)]
        changed += try checkResealed(Domain.vault, header: h, before: before, after: after, oldKey: oldKey, newKey: newKey,
                                     nonces: r["entry_nonces"]?.objectValue ?? [:])
        var epochs: [String: UInt64] = [Domain.vault: ours.epoch]
        var keys: [String: SecretBytes] = [Domain.vault: newKey]
        // Every open scope is rekeyed with the vault, its vault slot wrapped under the new vault key; closed ones stay.
        for id in h.scopes.keys.sorted() {
            let path = ScopeHeader.relativePath(scopeID: id)
            let s = try ScopeHeader.parse(try #require(before[path]))
            guard s.vaultSlot != nil else {
                #expect(after[path] == before[path], "the closed scope \(id) stays as it is")
                epochs[id] = s.epoch
                continue
            }
            let oldScopeKey = try s.unlock(vaultKey: oldKey)
            let sr = try #require(r["scopes"]?.objectValue?[id]?.objectValue)
            let newScopeKey = SecretBytes(copying: try bytes(sr, "new_key"))
            let scopeChain = try RekeyChain.make(vaultID: s.vaultID, domain: id, epoch: s.epoch + 1, newKey: newScopeKey, previousKey: oldScopeKey,
                                                 previousChain: s.rekeyChain, nonce: try bytes(sr, "rekey_nonce"))
            let oursScope = try VaultAuthenticator(vaultKey: newScopeKey).authenticated(
                try s.rekeyed(newKey: newScopeKey, vaultKey: newKey, removing: nil, chain: scopeChain, change: change))
            let theirsScope = try ScopeHeader.parse(try #require(after[path]))
            try VaultAuthenticator(vaultKey: newScopeKey).verify(theirsScope)
            #expect(hex(try theirsScope.unlock(vaultKey: newKey)) == hex(newScopeKey))
            #expect(hex(try oursScope.unlock(vaultKey: newKey)) == hex(newScopeKey))
            #expect(theirsScope.vaultSlot?.nonce == (try bytes(sr, "vault_slot_nonce")))
            #expect(withoutSealedBytes(oursScope.json(includingAuth: true)) == withoutSealedBytes(theirsScope.json(includingAuth: true)), "the scope header \(id)")
            changed += [path, StateRecord.relativePath(domain: id)]
            changed += try checkResealed(id, header: h, before: before, after: after, oldKey: oldScopeKey, newKey: newScopeKey,
                                         nonces: sr["entry_nonces"]?.objectValue ?? [:])
            epochs[id] = oursScope.epoch
            keys[id] = newScopeKey
        }
        for (domain, key) in keys {
            try checkStateRecord(domain, before: before, after: after, scopes: ours.scopes, key: key, change: change)
        }
        #expect(changed.sorted() == (e["changed"]?.arrayValue ?? []).compactMap(\.stringValue).sorted(), "the files a vault rekey writes")
        #expect(epochs == (e["epochs"]?.objectValue ?? [:]).compactMapValues(\.uint64Value))
        for path in after.keys where !changed.contains(path) { #expect(after[path] == before[path], "\(path) stays as it is") }
    }

    private func rekeyScope(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let before = try tree(i["tree"])
        let h = try VaultHeader.parse(try #require(before[VaultHeader.relativePath]))
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let id = try str(i, "scope")
        let path = ScopeHeader.relativePath(scopeID: id)
        let s = try ScopeHeader.parse(try #require(before[path]))
        let oldKey = SecretBytes(copying: try bytes(i, "scope_key")), newKey = SecretBytes(copying: try bytes(i, "new_scope_key"))
        try VaultAuthenticator(vaultKey: oldKey).verify(s)
        let r = try #require(i["randomness"]?.objectValue)
        let change = try rekeyChange(i)
        let chain = try RekeyChain.make(vaultID: s.vaultID, domain: id, epoch: s.epoch + 1, newKey: newKey, previousKey: oldKey,
                                        previousChain: s.rekeyChain, nonce: try bytes(r, "rekey_nonce"))
        let ours = try VaultAuthenticator(vaultKey: newKey).authenticated(
            try s.rekeyed(newKey: newKey, vaultKey: s.vaultSlot != nil ? vaultKey : nil, removing: i["remove"]?.stringValue, chain: chain, change: change))
        guard let e else { return }
        let after = try tree(e["tree"])
        let theirs = try ScopeHeader.parse(try #require(after[path]))
        try theirs.checkPlace(in: h, path: path)
        try VaultAuthenticator(vaultKey: newKey).verify(theirs)
        #expect(throws: CoreError.headerNotAuthentic) { try VaultAuthenticator(vaultKey: oldKey).verify(theirs) }
        if s.vaultSlot != nil {
            #expect(hex(try theirs.unlock(vaultKey: vaultKey)) == hex(newKey))
            #expect(hex(try ours.unlock(vaultKey: vaultKey)) == hex(newKey))
            #expect(theirs.vaultSlot?.nonce == (try bytes(r, "vault_slot_nonce")))
        }
        #expect(withoutSealedBytes(ours.json(includingAuth: true)) == withoutSealedBytes(theirs.json(includingAuth: true)), "the scope header")
        #expect(ours.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] } == theirs.recipientSlots.map { [$0.id, $0.name, $0.publicKey.text] })
        var changed = [path, StateRecord.relativePath(domain: id)]
        changed += try checkResealed(id, header: h, before: before, after: after, oldKey: oldKey, newKey: newKey,
                                     nonces: r["entry_nonces"]?.objectValue ?? [:])
        try checkStateRecord(id, before: before, after: after, scopes: h.scopes, key: newKey, change: change)
        #expect(changed.sorted() == (e["changed"]?.arrayValue ?? []).compactMap(\.stringValue).sorted(), "the files a scope rekey writes")
        #expect(e["epochs"]?.objectValue?[id]?.uint64Value == ours.epoch)
        for path in after.keys where !changed.contains(path) { #expect(after[path] == before[path], "\(path) stays as it is") }
    }

    /// Spec/FORMAT.md §11.10: `Conversion.convert` on the vector's tree. Entries are sealed with fresh nonces (the
    /// function takes none), so entry files are compared through their payloads and the vector's nonces, and the state
    /// records, which bind the entry files' blob ids, as the library computes them over the vector's files.
    func v5Convert(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let before = try tree(i["tree"])
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let old = try VaultHeader.parse(try #require(before[VaultHeader.relativePath]))
        var scopeKeys: [String: SecretBytes] = [:]
        for (id, k) in i["closed_scope_keys"]?.objectValue ?? [:] { scopeKeys[id] = SecretBytes(copying: try bytes(["k": k], "k")) }
        for id in old.scopes.keys where scopeKeys[id] == nil {
            // An open scope's key through its vault slot; one that does not open is left for `convert` to refuse.
            if let bytes = before[ScopeHeader.relativePath(scopeID: id)], let s = try? ScopeHeader.parse(bytes),
               let k = try? s.unlock(vaultKey: vaultKey) { scopeKeys[id] = k }
        }
        let treeID = try str(i, "tree_id")
        // `.gitattributes` is an input of the conversion (the library passes its own text); the vector's is used here.
        let after = try e.map { try tree($0["tree"]) }
        let attributes = after?[".gitattributes"] ?? Array(Self.attributes.utf8)
        let out = try Conversion.convert(files: before, treeID: treeID, vaultKey: vaultKey, scopeKeys: scopeKeys, attributes: attributes)
        guard let e, let after else { return }
        let u = Conversion.replicaID(vaultID: old.vaultID, treeID: treeID)
        #expect(u == (try str(e, "replica")))
        let dot = Dot(replica: u, counter: 1)
        #expect(Set(out.keys) == Set(after.keys), "the files of the converted vault")
        let header = try VaultHeader.parse(try #require(out[VaultHeader.relativePath]))
        #expect(out[VaultHeader.relativePath] == after[VaultHeader.relativePath], "the vault header")
        #expect(header.version == 5 && header.epoch == 1 && header.clock == Clock([u: 1]))
        try VaultAuthenticator(vaultKey: vaultKey).verify(header)
        var keys: [String: SecretBytes] = [Domain.vault: vaultKey]
        for id in header.scopes.keys {
            let path = ScopeHeader.relativePath(scopeID: id)
            #expect(out[path] == after[path], "the scope header \(id)")
            keys[id] = scopeKeys[id]
        }
        let payloads = e["payloads"]?.objectValue ?? [:]
        let nonces = i["entry_nonces"]?.objectValue ?? [:]
        for (path, theirs) in after {
            guard let entryPath = EntryPath(filePath: path) else { continue }
            let cipher = try EntryCipher(vaultKey: try #require(keys[header.domain(of: entryPath)]))
            let mine = try cipher.open(try #require(out[path]), expectedPath: entryPath)
            let want = try #require(payloads[entryPath.string], "no payload for \(entryPath)")
            #expect(mine.payloadJSON().canonicalBytes() == want.canonicalBytes(), "the payload of \(entryPath)")
            #expect(mine.clock == Clock([u: 1]) && mine.moved.dot == dot)
            let env = try Envelope.parse(try #require(out[path]))
            #expect(try cipher.sealPayload(mine.payloadJSON().canonicalBytes(), id: env.id, nonce: try bytes(nonces, path)) == theirs,
                    "\(path) sealed with the vector's nonce")
        }
        let source = FileMapTree(after.mapValues { GitBlobID.of($0) }), oursSource = FileMapTree(out.mapValues { GitBlobID.of($0) })
        for (domain, key) in keys {
            let path = StateRecord.relativePath(domain: domain)
            let record = try StateRecord.parse(try #require(out[path]))
            #expect(record.epoch == 1 && record.clock == Clock([u: 1]) && record.domain == domain && record.vaultID == old.vaultID)
            #expect(record.tree == (try DomainTree.id(domain: domain, scopes: header.scopes, source: oursSource)))
            #expect(record.isAuthentic(under: try VaultAuthenticator(vaultKey: key)))
            var onTheirs = record
            onTheirs.tree = try DomainTree.id(domain: domain, scopes: header.scopes, source: source)
            #expect(try onTheirs.authenticated(by: try VaultAuthenticator(vaultKey: key)).serialized() == after[path], "the state record of \(domain)")
        }
    }

    /// `.gitattributes` of a version 5 vault (Spec/FORMAT.md §11.7).
    static let attributes = "*.json diff=tresor merge=tresor\n.tresor/vault.json diff merge=tresor-header\n.tresor/scopes/*.json diff merge=tresor-header\n.tresor/state/*.json diff merge=tresor-state\n"
}
