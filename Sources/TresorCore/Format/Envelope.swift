// The entry file envelope: version, id, nonce, ciphertext, and its additional data (Spec/FORMAT.md §6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The plaintext JSON object stored in an entry file.
package struct Envelope: Equatable, Sendable {
    /// Largest entry file a reader accepts, in bytes.
    package static let maxFileBytes = 1 << 20

    package var version: Int
    package var id: String
    package var nonce: [UInt8]
    package var ciphertext: [UInt8]

    package init(version: Int = FormatVersion.entry, id: String, nonce: [UInt8], ciphertext: [UInt8]) {
        self.version = version; self.id = id; self.nonce = nonce; self.ciphertext = ciphertext
    }

    /// AEAD additional data: `"tresor-entry" 0x00 version 0x00 id 0x00 nonce-base64`, ASCII.
    package var associatedData: [UInt8] {
        Array("tresor-entry\u{0}\(version)\u{0}\(id)\u{0}\(Base64.encodePublic(nonce))".utf8)
    }

    /// File bytes: canonical JSON followed by one newline.
    package func serialized() -> [UInt8] {
        JSONValue.object([
            "version": .integer(version), "id": .string(id),
            "nonce": .string(Base64.encodePublic(nonce)), "ciphertext": .string(Base64.encodePublic(ciphertext)),
        ]).canonicalBytes() + [0x0A]
    }

    /// Parses entry file bytes, checking the rules of Spec/FORMAT.md §6.2 in their stated order. A version 5 vault's
    /// entry files are of envelope version 2 (§11.8); `acceptingVersion1` also reads version 1, for converting a vault
    /// (§11.10).
    package static func parse(_ bytes: [UInt8], acceptingVersion1: Bool = false) throws -> Envelope {
        guard bytes.count <= maxFileBytes else { throw CoreError.malformed(.tooLarge(.envelope, limit: maxFileBytes)) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch let e as JSONParseError {
            throw CoreError.malformed(bytes.isEmpty ? .empty(.envelope) : .notJSON(.envelope, e))
        }
        guard let o = json.objectValue else { throw CoreError.malformed(.notAnObject(.envelope)) }
        guard let vj = o["version"] else { throw CoreError.malformed(.member(.envelope, name: "version", expected: .nonNegativeInteger)) }
        guard let v = vj.uint64Value else { throw CoreError.malformed(.member(.envelope, name: "version", expected: .nonNegativeInteger)) }
        // Any integer, however large, is a version: unsupported, as in VaultHeader.parse (Spec/FORMAT.md §6.2 step 3).
        guard v == FormatVersion.entry || (acceptingVersion1 && v == FormatVersion.entryVersion1) else {
            throw CoreError.unsupportedVersion(Int(clamping: v))
        }
        let expected: Set<String> = ["version", "id", "nonce", "ciphertext"]
        if let extra = Set(o.keys).subtracting(expected).sorted().first { throw CoreError.malformed(.unexpectedMember(.envelope, name: extra)) }
        guard let id = o["id"]?.stringValue, isCanonicalUUID(id) else { throw CoreError.malformed(.member(.envelope, name: "id", expected: .lowercaseUUID)) }
        guard let ns = o["nonce"]?.stringValue else { throw CoreError.malformed(.member(.envelope, name: "nonce", expected: .string)) }
        guard let nonce = Base64.decodeCanonical(ns) else { throw CoreError.badEncoding(.notBase64(.envelope, member: "nonce", bytes: nil)) }
        guard nonce.count == Sodium.nonceBytes else { throw CoreError.badEncoding(.wrongLength(.envelope, member: "nonce", bytes: Sodium.nonceBytes)) }
        guard let cs = o["ciphertext"]?.stringValue else { throw CoreError.malformed(.member(.envelope, name: "ciphertext", expected: .string)) }
        guard let ct = Base64.decodeCanonical(cs) else { throw CoreError.badEncoding(.notBase64(.envelope, member: "ciphertext", bytes: nil)) }
        guard ct.count >= Sodium.tagBytes else { throw CoreError.badEncoding(.tooShort(.envelope, member: "ciphertext", minimum: Sodium.tagBytes)) }
        return Envelope(version: Int(v), id: id, nonce: nonce, ciphertext: ct)
    }

    /// True for a lowercase hyphenated UUID (8-4-4-4-12 hex digits).
    package static func isCanonicalUUID(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if [8, 13, 18, 23].contains(i) { guard c == 0x2D else { return false } }
            else { guard (0x30...0x39).contains(c) || (0x61...0x66).contains(c) else { return false } }
        }
        return true
    }
}
