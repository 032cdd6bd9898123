// Canonical base64 (RFC 4648 §4, padded): the only encoding of bytes in Tresor files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

package enum Base64 {
    package static func encode(_ bytes: [UInt8]) -> String { Sodium.base64Encode(bytes) }

    /// Decodes `text`, refusing anything that does not re-encode to exactly the same text
    /// (missing padding, non-zero pad bits, white space, the URL alphabet). A table decoder: what it
    /// decodes (nonces, ciphertexts, wrapped keys) is public, so it need not run in constant time, and
    /// decoding then re-encoding every entry was a third of `tresor grep`.
    package static func decodeCanonical(_ text: String) -> [UInt8]? {
        let c = Array(text.utf8)
        if c.isEmpty { return [] }
        guard c.count % 4 == 0 else { return nil }
        let pad = c[c.count - 1] == 0x3D ? (c[c.count - 2] == 0x3D ? 2 : 1) : 0
        var out = [UInt8]()
        out.reserveCapacity(c.count / 4 * 3)
        var i = 0
        while i < c.count {
            let last = i + 4 == c.count
            let a = table[Int(c[i])], b = table[Int(c[i + 1])]
            let cc = last && pad == 2 ? 0 : table[Int(c[i + 2])], d = last && pad >= 1 ? 0 : table[Int(c[i + 3])]
            guard a | b | cc | d < 64 else { return nil }
            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(cc) << 6 | UInt32(d)
            out.append(UInt8(v >> 16))
            if last && pad == 2 {
                guard v & 0xFFFF == 0 else { return nil }  // the pad bits of "xx==" must be zero
            } else {
                out.append(UInt8(v >> 8 & 0xFF))
                if last && pad == 1 {
                    guard v & 0xFF == 0 else { return nil }
                } else {
                    out.append(UInt8(v & 0xFF))
                }
            }
            i += 4
        }
        return out
    }

    /// The value of each byte in the standard alphabet, 0xFF for anything else ("=" included: padding
    /// is handled by position).
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (v, ch) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(ch)] = UInt8(v) }
        return t
    }()
}
