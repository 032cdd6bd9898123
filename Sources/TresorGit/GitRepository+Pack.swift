// Writing the objects of a large change as one pack file instead of one loose file each.
internal import CGit2
internal import CGzip
internal import CCrypto
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
            openPack = backend
            packedCommits = []
            defer { openPack = nil; packedCommits = [] }
            let result = try body()
            guard let backend, !packedCommits.isEmpty else { return result }
            let pack = try packNewObjects(repo, odb, backend, roots: packedCommits)
            var writer: UnsafeMutablePointer<git_odb_writepack>?
            try check(git_odb_write_pack(&writer, odb, nil, nil), .writePack)
            defer { tresor_git_writepack_free(writer) }
            var stats = git_indexer_progress()
            _ = try pack.withUnsafeBytes { bytes in
                try check(tresor_git_writepack_append(writer, bytes.baseAddress, bytes.count, &stats), .writePack)
            }
            try check(tresor_git_writepack_commit(writer, &stats), .writePack)
            return result
        }
    }

    /// A pack (version 2, no deltas: entry files are ciphertext) of the objects in `backend` that `roots`
    /// reach: a tree or blob not in `backend` is on disk already, and so is everything below it.
    private func packNewObjects(_ repo: OpaquePointer, _ odb: OpaquePointer?, _ backend: UnsafeMutablePointer<git_odb_backend>,
                                roots: [git_oid]) throws -> [UInt8] {
        var pack = PackFileWriter()
        var seen = Set<String>()
        func isNew(_ id: UnsafePointer<git_oid>) -> Bool {
            backend.pointee.exists(backend, id) == 1 && seen.insert(id.pointee.hex).inserted
        }
        func add(_ id: UnsafePointer<git_oid>) throws {
            var object: OpaquePointer?
            try check(git_odb_read(&object, odb, id), .readObject(id: id.pointee.hex))
            defer { git_odb_object_free(object) }
            try pack.append(type: git_odb_object_type(object), data: UnsafeRawBufferPointer(
                start: git_odb_object_data(object), count: git_odb_object_size(object)))
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
        return try pack.finish()
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
/// and its zlib-compressed content, and last the SHA-1 of everything before it.
struct PackFileWriter {
    private var bytes: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    private var count: UInt32 = 0

    mutating func append(type: git_object_t, data: UnsafeRawBufferPointer) throws {
        var size = data.count
        var byte = UInt8(truncatingIfNeeded: type.rawValue) << 4 | UInt8(size & 0x0f)
        size >>= 4
        while size > 0 {
            bytes.append(byte | 0x80)
            byte = UInt8(size & 0x7f)
            size >>= 7
        }
        bytes.append(byte)
        var length = compressBound(uLong(data.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        let status = compressed.withUnsafeMutableBufferPointer { out in
            compress2(out.baseAddress, &length, data.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), Z_BEST_SPEED)
        }
        guard status == Z_OK else { throw GitError.libgit2(code: status, message: nil, operation: .compressObject) }
        bytes += compressed[..<Int(length)]
        count += 1
    }

    func finish() throws -> [UInt8] {
        var out = bytes
        out[8] = UInt8(count >> 24); out[9] = UInt8((count >> 16) & 0xff); out[10] = UInt8((count >> 8) & 0xff); out[11] = UInt8(count & 0xff)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = out.withUnsafeBufferPointer { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha1(), nil) }
        guard ok == 1, length == 20 else { throw GitError.libgit2(code: -1, message: nil, operation: .writePack) }
        return out + digest[..<20]
    }
}
