// The vault header `.tresor/vault.json`: vault id and key slots (Spec/FORMAT.md §3).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Argon2id cost presets. `minimum` exists for tests only.
public enum KDFLevel: String, CaseIterable, Sendable {
    case minimum, interactive, moderate, sensitive
    public var ops: UInt64 { switch self { case .minimum: 1; case .interactive: 2; case .moderate: 3; case .sensitive: 4 } }
    public var mem: UInt64 {
        switch self { case .minimum: 8192; case .interactive: 64 << 20; case .moderate: 256 << 20; case .sensitive: 1 << 30 }
    }
}

/// Argon2id13 parameters of a passphrase key slot.
package struct KDFParameters: Equatable, Sendable {
    package static let algorithm = "argon2id13"
    static let maxOps: UInt64 = 16
    static let maxMem: UInt64 = 1 << 30
    package var ops: UInt64
    package var mem: UInt64
    package var salt: [UInt8]

    package init(ops: UInt64, mem: UInt64, salt: [UInt8]) { self.ops = ops; self.mem = mem; self.salt = salt }
    package init(level: KDFLevel) { self.init(ops: level.ops, mem: level.mem, salt: Sodium.randomBytes(Sodium.saltBytes)) }

    /// Refuses parameters outside Spec/FORMAT.md §3.2 before any work is done.
    package func validate() throws {
        guard ops >= Sodium.minOps, ops <= Self.maxOps else { throw CoreError.kdfOutOfBounds(.ops(ops, allowed: Sodium.minOps...Self.maxOps)) }
        guard mem >= Sodium.minMem, mem <= Self.maxMem else { throw CoreError.kdfOutOfBounds(.mem(mem, allowed: Sodium.minMem...Self.maxMem)) }
        guard salt.count == Sodium.saltBytes else { throw CoreError.kdfOutOfBounds(.saltLength(salt.count, expected: Sodium.saltBytes)) }
    }

    /// The level whose cost these parameters match, if any.
    package var level: KDFLevel? { KDFLevel.allCases.first { $0.ops == ops && $0.mem == mem } }
}

/// A passphrase key slot: the vault key wrapped under an Argon2id-derived key (Spec/FORMAT.md §3.3).
package struct KeySlot: Equatable, Sendable {
    static let passphraseType = "passphrase"
    package var id: String
    package var kdf: KDFParameters
    package var nonce: [UInt8]
    var wrappedKey: [UInt8]
    /// Version 5: the change that wrote the slot (Spec/FORMAT.md §11.4); not part of the additional data.
    package var dot: Dot?

    /// Additional data binding the slot to its vault and parameters.
    func associatedData(vaultID: String) -> [UInt8] {
        Array("tresor-keyslot\u{0}\(FormatVersion.keySlot)\u{0}\(vaultID)\u{0}\(id)\u{0}\(KDFParameters.algorithm)\u{0}\(kdf.ops)\u{0}\(kdf.mem)\u{0}\(Base64.encode(kdf.salt))".utf8)
    }

    /// Wraps `vaultKey` under `passphrase` with fresh salt and nonce, written by the change with `dot`.
    package static func wrap(_ vaultKey: SecretBytes, passphrase: SecretBytes, level: KDFLevel, vaultID: String, dot: Dot?) throws -> KeySlot {
        var slot = try wrap(vaultKey, passphrase: passphrase, kdf: KDFParameters(level: level), id: UUID().uuidString.lowercased(),
                            nonce: Sodium.randomBytes(Sodium.nonceBytes), vaultID: vaultID)
        slot.dot = dot
        return slot
    }

    /// Wraps `vaultKey` with explicit parameters, slot id and nonce. For Spec/vectors and tests only:
    /// production code calls `wrap(_:passphrase:level:vaultID:)`, which draws fresh salt and nonce.
    /// - Throws: `CoreError.kdfOutOfBounds`, `CryptoError`. Spec/FORMAT.md §3.3
    package static func wrap(_ vaultKey: SecretBytes, passphrase: SecretBytes, kdf: KDFParameters, id: String,
                            nonce: [UInt8], vaultID: String) throws -> KeySlot {
        try kdf.validate()
        var slot = KeySlot(id: id, kdf: kdf, nonce: nonce, wrappedKey: [])
        let kek = try Sodium.argon2id(passphrase: passphrase, salt: slot.kdf.salt, ops: slot.kdf.ops, mem: slot.kdf.mem)
        slot.wrappedKey = try Sodium.seal(vaultKey, key: kek, nonce: slot.nonce, ad: slot.associatedData(vaultID: vaultID))
        return slot
    }

    /// The vault key, or `CoreError.authenticationFailed` for a wrong passphrase or changed slot.
    func unwrap(passphrase: SecretBytes, vaultID: String) throws -> SecretBytes {
        try kdf.validate()
        let kek = try Sodium.argon2id(passphrase: passphrase, salt: kdf.salt, ops: kdf.ops, mem: kdf.mem)
        do {
            let key = try Sodium.open(wrappedKey, key: kek, nonce: nonce, ad: associatedData(vaultID: vaultID))
            guard key.count == Sodium.keyBytes else { throw CoreError.malformed(.mismatch(.wrappedKeyLength(bytes: key.count))) }
            return key
        } catch is CryptoError { throw CoreError.authenticationFailed }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = ["type": .string(KeySlot.passphraseType), "id": .string(id),
                 "kdf": .object(["algorithm": .string(KDFParameters.algorithm), "ops": .integer(kdf.ops),
                                 "mem": .integer(kdf.mem), "salt": .string(Base64.encode(kdf.salt))]),
                 "nonce": .string(Base64.encode(nonce)), "wrappedKey": .string(Base64.encode(wrappedKey))]
        if let dot { o["dot"] = dot.json }
        return .object(o)
    }

    init(id: String, kdf: KDFParameters, nonce: [UInt8], wrappedKey: [UInt8], dot: Dot? = nil) {
        self.id = id; self.kdf = kdf; self.nonce = nonce; self.wrappedKey = wrappedKey; self.dot = dot
    }

    /// A version 5 slot (Spec/FORMAT.md §11.4): the members of §3.3 and a `dot`, nothing else.
    init(version5 o: [String: JSONValue]) throws {
        // §3.4 step 6's checks of the fields first, then that the slot has exactly their members (§11.4).
        try self.init(json: o)
        if let extra = Set(o.keys).subtracting(["type", "id", "kdf", "nonce", "wrappedKey", "dot"]).sorted().first {
            throw CoreError.malformed(.unexpectedMember(.passphraseSlot, name: extra))
        }
        // (init(json:) made sure `kdf` is an object.)
        if let extra = Set((o["kdf"]?.objectValue ?? [:]).keys).subtracting(["algorithm", "ops", "mem", "salt"]).sorted().first {
            throw CoreError.malformed(.unexpectedMember(.kdf, name: extra))
        }
        dot = try Dot(json: o["dot"], context: .passphraseSlot)
    }

    init(json o: [String: JSONValue]) throws {
        guard let id = o["id"]?.stringValue, Envelope.isCanonicalUUID(id) else { throw CoreError.malformed(.member(.passphraseSlot, name: "id", expected: .lowercaseUUID)) }
        guard let k = o["kdf"]?.objectValue else { throw CoreError.malformed(.member(.passphraseSlot, name: "kdf", expected: .object)) }
        guard k["algorithm"]?.stringValue == KDFParameters.algorithm else { throw CoreError.kdfOutOfBounds(.algorithm(k["algorithm"]?.stringValue)) }
        guard let ops = k["ops"]?.uint64Value else { throw CoreError.malformed(.member(.kdf, name: "ops", expected: .nonNegativeInteger)) }
        guard let mem = k["mem"]?.uint64Value else { throw CoreError.malformed(.member(.kdf, name: "mem", expected: .nonNegativeInteger)) }
        func b64(_ v: JSONValue?, _ part: CoreError.FilePart, _ name: String, _ len: Int) throws -> [UInt8] {
            guard let s = v?.stringValue else { throw CoreError.malformed(.member(part, name: name, expected: .string)) }
            guard let b = Base64.decodeCanonical(s) else { throw CoreError.badEncoding(.notBase64(part, member: name, bytes: nil)) }
            guard b.count == len else { throw CoreError.badEncoding(.wrongLength(part, member: name, bytes: len)) }
            return b
        }
        let salt = try b64(k["salt"], .kdf, "salt", Sodium.saltBytes)
        let kdf = KDFParameters(ops: ops, mem: mem, salt: salt)
        try kdf.validate()
        self.init(id: id, kdf: kdf, nonce: try b64(o["nonce"], .passphraseSlot, "nonce", Sodium.nonceBytes),
                  wrappedKey: try b64(o["wrappedKey"], .passphraseSlot, "wrappedKey", Sodium.keyBytes + Sodium.tagBytes))
    }
}

/// `.tresor/vault.json` (Spec/FORMAT.md §3; version 5: §11.4).
package struct VaultHeader: Equatable, Sendable {
    package static let relativePath = ".tresor/vault.json"
    static let formatName = "tresor-vault"
    /// Readers refuse headers with more passphrase slots (Spec/FORMAT.md §3.4).
    static let maxPassphraseSlots = 16
    /// 1; 2 with `generation` and `auth` (§3.6); 3 with recipient key slots (§3.8); 4 with scopes (§3.12); 5:
    /// authenticated state, with dots, a clock and epochs (§11.4).
    package var version: Int
    package var vaultID: String
    /// The passphrase key slots.
    package var keySlots: [KeySlot]
    /// Version 3: the recipient key slots, one per member (person or device).
    package var recipientSlots: [RecipientSlot]
    /// Slots of types this version does not know, kept verbatim.
    package var otherSlots: [JSONValue]
    var unknownMembers: [String: JSONValue]
    /// The slots in the order a parsed version 5 header had them: the tag covers the header as it was written, so an
    /// unchanged header is written back in that order (a changed one in the order of Spec/MERGE.md §8).
    /// (Not part of the header's value: two headers with the same slots are equal whatever order they were read in.)
    var parsedSlotOrder: [JSONValue]? {
        get { parsedOrder.slots }
        set { parsedOrder.slots = newValue }
    }
    private var parsedOrder = ParsedOrder()
    private struct ParsedOrder: Equatable, Sendable {
        var slots: [JSONValue]?
        static func == (_: ParsedOrder, _: ParsedOrder) -> Bool { true }
    }
    /// Versions 2–4: how many times the header has changed.
    package var generation: UInt64
    /// Version 2 on: the authentication tag over everything else (`VaultAuthenticator`); nil until set.
    package var auth: [UInt8]?
    /// Versions 3–4, after a rekey: a tag under the previous key's header key over the new one (§3.11).
    package var rekeyProof: [UInt8]?
    /// Version 4 on: the scopes, scope id → folder (Spec/FORMAT.md §3.12.1).
    package var scopes: [String: String] = [:]
    /// Version 5: the change that made each scope (scope id → dot).
    package var scopeDots: [String: Dot] = [:]
    /// Version 5: the key epoch (§11.5).
    package var epoch: UInt64 = 1
    /// Version 5: every change of the header this version has seen (§11.4).
    package var clock: Clock = .empty
    /// Version 5, epoch > 1: proofs from every earlier epoch and the earlier header keys (§11.5).
    package var rekeyChain: RekeyChain?

    package init(version: Int = FormatVersion.header, vaultID: String, keySlots: [KeySlot], otherSlots: [JSONValue],
                unknownMembers: [String: JSONValue], generation: UInt64 = 1, auth: [UInt8]? = nil, recipientSlots: [RecipientSlot] = []) {
        self.version = version; self.vaultID = vaultID; self.keySlots = keySlots; self.otherSlots = otherSlots
        self.unknownMembers = unknownMembers; self.generation = generation; self.auth = auth; self.recipientSlots = recipientSlots
    }

    /// A new vault made by `change`: a random vault key wrapped in one passphrase slot; a version 5 header of epoch 1
    /// whose tag is set by the caller (`VaultAuthenticator.authenticated`).
    package static func create(passphrase: SecretBytes, level: KDFLevel, change: Change) throws -> (VaultHeader, SecretBytes) {
        let key = SecretBytes.random(count: Sodium.keyBytes)
        let id = UUID().uuidString.lowercased()
        let slot = try KeySlot.wrap(key, passphrase: passphrase, level: level, vaultID: id, dot: change.dot)
        var h = VaultHeader(vaultID: id, keySlots: [slot], otherSlots: [], unknownMembers: [:])
        h.clock.advance(to: change.dot)
        return (h, key)
    }

    /// Tries each passphrase slot in order. - Throws: `CoreError.wrongPassphrase` if none opens.
    package func unlock(passphrase: SecretBytes) throws -> SecretBytes {
        for slot in keySlots {
            if let key = try? slot.unwrap(passphrase: passphrase, vaultID: vaultID) { return key }
        }
        throw CoreError.wrongPassphrase
    }

    /// Opens the recipient slot of `identity`'s public key (Spec/FORMAT.md §3.8).
    /// - Throws: `CoreError.notARecipient` if no slot is sealed to it, `.authenticationFailed` if it does not open.
    package func unlock(identity: Identity) throws -> SecretBytes {
        guard let slot = recipientSlots.first(where: { $0.publicKey == identity.publicKey }) else { throw CoreError.notARecipient }
        return try slot.open(with: identity, vaultID: vaultID)
    }

    /// The recipient slot named `name`, or the one sealed to `key`.
    package func member(named name: String) -> RecipientSlot? { recipientSlots.first { $0.name == name } }

    /// This header changed by `change` (Spec/FORMAT.md §11.4): the tag removed, the clock including the change (before
    /// version 5: the next generation). The caller changes it further and authenticates it.
    package func changed(by change: Change?) -> VaultHeader {
        var h = self
        if version >= 2 && version < FormatVersion.header { h.generation = generation + 1 }
        if let change { h.clock.advance(to: change.dot) }
        h.auth = nil
        return h
    }

    /// One more recipient slot, written by `change` (to be authenticated by the caller). O(1): one sealed box.
    /// - Throws: `CoreError.memberExists` for a name or key already there, `.malformed` for a bad name.
    package func addingMember(_ name: String, publicKey: RecipientKey, vaultKey: SecretBytes, change: Change) throws -> VaultHeader {
        if let other = recipientSlots.first(where: { $0.name == name || $0.publicKey == publicKey }) { throw CoreError.memberExists(other.name) }
        guard recipientSlots.count < RecipientSlot.maxSlots else { throw CoreError.malformed(.tooMany(.recipientSlot, limit: RecipientSlot.maxSlots)) }
        var h = changed(by: change)
        h.recipientSlots.append(try RecipientSlot.seal(vaultKey, to: publicKey, name: name, vaultID: vaultID, dot: change.dot))
        return h
    }

    /// The header for a new vault key (Spec/FORMAT.md §11.5): `passphraseSlot` as the only passphrase slot, every
    /// recipient slot but `member`'s sealed again to the new key (same id, name and public key, the change's dot), slots
    /// of unknown types dropped, the next epoch with `chain`; to be authenticated by the caller with the new key.
    /// - Throws: `CoreError.noSuchMember`, `CryptoError`.
    package func rekeyed(newKey: SecretBytes, passphraseSlot: KeySlot?, removing member: String? = nil, chain: RekeyChain,
                        change: Change) throws -> VaultHeader {
        if let member, self.member(named: member) == nil { throw CoreError.noSuchMember(member) }
        var h = changed(by: change)
        h.epoch = epoch + 1
        h.rekeyChain = chain
        if let passphraseSlot { h.keySlots = [passphraseSlot] }
        h.recipientSlots = try recipientSlots.filter { $0.name != member }.map {
            try RecipientSlot.seal(newKey, to: $0.publicKey, name: $0.name, vaultID: vaultID, id: $0.id, dot: change.dot)
        }
        h.otherSlots = []
        return h
    }

    /// The same vault key under a new passphrase, with fresh slot id, salt and nonce: every passphrase slot
    /// (also those another replica or implementation added) is replaced by one new slot written by `change`; slots of
    /// other types and unknown members stay; to be authenticated by the caller.
    /// - Throws: `CoreError.kdfOutOfBounds`, `CryptoError`.
    /// Spec/FORMAT.md §3.5, §11.4
    package func rewrapped(vaultKey: SecretBytes, newPassphrase: SecretBytes, level: KDFLevel, change: Change) throws -> VaultHeader {
        replacingPassphraseSlots(with: try KeySlot.wrap(vaultKey, passphrase: newPassphrase, level: level, vaultID: vaultID, dot: change.dot),
                                 change: change)
    }

    /// This header with `slot` as its only passphrase slot (Spec/FORMAT.md §3.5). Production code calls
    /// `rewrapped(vaultKey:newPassphrase:level:change:)`; Spec/vectors pass a slot made with fixed salt and nonce.
    func replacingPassphraseSlots(with slot: KeySlot, change: Change?) -> VaultHeader {
        var h = changed(by: change)
        h.keySlots = [slot]
        return h
    }

    /// The id of the scope whose folder holds `path`, or nil when the vault key seals it (Spec/FORMAT.md §3.12.3).
    package func scope(containing path: EntryPath) -> String? {
        scopes.first { EntryPath.isInside(path.string, folder: $0.value) }?.key
    }

    /// The domain (Spec/FORMAT.md §11.2) of an entry path: `vault` or the id of the scope it lies in.
    package func domain(of path: EntryPath) -> String { scope(containing: path) ?? Domain.vault }

    /// Scope `id` at `folder`, made by `change` (to be authenticated by the caller).
    /// - Throws: `CoreError.malformed` for a folder that is no entry path or that nests with another scope.
    package func addingScope(_ id: String, folder: String, change: Change) throws -> VaultHeader {
        var h = changed(by: change)
        h.scopes[id] = folder
        h.scopeDots[id] = change.dot
        try Self.checkScopes(h.scopes)
        return h
    }

    /// This header without the scope `id` (Spec/FORMAT.md §3.12.5), changed by `change`, no tag yet.
    package func removingScope(_ id: String, change: Change) -> VaultHeader {
        var h = changed(by: change)
        h.scopes[id] = nil
        h.scopeDots[id] = nil
        return h
    }

    /// Spec/FORMAT.md §3.12.1: folders are NFC entry paths, at most 64, none equal to or inside another.
    static func checkScopes(_ scopes: [String: String]) throws {
        guard scopes.count <= maxScopes else { throw CoreError.malformed(.tooMany(.scope, limit: maxScopes)) }
        for (id, folder) in scopes {
            guard Envelope.isCanonicalUUID(id) else { throw CoreError.malformed(.mismatch(.scopeID(id))) }
            guard let path = try? EntryPath(folder), path.string == folder else { throw CoreError.malformed(.mismatch(.scopeFolder(folder))) }
        }
        let folders = Array(scopes.values)
        for (i, a) in folders.enumerated() {
            for (j, b) in folders.enumerated() where i != j && (a == b || EntryPath.isInside(b, folder: a)) {
                throw CoreError.malformed(.mismatch(.scopesNest(a, b)))
            }
        }
    }

    /// Readers refuse headers with more scopes (Spec/FORMAT.md §3.12.1).
    package static let maxScopes = 64

    /// The strongest Argon2id level among the passphrase slots (never weaker than `moderate` for a slot of
    /// unknown cost): what a new slot gets unless the user asks otherwise.
    package var strongestLevel: KDFLevel {
        let levels = keySlots.map { $0.kdf.level ?? .moderate }
        return KDFLevel.allCases.last { levels.contains($0) } ?? .moderate
    }

    /// The canonical JSON object of the header; without `auth` when `includingAuth` is false (what the tag covers).
    /// Version 5 writes slots in bytewise order of slot id within their kind (Spec/MERGE.md §8).
    func json(includingAuth: Bool) -> JSONValue {
        var o = unknownMembers
        o["format"] = .string(VaultHeader.formatName)
        o["version"] = .integer(UInt64(version))
        o["vault"] = .string(vaultID)
        if version >= FormatVersion.header {
            let slots = keySlots.sorted { MergeOrder.compare($0.id, $1.id) < 0 }.map(\.json)
                + recipientSlots.sorted { MergeOrder.compare($0.id, $1.id) < 0 }.map(\.json) + otherSlots
            if let parsed = parsedSlotOrder, parsed.count == slots.count,
               Set(parsed.map { $0.canonicalBytes() }) == Set(slots.map { $0.canonicalBytes() }) {
                o["keySlots"] = .array(parsed)
            } else {
                o["keySlots"] = .array(slots)
            }
            o["scopes"] = .object(Dictionary(uniqueKeysWithValues: scopes.map { id, folder in
                (id, JSONValue.object(["folder": .string(folder), "dot": (scopeDots[id] ?? Dot(replica: "0000000000000000", counter: 1)).json]))
            }))
            o["epoch"] = .integer(epoch)
            o["clock"] = clock.json
            if let rekeyChain { o["rekey"] = rekeyChain.json }
            if includingAuth, let auth { o["auth"] = .string(Base64.encode(auth)) }
            return .object(o)
        }
        o["keySlots"] = .array(keySlots.map(\.json) + recipientSlots.map(\.json) + otherSlots)
        if version >= 3, let rekeyProof { o["rekeyProof"] = .string(Base64.encode(rekeyProof)) }
        if version >= 4 { o["scopes"] = .object(scopes.mapValues { .string($0) }) }
        if version >= 2 {
            o["generation"] = .integer(generation)
            if includingAuth, let auth { o["auth"] = .string(Base64.encode(auth)) }
        }
        return .object(o)
    }

    /// The bytes an authentication tag covers: `"tresor-header" 0x00` and the canonical JSON without `auth`.
    var authenticatedBytes: [UInt8] { Array("tresor-header".utf8) + [0] + json(includingAuth: false).canonicalBytes() }

    package func serialized() -> [UInt8] {
        json(includingAuth: true).canonicalBytes() + [0x0A]
    }

    /// Parses and checks a header (Spec/FORMAT.md §3.4, §11.4). The tag is checked with the vault key, after
    /// unlocking (`VaultAuthenticator.verify`). - Throws: `CoreError` naming the broken rule.
    /// `onlyVersion`: the version the reader takes (a version 5 vault's reader takes 5 only, Spec/FORMAT.md §11.4): any
    /// other is `unsupportedVersion` before anything else is checked. Without it, versions 1–5 are read (to convert them).
    package static func parse(_ bytes: [UInt8], onlyVersion: Int? = nil) throws -> VaultHeader {
        guard bytes.count <= 1 << 20 else { throw CoreError.malformed(.tooLarge(.vaultHeader, limit: 1 << 20)) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch let e as JSONParseError { throw CoreError.malformed(.notJSON(.vaultHeader, e)) }
        guard let o = json.objectValue else { throw CoreError.malformed(.notAnObject(.vaultHeader)) }
        guard o["format"]?.stringValue == formatName else { throw CoreError.malformed(.member(.vaultHeader, name: "format", expected: .value(formatName))) }
        guard let v = o["version"]?.uint64Value else { throw CoreError.malformed(.member(.vaultHeader, name: "version", expected: .nonNegativeInteger)) }
        guard (1...UInt64(FormatVersion.newestHeader)).contains(v) else { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        if let onlyVersion, v != UInt64(onlyVersion) { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        guard let id = o["vault"]?.stringValue, Envelope.isCanonicalUUID(id) else { throw CoreError.malformed(.member(.vaultHeader, name: "vault", expected: .lowercaseUUID)) }
        guard let slots = o["keySlots"]?.arrayValue else { throw CoreError.malformed(.member(.vaultHeader, name: "keySlots", expected: .array)) }
        if v >= UInt64(FormatVersion.header) { return try parseVersion5(o, vaultID: id, slots: slots) }
        var generation: UInt64 = 1
        var auth: [UInt8]?
        if v >= 2 {
            guard let g = o["generation"]?.uint64Value, g >= 1 else { throw CoreError.malformed(.member(.vaultHeader, name: "generation", expected: .positiveInteger)) }
            auth = try tag(o)
            generation = g
        }
        var proof: [UInt8]?
        if v >= 3, let p = o["rekeyProof"] {
            guard let text = p.stringValue else { throw CoreError.malformed(.member(.vaultHeader, name: "rekeyProof", expected: .string)) }
            guard let b = Base64.decodeCanonical(text), b.count == 32 else { throw CoreError.badEncoding(.notBase64(.vaultHeader, member: "rekeyProof", bytes: 32)) }
            proof = b
        }
        var scopes: [String: String] = [:]
        if v >= 4 {
            guard let so = o["scopes"]?.objectValue else { throw CoreError.malformed(.member(.vaultHeader, name: "scopes", expected: .object)) }
            for (id, folder) in so {
                guard let f = folder.stringValue else { throw CoreError.malformed(.member(.scope, name: id, expected: .string)) }
                scopes[id] = f
            }
            try checkScopes(scopes)
        }
        var known: [KeySlot] = [], recipients: [RecipientSlot] = [], other: [JSONValue] = []
        for s in slots {
            guard let so = s.objectValue, let type = so["type"]?.stringValue else { throw CoreError.malformed(.member(.keySlot, name: "type", expected: .string)) }
            if type == KeySlot.passphraseType { known.append(try KeySlot(json: so)) }
            else if type == RecipientSlot.type, v >= 3 { try addRecipient(try RecipientSlot(json: so), to: &recipients) }
            else { other.append(s) }
        }
        try checkPassphraseSlots(known)
        let reserved = v >= 4 ? ["format", "version", "vault", "keySlots", "generation", "auth", "rekeyProof", "scopes"]
            : v >= 3 ? ["format", "version", "vault", "keySlots", "generation", "auth", "rekeyProof"]
            : v == 2 ? ["format", "version", "vault", "keySlots", "generation", "auth"] : ["format", "version", "vault", "keySlots"]
        var header = VaultHeader(version: Int(v), vaultID: id, keySlots: known, otherSlots: other,
                                 unknownMembers: o.filter { !reserved.contains($0.key) }, generation: generation, auth: auth,
                                 recipientSlots: recipients)
        header.rekeyProof = proof
        header.scopes = scopes
        return header
    }

    /// §11.4: the version 5 members after `format`, `version`, `vault` and `keySlots`.
    private static func parseVersion5(_ o: [String: JSONValue], vaultID id: String, slots: [JSONValue]) throws -> VaultHeader {
        guard let epoch = o["epoch"]?.uint64Value, epoch >= 1 else { throw CoreError.malformed(.member(.vaultHeader, name: "epoch", expected: .positiveInteger)) }
        let clock = try Clock(json: o["clock"], context: .vaultHeader)
        let auth = try tag(o)
        let chain: RekeyChain?
        switch (epoch, o["rekey"]) {
        case (1, nil): chain = nil
        case (1, _), (_, nil): throw CoreError.malformed(.mismatch(.rekeyAtEpoch(.vaultHeader, epoch: epoch)))
        case (_, let r): chain = try RekeyChain(json: r, epoch: epoch)
        }
        guard let so = o["scopes"]?.objectValue else { throw CoreError.malformed(.member(.vaultHeader, name: "scopes", expected: .object)) }
        var scopes: [String: String] = [:], scopeDots: [String: Dot] = [:]
        for (sid, value) in so {
            guard let vo = value.objectValue, Set(vo.keys) == ["folder", "dot"], let f = vo["folder"]?.stringValue else {
                throw CoreError.malformed(.notAnObject(.scope))
            }
            scopes[sid] = f
            scopeDots[sid] = try Dot(json: vo["dot"], context: .scope)
        }
        try checkScopes(scopes)
        var known: [KeySlot] = [], recipients: [RecipientSlot] = [], other: [JSONValue] = []
        for s in slots {
            guard let so = s.objectValue, let type = so["type"]?.stringValue else { throw CoreError.malformed(.member(.keySlot, name: "type", expected: .string)) }
            if type == KeySlot.passphraseType { known.append(try KeySlot(version5: so)) }
            else if type == RecipientSlot.type { try addRecipient(try RecipientSlot(version5: so), to: &recipients) }
            else { other.append(s) }
        }
        try checkPassphraseSlots(known)
        let dots = known.compactMap(\.dot) + recipients.compactMap(\.dot) + Array(scopeDots.values)
        guard dots.allSatisfy({ clock.covers($0) }) else { throw CoreError.malformed(.dotNotCovered(.vaultHeader)) }
        let reserved: Set<String> = ["format", "version", "vault", "keySlots", "scopes", "epoch", "clock", "rekey", "auth"]
        var header = VaultHeader(version: FormatVersion.header, vaultID: id, keySlots: known, otherSlots: other,
                                 unknownMembers: o.filter { !reserved.contains($0.key) }, auth: auth, recipientSlots: recipients)
        header.scopes = scopes
        header.scopeDots = scopeDots
        header.epoch = epoch
        header.clock = clock
        header.rekeyChain = chain
        header.parsedSlotOrder = slots
        return header
    }

    private static func tag(_ o: [String: JSONValue]) throws -> [UInt8] {
        guard let a = o["auth"]?.stringValue else { throw CoreError.malformed(.member(.vaultHeader, name: "auth", expected: .string)) }
        guard let tag = Base64.decodeCanonical(a) else { throw CoreError.badEncoding(.notBase64(.vaultHeader, member: "auth", bytes: nil)) }
        guard tag.count == 32 else { throw CoreError.badEncoding(.wrongLength(.vaultHeader, member: "auth", bytes: 32)) }
        return tag
    }

    private static func addRecipient(_ r: RecipientSlot, to recipients: inout [RecipientSlot]) throws {
        guard recipients.count < RecipientSlot.maxSlots else { throw CoreError.malformed(.tooMany(.recipientSlot, limit: RecipientSlot.maxSlots)) }
        guard !recipients.contains(where: { $0.name == r.name || $0.publicKey == r.publicKey }) else {
            throw CoreError.malformed(.duplicate(.recipientSlot))
        }
        recipients.append(r)
    }

    private static func checkPassphraseSlots(_ known: [KeySlot]) throws {
        guard !known.isEmpty else { throw CoreError.malformed(.missing(.passphraseSlot)) }
        guard known.count <= maxPassphraseSlots else { throw CoreError.malformed(.tooMany(.passphraseSlot, limit: maxPassphraseSlots)) }
    }
}

/// Names of domains (Spec/FORMAT.md §11.2).
package enum Domain {
    /// The vault domain; every other domain is a scope id.
    package static let vault = "vault"
}
