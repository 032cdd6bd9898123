// The local search cache (Spec/FORMAT.md §10): decrypted payloads of entry files, sealed under a subkey.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a replica remembers of its entry files so that a search need not decrypt and parse every one:
/// per entry file, its blob id, the `lstat` data it had, its id and its decrypted payload. The file lives
/// in `.git/tresor/search-cache`, is never committed, and is sealed (XChaCha20-Poly1305) under the cache key
/// (subkey id 5 of the vault key) with the vault id as additional data: after a rekey, or for another vault,
/// it simply does not open and is built again. Spec/FORMAT.md §10.
package struct SearchCache: Sendable {
    /// Where the cache lives, relative to the vault root.
    package static let relativePath = ".git/tresor/search-cache"
    /// A cache larger than this is not read (it is rebuilt).
    package static let maxFileBytes = 512 << 20
    static let magic = Array("tresor-search-cache".utf8) + [0]
    static let version: UInt8 = 1
    static let cacheKeyID: UInt64 = 5

    /// One entry file as the cache knows it.
    package struct Record: Sendable {
        /// The entry file's path in the vault (`Email/gmail.json`).
        package var filePath: String
        /// The file's git blob id (SHA-1 of `"blob " <size> NUL` and its bytes), 20 bytes.
        package var blobID: [UInt8]
        /// The file's size, modification and change times (nanoseconds since 1970) and inode when cached.
        package var size: UInt64, modified: Int64, changed: Int64, inode: UInt64
        /// The envelope's entry id.
        package var id: String
        /// The decrypted payload: `range` of `buffer` (a record read from the cache shares one buffer).
        package var buffer: SecretBytes
        package var range: Range<Int>

        package init(filePath: String, blobID: [UInt8], size: UInt64, modified: Int64, changed: Int64, inode: UInt64, id: String,
                    payload: SecretBytes) {
            self.filePath = filePath; self.blobID = blobID; self.size = size; self.modified = modified; self.changed = changed
            self.inode = inode; self.id = id; buffer = payload; range = 0..<payload.count
        }

        /// Runs `body` with the payload bytes.
        package func withPayload<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try buffer.withBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
    }

    /// The records by file path.
    package var records: [String: Record]

    package init(records: [String: Record] = [:]) { self.records = records }

    /// The cache key: `crypto_kdf` subkey id 5 of the vault key (Spec/FORMAT.md §2.3).
    package static func key(vaultKey: SecretBytes) throws -> SecretBytes {
        try Sodium.deriveSubkey(from: vaultKey, id: cacheKeyID, context: EntryCipher.kdfContext)
    }

    static func associatedData(vaultID: String) -> [UInt8] { magic + [version] + Array(vaultID.utf8) }

    /// The cache file for `records`, sealed under `key` with `nonce` (24 random bytes in production).
    package static func seal(_ records: [Record], key: SecretBytes, vaultID: String, nonce: [UInt8]) throws -> [UInt8] {
        var total = 0
        for r in records { total += 2 + r.filePath.utf8.count + 20 + 32 + 1 + r.id.utf8.count + 4 + r.range.count }
        let plain = SecretBytes(count: total)
        plain.withMutableBytes { out in
            var at = 0
            func put(_ bytes: some Collection<UInt8>) { for b in bytes { out[at] = b; at += 1 } }
            func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { put($0) } }
            for r in records.sorted(by: { EntryPath.precedes($0.filePath, $1.filePath) }) {
                le(UInt16(r.filePath.utf8.count)); put(r.filePath.utf8)
                put(r.blobID)
                le(r.size); le(r.modified); le(r.changed); le(r.inode)
                le(UInt8(r.id.utf8.count)); put(r.id.utf8)
                le(UInt32(r.range.count))
                r.withPayload { p in
                    if let base = p.baseAddress, p.count > 0 { (out.baseAddress! + at).copyMemory(from: base, byteCount: p.count) }
                    at += p.count
                }
            }
        }
        let sealed = try Sodium.seal(plain, key: key, nonce: nonce, ad: associatedData(vaultID: vaultID))
        return magic + [version] + nonce + sealed
    }

    /// Opens cache file bytes. - Throws: `CoreError.malformed` for anything that does not open or parse
    /// (the caller then starts from an empty cache).
    package static func open(_ bytes: [UInt8], key: SecretBytes, vaultID: String) throws -> SearchCache {
        let head = magic.count + 1
        guard bytes.count >= head + Sodium.nonceBytes, Array(bytes[..<magic.count]) == magic, bytes[magic.count] == version else {
            throw CoreError.malformed(.mismatch(.searchCacheVersion))
        }
        let nonce = Array(bytes[head..<(head + Sodium.nonceBytes)])
        let plain: SecretBytes
        do {
            plain = try bytes.withUnsafeBytes { all in
                try Sodium.open(UnsafeRawBufferPointer(rebasing: all[(head + Sodium.nonceBytes)...]), key: key, nonce: nonce,
                                ad: associatedData(vaultID: vaultID))
            }
        }
        catch { throw CoreError.malformed(.mismatch(.searchCacheKey)) }
        var records: [String: Record] = [:]
        try plain.withBytes { p in
            var at = 0
            func take(_ n: Int) throws -> UnsafeRawBufferPointer {
                guard n >= 0, at + n <= p.count else { throw CoreError.malformed(.truncated(.searchCache)) }
                defer { at += n }
                return UnsafeRawBufferPointer(rebasing: p[at..<(at + n)])
            }
            func le<T: FixedWidthInteger>(_: T.Type) throws -> T {
                let b = try take(MemoryLayout<T>.size)
                var v = T.zero
                withUnsafeMutableBytes(of: &v) { $0.copyMemory(from: b) }
                return T(littleEndian: v)
            }
            func text(_ n: Int) throws -> String {
                guard let s = String(validating: try take(n), as: UTF8.self) else { throw CoreError.malformed(.member(.searchCache, name: "path", expected: .utf8)) }
                return s
            }
            while at < p.count {
                let path = try text(Int(try le(UInt16.self)))
                let blob = Array(try take(20))
                let size = try le(UInt64.self), modified = try le(Int64.self), changed = try le(Int64.self), inode = try le(UInt64.self)
                let id = try text(Int(try le(UInt8.self)))
                let length = Int(try le(UInt32.self))
                let start = at
                _ = try take(length)
                var r = Record(filePath: path, blobID: blob, size: size, modified: modified, changed: changed, inode: inode, id: id, payload: plain)
                r.range = start..<(start + length)
                records[path] = r
            }
        }
        return SearchCache(records: records)
    }

    /// The git blob id of file bytes: SHA-1 of `"blob " <decimal size> NUL` followed by the bytes.
    package static func blobID(of bytes: [UInt8]) -> [UInt8] {
        (Array("blob \(bytes.count)".utf8) + [0] + bytes).withUnsafeBytes { LibCrypto.digest(.sha1, $0) }
    }
}
