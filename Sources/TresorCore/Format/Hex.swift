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
}
