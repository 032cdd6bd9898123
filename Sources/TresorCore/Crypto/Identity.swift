// Identity files: an X25519 secret key that opens recipient key slots, optionally under a passphrase
// (Spec/FORMAT.md §3.10).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A person's or device's key pair. The file is JSON; the secret key is either in it (base64) or wrapped
/// under an Argon2id key of the identity's own passphrase.
public struct Identity: Sendable {
    public static let formatName = "tresor-identity"
    public let secretKey: SecretBytes
    public let publicKey: RecipientKey

    /// - Throws: `CryptoError.badLength` for a secret key that is not 32 bytes.
    public init(secretKey: SecretBytes) throws {
        self.secretKey = secretKey
        self.publicKey = try RecipientKey(bytes: try Sodium.publicKey(of: secretKey))
    }

    /// A new random identity.
    public static func generate() -> Identity { try! Identity(secretKey: Sodium.newSecretKey()) }

    /// Whether an identity file needs a passphrase to open (it has a `kdf` member).
    public static func isProtected(_ bytes: [UInt8]) -> Bool {
        (try? JSONValue.parse(bytes))?.objectValue?["kdf"] != nil
    }

    static func associatedData(publicKey: String, kdf: KDFParameters) -> [UInt8] {
        Array("tresor-identity\u{0}1\u{0}\(publicKey)\u{0}\(KDFParameters.algorithm)\u{0}\(kdf.ops)\u{0}\(kdf.mem)\u{0}\(Base64.encode(kdf.salt))".utf8)
    }

    /// The identity file's bytes: plain, or with the secret key wrapped under `passphrase`.
    /// - Throws: `CryptoError` if Argon2id fails.
    package func serialized(passphrase: SecretBytes?, level: KDFLevel = .moderate) throws -> [UInt8] {
        try serialized(passphrase: passphrase, kdf: KDFParameters(level: level), nonce: Sodium.randomBytes(Sodium.nonceBytes))
    }

    /// With explicit salt and nonce: for Spec/vectors and tests only.
    package func serialized(passphrase: SecretBytes?, kdf: KDFParameters, nonce: [UInt8]) throws -> [UInt8] {
        var o: [String: JSONValue] = ["format": .string(Self.formatName), "version": .integer(1), "publicKey": .string(publicKey.text)]
        if let passphrase {
            try kdf.validate()
            let kek = try Sodium.argon2id(passphrase: passphrase, salt: kdf.salt, ops: kdf.ops, mem: kdf.mem)
            let wrapped = try Sodium.seal(secretKey, key: kek, nonce: nonce, ad: Self.associatedData(publicKey: publicKey.text, kdf: kdf))
            o["kdf"] = .object(["algorithm": .string(KDFParameters.algorithm), "ops": .integer(kdf.ops), "mem": .integer(kdf.mem),
                                "salt": .string(Base64.encode(kdf.salt))])
            o["nonce"] = .string(Base64.encode(nonce))
            o["wrappedSecretKey"] = .string(Base64.encode(wrapped))
        } else {
            o["secretKey"] = .string(secretKey.withBytes { Base64.encode(Array($0)) })
        }
        return JSONValue.object(o).canonicalBytes() + [0x0A]
    }

    /// Parses an identity file; a protected one needs `passphrase`.
    /// - Throws: `CoreError.malformed`, `.badEncoding`, `.unsupportedVersion`, `.kdfOutOfBounds`,
    ///   `.wrongPassphrase` (a protected file without the right passphrase). Spec/FORMAT.md §3.10
    public static func parse(_ bytes: [UInt8], passphrase: SecretBytes? = nil) throws -> Identity {
        guard bytes.count <= 64 << 10 else { throw CoreError.malformed(.tooLarge(.identity, limit: 64 << 10)) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw CoreError.malformed(.notJSON(.identity, error as? JSONParseError)) }
        guard let o = json.objectValue, o["format"]?.stringValue == formatName else {
            throw CoreError.malformed(.member(.identity, name: "format", expected: .value(formatName)))
        }
        guard let v = o["version"]?.uint64Value else { throw CoreError.malformed(.member(.identity, name: "version", expected: .nonNegativeInteger)) }
        guard v == 1 else { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        guard let pkText = o["publicKey"]?.stringValue else { throw CoreError.malformed(.member(.identity, name: "publicKey", expected: .string)) }
        let publicKey = try RecipientKey(text: pkText)
        func b64(_ name: String, _ len: Int, in obj: [String: JSONValue] = o, part: CoreError.FilePart = .identity) throws -> [UInt8] {
            guard let s = obj[name]?.stringValue else { throw CoreError.malformed(.member(part, name: name, expected: .string)) }
            guard let b = Base64.decodeCanonical(s) else { throw CoreError.badEncoding(.notBase64(part, member: name, bytes: nil)) }
            guard b.count == len else { throw CoreError.badEncoding(.wrongLength(part, member: name, bytes: len)) }
            return b
        }
        var secret: SecretBytes
        if let k = o["kdf"]?.objectValue {
            guard o["secretKey"] == nil else { throw CoreError.malformed(.unexpectedMember(.identity, name: "secretKey")) }
            guard k["algorithm"]?.stringValue == KDFParameters.algorithm else { throw CoreError.kdfOutOfBounds(.algorithm(k["algorithm"]?.stringValue)) }
            guard let ops = k["ops"]?.uint64Value else { throw CoreError.malformed(.member(.kdf, name: "ops", expected: .nonNegativeInteger)) }
            guard let mem = k["mem"]?.uint64Value else { throw CoreError.malformed(.member(.kdf, name: "mem", expected: .nonNegativeInteger)) }
            let kdf = KDFParameters(ops: ops, mem: mem, salt: try b64("salt", Sodium.saltBytes, in: k, part: .kdf))
            try kdf.validate()
            let nonce = try b64("nonce", Sodium.nonceBytes)
            let wrapped = try b64("wrappedSecretKey", Sodium.secretKeyBytes + Sodium.tagBytes)
            guard let passphrase else { throw CoreError.wrongPassphrase }
            let kek = try Sodium.argon2id(passphrase: passphrase, salt: kdf.salt, ops: kdf.ops, mem: kdf.mem)
            do { secret = try Sodium.open(wrapped, key: kek, nonce: nonce, ad: associatedData(publicKey: pkText, kdf: kdf)) }
            catch { throw CoreError.wrongPassphrase }
        } else {
            var raw = try b64("secretKey", Sodium.secretKeyBytes)
            secret = SecretBytes(copying: raw)
            Sodium.wipe(&raw)
        }
        let identity = try Identity(secretKey: secret)
        guard identity.publicKey == publicKey else { throw CoreError.malformed(.mismatch(.identityKeys)) }
        return identity
    }
}
