// gzip through zlib (KeePass compresses its XML; a zip archive's entries are raw deflate), output in zeroing buffers;
// the only file importing CGzip.
internal import CGzip
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// gzip decompression and compression of whole buffers.
enum Gzip {
    /// Refuses to inflate past this size (a decompression bomb in a hostile file).
    static let maxOutput = 512 << 20

    /// The decompressed bytes of a gzip stream (`raw`: a raw deflate stream), at most `limit` bytes.
    /// - Throws: `InterchangeError.malformed` naming `file`.
    static func decompress(_ input: SecretBytes, file: String, raw: Bool = false, limit: Int = maxOutput) throws -> SecretBytes {
        var stream = z_stream()
        guard (raw ? tresor_inflate_init_raw(&stream) : tresor_inflate_init_gzip(&stream)) == Z_OK else {
            throw InterchangeError.malformed(path: file, .zlib)
        }
        defer { inflateEnd(&stream) }
        var chunks: [SecretBytes] = []
        let chunkSize = 256 << 10
        var total = 0
        var status: Int32 = Z_OK
        try input.withBytes { inp in
            stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.avail_in = UInt32(inp.count)
            repeat {
                let chunk = SecretBytes(count: chunkSize)
                let produced: Int = chunk.withBytes { out in
                    stream.next_out = UnsafeMutablePointer(mutating: out.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    stream.avail_out = UInt32(chunkSize)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return chunkSize - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw InterchangeError.malformed(path: file, .compressedDataDamaged)
                }
                chunks.append(SHA2.slice(chunk, 0..<produced))
                total += produced
                guard total <= limit else { throw InterchangeError.malformed(path: file, .decompressedTooLarge(limit: limit)) }
                if status == Z_OK && produced == 0 && stream.avail_in == 0 {
                    throw InterchangeError.malformed(path: file, .compressedDataTruncated)
                }
            } while status != Z_STREAM_END
        }
        return SHA2.concatenate(chunks)
    }

    /// zlib's CRC-32 of `bytes` (a zip entry's check value).
    static func crc32(_ bytes: SecretBytes) -> UInt32 {
        bytes.withBytes { b in
            UInt32(truncatingIfNeeded: CGzip.crc32(0, b.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(b.count)))
        }
    }

    /// A gzip stream of `input` (used by tests that build KeePass files).
    static func compress(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard tresor_deflate_init_gzip(&stream) == Z_OK else { throw InterchangeError.cannotWrite(path: "", .zlib) }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        var inCopy = input
        let n: Int = inCopy.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                _ = deflate(&stream, Z_FINISH)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(n))
    }
}
