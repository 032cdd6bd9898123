// The libsodium primitives Tresor uses: Argon2id, XChaCha20-Poly1305-IETF, crypto_kdf, randomness.
internal import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Failures of the crypto layer; callers add the file or entry they were working on.
package enum CryptoError: Error, Equatable {
    /// Authentication failed: wrong key, or the ciphertext or its additional data was changed.
    case authenticationFailed
    /// Argon2id could not run with the given parameters (usually: not enough memory).
    case kdfFailed
    /// A key, nonce or salt of the wrong length.
    case badLength(Input)

    /// The inputs whose length is checked.
    package enum Input: Equatable, Sendable {
        case key, nonce, salt, context, publicKey, secretKey, aesKey, aesIV, aesBlock, streamKey, streamNonce, streamCounter
    }
}

/// Thin, safe wrappers over libsodium. Spec/FORMAT.md §2 names each primitive.
package enum Sodium {
    private static let initialized: Bool = { sodium_init() >= 0 }()

    /// Calls `sodium_init` once; aborts if libsodium cannot initialise (no entropy source).
    package static func ensureInitialized() {
        guard initialized else { fatalError("libsodium failed to initialise") }
    }

    package static let keyBytes = 32
    // Sizes and bounds from the header's constants, which the functions of the same names return: calling one would
    // open libsodium (Sources/CLateBinding), and `ls` reads a salt's size from the header without any cryptography.
    package static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    static let saltBytes = Int(crypto_pwhash_SALTBYTES)
    /// Argon2id's own lower bounds (libsodium `crypto_pwhash_argon2id_*_MIN`).
    static let minOps = UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN)
    static let minMem = UInt64(crypto_pwhash_argon2id_MEMLIMIT_MIN)

    /// `count` random bytes (not secret: nonces, salts, ids).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { if count > 0 { randombytes_buf($0.baseAddress!, count) } }
        return out
    }

    /// A uniformly random integer in `0..<upperBound` without modulo bias (`randombytes_uniform`).
    static func randomUniform(_ upperBound: UInt32) -> UInt32 {
        ensureInitialized()
        return randombytes_uniform(upperBound)
    }

    /// Argon2id13 (`crypto_pwhash`) of `passphrase` into a 32-byte key.
    /// - Throws: `CryptoError.kdfFailed` when libsodium refuses (out of memory, bad limits).
    package static func argon2id(passphrase: SecretBytes, salt: [UInt8], ops: UInt64, mem: UInt64) throws -> SecretBytes {
        ensureInitialized()
        guard salt.count == saltBytes else { throw CryptoError.badLength(.salt) }
        let key = SecretBytes(count: keyBytes)
        let rc = key.withMutableBytes { out in
            passphrase.withBytes { pw in
                salt.withUnsafeBytes { s in
                    crypto_pwhash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(keyBytes),
                        pw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pw.count),
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        ops, Int(mem), crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        guard rc == 0 else { throw CryptoError.kdfFailed }
        return key
    }

    /// XChaCha20-Poly1305-IETF encryption; returns ciphertext || 16-byte tag.
    package static func seal(_ plaintext: SecretBytes, key: SecretBytes, nonce: [UInt8], ad: [UInt8]) throws -> [UInt8] {
        ensureInitialized()
        guard key.count == keyBytes else { throw CryptoError.badLength(.key) }
        guard nonce.count == nonceBytes else { throw CryptoError.badLength(.nonce) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagBytes)
        var outLen: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { o in
            plaintext.withBytes { m in
                key.withBytes { k in
                    nonce.withUnsafeBufferPointer { n in
                        ad.withUnsafeBufferPointer { a in
                            crypto_aead_xchacha20poly1305_ietf_encrypt(
                                o.baseAddress!, &outLen,
                                m.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(m.count),
                                a.baseAddress, UInt64(a.count), nil,
                                n.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                        }
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.authenticationFailed }
        return out
    }

    /// XChaCha20-Poly1305-IETF decryption into a zeroing buffer.
    /// - Throws: `CryptoError.authenticationFailed` on a wrong key or any changed byte.
    package static func open(_ ciphertext: [UInt8], key: SecretBytes, nonce: [UInt8], ad: [UInt8]) throws -> SecretBytes {
        try ciphertext.withUnsafeBytes { try open($0, key: key, nonce: nonce, ad: ad) }
    }

    /// `open` of ciphertext bytes in place (a part of a larger buffer, without copying it out).
    static func open(_ ciphertext: UnsafeRawBufferPointer, key: SecretBytes, nonce: [UInt8], ad: [UInt8]) throws -> SecretBytes {
        ensureInitialized()
        guard key.count == keyBytes else { throw CryptoError.badLength(.key) }
        guard nonce.count == nonceBytes else { throw CryptoError.badLength(.nonce) }
        guard ciphertext.count >= tagBytes else { throw CryptoError.authenticationFailed }
        let out = SecretBytes(overwrittenCount: ciphertext.count - tagBytes)
        var outLen: UInt64 = 0
        let c = ciphertext.assumingMemoryBound(to: UInt8.self)
        let rc = out.withMutableBytes { o in
            key.withBytes { k in
                nonce.withUnsafeBufferPointer { n in
                    ad.withUnsafeBufferPointer { a in
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            &outLen, nil,
                            c.baseAddress!, UInt64(c.count),
                            a.baseAddress, UInt64(a.count),
                            n.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.authenticationFailed }
        return out
    }

    /// `crypto_kdf_derive_from_key`: a 32-byte subkey for `id` under the 8-byte `context`.
    static func deriveSubkey(from key: SecretBytes, id: UInt64, context: String) throws -> SecretBytes {
        ensureInitialized()
        let ctx = Array(context.utf8)
        guard ctx.count == Int(crypto_kdf_CONTEXTBYTES) else { throw CryptoError.badLength(.context) }
        guard key.count == Int(crypto_kdf_KEYBYTES) else { throw CryptoError.badLength(.key) }
        let sub = SecretBytes(count: keyBytes)
        let rc = sub.withMutableBytes { o in
            key.withBytes { k in
                ctx.map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { c in
                    crypto_kdf_derive_from_key(
                        o.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes, id,
                        c.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard rc == 0 else { throw CryptoError.kdfFailed }
        return sub
    }

    /// Keyed BLAKE2b with a 32-byte output (`crypto_generichash`): the authentication tags of Spec/FORMAT.md §7.
    /// - Throws: `CryptoError.badLength` for a key that is not 32 bytes.
    static func keyedHash(_ message: [UInt8], key: SecretBytes) throws -> [UInt8] {
        ensureInitialized()
        guard key.count == keyBytes else { throw CryptoError.badLength(.key) }
        var out = [UInt8](repeating: 0, count: 32)
        let rc = key.withBytes { k in
            message.withUnsafeBufferPointer { m in
                crypto_generichash(&out, 32, m.baseAddress, UInt64(m.count), k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
            }
        }
        guard rc == 0 else { throw CryptoError.kdfFailed }
        return out
    }

    /// Constant-time equality of two byte strings of the same length (`sodium_memcmp`).
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }

    /// Standard padded base64 (libsodium `sodium_bin2base64`, ORIGINAL variant).
    static func base64Encode(_ bytes: [UInt8]) -> String {
        ensureInitialized()
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        let size = sodium_base64_encoded_len(bytes.count, variant)
        var out = [CChar](repeating: 0, count: size)
        bytes.withUnsafeBufferPointer { b in
            _ = sodium_bin2base64(&out, size, b.baseAddress, b.count, variant)
        }
        return String(cString: out)
    }

    /// Decodes padded standard base64 (no white space); nil if it is not. Canonical form is checked by the caller.
    static func base64Decode(_ text: String) -> [UInt8]? {
        ensureInitialized()
        let chars = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: chars.count / 4 * 3 + 3)
        var length = 0
        var end: UnsafePointer<CChar>?
        let rc = chars.withUnsafeBufferPointer { c in
            c.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(c.count, 1)) { cc in
                sodium_base642bin(&out, out.count, cc, c.count, nil, &length, &end, Int32(sodium_base64_VARIANT_ORIGINAL))
            }
        }
        guard rc == 0, let end, chars.withUnsafeBufferPointer({ end == UnsafeRawPointer($0.baseAddress! + $0.count).assumingMemoryBound(to: CChar.self) }) else { return nil }
        out.removeLast(out.count - length)
        return out
    }

    /// Overwrites an ordinary byte array with zeros (`sodium_memzero`).
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if $0.count > 0 { sodium_memzero($0.baseAddress!, $0.count) } }
    }

    /// Overwrites `data` with zeros.
    package static func wipe(_ data: inout Data) {
        data.withUnsafeMutableBytes { if $0.count > 0 { sodium_memzero($0.baseAddress!, $0.count) } }
    }
}
