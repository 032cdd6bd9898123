// Writing the objects of a large change as one pack file (and its index) instead of one loose file each.
internal import CGit2
internal import CGzip
internal import CCrypto
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension GitRepository {
    /// Runs `body` with every object it writes kept in memory, then stores what the commits it wrote reach
    /// that is new as **one** pack file (made durable once) before returning: a change of thousands of files
    /// (a rekey, an import) then costs one file in `.git/objects` instead of a file and an fsync per object.
    /// The objects are readable inside `body` as usual. Objects no commit written in `body` reaches, and
    /// everything if `body` throws, are not stored.
    /// - Throws: what `body` throws; `GitError` if the pack cannot be written.
    package func writingObjectsAsOnePack<R>(_ body: () throws -> R) throws -> R {
        try withRepo { repo in
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, repo), .openObjectDatabase)
            defer { git_odb_free(odb) }
            var backend: UnsafeMutablePointer<git_odb_backend>?
            try check(git_mempack_new(&backend), .writePack)
            // The object database owns the backend from here; its priority puts it before the disk's.
            let added = git_odb_add_backend(odb, backend, 1000)
            if added < 0 {
                backend?.pointee.free(backend)
                try check(added, .writePack)
            }
            // Whatever happens, later writes must reach the disk again: the repository gets a fresh object
            // database without the in-memory backend (libgit2 has no way to remove a backend).
            defer { try? reopenObjectDatabase(repo) }
            // (Under the vault's lock: no other writer's temporary files are there.)
            Self.finishInterruptedPacks(in: String(cString: git_repository_path(repo)) + "objects/pack")
            openPack = backend
            packedCommits = []
            defer { openPack = nil; packedCommits = [] }
            let result = try body()
            guard let backend, !packedCommits.isEmpty else { return result }
            let pack = try packNewObjects(repo, odb, backend, roots: packedCommits)
            try store(pack, in: String(cString: git_repository_path(repo)) + "objects/pack")
            return result
        }
    }

    /// A pack (version 2, no deltas: entry files are ciphertext) of the objects in `backend` that `roots`
    /// reach: a tree or blob not in `backend` is on disk already, and so is everything below it. The objects are
    /// compressed on every core (a rekey of 10,000 entries spent a third of a second compressing on one).
    private func packNewObjects(_ repo: OpaquePointer, _ odb: OpaquePointer?, _ backend: UnsafeMutablePointer<git_odb_backend>,
                                roots: [git_oid]) throws -> PackFileWriter.Written {
        var objects: [(id: git_oid, type: git_object_t, data: [UInt8])] = []
        var seen = Set<String>()
        func isNew(_ id: UnsafePointer<git_oid>) -> Bool {
            backend.pointee.exists(backend, id) == 1 && seen.insert(id.pointee.hex).inserted
        }
        func add(_ id: UnsafePointer<git_oid>) throws {
            var object: OpaquePointer?
            try check(git_odb_read(&object, odb, id), .readObject(id: id.pointee.hex))
            defer { git_odb_object_free(object) }
            objects.append((id.pointee, git_odb_object_type(object), Array(UnsafeRawBufferPointer(
                start: git_odb_object_data(object), count: git_odb_object_size(object)))))
        }
        func addTree(_ id: UnsafePointer<git_oid>) throws {
            guard isNew(id) else { return }
            try add(id)
            var tree: OpaquePointer?
            try check(git_tree_lookup(&tree, repo, id), .readTree(id.pointee.hex))
            defer { git_tree_free(tree) }
            for i in 0..<git_tree_entrycount(tree) {
                guard let entry = git_tree_entry_byindex(tree, i), let child = git_tree_entry_id(entry) else { continue }
                switch git_tree_entry_type(entry) {
                case GIT_OBJECT_TREE: try addTree(child)
                case GIT_OBJECT_BLOB: if isNew(child) { try add(child) }
                default: continue
                }
            }
        }
        for var root in roots where isNew(&root) {
            try add(&root)
            var commit: OpaquePointer?
            try check(git_commit_lookup(&commit, repo, &root), .readCommit(root.hex))
            defer { git_commit_free(commit) }
            try addTree(git_commit_tree_id(commit))
        }
        return try PackFileWriter.pack(objects)
    }

    /// Stores `pack` as git does: the pack file, then its index (which makes it visible to readers), then the folder
    /// made durable. Both are written to temporary files and made durable before either is renamed into place: a
    /// crash between the two renames leaves the index's temporary file beside its pack, which the next large change
    /// puts in place (`finishInterruptedPacks`). The pack is named by its checksum; the objects were named by their
    /// bytes when they were written, so nothing is hashed again (libgit2's indexer inflated and hashed every object
    /// once more: a tenth of a rekey). `mode`: read-only to their owner by default (git keeps pack files read-only,
    /// tresor its files private); a push into another repository writes them as git would there (0444, less the umask).
    func store(_ pack: PackFileWriter.Written, in folder: String, mode: mode_t = 0o400) throws {
        let name = folder + "/pack-" + Self.hex(pack.checksum[...])
        let packFile = try Self.writeTemporaryFile(for: name + ".pack", pack.bytes, durable: true, mode: mode, operation: .writePack)
        let indexFile: String
        do { indexFile = try Self.writeTemporaryFile(for: name + ".idx", pack.index, durable: true, mode: mode, operation: .writePack) }
        catch { unlink(packFile); throw error }
        do { try Self.renameTemporary(packFile, to: name + ".pack", operation: .writePack) } catch { unlink(indexFile); throw error }
        try Self.renameTemporary(indexFile, to: name + ".idx", operation: .writePack)
        let fd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw GitError.system(errno: errno, operation: .writePack) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw GitError.system(errno: errno, operation: .writePack) }
    }

    /// What a crash in `store` left in `folder`: a pack's index whose pack was renamed into place is put beside it
    /// (it was made durable first); every other temporary file of `store` is removed.
    static func finishInterruptedPacks(in folder: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix("pack-") && name.hasSuffix(temporarySuffix) {
            let target = String(name.dropLast(temporarySuffix.count))
            if target.hasSuffix(".idx"), names.contains(String(target.dropLast(4)) + ".pack"), !names.contains(target),
               Glibc.rename(folder + "/" + name, folder + "/" + target) == 0 { continue }
            unlink(folder + "/" + name)
        }
    }

    /// Stores a blob in the pack being built, without asking the object database whether it has it already
    /// (which rescans `.git/objects/pack` for every new object): an object both here and on disk is harmless.
    func writeBlobIntoOpenPack(_ backend: UnsafeMutablePointer<git_odb_backend>, _ bytes: [UInt8]) throws -> git_oid {
        var id = git_oid()
        try bytes.withUnsafeBytes { buffer in
            try check(git_odb_hash(&id, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB), .storeFile)
            try check(backend.pointee.write(backend, &id, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB), .storeFile)
        }
        return id
    }

    private func reopenObjectDatabase(_ repo: OpaquePointer) throws {
        let objects = String(cString: git_repository_path(repo)) + "objects"
        var fresh: OpaquePointer?
        try check(git_odb_open(&fresh, objects), .openObjectDatabase)
        defer { git_odb_free(fresh) }
        try check(git_repository_set_odb(repo, fresh), .openObjectDatabase)
    }
}

/// git's pack format, version 2, undeltified: "PACK", the version and the object count (32-bit big-endian),
/// then per object a header (type in bits 4–6 of the first byte, the size in 4 + 7n bits, high bit = more)
/// and its zlib-compressed content, and last the SHA-1 of everything before it. With it, the pack's index
/// (version 2): "\377tOc", the version, a fan-out table of 256 counts (objects whose id's first byte is at most
/// each value), the ids in order, the CRC-32 of each object's bytes in the pack, each object's offset (31 bits, or
/// the high bit and a position in a table of 64-bit offsets that follows), the pack's SHA-1 and the index's own.
struct PackFileWriter {
    struct Written {
        var bytes: [UInt8]
        var index: [UInt8]
        var checksum: [UInt8]
    }

    private var bytes: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    private var objects: [(id: git_oid, crc: UInt32, offset: UInt64)] = []
    /// Offsets from this one on go to the index's table of 64-bit offsets (git's rule: 2^31; lower in a test).
    private let largeOffsets: UInt64

    init(largeOffsetsFrom threshold: UInt64 = 0x8000_0000) { largeOffsets = min(threshold, 0x8000_0000) }

    /// One object as the pack holds it: its header and its zlib-compressed content; nil if zlib fails (out of
    /// memory) or the object is 2 GiB or more (more than one call of deflate can take).
    /// A delta (`type` `GIT_OBJECT_REF_DELTA`, `data` the delta) names its `base` by id after its header.
    static func entry(type: git_object_t, base: git_oid? = nil, data: UnsafeRawBufferPointer) -> [UInt8]? {
        var entry: [UInt8] = []
        var size = data.count
        var byte = UInt8(truncatingIfNeeded: type.rawValue) << 4 | UInt8(size & 0x0f)
        size >>= 4
        while size > 0 {
            entry.append(byte | 0x80)
            byte = UInt8(size & 0x7f)
            size >>= 7
        }
        entry.append(byte)
        if let base { withUnsafeBytes(of: base.id) { entry += $0 } }
        // zlib at Z_BEST_SPEED, with a window and hash table the object's size (compress2's default ones cost more to
        // set up than to compress an entry). A blob is coded without a search for repeated strings: a vault's blobs are
        // base64 text of ciphertext, where a repeat is chance, and Huffman coding alone makes them as small (a
        // vault's 1,003 blobs: 80.4% of their size, against 80.5% with the search, which was most of a rekey's zlib).
        var stream = z_stream()
        let strategy = type == GIT_OBJECT_BLOB ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY
        guard data.count < Int(uInt.max) / 2,
              tresor_deflate_init_object(&stream, Z_BEST_SPEED, uLong(data.count), strategy) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        let header = entry.count
        entry += repeatElement(0, count: bound)
        let status = entry.withUnsafeMutableBufferPointer { out in
            stream.next_in = UnsafeMutablePointer(mutating: data.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(data.count)
            stream.next_out = out.baseAddress! + header
            stream.avail_out = uInt(bound)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else { return nil }
        entry.removeLast(bound - Int(stream.total_out))
        return entry
    }

    /// The CRC-32 the index records for an entry.
    static func crc(of entry: [UInt8]) -> UInt32 {
        UInt32(entry.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, z_size_t($0.count)) })
    }

    /// The pack of `objects`, compressed on every core. With `checkingIDs`, each object is hashed as it is compressed
    /// and must hash to its id (objects read back from disk, for another repository); `GitError.libgit2` reading that
    /// object if not.
    /// `bases`: for an object (by its place in `objects`), an earlier object of the same type to store it as a delta
    /// against (`delta(from:to:)`), when that is worth it.
    static func pack(_ objects: [(id: git_oid, type: git_object_t, data: [UInt8])], bases: [Int: Int] = [:],
                     checkingIDs: Bool = false) throws -> Written {
        var entries = [(bytes: [UInt8], crc: UInt32, named: Bool)?](repeating: nil, count: objects.count)
        entries.withUnsafeMutableBufferPointer { out in
            let chunks = max(1, min(objects.count, ProcessInfo.processInfo.activeProcessorCount * 4))
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for i in stride(from: chunk, to: objects.count, by: chunks) {
                    let object = objects[i]
                    let named = !checkingIDs || Self.objectID(type: object.type, data: object.data).map { id in
                        withUnsafeBytes(of: object.id.id) { $0.elementsEqual(id) }
                    } == true
                    let entry: [UInt8]?
                    if let base = bases[i].map({ objects[$0] }), let delta = Self.delta(from: base.data, to: object.data) {
                        entry = delta.withUnsafeBytes { PackFileWriter.entry(type: GIT_OBJECT_REF_DELTA, base: base.id, data: $0) }
                    } else {
                        entry = object.data.withUnsafeBytes { PackFileWriter.entry(type: object.type, data: $0) }
                    }
                    out[i] = entry.map { ($0, PackFileWriter.crc(of: $0), named) }
                }
            }
        }
        var pack = PackFileWriter()
        for (object, entry) in zip(objects, entries) {
            guard let entry else { throw GitError.libgit2(code: Z_MEM_ERROR, message: nil, operation: .compressObject) }
            guard entry.named else {
                throw GitError.libgit2(code: -1, message: "the object's bytes do not hash to its id", operation: .readObject(id: object.id.hex))
            }
            pack.append(entry: entry.bytes, crc: entry.crc, id: object.id)
        }
        return try pack.finish()
    }

    /// git's delta of `target` against `base` (the two sizes as little-endian base-128 numbers, then instructions: copy a
    /// range of the base, or insert up to 127 bytes), as the bytes both share at their start and at their end copied and
    /// the rest inserted: a tree that gained, lost or changed a few entries is mostly kept. nil when the delta would not
    /// be under half of `target` (stored whole then, as git's heuristic also leaves such objects).
    static func delta(from base: [UInt8], to target: [UInt8]) -> [UInt8]? {
        let common = min(base.count, target.count)
        var prefix = 0
        while prefix < common, base[prefix] == target[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix, base[base.count - 1 - suffix] == target[target.count - 1 - suffix] { suffix += 1 }
        let inserted = target.count - prefix - suffix
        guard inserted + 64 < target.count / 2 else { return nil }
        var out: [UInt8] = []
        func number(_ value: Int) {
            var value = value
            while value >= 0x80 { out.append(UInt8(value & 0x7f) | 0x80); value >>= 7 }
            out.append(UInt8(value))
        }
        // Copies of at most 0xffff bytes each (a size of 0 would mean 0x10000): an instruction, then the offset's and
        // the size's non-zero bytes, low first, each flagged in the instruction.
        func copy(_ offset: Int, _ count: Int) {
            var offset = offset, left = count
            while left > 0 {
                let size = min(left, 0xffff)
                var op: UInt8 = 0x80, operands: [UInt8] = []
                for i in 0..<4 where (offset >> (8 * i)) & 0xff != 0 { op |= 1 << i; operands.append(UInt8((offset >> (8 * i)) & 0xff)) }
                for i in 0..<2 where (size >> (8 * i)) & 0xff != 0 { op |= 0x10 << i; operands.append(UInt8((size >> (8 * i)) & 0xff)) }
                out.append(op)
                out += operands
                offset += size
                left -= size
            }
        }
        number(base.count)
        number(target.count)
        copy(0, prefix)
        var at = prefix
        while at < prefix + inserted {
            let n = min(127, prefix + inserted - at)
            out.append(UInt8(n))
            out += target[at..<at + n]
            at += n
        }
        copy(base.count - suffix, suffix)
        return out
    }

    /// git's id of an object: the SHA-1 of its type's name, a space, its size in decimal, a zero byte and its content.
    static func objectID(type: git_object_t, data: [UInt8]) -> [UInt8]? {
        let name: String
        switch type {
        case GIT_OBJECT_COMMIT: name = "commit"
        case GIT_OBJECT_TREE: name = "tree"
        case GIT_OBJECT_BLOB: name = "blob"
        case GIT_OBJECT_TAG: name = "tag"
        default: return nil
        }
        let header = Array("\(name) \(data.count)".utf8) + [0]
        return header.withUnsafeBytes { h in data.withUnsafeBytes { d in try? sha1([h, d]) } }
    }

    /// git's id of the blob the regular file at `path` would be (`objectID`, OpenSSL's SHA-1), the file read whole;
    /// nil for a file larger than `limit` bytes.
    /// - Throws: `GitError.system` with `.hashFile`: a file that cannot be opened (a symbolic link: `ELOOP`) or read,
    ///   or whose size changes while it is read (`EAGAIN`).
    static func blobID(ofFile path: String, upTo limit: Int) throws -> git_oid? {
        func failure(_ code: Int32) -> GitError { .system(errno: code, operation: .hashFile(path: path)) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failure(errno) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw failure(EINVAL) }
        let size = Int(st.st_size)
        guard size <= limit else { return nil }
        // One byte more than the file should hold, to see it grow.
        var readError: Int32 = 0
        let content = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            var at = 0
            while at < buffer.count {
                let n = read(fd, buffer.baseAddress! + at, buffer.count - at)
                if n < 0 { if errno == EINTR { continue }; readError = errno; break }
                if n == 0 { break }
                at += n
            }
            initialized = at
        }
        guard readError == 0 else { throw failure(readError) }
        guard content.count == size else { throw failure(EAGAIN) }
        guard let digest = objectID(type: GIT_OBJECT_BLOB, data: content) else { throw failure(ENOMEM) }
        var id = git_oid()
        withUnsafeMutableBytes(of: &id.id) { $0.copyBytes(from: digest) }
        return id
    }

    mutating func append(entry: [UInt8], crc: UInt32, id: git_oid) {
        objects.append((id, crc, UInt64(bytes.count)))
        bytes += entry
    }

    func finish() throws -> Written {
        var out = bytes
        out.replaceSubrange(8..<12, with: Self.bigEndian(UInt32(objects.count)))
        let checksum = try Self.sha1(out[...])
        out += checksum
        let sorted = objects.sorted { a, b in withUnsafeBytes(of: a.id.id) { x in withUnsafeBytes(of: b.id.id) { y in
            memcmp(x.baseAddress!, y.baseAddress!, 20) < 0 } } }
        var index: [UInt8] = [0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]
        var fanout = [UInt32](repeating: 0, count: 256)
        for object in sorted { fanout[Int(object.id.id.0)] += 1 }
        var total: UInt32 = 0
        for i in 0..<256 { total += fanout[i]; index += Self.bigEndian(total) }
        for object in sorted { withUnsafeBytes(of: object.id.id) { index += $0 } }
        for object in sorted { index += Self.bigEndian(object.crc) }
        var large: [UInt64] = []
        for object in sorted {
            if object.offset < largeOffsets { index += Self.bigEndian(UInt32(object.offset)) }
            else { index += Self.bigEndian(0x8000_0000 | UInt32(large.count)); large.append(object.offset) }
        }
        for offset in large { index += Self.bigEndian(UInt32(offset >> 32)) + Self.bigEndian(UInt32(offset & 0xffff_ffff)) }
        index += checksum
        index += try Self.sha1(index[...])
        return Written(bytes: out, index: index, checksum: checksum)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    /// SHA-1 of `bytes` (a pack's or an index's checksum: integrity, not security).
    static func sha1(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha1(), nil) }
        guard ok == 1, length == 20 else { throw GitError.libgit2(code: -1, message: nil, operation: .writePack) }
        return Array(digest[..<20])
    }

    /// SHA-1 of the bytes `pieces` hold, one after another.
    static func sha1(_ pieces: [UnsafeRawBufferPointer]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw GitError.libgit2(code: -1, message: nil, operation: .writePack) }
        defer { EVP_MD_CTX_free(context) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestInit_ex(context, EVP_sha1(), nil) == 1,
              pieces.allSatisfy({ EVP_DigestUpdate(context, $0.baseAddress, $0.count) == 1 }),
              EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 20
        else { throw GitError.libgit2(code: -1, message: nil, operation: .writePack) }
        return Array(digest[..<20])
    }
}
