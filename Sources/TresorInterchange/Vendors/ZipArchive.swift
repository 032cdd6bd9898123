// Reading one file out of a zip archive (a 1Password 1PUX export): the central directory, stored or deflated
// entries, ZIP64 sizes, the CRC-32 checked. Nothing is written and no encrypted entry is read.
import TresorCore

/// A zip archive held in memory.
struct ZipArchive {
    enum Failure: Error, Equatable {
        /// No end-of-central-directory record, or a directory that does not fit the file.
        case notAZip
        /// A local header, size or method that cannot be read, or data that does not inflate or check.
        case damaged(InterchangeError.ArchiveDamage)
        case tooLarge
    }

    struct Member {
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
    }

    let bytes: [UInt8]
    let members: [Member]

    /// Reads the central directory of `bytes`. - Throws: `Failure.notAZip`.
    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        // The end-of-central-directory record: its signature within the last 64 KiB + 22 bytes (a comment may follow).
        guard bytes.count >= 22 else { throw Failure.notAZip }
        var end = -1
        for i in stride(from: bytes.count - 22, through: max(0, bytes.count - 22 - 65_535), by: -1) where Self.u32(bytes, i) == 0x0605_4B50 {
            end = i
            break
        }
        guard end >= 0 else { throw Failure.notAZip }
        var count = UInt64(Self.u16(bytes, end + 10))
        var size = UInt64(Self.u32(bytes, end + 12))
        var offset = UInt64(Self.u32(bytes, end + 16))
        // ZIP64: the locator just before it names the ZIP64 end record with the full values.
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF, end >= 20, Self.u32(bytes, end - 20) == 0x0706_4B50 {
            let record = Self.u64(bytes, end - 12)
            guard bytes.count >= 56, record <= UInt64(bytes.count - 56), Self.u32(bytes, Int(record)) == 0x0606_4B50 else { throw Failure.notAZip }
            count = Self.u64(bytes, Int(record) + 32)
            size = Self.u64(bytes, Int(record) + 40)
            offset = Self.u64(bytes, Int(record) + 48)
        }
        guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset, count <= size / 46 else { throw Failure.notAZip }
        var members: [Member] = []
        var i = Int(offset)
        for _ in 0..<count {
            guard i + 46 <= bytes.count, Self.u32(bytes, i) == 0x0201_4B50 else { throw Failure.notAZip }
            let nameLength = Int(Self.u16(bytes, i + 28)), extraLength = Int(Self.u16(bytes, i + 30)), commentLength = Int(Self.u16(bytes, i + 32))
            guard i + 46 + nameLength + extraLength + commentLength <= bytes.count else { throw Failure.notAZip }
            var m = Member(name: String(decoding: bytes[(i + 46)..<(i + 46 + nameLength)], as: UTF8.self),
                           method: Self.u16(bytes, i + 10), flags: Self.u16(bytes, i + 8), crc32: Self.u32(bytes, i + 16),
                           compressedSize: UInt64(Self.u32(bytes, i + 20)), uncompressedSize: UInt64(Self.u32(bytes, i + 24)),
                           localHeaderOffset: UInt64(Self.u32(bytes, i + 42)))
            // The ZIP64 extra field holds, in this order, the values the header set to 0xFFFFFFFF.
            var e = i + 46 + nameLength
            let extraEnd = e + extraLength
            while e + 4 <= extraEnd {
                let id = Self.u16(bytes, e), length = Int(Self.u16(bytes, e + 2))
                guard e + 4 + length <= extraEnd else { break }
                if id == 0x0001 {
                    var f = e + 4
                    func next() -> UInt64? {
                        guard f + 8 <= e + 4 + length else { return nil }
                        defer { f += 8 }
                        return Self.u64(bytes, f)
                    }
                    if m.uncompressedSize == 0xFFFF_FFFF { m.uncompressedSize = next() ?? m.uncompressedSize }
                    if m.compressedSize == 0xFFFF_FFFF { m.compressedSize = next() ?? m.compressedSize }
                    if m.localHeaderOffset == 0xFFFF_FFFF { m.localHeaderOffset = next() ?? m.localHeaderOffset }
                }
                e += 4 + length
            }
            members.append(m)
            i = extraEnd + commentLength
        }
        self.members = members
    }

    /// The member named `name`, if any.
    subscript(name: String) -> Member? { members.first { $0.name == name } }

    /// The uncompressed bytes of `member`, checked against its CRC-32, in a zeroing buffer.
    /// - Throws: `Failure.damaged`, `.tooLarge` past `limit`.
    func extract(_ member: Member, limit: Int) throws -> SecretBytes {
        guard member.uncompressedSize <= UInt64(limit) else { throw Failure.tooLarge }
        guard member.flags & 1 == 0 else { throw Failure.damaged(.encrypted) }
        let header = member.localHeaderOffset
        guard bytes.count >= 30, header <= UInt64(bytes.count - 30), Self.u32(bytes, Int(header)) == 0x0403_4B50 else { throw Failure.damaged(.localHeaderMissing) }
        let start = Int(header) + 30 + Int(Self.u16(bytes, Int(header) + 26)) + Int(Self.u16(bytes, Int(header) + 28))
        guard start <= bytes.count, member.compressedSize <= UInt64(bytes.count - start) else { throw Failure.damaged(.truncated) }
        let stored = SecretBytes(copying: bytes[start..<(start + Int(member.compressedSize))])
        let data: SecretBytes
        switch member.method {
        case 0: data = stored
        case 8:
            do { data = try Gzip.decompress(stored, file: member.name, raw: true, limit: limit) } catch {
                throw Failure.damaged(.compressedDataDamaged)
            }
        default: throw Failure.damaged(.compressionMethod(Int(member.method)))
        }
        guard UInt64(data.count) == member.uncompressedSize else { throw Failure.damaged(.sizeMismatch) }
        guard Gzip.crc32(data) == member.crc32 else { throw Failure.damaged(.checksumMismatch) }
        return data
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) | UInt32(u16(b, i + 2)) << 16 }
    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32 }
}
