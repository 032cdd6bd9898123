// X25519 key pairs and libsodium sealed boxes: the primitives of recipient key slots (Spec/FORMAT.md §3.8).
internal import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Sodium {
    package static let publicKeyBytes = Int(crypto_box_PUBLICKEYBYTES)
    package static let secretKeyBytes = Int(crypto_box_SECRETKEYBYTES)
    /// What `crypto_box_seal` adds to the plaintext: an ephemeral public key and a Poly1305 tag (`crypto_box_SEALBYTES`,
    /// a macro Swift does not import).
    package static let sealBytes = Int(crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES)

    /// A new X25519 secret key (32 random bytes, `crypto_box_keypair`).
    package static func newSecretKey() -> SecretBytes {
        ensureInitialized()
        return SecretBytes.random(count: secretKeyBytes)
    }

    /// The X25519 public key of `secretKey` (`crypto_scalarmult_base`).
    /// - Throws: `CryptoError.badLength` for a key that is not 32 bytes.
    package static func publicKey(of secretKey: SecretBytes) throws -> [UInt8] {
        ensureInitialized()
        guard secretKey.count == secretKeyBytes else { throw CryptoError.badLength(.secretKey) }
        var pk = [UInt8](repeating: 0, count: publicKeyBytes)
        let rc = secretKey.withBytes { sk in crypto_scalarmult_base(&pk, sk.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        guard rc == 0 else { throw CryptoError.badLength(.secretKey) }
        return pk
    }

    /// `crypto_box_seal`: `plaintext` encrypted to `publicKey` with a fresh ephemeral key pair.
    /// - Throws: `CryptoError.badLength`, `.authenticationFailed` for an unusable public key.
    package static func sealBox(_ plaintext: SecretBytes, publicKey: [UInt8]) throws -> [UInt8] {
        ensureInitialized()
        guard publicKey.count == publicKeyBytes else { throw CryptoError.badLength(.publicKey) }
        var out = [UInt8](repeating: 0, count: plaintext.count + sealBytes)
        let rc = plaintext.withBytes { m in
            crypto_box_seal(&out, m.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(m.count), publicKey)
        }
        guard rc == 0 else { throw CryptoError.authenticationFailed }
        return out
    }

    /// `crypto_box_seal_open` into a zeroing buffer.
    /// - Throws: `CryptoError.authenticationFailed` for another recipient's box or any changed byte.
    package static func openSealedBox(_ box: [UInt8], publicKey: [UInt8], secretKey: SecretBytes) throws -> SecretBytes {
        ensureInitialized()
        guard publicKey.count == publicKeyBytes else { throw CryptoError.badLength(.publicKey) }
        guard secretKey.count == secretKeyBytes else { throw CryptoError.badLength(.secretKey) }
        guard box.count >= sealBytes else { throw CryptoError.authenticationFailed }
        let out = SecretBytes(count: box.count - sealBytes)
        let rc = out.withMutableBytes { o in
            secretKey.withBytes { sk in
                crypto_box_seal_open(o.baseAddress!.assumingMemoryBound(to: UInt8.self), box, UInt64(box.count), publicKey,
                                     sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard rc == 0 else { throw CryptoError.authenticationFailed }
        return out
    }

    /// Unkeyed BLAKE2b of `outputLength` bytes (`crypto_generichash`): key fingerprints and checksums.
    package static func hash(_ message: [UInt8], outputLength: Int = 32) -> [UInt8] {
        ensureInitialized()
        var out = [UInt8](repeating: 0, count: outputLength)
        _ = message.withUnsafeBufferPointer { m in crypto_generichash(&out, outputLength, m.baseAddress, UInt64(m.count), nil, 0) }
        return out
    }
}
