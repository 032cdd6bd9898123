// Opens a KeePass database file (KDBX 3.1 and 4.x): header, key derivation, outer cipher, block streams, gzip.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// The decrypted contents of a `.kdbx` file: the XML document and the stream that decrypts its
/// protected values.
struct KDBXContents {
    var xml: SecretBytes
    var protectedStream: StreamCipher?
}

/// The KDBX container (KeePass's "KDBX 3.1" and "KDBX 4" formats, as KeePass 2 and KeePassXC write them).
enum KDBXFile {
    static let signature1: UInt32 = 0x9AA2_D903
    static let signature2: UInt32 = 0xB54B_FB67
    static let aesCipher: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let chachaCipher: [UInt8] = [0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A]
    static let aesKDF: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let aesKDF4: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]
    static let argon2d: [UInt8] = [0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C]
    static let argon2id: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]
    static let salsaNonce: [UInt8] = [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]
    /// Limits on a file's KDF cost, so a hostile file cannot make the import run for hours or exhaust memory.
    static let maxAESRounds: UInt64 = 1_000_000_000
    static let maxArgon2Memory: UInt64 = 4 << 30
    static let maxArgon2Iterations: UInt64 = 10_000

    /// Decrypts `bytes` (the file `file`) with the password and optional key file contents.
    /// - Throws: `.wrongKey`, `.malformed`, `.unsupported`.
    static func open(_ bytes: [UInt8], file: String, password: SecretBytes?, keyFile: [UInt8]?) throws -> KDBXContents {
        var r = ByteReader(bytes, file: file)
        guard try r.u32() == signature1, try r.u32() == signature2 else { throw InterchangeError.malformed(path: file, .notKeePass) }
        _ = try r.u16()  // the minor version: 3.1, 4.0 and 4.1 read alike here
        let major = try r.u16()
        guard major == 3 || major == 4 else { throw InterchangeError.unsupported(path: file, feature: .kdbxVersion(Int(major))) }
        let h = try outerHeader(&r, major: major)
        let headerBytes = Array(bytes[0..<r.offset])
        guard let cipher = h[2], let seed = h[4], seed.count == 32, let iv = h[7] else {
            throw InterchangeError.malformed(path: file, .headerIncomplete)
        }
        guard cipher == aesCipher || cipher == chachaCipher else { throw InterchangeError.unsupported(path: file, feature: .cipher(uuidText(cipher))) }
        let compressed = h[3].map { $0.first == 1 } ?? false
        let composite = try compositeKey(password: password, keyFile: keyFile, file: file)
        let transformed = try transformedKey(composite, header: h, major: major, file: file)
        let masterKey = SHA2.sha256(SHA2.concatenate([SecretBytes(copying: seed), transformed]))

        if major == 3 {
            return try openKDBX3Payload(Array(bytes[r.offset...]), header: h, cipher: cipher, masterKey: masterKey,
                                        iv: iv, compressed: compressed, file: file)
        }
        // KDBX 4: header checksum, header HMAC, HMAC block stream.
        let hmacBase = try checkKDBX4Header(&r, headerBytes, seed: seed, transformed: transformed, file: file)
        let encrypted = try hmacBlockStream(&r, hmacBase: hmacBase, file: file)
        var plain = try decryptKDBX4Payload(encrypted, cipher: cipher, masterKey: masterKey, iv: iv, file: file)
        if compressed { plain = try Gzip.decompress(plain, file: file) }
        return try innerHeaderAndXML(plain, file: file)
    }

    /// The outer header's fields by id, read up to its end field (id 0); KDBX 4 sizes are 32 bits, KDBX 3 sizes 16.
    private static func outerHeader(_ r: inout ByteReader, major: UInt16) throws -> [UInt8: [UInt8]] {
        var h: [UInt8: [UInt8]] = [:]
        while true {
            let id = try r.u8()
            let size = major == 4 ? Int(try r.u32()) : Int(try r.u16())
            let value = try r.bytes(size)
            if id == 0 { break }
            h[id] = value
        }
        return h
    }

    /// The composite key through the file's key derivation: AES-KDF with the header's seed and rounds (KDBX 3), or
    /// the KDF its variant dictionary names (KDBX 4).
    private static func transformedKey(_ composite: SecretBytes, header h: [UInt8: [UInt8]], major: UInt16,
                                       file: String) throws -> SecretBytes {
        if major == 3 {
            guard let tSeed = h[5], tSeed.count == 32, let roundBytes = h[6], roundBytes.count == 8 else {
                throw InterchangeError.malformed(path: file, .kdfParametersMissing)
            }
            return try aesKDF(composite, seed: tSeed, rounds: le64(roundBytes), file: file)
        }
        guard let kdf = h[11] else { throw InterchangeError.malformed(path: file, .kdfParametersMissing) }
        return try deriveKDBX4(composite, parameters: try VariantDictionary.parse(kdf, file: file), file: file)
    }

    /// A KDBX 3 file's contents from `body` (all after the header): AES-CBC, the start bytes that tell a wrong key,
    /// hashed blocks, gzip; the protected-value stream is named in the outer header.
    private static func openKDBX3Payload(_ body: [UInt8], header h: [UInt8: [UInt8]], cipher: [UInt8],
                                         masterKey: SecretBytes, iv: [UInt8], compressed: Bool, file: String) throws -> KDBXContents {
        guard cipher == aesCipher else { throw InterchangeError.unsupported(path: file, feature: .chacha20InKDBX3) }
        let plain: SecretBytes
        do { plain = try LibCrypto.aes256CBCDecrypt(body, key: masterKey, iv: iv) } catch { throw InterchangeError.wrongKey(path: file) }
        guard let start = h[9], plain.count >= 32, plain.withBytes({ Array($0.prefix(32)) }) == start else { throw InterchangeError.wrongKey(path: file) }
        var payload = try hashedBlocks(SHA2.slice(plain, 32..<plain.count), file: file)
        if compressed { payload = try Gzip.decompress(payload, file: file) }
        var stream: StreamCipher?
        if let idBytes = h[10], le32(idBytes) != 0, let key = h[8] {
            stream = try innerStream(id: le32(idBytes), key: SecretBytes(copying: key), file: file)
        }
        return KDBXContents(xml: payload, protectedStream: stream)
    }

    /// Reads the SHA-256 and HMAC that follow a KDBX 4 header and checks them (a wrong key fails the HMAC).
    /// Returns the HMAC base key the blocks are checked with.
    private static func checkKDBX4Header(_ r: inout ByteReader, _ headerBytes: [UInt8], seed: [UInt8],
                                         transformed: SecretBytes, file: String) throws -> SecretBytes {
        let sha = try r.bytes(32), mac = try r.bytes(32)
        guard SHA2.sha256(headerBytes) == sha else { throw InterchangeError.malformed(path: file, .headerChecksum) }
        let hmacBase = SHA2.sha512(SHA2.concatenate([SecretBytes(copying: seed), transformed, SecretBytes(copying: [1])]))
        guard LibCrypto.hmac(.sha256, key: blockKey(UInt64.max, hmacBase), message: headerBytes) == mac else { throw InterchangeError.wrongKey(path: file) }
        return hmacBase
    }

    /// The encrypted payload of a KDBX 4 file: its HMAC blocks, each checked, up to the empty one that ends them.
    private static func hmacBlockStream(_ r: inout ByteReader, hmacBase: SecretBytes,
                                        file: String) throws -> SecretBytes {
        var chunks: [SecretBytes] = []
        var index: UInt64 = 0
        while true {
            let blockMac = try r.bytes(32)
            let sizeBytes = try r.bytes(4)
            let size = Int(Int32(bitPattern: UInt32(le32(sizeBytes))))
            guard size >= 0 else { throw InterchangeError.malformed(path: file, .negativeBlockSize) }
            let data = try r.bytes(size)
            let expected = LibCrypto.hmac(.sha256, key: blockKey(index, hmacBase), message: le64Bytes(index) + sizeBytes + data)
            guard expected == blockMac else { throw InterchangeError.malformed(path: file, .blockMAC(index: Int(index))) }
            if size == 0 { break }
            chunks.append(SecretBytes(copying: data))
            index += 1
        }
        return SHA2.concatenate(chunks)
    }

    /// A KDBX 4 payload decrypted with the outer cipher (AES-CBC or ChaCha20); the HMACs passed, so a failure here
    /// means a damaged file, not a wrong key.
    private static func decryptKDBX4Payload(_ encrypted: SecretBytes, cipher: [UInt8], masterKey: SecretBytes,
                                            iv: [UInt8], file: String) throws -> SecretBytes {
        if cipher == aesCipher {
            do { return try LibCrypto.aes256CBCDecrypt(encrypted.withBytes { Array($0) }, key: masterKey, iv: iv) }
            catch { throw InterchangeError.malformed(path: file, .payloadDoesNotDecrypt) }
        }
        guard iv.count == 12 else { throw InterchangeError.malformed(path: file, .ivLength(expected: 12)) }
        return try StreamCipher(.chacha20, key: masterKey, nonce: iv).apply(encrypted)
    }

    /// A decrypted KDBX 4 payload split: its inner header (stream id, stream key, binaries) gives the protected-value
    /// stream, the rest is the XML.
    private static func innerHeaderAndXML(_ plain: SecretBytes, file: String) throws -> KDBXContents {
        try plain.withBytes { p -> KDBXContents in
            var ir = ByteReader(Array(p), file: file)
            var streamID: UInt32 = 0
            var streamKey: SecretBytes?
            while true {
                let id = try ir.u8()
                let size = Int(try ir.u32())
                let value = try ir.bytes(size)
                if id == 0 { break }
                if id == 1 { streamID = UInt32(le32(value)) }
                if id == 2 { streamKey = SecretBytes(copying: value) }
            }
            let xml = SecretBytes(copying: p[ir.offset...])
            let stream = try streamKey.flatMap { streamID == 0 ? nil : try innerStream(id: Int(streamID), key: $0, file: file) }
            return KDBXContents(xml: xml, protectedStream: stream)
        }
    }

    /// SHA-256 of SHA-256(password) followed by the key file's key (KeePass's composite key).
    static func compositeKey(password: SecretBytes?, keyFile: [UInt8]?, file: String) throws -> SecretBytes {
        var parts: [SecretBytes] = []
        if let password { parts.append(SHA2.sha256(password)) }
        if let keyFile { parts.append(try KeyFile.key(keyFile)) }
        guard !parts.isEmpty else { throw InterchangeError.wrongKey(path: file) }
        return SHA2.sha256(SHA2.concatenate(parts))
    }

    static func aesKDF(_ key: SecretBytes, seed: [UInt8], rounds: UInt64, file: String) throws -> SecretBytes {
        guard rounds <= maxAESRounds else { throw InterchangeError.unsupported(path: file, feature: .aesRounds(rounds, maximum: UInt64(maxAESRounds))) }
        let block = SecretBytes(copying: key.withBytes { Array($0) })
        try LibCrypto.aes256ECBRounds(block, key: seed, rounds: rounds)
        return SHA2.sha256(block)
    }

    static func deriveKDBX4(_ key: SecretBytes, parameters p: [String: VariantDictionary.Value], file: String) throws -> SecretBytes {
        guard case .bytes(let uuid)? = p["$UUID"] else { throw InterchangeError.malformed(path: file, .kdfParametersMissing) }
        if uuid == aesKDF || uuid == aesKDF4 {
            guard case .bytes(let seed)? = p["S"], seed.count == 32, let rounds = p["R"]?.integer else {
                throw InterchangeError.malformed(path: file, .kdfParametersIncomplete)
            }
            return try aesKDF(key, seed: seed, rounds: rounds, file: file)
        }
        guard uuid == argon2d || uuid == argon2id else { throw InterchangeError.unsupported(path: file, feature: .kdf(uuidText(uuid))) }
        guard case .bytes(let salt)? = p["S"], let memory = p["M"]?.integer, let iterations = p["I"]?.integer,
              let lanes = p["P"]?.integer, let version = p["V"]?.integer else {
            throw InterchangeError.malformed(path: file, .kdfParametersIncomplete)
        }
        guard memory <= maxArgon2Memory, iterations <= maxArgon2Iterations, lanes >= 1, lanes <= 256, version == 0x10 || version == 0x13 else {
            throw InterchangeError.unsupported(path: file, feature: .argon2(memory: UInt64(memory), iterations: UInt64(iterations), lanes: UInt64(lanes), version: UInt64(version)))
        }
        var secret: [UInt8] = [], ad: [UInt8] = []
        if case .bytes(let k)? = p["K"] { secret = k }
        if case .bytes(let a)? = p["A"] { ad = a }
        do {
            return try Argon2.hash(uuid == argon2d ? .argon2d : .argon2id, password: key, salt: salt, iterations: UInt32(iterations),
                                   memoryKiB: UInt32(memory / 1024), parallelism: UInt32(lanes), version: UInt32(version), secret: secret, associatedData: ad)
        } catch { throw InterchangeError.unsupported(path: file, feature: .argon2Refused) }
    }

    static func innerStream(id: Int, key: SecretBytes, file: String) throws -> StreamCipher {
        switch id {
        case 2: return try StreamCipher(.salsa20, key: SHA2.sha256(key), nonce: salsaNonce)
        case 3:
            let h = SHA2.sha512(key)
            return try StreamCipher(.chacha20, key: SHA2.slice(h, 0..<32), nonce: h.withBytes { Array($0[32..<44]) })
        default: throw InterchangeError.unsupported(path: file, feature: .protectedStream(Int(id)))
        }
    }

    /// KDBX 3.1's hashed block stream: index, SHA-256, size, data; an empty block ends it.
    static func hashedBlocks(_ data: SecretBytes, file: String) throws -> SecretBytes {
        try data.withBytes { d in
            var r = ByteReader(Array(d), file: file)
            var chunks: [SecretBytes] = []
            while true {
                _ = try r.u32()
                let hash = try r.bytes(32)
                let size = Int(try r.u32())
                if size == 0 { break }
                let block = try r.bytes(size)
                guard SHA2.sha256(block) == hash else { throw InterchangeError.malformed(path: file, .blockHash) }
                chunks.append(SecretBytes(copying: block))
            }
            return SHA2.concatenate(chunks)
        }
    }

    static func blockKey(_ index: UInt64, _ base: SecretBytes) -> SecretBytes {
        SHA2.sha512(SHA2.concatenate([SecretBytes(copying: le64Bytes(index)), base]))
    }

    static func le32(_ b: [UInt8]) -> Int { b.prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) } }
    static func le64(_ b: [UInt8]) -> UInt64 { b.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } }
    static func le64Bytes(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    static func uuidText(_ b: [UInt8]) -> String { Hex.lower(b) }
}

/// Little-endian reads that throw `malformed` at the end of the data instead of crashing.
struct ByteReader {
    let data: [UInt8]
    let file: String
    var offset = 0
    init(_ data: [UInt8], file: String) { self.data = data; self.file = file }

    mutating func bytes(_ n: Int) throws -> [UInt8] {
        guard n >= 0, n <= data.count - offset else { throw InterchangeError.malformed(path: file, .truncated(offset: Int(offset))) }
        defer { offset += n }
        return Array(data[offset..<offset + n])
    }
    mutating func u8() throws -> UInt8 { try bytes(1)[0] }
    mutating func u16() throws -> UInt16 { let b = try bytes(2); return UInt16(b[0]) | UInt16(b[1]) << 8 }
    mutating func u32() throws -> UInt32 { UInt32(KDBXFile.le32(try bytes(4))) }
    mutating func u64() throws -> UInt64 { KDBXFile.le64(try bytes(8)) }
}

/// KeePass's VariantDictionary (KDBX 4 KDF parameters): typed key/value items.
enum VariantDictionary {
    enum Value {
        case uint(UInt64), int(Int64), bool(Bool), string(String), bytes([UInt8])
        var integer: UInt64? {
            switch self {
            case .uint(let v): return v
            case .int(let v): return v >= 0 ? UInt64(v) : nil
            default: return nil
            }
        }
    }

    static func parse(_ bytes: [UInt8], file: String) throws -> [String: Value] {
        var r = ByteReader(bytes, file: file)
        let version = try r.u16()
        guard version >> 8 == 1 else { throw InterchangeError.unsupported(path: file, feature: .kdfParametersVersion(Int(version >> 8))) }
        var out: [String: Value] = [:]
        while true {
            let type = try r.u8()
            if type == 0 { break }
            let key = String(decoding: try r.bytes(Int(try r.u32())), as: UTF8.self)
            let v = try r.bytes(Int(try r.u32()))
            switch type {
            case 0x04, 0x05: out[key] = .uint(KDBXFile.le64(v))
            case 0x0C, 0x0D: out[key] = .int(Int64(bitPattern: KDBXFile.le64(v + [UInt8](repeating: v.last.map { $0 & 0x80 != 0 ? 0xFF : 0 } ?? 0, count: max(0, 8 - v.count)))))
            case 0x08: out[key] = .bool(v.first == 1)
            case 0x18: out[key] = .string(String(decoding: v, as: UTF8.self))
            case 0x42: out[key] = .bytes(v)
            default: continue
            }
        }
        return out
    }
}
