// Receiving from a repository on this machine (a clone, a sync) by reading its pack files through this repository's indexer.
internal import CGit2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension GitRepository {
    /// Fills this repository (a quarantine, `makeQuarantine`) with the objects of the repository on this machine at
    /// `url` (an absolute path or a `file://` URL) by reading each of its pack files through this repository's indexer,
    /// which names every object by its bytes as a fetch does (libgit2's local transport instead unpacks, compresses and
    /// packs again everything it sends), and points `destination` at that repository's `main`. A pack whose index
    /// lists only objects this repository (or the one it borrows from) has is not read: a sync reads only the packs
    /// pushed since. Nothing is checked here: an index that lies only leaves a hole, and `takeInObjects` requires the
    /// commit whole and takes in only what it reaches.
    /// Returns `.notLocal` when that repository is not one this can read so (not a path on this machine, as libgit2
    /// tells paths from ssh addresses; no `main`; objects outside its pack files), with nothing written here, and
    /// `.stopped` when a pack the indexer refuses or that went away meanwhile stopped the copy: the caller then fetches,
    /// into a fresh quarantine for `.stopped` (this one may hold some of the packs).
    /// - Throws: `GitError` when this repository cannot be written.
    package func copyPacks(ofLocalRepository url: String, into destination: String, progress: GitProgressHandler? = nil) throws -> LocalCopy {
        guard let objects = Self.packedObjectsFolder(url), let tip = Self.mainCommit(url) else { return .notLocal }
        let packs = FileSystemListing.names(in: objects + "/pack").filter { $0.hasPrefix("pack-") && $0.hasSuffix(".pack") }.sorted()
        var done = (objects: 0, bytes: 0)
        for pack in packs {
            if try holdsEveryObject(listedIn: objects + "/pack/" + pack.dropLast(".pack".count) + ".idx") { continue }
            guard let taken = try? takePack(objects + "/pack/" + pack, after: done, progress: progress) else { return .stopped }
            done = (done.objects + taken.objects, done.bytes + taken.bytes)
        }
        try setScratchRef(name: destination, to: tip)
        return .copied
    }

    /// What `copyPacks` did.
    package enum LocalCopy: Sendable { case copied, notLocal, stopped }

    /// The objects folder of the repository at `url` when it is on this machine and keeps every object in pack files
    /// (no loose object, no alternates), else nil.
    private static func packedObjectsFolder(_ url: String) -> String? {
        guard let path = localPath(url) else { return nil }
        for gitDir in [path + "/.git", path] {
            let objects = gitDir + "/objects"
            guard FileSystemListing.isDirectory(objects + "/pack"), FileSystemListing.isFile(gitDir + "/HEAD") else { continue }
            guard !FileSystemListing.exists(objects + "/info/alternates") else { return nil }
            for name in FileSystemListing.names(in: objects) where name.count == 2 && name.allSatisfy(\.isHexDigit) {
                guard FileSystemListing.names(in: objects + "/" + name).isEmpty else { return nil }
            }
            return objects
        }
        return nil
    }

    /// The path of `url` when libgit2 reads it as a path on this machine: `file:///…` without escapes, or an absolute
    /// path without `:` (libgit2 takes `a:b` for an ssh address wherever the colon is).
    private static func localPath(_ url: String) -> String? {
        if url.hasPrefix("file://") {
            let path = String(url.dropFirst("file://".count))
            return path.hasPrefix("/") && !path.contains("%") ? path : nil  // (a host, or an escaped name: libgit2's)
        }
        return url.hasPrefix("/") && !url.contains(":") ? url : nil
    }

    /// The commit the `main` of the repository at `url` names, read with libgit2 (as its local transport reads it).
    private static func mainCommit(_ url: String) -> String? {
        guard let path = localPath(url) else { return nil }
        Libgit2.ensureInitialized()
        var source: OpaquePointer?
        guard git_repository_open_ext(&source, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0 else { git_error_clear(); return nil }
        defer { git_repository_free(source) }
        var id = git_oid()
        guard git_reference_name_to_id(&id, source, mainBranch) == 0 else { git_error_clear(); return nil }
        return id.hex
    }

    /// Whether the pack index at `path` (git's version 2: magic, version, 256 counts, then the sorted ids) is readable
    /// and names only objects this repository's object database holds; false for anything else (the pack is read then).
    private func holdsEveryObject(listedIn path: String) throws -> Bool {
        let header = 8 + 256 * 4
        guard let bytes = Self.readRegularFile(path, limit: 1 << 30)?.bytes, bytes.count >= header else { return false }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard bytes[0..<8].elementsEqual([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]) else { return false }
        let count = word(8 + 255 * 4)
        guard count > 0, header + 20 * count <= bytes.count else { return false }
        return try withRepo { repo in
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, repo), .openObjectDatabase)
            defer { git_odb_free(odb) }
            var id = git_oid()
            for i in 0..<count {
                withUnsafeMutableBytes(of: &id.id) { $0.copyBytes(from: bytes[header + 20 * i..<header + 20 * (i + 1)]) }
                guard Self.has(odb, &id) else { return false }
            }
            return true
        }
    }

    /// Streams the pack file at `path` (a regular file: anything else is refused) through this repository's indexer (a
    /// pack of its own, with its index); returns how many objects and bytes it held. `progress` hears of the objects
    /// indexed, counted on from `earlier`.
    private func takePack(_ path: String, after earlier: (objects: Int, bytes: Int),
                          progress: GitProgressHandler?) throws -> (objects: Int, bytes: Int) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw GitError.system(errno: errno, operation: .takeInObjects(path: path)) }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw GitError.system(errno: EINVAL, operation: .takeInObjects(path: path)) }
        return try withRepo { repo in
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, repo), .openObjectDatabase)
            defer { git_odb_free(odb) }
            var writer: UnsafeMutablePointer<git_odb_writepack>?
            try check(git_odb_write_pack(&writer, odb, nil, nil), .writePack)
            defer { tresor_git_writepack_free(writer) }
            var stats = git_indexer_progress()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var bytes = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw GitError.system(errno: errno, operation: .takeInObjects(path: path)) }
                if n == 0 { break }
                bytes += n
                _ = try buffer.withUnsafeBytes { try check(tresor_git_writepack_append(writer, $0.baseAddress, n, &stats), .writePack) }
                progress?(GitTransferProgress(direction: .receiving, objects: earlier.objects + Int(stats.indexed_objects),
                                              totalObjects: earlier.objects + Int(stats.total_objects), bytes: earlier.bytes + bytes))
            }
            try check(tresor_git_writepack_commit(writer, &stats), .writePack)
            return (Int(stats.total_objects), bytes)
        }
    }
}

/// The few questions about a folder the local copy asks, without following its last link.
private enum FileSystemListing {
    static func names(in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    static func kind(_ path: String) -> mode_t? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    static func exists(_ path: String) -> Bool { kind(path) != nil }
    static func isDirectory(_ path: String) -> Bool { kind(path) == S_IFDIR }
    static func isFile(_ path: String) -> Bool { kind(path) == S_IFREG }
}
