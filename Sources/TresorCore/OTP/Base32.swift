// RFC 4648 base32 decoding for one-time-code secrets: case-insensitive, padding optional.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base32 (RFC 4648 §6) as authenticator apps write secrets.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes `text` (upper or lower case, with or without `=` padding, spaces ignored) into a secret.
    /// - Throws: `OTPError.badSecret` naming the first character that is not base32, or a length no
    ///   encoder produces.
    package static func decode(_ text: String) throws -> SecretBytes {
        var values: [UInt8] = []
        defer { Sodium.wipe(&values) }
        var padding = 0
        for c in text.utf8 where c != 0x20 {
            if c == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0 else { throw OTPError.badSecret(.paddingInTheMiddle) }
            let upper = (c >= 0x61 && c <= 0x7A) ? c - 0x20 : c
            guard let v = alphabet.firstIndex(of: upper) else {
                throw OTPError.badSecret(.notBase32(Unicode.Scalar(c)))
            }
            values.append(UInt8(v))
        }
        guard !values.isEmpty else { throw OTPError.badSecret(.empty) }
        // 8 characters carry 5 bytes; a final group of 1, 3 or 6 characters is not a whole number of bytes.
        guard [0, 2, 4, 5, 7].contains(values.count % 8) else { throw OTPError.badSecret(.length(values.count)) }
        if padding > 0, (values.count + padding) % 8 != 0 { throw OTPError.badSecret(.wrongPadding) }
        let out = SecretBytes(count: values.count * 5 / 8)
        out.withMutableBytes { buffer in
            var acc: UInt64 = 0, bits = 0, i = 0
            for v in values {
                acc = (acc << 5) | UInt64(v)
                bits += 5
                if bits >= 8 {
                    bits -= 8
                    if i < buffer.count { buffer[i] = UInt8(truncatingIfNeeded: acc >> UInt64(bits)); i += 1 }
                }
            }
            acc = 0
        }
        return out
    }
}
