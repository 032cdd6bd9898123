// OpenSSL libcrypto primitives that libsodium lacks: HMAC with SHA-1 (TOTP) and AES-256 (other vaults' formats).
internal import CCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hash functions for `LibCrypto.hmac`.
public enum HashFunction: String, Sendable, CaseIterable {
    case sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512"

    /// Digest length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha512: return 64
        }
    }

    fileprivate var md: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha512: return EVP_sha512()
        }
    }
}

/// Thin wrappers over libcrypto. Keys and plaintexts are `SecretBytes`; failures are `CryptoError`.
package enum LibCrypto {
    /// Opens libcrypto now (on x86-64 Linux it is opened on the first call of one of its functions, and a missing one
    /// ends the program there): for a program about to take the terminal.
    package static func open() { ERR_clear_error() }

    /// HMAC of `message` under `key` (RFC 2104).
    package static func hmac(_ hash: HashFunction, key: SecretBytes, message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withBytes { k in
            message.withUnsafeBufferPointer { m in
                _ = HMAC(hash.md, k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// The digest of `bytes` (public data, such as a data file).
    package static func digest(_ hash: HashFunction, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, hash.md, nil)
        return Array(out.prefix(Int(length)))
    }

    /// The digest of a secret, kept in locked memory: an unsalted hash of a password is as sensitive
    /// as the password (Have I Been Pwned look-ups use its SHA-1).
    package static func digest(_ hash: HashFunction, of secret: SecretBytes) -> SecretBytes {
        let out = SecretBytes(count: hash.byteCount)
        out.withMutableBytes { o in
            secret.withBytes { s in
                var length: UInt32 = 0
                _ = EVP_Digest(s.baseAddress, s.count, o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, hash.md, nil)
            }
        }
        return out
    }

    /// HMAC of a secret message under a secret key, kept in locked memory (for comparing secrets by a
    /// keyed hash without printing or storing them).
    package static func hmac(_ hash: HashFunction, key: SecretBytes, secret message: SecretBytes) -> SecretBytes {
        let out = SecretBytes(count: hash.byteCount)
        out.withMutableBytes { o in
            key.withBytes { k in
                message.withBytes { m in
                    var length: UInt32 = 0
                    _ = HMAC(hash.md, k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                             o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        return out
    }

    /// AES-256-CBC with PKCS#7 padding. - Throws: `CryptoError.badLength` for a key or IV of the wrong
    /// size, `.authenticationFailed` when the padding is wrong (a wrong key, as far as the caller can tell).
    package static func aes256CBCDecrypt(_ ciphertext: [UInt8], key: SecretBytes, iv: [UInt8]) throws -> SecretBytes {
        try aes256CBC(encrypt: false, ciphertext, key: key, iv: iv)
    }

    /// AES-256-CBC encryption with PKCS#7 padding.
    static func aes256CBCEncrypt(_ plaintext: SecretBytes, key: SecretBytes, iv: [UInt8]) throws -> [UInt8] {
        let out = try plaintext.withBytes { try aes256CBC(encrypt: true, Array($0), key: key, iv: iv) }
        return out.withBytes { Array($0) }
    }

    private static func aes256CBC(encrypt: Bool, _ input: [UInt8], key: SecretBytes, iv: [UInt8]) throws -> SecretBytes {
        guard key.count == 32 else { throw CryptoError.badLength(.aesKey) }
        guard iv.count == 16 else { throw CryptoError.badLength(.aesIV) }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.kdfFailed }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let buffer = SecretBytes(count: input.count + 16)
        var total: Int32 = 0
        let ok = buffer.withMutableBytes { out -> Bool in
            key.withBytes { k in
                iv.withUnsafeBufferPointer { v in
                    input.withUnsafeBufferPointer { inp in
                        let o = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        let kp = k.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        guard EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), nil, kp, v.baseAddress, encrypt ? 1 : 0) == 1 else { return false }
                        var n: Int32 = 0
                        guard EVP_CipherUpdate(ctx, o, &n, inp.baseAddress, Int32(inp.count)) == 1 else { return false }
                        var m: Int32 = 0
                        guard EVP_CipherFinal_ex(ctx, o + Int(n), &m) == 1 else { return false }
                        total = n + m
                        return true
                    }
                }
            }
        }
        ERR_clear_error()
        guard ok else { throw CryptoError.authenticationFailed }
        let result = SecretBytes(count: Int(total))
        result.withMutableBytes { dst in buffer.withBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src.prefix(Int(total)))) } }
        return result
    }

    /// Encrypts the 32 bytes of `block` `rounds` times with AES-256-ECB under `key`, in place (KeePass's
    /// AES-KDF transform).
    package static func aes256ECBRounds(_ block: SecretBytes, key: [UInt8], rounds: UInt64) throws {
        guard key.count == 32 else { throw CryptoError.badLength(.aesKey) }
        guard block.count % 16 == 0 else { throw CryptoError.badLength(.aesBlock) }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.kdfFailed }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let ok = block.withMutableBytes { b -> Bool in
            key.withUnsafeBufferPointer { k in
                guard EVP_EncryptInit_ex(ctx, EVP_aes_256_ecb(), nil, k.baseAddress, nil) == 1 else { return false }
                EVP_CIPHER_CTX_set_padding(ctx, 0)
                let p = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var n: Int32 = 0
                for _ in 0..<rounds {
                    guard EVP_EncryptUpdate(ctx, p, &n, p, Int32(b.count)) == 1 else { return false }
                }
                return true
            }
        }
        ERR_clear_error()
        guard ok else { throw CryptoError.kdfFailed }
    }
}
