// Canonical base64 (RFC 4648 §4, padded): the only encoding of bytes in Tresor files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

package enum Base64 {
    /// Any bytes, secret ones too: libsodium's encoder, which runs in constant time.
    package static func encode(_ bytes: [UInt8]) -> String { Sodium.base64Encode(bytes) }

    /// Public bytes only (an entry's nonce and ciphertext): a table encoder, whose memory accesses depend on the
    /// bytes. The same text as `encode`, at a tenth of its cost (it was a fortieth of a rekey).
    package static func encodePublic(_ bytes: [UInt8]) -> String {
        let count = (bytes.count + 2) / 3 * 4
        return bytes.withUnsafeBufferPointer { b in
            String(unsafeUninitializedCapacity: count) { out in
                symbols.withUnsafeBufferPointer { t in
                    var i = 0, o = 0
                    while i + 3 <= b.count {
                        let v = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
                        out[o] = t[Int(v >> 18)]; out[o + 1] = t[Int(v >> 12 & 63)]; out[o + 2] = t[Int(v >> 6 & 63)]; out[o + 3] = t[Int(v & 63)]
                        i += 3; o += 4
                    }
                    if i < b.count {
                        let two = i + 1 < b.count
                        let v = UInt32(b[i]) << 16 | (two ? UInt32(b[i + 1]) << 8 : 0)
                        out[o] = t[Int(v >> 18)]; out[o + 1] = t[Int(v >> 12 & 63)]
                        out[o + 2] = two ? t[Int(v >> 6 & 63)] : 0x3D; out[o + 3] = 0x3D
                        o += 4
                    }
                    return o
                }
            }
        }
    }

    private static let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Decodes `text`, refusing anything that does not re-encode to exactly the same text
    /// (missing padding, non-zero pad bits, white space, the URL alphabet). A table decoder: what it
    /// decodes (nonces, ciphertexts, wrapped keys) is public, so it need not run in constant time, and
    /// decoding then re-encoding every entry was a third of `tresor grep`.
    package static func decodeCanonical(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decodeCanonical(UnsafeRawBufferPointer($0)) }
    }

    /// The same over the text's UTF-8 bytes: four characters at a time through the table, straight into the
    /// result's storage (a decoder over arrays cost as much as the AEAD that opens an entry).
    package static func decodeCanonical(_ c: UnsafeRawBufferPointer) -> [UInt8]? {
        if c.isEmpty { return [] }
        guard c.count % 4 == 0 else { return nil }
        let pad = c[c.count - 1] == 0x3D ? (c[c.count - 2] == 0x3D ? 2 : 1) : 0
        let quads = c.count / 4
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: quads * 3) { out, initialized in
            table.withUnsafeBufferPointer { t in
                // Every quad but the last: four symbols, three bytes; any byte outside the alphabet (padding too)
                // leaves a high bit set in `bad`.
                var bad: UInt8 = 0, o = 0, i = 0
                while i < (quads - 1) * 4 {
                    let a = t[Int(c[i])], b = t[Int(c[i + 1])], cc = t[Int(c[i + 2])], d = t[Int(c[i + 3])]
                    bad |= a | b | cc | d
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(cc) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: v >> 16); out[o + 1] = UInt8(truncatingIfNeeded: v >> 8); out[o + 2] = UInt8(truncatingIfNeeded: v)
                    o += 3; i += 4
                }
                // The last quad, with its padding: the pad bits of "xx==" and "xxx=" must be zero.
                let a = t[Int(c[i])], b = t[Int(c[i + 1])]
                let cc = pad == 2 ? 0 : t[Int(c[i + 2])], d = pad >= 1 ? 0 : t[Int(c[i + 3])]
                bad |= a | b | cc | d
                let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(cc) << 6 | UInt32(d)
                out[o] = UInt8(truncatingIfNeeded: v >> 16); o += 1
                if pad == 2 { valid = v & 0xFFFF == 0 } else {
                    out[o] = UInt8(truncatingIfNeeded: v >> 8); o += 1
                    if pad == 1 { valid = v & 0xFF == 0 } else { out[o] = UInt8(truncatingIfNeeded: v); o += 1 }
                }
                valid = valid && bad < 64
                initialized = o
            }
        }
        return valid ? out : nil
    }

    /// The value of each byte in the standard alphabet, 0xFF for anything else ("=" included: padding
    /// is handled by position).
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (v, ch) in symbols.enumerated() { t[Int(ch)] = UInt8(v) }
        return t
    }()
}
