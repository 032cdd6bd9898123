// The vault header `.tresor/vault.json`: vault id and key slots (Spec/FORMAT.md §3).
import Foundation

/// Argon2id cost presets. `minimum` exists for tests only.
public enum KDFLevel: String, CaseIterable, Sendable {
    case minimum, interactive, moderate, sensitive
    public var ops: UInt64 { switch self { case .minimum: 1; case .interactive: 2; case .moderate: 3; case .sensitive: 4 } }
    public var mem: UInt64 {
        switch self { case .minimum: 8192; case .interactive: 64 << 20; case .moderate: 256 << 20; case .sensitive: 1 << 30 }
    }
}

/// Argon2id13 parameters of a passphrase key slot.
public struct KDFParameters: Equatable, Sendable {
    public static let algorithm = "argon2id13"
    static let maxOps: UInt64 = 16
    static let maxMem: UInt64 = 1 << 30
    public var ops: UInt64
    public var mem: UInt64
    public var salt: [UInt8]

    public init(ops: UInt64, mem: UInt64, salt: [UInt8]) { self.ops = ops; self.mem = mem; self.salt = salt }
    public init(level: KDFLevel) { self.init(ops: level.ops, mem: level.mem, salt: Sodium.randomBytes(Sodium.saltBytes)) }

    /// Refuses parameters outside Spec/FORMAT.md §3.2 before any work is done.
    public func validate() throws {
        guard ops >= Sodium.minOps, ops <= Self.maxOps else { throw CoreError.kdfOutOfBounds("ops \(ops) outside \(Sodium.minOps)...\(Self.maxOps)") }
        guard mem >= Sodium.minMem, mem <= Self.maxMem else { throw CoreError.kdfOutOfBounds("mem \(mem) outside \(Sodium.minMem)...\(Self.maxMem) bytes") }
        guard salt.count == Sodium.saltBytes else { throw CoreError.kdfOutOfBounds("salt is not \(Sodium.saltBytes) bytes") }
    }

    /// The level whose cost these parameters match, if any.
    public var level: KDFLevel? { KDFLevel.allCases.first { $0.ops == ops && $0.mem == mem } }
}

/// A passphrase key slot: the vault key wrapped under an Argon2id-derived key (Spec/FORMAT.md §3.3).
public struct KeySlot: Equatable, Sendable {
    static let passphraseType = "passphrase"
    public var id: String
    public var kdf: KDFParameters
    public var nonce: [UInt8]
    var wrappedKey: [UInt8]

    /// Additional data binding the slot to its vault and parameters.
    func associatedData(vaultID: String) -> [UInt8] {
        Array("tresor-keyslot\u{0}\(FormatVersion.keySlot)\u{0}\(vaultID)\u{0}\(id)\u{0}\(KDFParameters.algorithm)\u{0}\(kdf.ops)\u{0}\(kdf.mem)\u{0}\(Base64.encode(kdf.salt))".utf8)
    }

    /// Wraps `vaultKey` under `passphrase` with fresh salt and nonce.
    public static func wrap(_ vaultKey: SecretBytes, passphrase: SecretBytes, level: KDFLevel, vaultID: String) throws -> KeySlot {
        try wrap(vaultKey, passphrase: passphrase, kdf: KDFParameters(level: level), id: UUID().uuidString.lowercased(),
                 nonce: Sodium.randomBytes(Sodium.nonceBytes), vaultID: vaultID)
    }

    /// Wraps `vaultKey` with explicit parameters, slot id and nonce. For Spec/vectors and tests only:
    /// production code calls `wrap(_:passphrase:level:vaultID:)`, which draws fresh salt and nonce.
    /// - Throws: `CoreError.kdfOutOfBounds`, `CryptoError`. Spec/FORMAT.md §3.3
    public static func wrap(_ vaultKey: SecretBytes, passphrase: SecretBytes, kdf: KDFParameters, id: String,
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
            guard key.count == Sodium.keyBytes else { throw CoreError.malformed("wrapped key is not 32 bytes") }
            return key
        } catch is CryptoError { throw CoreError.authenticationFailed }
    }

    var json: JSONValue {
        .object(["type": .string(KeySlot.passphraseType), "id": .string(id),
                 "kdf": .object(["algorithm": .string(KDFParameters.algorithm), "ops": .integer(kdf.ops),
                                 "mem": .integer(kdf.mem), "salt": .string(Base64.encode(kdf.salt))]),
                 "nonce": .string(Base64.encode(nonce)), "wrappedKey": .string(Base64.encode(wrappedKey))])
    }

    init(id: String, kdf: KDFParameters, nonce: [UInt8], wrappedKey: [UInt8]) {
        self.id = id; self.kdf = kdf; self.nonce = nonce; self.wrappedKey = wrappedKey
    }

    init(json o: [String: JSONValue]) throws {
        guard let id = o["id"]?.stringValue, Envelope.isCanonicalUUID(id) else { throw CoreError.malformed("key slot \"id\" is not a lowercase UUID") }
        guard let k = o["kdf"]?.objectValue else { throw CoreError.malformed("key slot has no \"kdf\" object") }
        guard k["algorithm"]?.stringValue == KDFParameters.algorithm else { throw CoreError.kdfOutOfBounds("unknown KDF algorithm") }
        guard let ops = k["ops"]?.uint64Value, let mem = k["mem"]?.uint64Value else { throw CoreError.malformed("kdf \"ops\"/\"mem\" are not integers") }
        func b64(_ v: JSONValue?, _ name: String, _ len: Int) throws -> [UInt8] {
            guard let s = v?.stringValue else { throw CoreError.malformed("key slot has no \"\(name)\" string") }
            guard let b = Base64.decodeCanonical(s) else { throw CoreError.badEncoding("key slot \"\(name)\" is not canonical base64") }
            guard b.count == len else { throw CoreError.badEncoding("key slot \"\(name)\" is not \(len) bytes") }
            return b
        }
        let salt = try b64(k["salt"], "salt", Sodium.saltBytes)
        let kdf = KDFParameters(ops: ops, mem: mem, salt: salt)
        try kdf.validate()
        self.init(id: id, kdf: kdf, nonce: try b64(o["nonce"], "nonce", Sodium.nonceBytes),
                  wrappedKey: try b64(o["wrappedKey"], "wrappedKey", Sodium.keyBytes + Sodium.tagBytes))
    }
}

/// `.tresor/vault.json` (Spec/FORMAT.md §3).
public struct VaultHeader: Equatable, Sendable {
    public static let relativePath = ".tresor/vault.json"
    static let formatName = "tresor-vault"
    /// Readers refuse headers with more passphrase slots (Spec/FORMAT.md §3.4).
    static let maxPassphraseSlots = 16
    /// 1; 2 with `generation` and `auth` (Spec/FORMAT.md §3.6); 3 with recipient key slots (§3.8).
    public var version: Int
    public var vaultID: String
    /// The passphrase key slots.
    public var keySlots: [KeySlot]
    /// Version 3: the recipient key slots, one per member (person or device).
    public var recipientSlots: [RecipientSlot]
    /// Slots of types this version does not know, kept verbatim.
    public var otherSlots: [JSONValue]
    var unknownMembers: [String: JSONValue]
    /// Version 2: how many times the header has changed; a replica never goes back to a lower one.
    public var generation: UInt64
    /// Version 2: the authentication tag over everything else (`VaultAuthenticator`); nil until set.
    public var auth: [UInt8]?
    /// Version 3, after a rekey: a tag under the previous key's header key over the new one, so that a replica
    /// still on the previous key can tell a rekey by a key holder from a header someone else made (§3.11).
    public var rekeyProof: [UInt8]?
    /// Version 4: the scopes, scope id → folder (Spec/FORMAT.md §3.12.1).
    public var scopes: [String: String] = [:]

    public init(version: Int = FormatVersion.header, vaultID: String, keySlots: [KeySlot], otherSlots: [JSONValue],
                unknownMembers: [String: JSONValue], generation: UInt64 = 1, auth: [UInt8]? = nil, recipientSlots: [RecipientSlot] = []) {
        self.version = version; self.vaultID = vaultID; self.keySlots = keySlots; self.otherSlots = otherSlots
        self.unknownMembers = unknownMembers; self.generation = generation; self.auth = auth; self.recipientSlots = recipientSlots
    }

    /// A new vault: a random vault key wrapped in one passphrase slot; a version 2 header of generation 1
    /// whose tag is set by the caller (`VaultAuthenticator.authenticated`).
    public static func create(passphrase: SecretBytes, level: KDFLevel) throws -> (VaultHeader, SecretBytes) {
        let key = SecretBytes.random(count: Sodium.keyBytes)
        let id = UUID().uuidString.lowercased()
        let slot = try KeySlot.wrap(key, passphrase: passphrase, level: level, vaultID: id)
        return (VaultHeader(vaultID: id, keySlots: [slot], otherSlots: [], unknownMembers: [:]), key)
    }

    /// Tries each passphrase slot in order. - Throws: `CoreError.wrongPassphrase` if none opens.
    public func unlock(passphrase: SecretBytes) throws -> SecretBytes {
        for slot in keySlots {
            if let key = try? slot.unwrap(passphrase: passphrase, vaultID: vaultID) { return key }
        }
        throw CoreError.wrongPassphrase
    }

    /// Opens the recipient slot of `identity`'s public key (Spec/FORMAT.md §3.8).
    /// - Throws: `CoreError.notARecipient` if no slot is sealed to it, `.authenticationFailed` if it does not open.
    public func unlock(identity: Identity) throws -> SecretBytes {
        guard let slot = recipientSlots.first(where: { $0.publicKey == identity.publicKey }) else { throw CoreError.notARecipient }
        return try slot.open(with: identity, vaultID: vaultID)
    }

    /// The recipient slot named `name`, or the one sealed to `key`.
    public func member(named name: String) -> RecipientSlot? { recipientSlots.first { $0.name == name } }

    /// The next generation with one more recipient slot (to be authenticated by the caller). O(1): one sealed box.
    /// - Throws: `CoreError.memberExists` for a name or key already there, `.malformed` for a bad name.
    public func addingMember(_ name: String, publicKey: RecipientKey, vaultKey: SecretBytes) throws -> VaultHeader {
        if let other = recipientSlots.first(where: { $0.name == name || $0.publicKey == publicKey }) { throw CoreError.memberExists(other.name) }
        guard recipientSlots.count < RecipientSlot.maxSlots else { throw CoreError.malformed("more than \(RecipientSlot.maxSlots) recipient key slots") }
        var h = changed()
        h.recipientSlots.append(try RecipientSlot.seal(vaultKey, to: publicKey, name: name, vaultID: vaultID))
        return h
    }

    /// The next generation without the member `name` (its slot still opens the old vault key: rekey next).
    /// - Throws: `CoreError.noSuchMember`.
    public func removingMember(_ name: String) throws -> VaultHeader {
        guard recipientSlots.contains(where: { $0.name == name }) else { throw CoreError.noSuchMember(name) }
        var h = changed()
        h.recipientSlots.removeAll { $0.name == name }
        return h
    }

    /// The header for a new vault key (Spec/FORMAT.md §3.11): `passphraseSlot` as the only passphrase slot, every
    /// recipient slot sealed again to the new key (same id, name and public key), slots of unknown types dropped
    /// (they cannot be rewrapped), the next generation, to be authenticated by the caller with the new key.
    /// - Throws: `CryptoError`.
    /// With `removing`, that member's slot is left out. - Throws: `CoreError.noSuchMember`, `CryptoError`.
    public func rekeyed(newKey: SecretBytes, passphraseSlot: KeySlot, removing member: String? = nil, proof: [UInt8]) throws -> VaultHeader {
        if let member, self.member(named: member) == nil { throw CoreError.noSuchMember(member) }
        var h = changed()
        h.rekeyProof = proof
        h.keySlots = [passphraseSlot]
        h.recipientSlots = try recipientSlots.filter { $0.name != member }.map { try RecipientSlot.seal(newKey, to: $0.publicKey, name: $0.name, vaultID: vaultID, id: $0.id) }
        h.otherSlots = []
        return h
    }

    /// The same vault key under a new passphrase, with fresh slot id, salt and nonce: every passphrase slot
    /// (also those another replica or implementation added) is replaced by one new slot; slots of other
    /// types and unknown members stay; the next generation, to be authenticated by the caller.
    /// - Throws: `CoreError.kdfOutOfBounds`, `CryptoError`.
    /// Spec/FORMAT.md §3.5
    public func rewrapped(vaultKey: SecretBytes, newPassphrase: SecretBytes, level: KDFLevel) throws -> VaultHeader {
        replacingPassphraseSlots(with: try KeySlot.wrap(vaultKey, passphrase: newPassphrase, level: level, vaultID: vaultID))
    }

    /// This header with `slot` as its only passphrase slot (Spec/FORMAT.md §3.5). Production code calls
    /// `rewrapped(vaultKey:newPassphrase:level:)`; Spec/vectors pass a slot made with fixed salt and nonce.
    func replacingPassphraseSlots(with slot: KeySlot) -> VaultHeader {
        var h = changed()
        h.keySlots = [slot]
        return h
    }

    /// The next generation of this header with its tag removed, to be changed and authenticated by the
    /// caller (a version 1 header has no generation and stays version 1).
    public func changed() -> VaultHeader {
        var h = self
        if version >= 2 { h.generation = generation + 1 }
        h.auth = nil
        return h
    }

    /// This header as the newest format version with no tag yet (`tresor upgrade`, Spec/FORMAT.md §3.7): a
    /// version 1 header gets generation 1, a version 2 header the next generation.
    public func upgraded() -> VaultHeader {
        var h = self
        h.generation = version >= 2 ? generation + 1 : 1
        h.version = FormatVersion.header
        h.auth = nil
        return h
    }

    /// The id of the scope whose folder holds `path`, or nil when the vault key seals it (Spec/FORMAT.md §3.12.3).
    public func scope(containing path: EntryPath) -> String? {
        scopes.first { path.string.hasPrefix($0.value + "/") }?.key
    }

    /// The next generation with scope `id` at `folder`, as version 4 (to be authenticated by the caller).
    /// - Throws: `CoreError.malformed` for a folder that is no entry path or that nests with another scope.
    public func addingScope(_ id: String, folder: String) throws -> VaultHeader {
        var h = changed()
        h.version = max(version, FormatVersion.scopedHeader)
        h.scopes[id] = folder
        try Self.checkScopes(h.scopes)
        return h
    }

    /// This header without the scope `id` (removing a scope, Spec/FORMAT.md §3.12.5), its next generation, no tag yet.
    public func removingScope(_ id: String) -> VaultHeader {
        var h = changed()
        h.scopes[id] = nil
        return h
    }

    /// Spec/FORMAT.md §3.12.1: folders are NFC entry paths, at most 64, none equal to or inside another.
    static func checkScopes(_ scopes: [String: String]) throws {
        guard scopes.count <= maxScopes else { throw CoreError.malformed("more than \(maxScopes) scopes") }
        for (id, folder) in scopes {
            guard Envelope.isCanonicalUUID(id) else { throw CoreError.malformed("a scope id is not a lowercase UUID") }
            guard let path = try? EntryPath(folder), path.string == folder else { throw CoreError.malformed("scope folder \"\(folder)\" is not a valid NFC entry path") }
        }
        let folders = Array(scopes.values)
        for (i, a) in folders.enumerated() {
            for (j, b) in folders.enumerated() where i != j && (a == b || b.hasPrefix(a + "/")) {
                throw CoreError.malformed("scopes \"\(a)\" and \"\(b)\" nest (nested scopes are refused)")
            }
        }
    }

    /// Readers refuse headers with more scopes (Spec/FORMAT.md §3.12.1).
    public static let maxScopes = 64

    /// The strongest Argon2id level among the passphrase slots (never weaker than `moderate` for a slot of
    /// unknown cost): what a new slot gets unless the user asks otherwise.
    public var strongestLevel: KDFLevel {
        let levels = keySlots.map { $0.kdf.level ?? .moderate }
        return KDFLevel.allCases.last { levels.contains($0) } ?? .moderate
    }

    /// The canonical JSON object of the header; without `auth` when `includingAuth` is false (what the tag covers).
    func json(includingAuth: Bool) -> JSONValue {
        var o = unknownMembers
        o["format"] = .string(VaultHeader.formatName)
        o["version"] = .integer(UInt64(version))
        o["vault"] = .string(vaultID)
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

    public func serialized() -> [UInt8] {
        json(includingAuth: true).canonicalBytes() + [0x0A]
    }

    /// Parses and checks a header (Spec/FORMAT.md §3.4). The tag of a version 2 header is checked with the
    /// vault key, after unlocking (`VaultAuthenticator.verify`). - Throws: `CoreError` naming the broken rule.
    public static func parse(_ bytes: [UInt8]) throws -> VaultHeader {
        guard bytes.count <= 1 << 20 else { throw CoreError.malformed("vault header larger than 1 MiB") }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch let e as JSONParseError { throw CoreError.malformed("vault header is not JSON (\(e.description))") }
        guard let o = json.objectValue else { throw CoreError.malformed("vault header is not a JSON object") }
        guard o["format"]?.stringValue == formatName else { throw CoreError.malformed("\"format\" is not \"\(formatName)\"") }
        guard let v = o["version"]?.uint64Value else { throw CoreError.malformed("\"version\" is not a non-negative integer") }
        guard (1...UInt64(FormatVersion.newestHeader)).contains(v) else { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        guard let id = o["vault"]?.stringValue, Envelope.isCanonicalUUID(id) else { throw CoreError.malformed("\"vault\" is not a lowercase UUID") }
        guard let slots = o["keySlots"]?.arrayValue else { throw CoreError.malformed("\"keySlots\" is not an array") }
        var generation: UInt64 = 1
        var auth: [UInt8]?
        if v >= 2 {
            guard let g = o["generation"]?.uint64Value, g >= 1 else { throw CoreError.malformed("\"generation\" is not a positive integer") }
            guard let a = o["auth"]?.stringValue else { throw CoreError.malformed("\"auth\" is not a string") }
            guard let tag = Base64.decodeCanonical(a) else { throw CoreError.badEncoding("\"auth\" is not canonical base64") }
            guard tag.count == 32 else { throw CoreError.badEncoding("\"auth\" is not 32 bytes") }
            generation = g
            auth = tag
        }
        var proof: [UInt8]?
        if v >= 3, let p = o["rekeyProof"] {
            guard let text = p.stringValue else { throw CoreError.malformed("\"rekeyProof\" is not a string") }
            guard let b = Base64.decodeCanonical(text), b.count == 32 else { throw CoreError.badEncoding("\"rekeyProof\" is not canonical base64 of 32 bytes") }
            proof = b
        }
        var scopes: [String: String] = [:]
        if v >= 4 {
            guard let so = o["scopes"]?.objectValue else { throw CoreError.malformed("\"scopes\" is not an object") }
            for (id, folder) in so {
                guard let f = folder.stringValue else { throw CoreError.malformed("scope folder is not a string") }
                scopes[id] = f
            }
            try checkScopes(scopes)
        }
        var known: [KeySlot] = [], recipients: [RecipientSlot] = [], other: [JSONValue] = []
        for s in slots {
            guard let so = s.objectValue, let type = so["type"]?.stringValue else { throw CoreError.malformed("a key slot has no \"type\"") }
            if type == KeySlot.passphraseType { known.append(try KeySlot(json: so)) }
            else if type == RecipientSlot.type, v >= 3 {
                guard recipients.count < RecipientSlot.maxSlots else { throw CoreError.malformed("more than \(RecipientSlot.maxSlots) recipient key slots") }
                let r = try RecipientSlot(json: so)
                guard !recipients.contains(where: { $0.name == r.name || $0.publicKey == r.publicKey }) else {
                    throw CoreError.malformed("two recipient key slots with one name or one public key")
                }
                recipients.append(r)
            } else { other.append(s) }
        }
        guard !known.isEmpty else { throw CoreError.malformed("no passphrase key slot") }
        guard known.count <= maxPassphraseSlots else { throw CoreError.malformed("more than \(maxPassphraseSlots) passphrase key slots") }
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
}
