// Cloning a repository on this machine by reading its pack files through this repository's indexer.
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
    /// Takes the objects of the repository on this machine at `url` (an absolute path or a `file://` URL) by reading each
    /// of its pack files through this repository's indexer, which names every object by its bytes as a fetch does
    /// (libgit2's local transport instead unpacks, compresses and packs again everything it sends), and points
    /// `destination` at that repository's `main` once every commit, tree and blob it reaches is here.
    /// Returns false, having set no ref, when that repository is not one this can take whole: not a path on this
    /// machine, no `main`, objects outside its pack files (loose, or borrowed through alternates), or a pack this
    /// indexer refuses or a `main` its packs do not hold whole. `fetch` then does the work; packs taken stay, as
    /// objects nothing names yet.
    /// - Throws: `GitError` when this repository cannot be written.
    package func copyObjects(ofLocalRepository url: String, into destination: String, progress: GitProgressHandler? = nil) throws -> Bool {
        guard let objects = Self.packedObjectsFolder(url), let tip = Self.mainCommit(url) else { return false }
        let packs = FileSystemListing.names(in: objects + "/pack").filter { $0.hasPrefix("pack-") && $0.hasSuffix(".pack") }.sorted()
        var done = 0
        for pack in packs {
            guard let count = try? takePack(objects + "/pack/" + pack, after: done, progress: progress) else { return false }
            done += count
        }
        let whole = withRepo { repo -> Bool in (try? Self.objects(reachedFrom: tip, in: repo, skipping: nil)) != nil }
        guard whole else { return false }
        try setRef(name: destination, to: tip)
        return true
    }

    /// The objects folder of the repository at `url` when it is on this machine and keeps every object in pack files
    /// (no loose object, no alternates), else nil.
    private static func packedObjectsFolder(_ url: String) -> String? {
        let path: String
        if url.hasPrefix("file://") {
            path = String(url.dropFirst("file://".count))
            guard path.hasPrefix("/"), !path.contains("%") else { return nil }  // (a host, or an escaped name: libgit2's)
        } else {
            guard url.hasPrefix("/") else { return nil }
            path = url
        }
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

    /// The commit the `main` of the repository at `url` names, read with libgit2 (as its local transport reads it).
    private static func mainCommit(_ url: String) -> String? {
        Libgit2.ensureInitialized()
        var source: OpaquePointer?
        let path = url.hasPrefix("file://") ? String(url.dropFirst("file://".count)) : url
        guard git_repository_open_ext(&source, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0 else { git_error_clear(); return nil }
        defer { git_repository_free(source) }
        var id = git_oid()
        guard git_reference_name_to_id(&id, source, mainBranch) == 0 else { git_error_clear(); return nil }
        return id.hex
    }

    /// Streams the pack file at `path` through this repository's indexer (a pack of its own, with its index); returns how
    /// many objects it held. `progress` hears of the objects indexed, counted on from `earlier`.
    private func takePack(_ path: String, after earlier: Int, progress: GitProgressHandler?) throws -> Int {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GitError.system(errno: errno, operation: .takeInObjects(path: path)) }
        defer { Glibc.close(fd) }
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
                progress?(GitTransferProgress(direction: .receiving, objects: earlier + Int(stats.indexed_objects),
                                              totalObjects: earlier + Int(stats.total_objects), bytes: bytes))
            }
            try check(tresor_git_writepack_commit(writer, &stats), .writePack)
            return Int(stats.total_objects)
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
