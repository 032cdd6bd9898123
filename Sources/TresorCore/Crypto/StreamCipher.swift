// Salsa20 and ChaCha20 key streams and SHA-2 hashes from libsodium, for other vaults' formats (KeePass KDBX).
internal import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Salsa20 or ChaCha20 (IETF, 96-bit nonce) key stream that XORs data in order, keeping its position
/// across calls: KeePass encrypts protected values with one continuous stream in document order.
package final class StreamCipher {
    /// The stream ciphers KeePass uses.
    package enum Algorithm: Sendable {
        /// Salsa20 with a 64-bit nonce (KDBX 3.1 protected values).
        case salsa20
        /// ChaCha20 with a 96-bit nonce, RFC 8439 (KDBX 4 protected values and outer cipher).
        case chacha20
    }

    private let algorithm: Algorithm
    private let key: SecretBytes
    private let nonce: [UInt8]
    private var block: UInt64 = 0
    private let buffer = SecretBytes(count: 64)
    private var used = 64

    /// - Throws: `CryptoError.badLength` for a key other than 32 bytes or a nonce of the wrong size (8 for
    ///   Salsa20, 12 for ChaCha20).
    package init(_ algorithm: Algorithm, key: SecretBytes, nonce: [UInt8]) throws {
        Sodium.ensureInitialized()
        guard key.count == 32 else { throw CryptoError.badLength(.streamKey) }
        guard nonce.count == (algorithm == .salsa20 ? 8 : 12) else { throw CryptoError.badLength(.streamNonce) }
        self.algorithm = algorithm
        self.key = key
        self.nonce = nonce
    }

    /// XORs `data` in place with the next bytes of the key stream.
    package func apply(_ data: inout [UInt8]) throws {
        for i in data.indices {
            if used == 64 { try refill() }
            data[i] ^= buffer.withBytes { $0[used] }
            used += 1
        }
    }

    /// XORs `data` with the next bytes of the key stream into a new zeroing buffer.
    package func apply(_ data: [UInt8]) throws -> SecretBytes {
        let out = SecretBytes(copying: data)
        try out.withMutableBytes { o in
            for i in 0..<o.count {
                if used == 64 { try refill() }
                o[i] ^= buffer.withBytes { $0[used] }
                used += 1
            }
        }
        return out
    }

    /// XORs a whole buffer from the current position (the outer ChaCha20 cipher of a KDBX 4 file); whole
    /// blocks in one libsodium call.
    package func apply(_ data: SecretBytes) throws -> SecretBytes {
        let out = SecretBytes(count: data.count)
        var start = 0
        try out.withMutableBytes { o in
            try data.withBytes { d in
                while start < d.count && used < 64 {
                    o[start] = d[start] ^ buffer.withBytes { $0[used] }
                    used += 1; start += 1
                }
                let whole = (d.count - start) / 64 * 64
                if whole > 0 {
                    try xor(from: d.baseAddress! + start, to: o.baseAddress! + start, count: whole, counter: block)
                    block += UInt64(whole / 64)
                    start += whole
                }
                while start < d.count {
                    if used == 64 { try refill() }
                    o[start] = d[start] ^ buffer.withBytes { $0[used] }
                    used += 1; start += 1
                }
            }
        }
        return out
    }

    private func xor(from input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, count: Int, counter: UInt64) throws {
        let rc: Int32 = key.withBytes { k in
            nonce.withUnsafeBufferPointer { n in
                let out = output.assumingMemoryBound(to: UInt8.self)
                let inp = input.assumingMemoryBound(to: UInt8.self)
                let kp = k.baseAddress!.assumingMemoryBound(to: UInt8.self)
                switch algorithm {
                case .salsa20:
                    return crypto_stream_salsa20_xor_ic(out, inp, UInt64(count), n.baseAddress!, counter, kp)
                case .chacha20:
                    guard counter + UInt64(count / 64) <= UInt64(UInt32.max) else { return -1 }
                    return crypto_stream_chacha20_ietf_xor_ic(out, inp, UInt64(count), n.baseAddress!, UInt32(counter), kp)
                }
            }
        }
        guard rc == 0 else { throw CryptoError.badLength(.streamCounter) }
    }

    /// The next 64 key stream bytes: the cipher applied to zeros at the current block counter.
    private func refill() throws {
        let zeros = [UInt8](repeating: 0, count: 64)
        try buffer.withMutableBytes { b in
            try zeros.withUnsafeBytes { z in try xor(from: z.baseAddress!, to: b.baseAddress!, count: 64, counter: block) }
        }
        block += 1
        used = 0
    }
}

/// SHA-256 and SHA-512 (libsodium), for formats that name them directly.
package enum SHA2 {
    /// SHA-256 of `data` into a zeroing buffer (used for key material).
    package static func sha256(_ data: SecretBytes) -> SecretBytes {
        data.withBytes { sha256(bytes: $0) }
    }

    /// SHA-256 of plain bytes.
    package static func sha256(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { sha256(bytes: $0) }.withBytes { Array($0) }
    }

    /// SHA-512 of `data` into a zeroing buffer.
    package static func sha512(_ data: SecretBytes) -> SecretBytes {
        Sodium.ensureInitialized()
        let out = SecretBytes(count: 64)
        out.withMutableBytes { o in
            data.withBytes { d in
                _ = crypto_hash_sha512(o.baseAddress!.assumingMemoryBound(to: UInt8.self), d.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(d.count))
            }
        }
        return out
    }

    static func sha256(bytes d: UnsafeRawBufferPointer) -> SecretBytes {
        Sodium.ensureInitialized()
        let out = SecretBytes(count: 32)
        out.withMutableBytes { o in
            _ = crypto_hash_sha256(o.baseAddress!.assumingMemoryBound(to: UInt8.self), d.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(d.count))
        }
        return out
    }

    /// Concatenates buffers into one zeroing buffer (key material built from parts).
    package static func concatenate(_ parts: [SecretBytes]) -> SecretBytes {
        let out = SecretBytes(count: parts.reduce(0) { $0 + $1.count })
        out.withMutableBytes { o in
            var offset = 0
            for p in parts {
                p.withBytes { b in
                    if b.count > 0 { (o.baseAddress! + offset).copyMemory(from: b.baseAddress!, byteCount: b.count) }
                }
                offset += p.count
            }
        }
        return out
    }

    /// A slice of a buffer as a new zeroing buffer.
    package static func slice(_ s: SecretBytes, _ range: Range<Int>) -> SecretBytes {
        s.withBytes { SecretBytes(copying: $0[range]) }
    }
}
