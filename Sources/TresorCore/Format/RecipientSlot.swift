// Recipient key slots: the vault key sealed to an X25519 public key (Spec/FORMAT.md §3.8).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text form of an X25519 public key: `tresor1` and the lowercase RFC 4648 base32 (no padding) of the
/// 32-byte key followed by a 4-byte checksum, the first 4 bytes of BLAKE2b-256(key) (Spec/FORMAT.md §3.9).
public struct RecipientKey: Equatable, Hashable, Sendable {
    public static let prefix = "tresor1"
    public let bytes: [UInt8]

    /// - Throws: `CryptoError.badLength` for a key that is not 32 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Sodium.publicKeyBytes else { throw CryptoError.badLength(.publicKey) }
        self.bytes = bytes
    }

    static func checksum(_ key: [UInt8]) -> [UInt8] { Array(Sodium.hash(key).prefix(4)) }

    /// `tresor1…` (58 base32 characters after the prefix).
    public var text: String { Self.prefix + Base32Text.encode(bytes + Self.checksum(bytes)) }

    /// Parses the text form. - Throws: `CoreError.badEncoding` naming what is wrong (prefix, alphabet,
    /// length, checksum: a mistyped key is caught before anything is sealed to it).
    public init(text: String) throws {
        guard text.hasPrefix(Self.prefix) else { throw CoreError.badEncoding(.publicKeyPrefix(Self.prefix)) }
        guard let raw = Base32Text.decode(String(text.dropFirst(Self.prefix.count))), raw.count == Sodium.publicKeyBytes + 4 else {
            throw CoreError.badEncoding(.publicKeyForm)
        }
        let key = Array(raw.prefix(Sodium.publicKeyBytes))
        guard Self.checksum(key) == Array(raw.suffix(4)) else { throw CoreError.badEncoding(.publicKeyChecksum) }
        self.bytes = key
    }

    /// A short fingerprint to compare keys by eye: the first 8 bytes of BLAKE2b-256(key), hex in groups of 4.
    public var fingerprint: String {
        let hex = Hex.lower(Sodium.hash(bytes).prefix(8))
        return stride(from: 0, to: hex.count, by: 4).map { i in
            String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 4)])
        }.joined(separator: ":")
    }
}

/// Lowercase RFC 4648 base32 without padding, canonical (unused low bits zero).
enum Base32Text {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [], acc: UInt32 = 0, bits = 0
        for b in bytes {
            acc = (acc << 8) | UInt32(b); bits += 8
            while bits >= 5 { bits -= 5; out.append(alphabet[Int((acc >> UInt32(bits)) & 31)]) }
        }
        if bits > 0 { out.append(alphabet[Int((acc << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = [], acc: UInt32 = 0, bits = 0
        for c in text.utf8 {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            acc = (acc << 5) | UInt32(v); bits += 5
            if bits >= 8 { bits -= 8; out.append(UInt8((acc >> UInt32(bits)) & 0xFF)) }
        }
        guard encode(out) == text else { return nil }
        return out
    }
}

/// A recipient key slot: the vault key sealed (`crypto_box_seal`) to a person's or device's public key, with
/// a name (Spec/FORMAT.md §3.8). Adding one costs one sealed box, not a re-encryption.
package struct RecipientSlot: Equatable, Sendable {
    package static let type = "recipient"
    /// Readers refuse headers with more recipient slots (Spec/FORMAT.md §3.4).
    package static let maxSlots = 1024
    package var id: String
    package var name: String
    package var publicKey: RecipientKey
    package var sealedKey: [UInt8]
    /// Version 5: the change that wrote the slot (Spec/FORMAT.md §11.4); not part of the binding.
    package var dot: Dot?

    /// What is sealed before the vault key: binds the box to its vault and slot.
    static func binding(vaultID: String, slotID: String) -> [UInt8] {
        Array("tresor-recipient\u{0}1\u{0}\(vaultID)\u{0}\(slotID)\u{0}".utf8)
    }

    static var sealedLength: Int { binding(vaultID: String(repeating: "0", count: 36), slotID: String(repeating: "0", count: 36)).count + Sodium.keyBytes + Sodium.sealBytes }

    /// Whether `name` may name a member: 1 to 64 UTF-8 bytes of NFC text without control characters, line
    /// separators or leading and trailing spaces (Spec/FORMAT.md §3.8).
    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), name.nfc.utf8.elementsEqual(bytes),
              !name.hasPrefix(" "), !name.hasSuffix(" ") else { return false }
        return !name.unicodeScalars.contains { s in s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029 }
    }

    /// Seals `vaultKey` to `publicKey` in a new slot (a new random slot id unless `id` is given).
    /// - Throws: `CoreError.malformed` for an invalid name, `CryptoError`.
    package static func seal(_ vaultKey: SecretBytes, to publicKey: RecipientKey, name: String, vaultID: String,
                            id: String = UUID().uuidString.lowercased(), dot: Dot? = nil) throws -> RecipientSlot {
        try seal(vaultKey, to: publicKey, name: name, binding: binding(vaultID: vaultID, slotID: id), id: id, dot: dot)
    }

    /// Seals `key` after `binding` (a vault's §3.8 binding or a scope's §3.12.2 one).
    static func seal(_ key: SecretBytes, to publicKey: RecipientKey, name: String, binding: [UInt8], id: String, dot: Dot? = nil) throws -> RecipientSlot {
        guard isValidName(name) else { throw CoreError.malformed(.member(.recipientSlot, name: "name", expected: .memberName)) }
        var plain = binding
        key.withBytes { plain += $0 }
        defer { Sodium.wipe(&plain) }
        let sealed = try Sodium.sealBox(SecretBytes(copying: plain), publicKey: publicKey.bytes)
        return RecipientSlot(id: id, name: name, publicKey: publicKey, sealedKey: sealed, dot: dot)
    }

    /// The vault key, if `identity` is this slot's recipient and the box is bound to this vault and slot.
    /// - Throws: `CoreError.authenticationFailed` for another identity's slot or a changed one.
    package func open(with identity: Identity, vaultID: String) throws -> SecretBytes {
        try open(with: identity, binding: RecipientSlot.binding(vaultID: vaultID, slotID: id))
    }

    /// The key sealed after `expected`. - Throws: `CoreError.authenticationFailed`.
    func open(with identity: Identity, binding expected: [UInt8]) throws -> SecretBytes {
        guard identity.publicKey == publicKey else { throw CoreError.authenticationFailed }
        let plain: SecretBytes
        do { plain = try Sodium.openSealedBox(sealedKey, publicKey: publicKey.bytes, secretKey: identity.secretKey) }
        catch { throw CoreError.authenticationFailed }
        guard plain.count == expected.count + Sodium.keyBytes,
              plain.withBytes({ Array($0.prefix(expected.count)) }) == expected else { throw CoreError.authenticationFailed }
        return plain.withBytes { SecretBytes(copying: $0.suffix(Sodium.keyBytes)) }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = ["type": .string(Self.type), "id": .string(id), "name": .string(name),
                                      "publicKey": .string(publicKey.text), "sealedKey": .string(Base64.encode(sealedKey))]
        if let dot { o["dot"] = dot.json }
        return .object(o)
    }

    init(id: String, name: String, publicKey: RecipientKey, sealedKey: [UInt8], dot: Dot? = nil) {
        self.id = id; self.name = name; self.publicKey = publicKey; self.sealedKey = sealedKey; self.dot = dot
    }

    /// A version 5 slot (Spec/FORMAT.md §11.4, §11.11): the members of §3.8 and a `dot`, nothing else.
    init(version5 o: [String: JSONValue], sealedLength: Int = RecipientSlot.sealedLength) throws {
        if let extra = Set(o.keys).subtracting(["type", "id", "name", "publicKey", "sealedKey", "dot"]).sorted().first {
            throw CoreError.malformed(.unexpectedMember(.recipientSlot, name: extra))
        }
        try self.init(json: o, sealedLength: sealedLength)
        dot = try Dot(json: o["dot"], context: .recipientSlot)
    }

    init(json o: [String: JSONValue], sealedLength: Int = RecipientSlot.sealedLength) throws {
        guard let id = o["id"]?.stringValue, Envelope.isCanonicalUUID(id) else { throw CoreError.malformed(.member(.recipientSlot, name: "id", expected: .lowercaseUUID)) }
        guard let name = o["name"]?.stringValue else { throw CoreError.malformed(.member(.recipientSlot, name: "name", expected: .string)) }
        guard Self.isValidName(name) else { throw CoreError.malformed(.member(.recipientSlot, name: "name", expected: .memberName)) }
        guard let pk = o["publicKey"]?.stringValue else { throw CoreError.malformed(.member(.recipientSlot, name: "publicKey", expected: .string)) }
        let key = try RecipientKey(text: pk)
        guard let s = o["sealedKey"]?.stringValue else { throw CoreError.malformed(.member(.recipientSlot, name: "sealedKey", expected: .string)) }
        guard let sealed = Base64.decodeCanonical(s) else { throw CoreError.badEncoding(.notBase64(.recipientSlot, member: "sealedKey", bytes: nil)) }
        guard sealed.count == sealedLength else { throw CoreError.badEncoding(.wrongLength(.recipientSlot, member: "sealedKey", bytes: sealedLength)) }
        self.init(id: id, name: name, publicKey: key, sealedKey: sealed)
    }
}
