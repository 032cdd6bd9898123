// Canonical base64 (RFC 4648 §4, padded): the only encoding of bytes in Tresor files.
import Foundation

enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String { Sodium.base64Encode(bytes) }

    /// Decodes `text`, refusing anything that does not re-encode to exactly the same text
    /// (missing padding, non-zero pad bits, white space, the URL alphabet).
    static func decodeCanonical(_ text: String) -> [UInt8]? {
        if text.isEmpty { return [] }
        guard let bytes = Sodium.base64Decode(text) else { return nil }
        guard encode(bytes) == text else { return nil }
        return bytes
    }
}
