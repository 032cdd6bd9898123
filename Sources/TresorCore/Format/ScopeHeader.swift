// Scope headers `.tresor/scopes/<scope id>.json`: folders with a key and members of their own (Spec/FORMAT.md §3.12).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The vault slot of a scope header: the scope key wrapped under the vault key's scope-wrap key, so every holder of
/// the vault key holds the scope (Spec/FORMAT.md §3.12.2). A scope without one is *closed*.
package struct ScopeVaultSlot: Equatable, Sendable {
    static let type = "vault"
    /// Subkey id of the scope-wrap key (Spec/FORMAT.md §2.3).
    static let wrapKeyID: UInt64 = 4
    package var nonce: [UInt8]
    var wrappedKey: [UInt8]
    /// Version 2 scope headers: the change that wrote the slot (Spec/FORMAT.md §11.11).
    package var dot: Dot?

    static func associatedData(vaultID: String, scopeID: String) -> [UInt8] {
        Array("tresor-scope-vault\u{0}1\u{0}\(vaultID)\u{0}\(scopeID)".utf8)
    }

    /// Wraps `scopeKey` under `vaultKey`'s scope-wrap key (a fresh nonce unless one is given, for vectors).
    /// - Throws: `CryptoError`.
    static func wrap(_ scopeKey: SecretBytes, vaultKey: SecretBytes, vaultID: String, scopeID: String,
                     nonce: [UInt8] = Sodium.randomBytes(Sodium.nonceBytes), dot: Dot? = nil) throws -> ScopeVaultSlot {
        let kek = try Sodium.deriveSubkey(from: vaultKey, id: wrapKeyID, context: EntryCipher.kdfContext)
        return ScopeVaultSlot(nonce: nonce, wrappedKey: try Sodium.seal(scopeKey, key: kek, nonce: nonce,
                                                                       ad: associatedData(vaultID: vaultID, scopeID: scopeID)), dot: dot)
    }

    /// The scope key. - Throws: `CoreError.authenticationFailed` for another vault key or a changed slot.
    func open(vaultKey: SecretBytes, vaultID: String, scopeID: String) throws -> SecretBytes {
        let kek = try Sodium.deriveSubkey(from: vaultKey, id: Self.wrapKeyID, context: EntryCipher.kdfContext)
        do { return try Sodium.open(wrappedKey, key: kek, nonce: nonce, ad: Self.associatedData(vaultID: vaultID, scopeID: scopeID)) }
        catch { throw CoreError.authenticationFailed }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = ["type": .string(Self.type), "nonce": .string(Base64.encode(nonce)), "wrappedKey": .string(Base64.encode(wrappedKey))]
        if let dot { o["dot"] = dot.json }
        return .object(o)
    }

    init(nonce: [UInt8], wrappedKey: [UInt8], dot: Dot? = nil) { self.nonce = nonce; self.wrappedKey = wrappedKey; self.dot = dot }

    /// A slot of a version 2 scope header: the members above and a `dot`, nothing else (Spec/FORMAT.md §11.11).
    init(version5 o: [String: JSONValue]) throws {
        if let extra = Set(o.keys).subtracting(["type", "nonce", "wrappedKey", "dot"]).sorted().first {
            throw CoreError.malformed(.unexpectedMember(.vaultSlot, name: extra))
        }
        try self.init(json: o)
        dot = try Dot(json: o["dot"], context: .vaultSlot)
    }

    init(json o: [String: JSONValue]) throws {
        func b64(_ name: String, _ length: Int) throws -> [UInt8] {
            guard let s = o[name]?.stringValue else { throw CoreError.malformed(.member(.vaultSlot, name: name, expected: .string)) }
            guard let b = Base64.decodeCanonical(s) else { throw CoreError.badEncoding(.notBase64(.vaultSlot, member: name, bytes: nil)) }
            guard b.count == length else { throw CoreError.badEncoding(.wrongLength(.vaultSlot, member: name, bytes: length)) }
            return b
        }
        self.init(nonce: try b64("nonce", Sodium.nonceBytes), wrappedKey: try b64("wrappedKey", Sodium.keyBytes + Sodium.tagBytes))
    }
}

/// `.tresor/scopes/<scope id>.json` (Spec/FORMAT.md §3.12.2; version 2: §11.11): the scope key sealed to the scope's
/// members and, for an open scope, wrapped for the holders of the vault key; authenticated under the scope key's header key.
package struct ScopeHeader: Equatable, Sendable {
    package static let directory = ".tresor/scopes"
    static let formatName = "tresor-scope"
    /// 1 in a version 4 vault; 2 in a version 5 vault (Spec/FORMAT.md §11.11).
    package var version: Int = FormatVersion.scopeHeader
    package var vaultID: String
    package var scopeID: String
    /// The scope's folder, an entry path: every entry below it is sealed under the scope key (§3.12.3).
    package var folder: String
    package var recipientSlots: [RecipientSlot]
    package var vaultSlot: ScopeVaultSlot?
    /// Slots of types this version does not know, kept verbatim (dropped by a rekey of the scope).
    package var otherSlots: [JSONValue]
    var unknownMembers: [String: JSONValue]
    /// Version 1 only.
    package var generation: UInt64
    package var auth: [UInt8]?
    /// Version 1 only.
    package var rekeyProof: [UInt8]?
    /// Version 2: the key epoch, the header's clock, and the proofs of earlier epochs (Spec/FORMAT.md §11.5).
    package var epoch: UInt64 = 1
    package var clock: Clock = .empty
    package var rekeyChain: RekeyChain?

    /// The file of scope `scopeID`, relative to the vault root.
    package static func relativePath(scopeID: String) -> String { directory + "/" + scopeID + ".json" }

    /// The scope id of a file path `.tresor/scopes/<id>.json`, if it is one.
    package static func scopeID(ofPath path: String) -> String? {
        guard EntryPath.isInside(path, folder: directory), path.hasSuffix(".json") else { return nil }
        let id = String(path.dropFirst(directory.count + 1).dropLast(5))
        return Envelope.isCanonicalUUID(id) ? id : nil
    }

    /// What is sealed before the scope key in a scope recipient slot (Spec/FORMAT.md §3.12.2).
    static func binding(vaultID: String, scopeID: String, slotID: String) -> [UInt8] {
        Array("tresor-scope-recipient\u{0}1\u{0}\(vaultID)\u{0}\(scopeID)\u{0}\(slotID)\u{0}".utf8)
    }

    static var sealedLength: Int {
        let zero = String(repeating: "0", count: 36)
        return binding(vaultID: zero, scopeID: zero, slotID: zero).count + Sodium.keyBytes + Sodium.sealBytes
    }

    package init(vaultID: String, scopeID: String, folder: String, recipientSlots: [RecipientSlot] = [], vaultSlot: ScopeVaultSlot? = nil,
                otherSlots: [JSONValue] = [], unknownMembers: [String: JSONValue] = [:], generation: UInt64 = 1,
                auth: [UInt8]? = nil, rekeyProof: [UInt8]? = nil) {
        self.vaultID = vaultID; self.scopeID = scopeID; self.folder = folder; self.recipientSlots = recipientSlots
        self.vaultSlot = vaultSlot; self.otherSlots = otherSlots; self.unknownMembers = unknownMembers
        self.generation = generation; self.auth = auth; self.rekeyProof = rekeyProof
    }

    /// A new scope made by `change` (Spec/FORMAT.md §3.12.5, §11.11): a random scope key, a vault slot when `vaultKey`
    /// is given (an open scope), a recipient slot per member; epoch 1, to be authenticated by the caller with the scope key.
    /// - Throws: `CoreError.malformed` for a bad member name, `.memberExists` for a name or key given twice.
    package static func create(vaultID: String, folder: String, vaultKey: SecretBytes?, members: [(name: String, key: RecipientKey)],
                              change: Change, scopeID: String = UUID().uuidString.lowercased()) throws -> (ScopeHeader, SecretBytes) {
        let key = SecretBytes.random(count: Sodium.keyBytes)
        var h = ScopeHeader(vaultID: vaultID, scopeID: scopeID, folder: folder)
        h.clock.advance(to: change.dot)
        h.vaultSlot = try vaultKey.map { try ScopeVaultSlot.wrap(key, vaultKey: $0, vaultID: vaultID, scopeID: scopeID, dot: change.dot) }
        for m in members { h = try h.addingMember(m.name, publicKey: m.key, scopeKey: key, change: change) }
        return (h, key)
    }

    /// The scope key through the vault slot. - Throws: `CoreError.notARecipient` for a closed scope,
    /// `.authenticationFailed` for a slot that does not open.
    package func unlock(vaultKey: SecretBytes) throws -> SecretBytes {
        guard let vaultSlot else { throw CoreError.notARecipient }
        return try vaultSlot.open(vaultKey: vaultKey, vaultID: vaultID, scopeID: scopeID)
    }

    /// The scope key through the recipient slot sealed to `identity`. - Throws: `CoreError.notARecipient`,
    /// `.authenticationFailed`.
    package func unlock(identity: Identity) throws -> SecretBytes {
        guard let slot = recipientSlots.first(where: { $0.publicKey == identity.publicKey }) else { throw CoreError.notARecipient }
        return try slot.open(with: identity, binding: Self.binding(vaultID: vaultID, scopeID: scopeID, slotID: slot.id))
    }

    /// Checks the scope header against the vault header and the file's place (Spec/FORMAT.md §3.12.2).
    /// - Throws: `CoreError.malformed`.
    package func checkPlace(in vault: VaultHeader, path: String) throws {
        guard vaultID == vault.vaultID else { throw CoreError.malformed(.mismatch(.scopeOfAnotherVault(path: path))) }
        guard path == Self.relativePath(scopeID: scopeID) else { throw CoreError.malformed(.mismatch(.scopeIDNotFileName(path: path))) }
        guard vault.scopes[scopeID] == folder else { throw CoreError.malformed(.mismatch(.scopeNotListed(scope: scopeID, folder: folder))) }
    }

    /// The recipient slot named `name`.
    package func member(named name: String) -> RecipientSlot? { recipientSlots.first { $0.name == name } }

    /// `slot` of this scope sealed again to `scopeKey` (same id, name, public key and dot): joining across a rekey.
    package func resealing(_ slot: RecipientSlot, to scopeKey: SecretBytes) throws -> RecipientSlot {
        try RecipientSlot.seal(scopeKey, to: slot.publicKey, name: slot.name, binding: Self.binding(vaultID: vaultID, scopeID: scopeID, slotID: slot.id),
                               id: slot.id, dot: slot.dot)
    }

    /// A vault slot of this scope wrapping `scopeKey` under `vaultKey` (with `dot`): joining across a rekey.
    package func vaultSlot(wrapping scopeKey: SecretBytes, under vaultKey: SecretBytes, dot: Dot?) throws -> ScopeVaultSlot {
        try ScopeVaultSlot.wrap(scopeKey, vaultKey: vaultKey, vaultID: vaultID, scopeID: scopeID, dot: dot)
    }

    /// One more recipient slot written by `change`, to be authenticated by the caller.
    /// - Throws: `CoreError.memberExists`, `.malformed`.
    package func addingMember(_ name: String, publicKey: RecipientKey, scopeKey: SecretBytes, change: Change) throws -> ScopeHeader {
        if let other = recipientSlots.first(where: { $0.name == name || $0.publicKey == publicKey }) { throw CoreError.memberExists(other.name) }
        guard recipientSlots.count < RecipientSlot.maxSlots else { throw CoreError.malformed(.tooMany(.recipientSlot, limit: RecipientSlot.maxSlots)) }
        var h = changed(by: change)
        let id = UUID().uuidString.lowercased()
        h.recipientSlots.append(try RecipientSlot.seal(scopeKey, to: publicKey, name: name,
                                                       binding: Self.binding(vaultID: vaultID, scopeID: scopeID, slotID: id), id: id, dot: change.dot))
        return h
    }

    /// The header for a new scope key (Spec/FORMAT.md §11.5): remaining recipient slots sealed again (same ids, the
    /// change's dot), the vault slot wrapped again under `vaultKey`, unknown slots dropped, the next epoch with `chain`;
    /// to be authenticated by the caller with the new key. - Throws: `CoreError.noSuchMember`, `.notARecipient` when the
    /// scope is open and no vault key is given, `CryptoError`.
    package func rekeyed(newKey: SecretBytes, vaultKey: SecretBytes?, removing member: String?, chain: RekeyChain, change: Change) throws -> ScopeHeader {
        if let member, self.member(named: member) == nil { throw CoreError.noSuchMember(member) }
        var h = changed(by: change)
        h.epoch = epoch + 1
        h.rekeyChain = chain
        h.recipientSlots = try recipientSlots.filter { $0.name != member }.map {
            try RecipientSlot.seal(newKey, to: $0.publicKey, name: $0.name, binding: Self.binding(vaultID: vaultID, scopeID: scopeID, slotID: $0.id),
                                   id: $0.id, dot: change.dot)
        }
        if vaultSlot != nil {
            guard let vaultKey else { throw CoreError.notARecipient }
            h.vaultSlot = try ScopeVaultSlot.wrap(newKey, vaultKey: vaultKey, vaultID: vaultID, scopeID: scopeID, dot: change.dot)
        }
        h.otherSlots = []
        return h
    }

    /// This header changed by `change`, with the tag removed (version 1: the next generation).
    package func changed(by change: Change?) -> ScopeHeader {
        var h = self
        if version < FormatVersion.scopeHeader { h.generation = generation + 1 }
        if let change { h.clock.advance(to: change.dot) }
        h.auth = nil
        return h
    }

    func json(includingAuth: Bool) -> JSONValue {
        var o = unknownMembers
        o["format"] = .string(Self.formatName)
        o["version"] = .integer(UInt64(version))
        o["vault"] = .string(vaultID)
        o["scope"] = .string(scopeID)
        o["folder"] = .string(folder)
        if version >= FormatVersion.scopeHeader {
            o["keySlots"] = .array(recipientSlots.sorted { MergeOrder.compare($0.id, $1.id) < 0 }.map(\.json)
                                   + (vaultSlot.map { [$0.json] } ?? []) + otherSlots)
            o["epoch"] = .integer(epoch)
            o["clock"] = clock.json
            if let rekeyChain { o["rekey"] = rekeyChain.json }
        } else {
            o["keySlots"] = .array(recipientSlots.map(\.json) + (vaultSlot.map { [$0.json] } ?? []) + otherSlots)
            o["generation"] = .integer(generation)
            if let rekeyProof { o["rekeyProof"] = .string(Base64.encode(rekeyProof)) }
        }
        if includingAuth, let auth { o["auth"] = .string(Base64.encode(auth)) }
        return .object(o)
    }

    /// What the tag covers: `"tresor-scope" 0x00` and the canonical JSON without `auth`.
    var authenticatedBytes: [UInt8] { Array("tresor-scope".utf8) + [0] + json(includingAuth: false).canonicalBytes() }

    package func serialized() -> [UInt8] { json(includingAuth: true).canonicalBytes() + [0x0A] }

    /// Parses and checks a scope header up to its tag (Spec/FORMAT.md §3.12.2 order; version 2: §11.11); `checkPlace`
    /// and the tag (`VaultAuthenticator.verify`) come after. - Throws: `CoreError` naming the broken rule.
    /// `onlyVersion`: as `VaultHeader.parse` (a version 5 vault holds scope headers of version 2 only, §11.1).
    package static func parse(_ bytes: [UInt8], onlyVersion: Int? = nil) throws -> ScopeHeader {
        guard bytes.count <= 1 << 20 else { throw CoreError.malformed(.tooLarge(.scopeHeader, limit: 1 << 20)) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch let e as JSONParseError { throw CoreError.malformed(.notJSON(.scopeHeader, e)) }
        guard let o = json.objectValue else { throw CoreError.malformed(.notAnObject(.scopeHeader)) }
        guard o["format"]?.stringValue == formatName else { throw CoreError.malformed(.member(.scopeHeader, name: "format", expected: .value(formatName))) }
        guard let v = o["version"]?.uint64Value else { throw CoreError.malformed(.member(.scopeHeader, name: "version", expected: .nonNegativeInteger)) }
        guard v == 1 || v == UInt64(FormatVersion.scopeHeader) else { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        if let onlyVersion, v != UInt64(onlyVersion) { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        let v2 = v == UInt64(FormatVersion.scopeHeader)
        guard let vault = o["vault"]?.stringValue, Envelope.isCanonicalUUID(vault) else {
            throw CoreError.malformed(.member(.scopeHeader, name: "vault", expected: .lowercaseUUID))
        }
        guard let scope = o["scope"]?.stringValue, Envelope.isCanonicalUUID(scope) else {
            throw CoreError.malformed(.member(.scopeHeader, name: "scope", expected: .lowercaseUUID))
        }
        guard let folder = o["folder"]?.stringValue else { throw CoreError.malformed(.member(.scopeHeader, name: "folder", expected: .string)) }
        var g: UInt64 = 1, epoch: UInt64 = 1, clock = Clock.empty
        if v2 {
            guard let e = o["epoch"]?.uint64Value, e >= 1 else { throw CoreError.malformed(.member(.scopeHeader, name: "epoch", expected: .positiveInteger)) }
            epoch = e
            clock = try Clock(json: o["clock"], context: .scopeHeader)
        } else {
            guard let n = o["generation"]?.uint64Value, n >= 1 else { throw CoreError.malformed(.member(.scopeHeader, name: "generation", expected: .positiveInteger)) }
            g = n
        }
        guard let a = o["auth"]?.stringValue else { throw CoreError.malformed(.member(.scopeHeader, name: "auth", expected: .string)) }
        guard let tag = Base64.decodeCanonical(a), tag.count == 32 else { throw CoreError.badEncoding(.notBase64(.scopeHeader, member: "auth", bytes: 32)) }
        var proof: [UInt8]?, chain: RekeyChain?
        if v2 {
            switch (epoch, o["rekey"]) {
            case (1, nil): break
            case (1, _), (_, nil): throw CoreError.malformed(.mismatch(.rekeyAtEpoch(.scopeHeader, epoch: epoch)))
            case (_, let r): chain = try RekeyChain(json: r, epoch: epoch)
            }
        } else if let p = o["rekeyProof"] {
            guard let text = p.stringValue else { throw CoreError.malformed(.member(.scopeHeader, name: "rekeyProof", expected: .string)) }
            guard let b = Base64.decodeCanonical(text), b.count == 32 else { throw CoreError.badEncoding(.notBase64(.scopeHeader, member: "rekeyProof", bytes: 32)) }
            proof = b
        }
        guard let slots = o["keySlots"]?.arrayValue else { throw CoreError.malformed(.member(.scopeHeader, name: "keySlots", expected: .array)) }
        var recipients: [RecipientSlot] = [], vaultSlot: ScopeVaultSlot?, other: [JSONValue] = []
        for s in slots {
            guard let so = s.objectValue, let type = so["type"]?.stringValue else { throw CoreError.malformed(.member(.keySlot, name: "type", expected: .string)) }
            if type == RecipientSlot.type {
                guard recipients.count < RecipientSlot.maxSlots else { throw CoreError.malformed(.tooMany(.recipientSlot, limit: RecipientSlot.maxSlots)) }
                let r = v2 ? try RecipientSlot(version5: so, sealedLength: sealedLength) : try RecipientSlot(json: so, sealedLength: sealedLength)
                guard !recipients.contains(where: { $0.name == r.name || $0.publicKey == r.publicKey }) else {
                    throw CoreError.malformed(.duplicate(.recipientSlot))
                }
                recipients.append(r)
            } else if type == ScopeVaultSlot.type {
                let slot = v2 ? try ScopeVaultSlot(version5: so) : try ScopeVaultSlot(json: so)
                guard vaultSlot == nil else { throw CoreError.malformed(.duplicate(.vaultSlot)) }
                vaultSlot = slot
            } else { other.append(s) }
        }
        guard !recipients.isEmpty || vaultSlot != nil else { throw CoreError.malformed(.missing(.keySlot)) }
        if v2, !(recipients.compactMap(\.dot) + [vaultSlot?.dot].compactMap { $0 }).allSatisfy({ clock.covers($0) }) {
            throw CoreError.malformed(.dotNotCovered(.scopeHeader))
        }
        let reserved = v2 ? ["format", "version", "vault", "scope", "folder", "keySlots", "epoch", "clock", "rekey", "auth"]
            : ["format", "version", "vault", "scope", "folder", "keySlots", "generation", "auth", "rekeyProof"]
        var h = ScopeHeader(vaultID: vault, scopeID: scope, folder: folder, recipientSlots: recipients, vaultSlot: vaultSlot,
                            otherSlots: other, unknownMembers: o.filter { !reserved.contains($0.key) }, generation: g, auth: tag, rekeyProof: proof)
        h.version = Int(v)
        h.epoch = epoch
        h.clock = clock
        h.rekeyChain = chain
        return h
    }
}
