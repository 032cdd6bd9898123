// Hexadecimal digits, for the decoders of text formats that escape bytes (`%XX` in URLs and Assuan, session tokens).

/// Hexadecimal digits.
package enum Hex {
    /// The value of the ASCII hexadecimal digit `c` (either case), or nil.
    package static func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// Lowercase hexadecimal of `bytes`, two digits each (`String(format: "%02x")` per byte).
    package static func lower<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        encode(bytes, Array("0123456789abcdef".utf8))
    }

    /// Uppercase hexadecimal of `bytes`, two digits each (`String(format: "%02X")` per byte).
    package static func upper<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        encode(bytes, Array("0123456789ABCDEF".utf8))
    }

    private static func encode<Bytes: Sequence>(_ bytes: Bytes, _ digits: [UInt8]) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
