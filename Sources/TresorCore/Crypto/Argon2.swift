// Argon2d and Argon2id from libargon2, for other vaults' key derivation (KeePass KDBX 4); libsodium lacks Argon2d.
internal import CArgon2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libargon2's Argon2 with every parameter a KDBX 4 file can name (Spec: the KeePass KDF parameters
/// `S`, `P`, `M`, `I`, `V`, `K`, `A`). Tresor's own vault key uses libsodium's Argon2id (`Sodium.argon2id`).
package enum Argon2 {
    /// The Argon2 variants this wrapper runs.
    package enum Variant: Sendable {
        case argon2d, argon2id
        var code: Int32 { self == .argon2d ? Int32(Argon2_d.rawValue) : Int32(Argon2_id.rawValue) }
    }

    /// Derives `length` bytes. `memoryKiB` is in KiB; `version` is 0x10 or 0x13.
    /// - Throws: `CryptoError.kdfFailed` when libargon2 refuses the parameters or runs out of memory.
    package static func hash(_ variant: Variant, password: SecretBytes, salt: [UInt8], iterations: UInt32, memoryKiB: UInt32,
                            parallelism: UInt32, version: UInt32, secret: [UInt8] = [], associatedData: [UInt8] = [],
                            length: Int = 32) throws -> SecretBytes {
        let out = SecretBytes(count: length)
        let rc = out.withMutableBytes { o in
            password.withBytes { p in
                salt.withUnsafeBufferPointer { s in
                    secret.withUnsafeBufferPointer { k in
                        associatedData.withUnsafeBufferPointer { a in
                            tresor_argon2(variant.code, version, iterations, memoryKiB, parallelism,
                                          p.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(p.count),
                                          s.baseAddress, UInt32(s.count), k.baseAddress, UInt32(k.count),
                                          a.baseAddress, UInt32(a.count),
                                          o.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(length))
                        }
                    }
                }
            }
        }
        guard rc == Int32(ARGON2_OK.rawValue) else { throw CryptoError.kdfFailed }
        return out
    }
}
