// Taking in what a quarantine received, once it passed: its pack files as they are, after checking that the commit
// is whole and that the quarantine holds nothing else.
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
    /// Takes in what the quarantine at `path` (made by `makeQuarantine`) received and wrote, and points `destination`
    /// at `commit`. First `commit` must be whole: every commit it reaches that this repository lacks, and every tree
    /// and blob they name, in the quarantine or here (else `GitError.libgit2` with `.readObject`/`.walkHistory`, and
    /// nothing changes). When every object the quarantine holds that this repository lacks is one of those, its pack
    /// files move in as they are, each `.pack` before its `.idx` (an index never names a pack that is not there), then
    /// its loose objects, and every folder that changed is made durable before the ref moves: a crash in between
    /// leaves objects nothing names, never a ref to a missing one (git's receive-pack takes its quarantine in the same
    /// way). When it holds anything more (a remote may send objects nothing reaches), only what `commit` reaches is
    /// fetched from it instead, and the rest goes with the quarantine. The quarantine is meant to be removed next.
    /// - Throws: also `GitError.system` (with `.takeInObjects`) if a file cannot be moved; the errors of `setRef`.
    package func takeInObjects(ofQuarantineAt path: String, commit: String, into destination: String, remoteName: String) throws {
        let quarantine = try Self.openBare(at: path)
        let reached = try newObjects(reachedFrom: commit, in: quarantine)
        if try quarantine.holdsOnly(reached, beside: self, objects: path + "/objects") {
            try moveObjects(from: path)
        } else {
            try quarantine.setRef(name: Self.takeInRef, to: commit)
            try fetch(url: path, ref: Self.takeInRef, into: destination, credentials: .none, remoteName: remoteName)
        }
        try setRef(name: destination, to: commit)
    }

    private static let takeInRef = "refs/tresor/take-in"

    /// The ids of the objects `commit` reaches (commits, trees, blobs) that this repository lacks, each checked to be in
    /// `quarantine` (which reads this repository's objects too). The walk stops at what this repository has.
    func newObjects(reachedFrom commit: String, in quarantine: GitRepository) throws -> Set<String> {
        try withRepo { repo in
            var here: OpaquePointer?
            try check(git_repository_odb(&here, repo), .openObjectDatabase)
            defer { git_odb_free(here) }
            return try quarantine.withRepo { q in
                var hidden: [git_oid] = []
                for seen in try quarantine.references(matching: "refs/tresor/have*") { hidden.append(try Self.oid(seen.commit)) }
                return try Self.objects(reachedFrom: commit, in: q, skipping: here, hiding: hidden)
            }
        }
    }

    /// The ids of the objects `commit` reaches in `repo` (commits, trees, blobs), each checked to be in `repo`'s object
    /// database (else `GitError.libgit2` with `.readObject`); the walk skips what the object database `known` holds (none
    /// when nil), with the history of each commit it holds, and the commits in `hidden` that it holds.
    static func objects(reachedFrom commit: String, in repo: OpaquePointer, skipping known: OpaquePointer?,
                        hiding hidden: [git_oid] = []) throws -> Set<String> {
        var there: OpaquePointer?
        try check(git_repository_odb(&there, repo), .openObjectDatabase)
        defer { git_odb_free(there) }
        // Each look-up that misses would read the folders of packs again (libgit2 refreshes on a miss); the walk looks
        // up every new object, so the two databases are refreshed once, here.
        if let known { try check(git_odb_refresh(known), .openObjectDatabase) }
        try check(git_odb_refresh(there), .openObjectDatabase)
        var reached = Set<String>()
        func isNew(_ id: UnsafePointer<git_oid>) -> Bool { !(known.map { has($0, id) } ?? false) && !reached.contains(id.pointee.hex) }
        func addTree(_ id: UnsafePointer<git_oid>) throws {
            guard isNew(id) else { return }
            var tree: OpaquePointer?
            try check(git_tree_lookup(&tree, repo, id), .readObject(id: id.pointee.hex))
            defer { git_tree_free(tree) }
            reached.insert(id.pointee.hex)
            for i in 0..<git_tree_entrycount(tree) {
                guard let entry = git_tree_entry_byindex(tree, i), let child = git_tree_entry_id(entry) else { continue }
                switch git_tree_entry_type(entry) {
                case GIT_OBJECT_TREE: try addTree(child)
                case GIT_OBJECT_BLOB:
                    guard isNew(child) else { continue }
                    guard has(there, child) else {
                        throw GitError.libgit2(code: GIT_ENOTFOUND.code, message: "object not found", operation: .readObject(id: child.pointee.hex))
                    }
                    reached.insert(child.pointee.hex)
                default: continue  // (a submodule's commit is not part of this repository)
                }
            }
        }
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, repo), .walkHistory(from: commit))
        defer { git_revwalk_free(walk) }
        var tip = try oid(commit)
        try check(git_revwalk_push(walk, &tip), .walkHistory(from: commit))
        if let known {
            for var id in hidden where has(known, &id) { try check(git_revwalk_hide(walk, &id), .walkHistory(from: commit)) }
            // A commit `known` holds is hidden with its history (it is whole there), whichever ref named it.
            try check(git_revwalk_add_hide_cb(walk, { id, payload in
                guard let id, let payload else { return 0 }
                return GitRepository.has(OpaquePointer(payload), id) ? 1 : 0
            }, UnsafeMutableRawPointer(known)), .walkHistory(from: commit))
        }
        var id = git_oid()
        while true {
            let code = git_revwalk_next(&id, walk)
            if code == GIT_ITEROVER.code { git_error_clear(); break }
            try check(code, .walkHistory(from: commit))
            guard isNew(&id) else { continue }
            var c: OpaquePointer?
            try check(git_commit_lookup(&c, repo, &id), .readObject(id: id.hex))
            defer { git_commit_free(c) }
            reached.insert(id.hex)
            try addTree(git_commit_tree_id(c))
        }
        return reached
    }

    /// Whether every object in the folder `objects` (this quarantine's own, not those it borrows) is in `reached` or
    /// in `repository` already.
    private func holdsOnly(_ reached: Set<String>, beside repository: GitRepository, objects: String) throws -> Bool {
        var own: OpaquePointer?
        try check(git_odb_new(&own), .openObjectDatabase)
        defer { git_odb_free(own) }
        var packs: UnsafeMutablePointer<git_odb_backend>?, loose: UnsafeMutablePointer<git_odb_backend>?
        try check(git_odb_backend_pack(&packs, objects), .openObjectDatabase)
        if git_odb_add_backend(own, packs, 2) < 0 { packs?.pointee.free(packs); try check(-1, .openObjectDatabase) }
        try check(git_odb_backend_loose(&loose, objects, -1, 0, 0, 0), .openObjectDatabase)
        if git_odb_add_backend(own, loose, 1) < 0 { loose?.pointee.free(loose); try check(-1, .openObjectDatabase) }
        return try repository.withRepo { repo in
            var here: OpaquePointer?
            try check(git_repository_odb(&here, repo), .openObjectDatabase)
            defer { git_odb_free(here) }
            final class Scan { let reached: Set<String>, here: OpaquePointer?; var extra = false
                init(_ r: Set<String>, _ h: OpaquePointer?) { reached = r; here = h } }
            try check(git_odb_refresh(here), .openObjectDatabase)
            let scan = Scan(reached, here)
            let code = withExtendedLifetime(scan) {
                git_odb_foreach(own, { id, payload in
                    let scan = Unmanaged<Scan>.fromOpaque(payload!).takeUnretainedValue()
                    guard let id, !scan.reached.contains(id.pointee.hex), !GitRepository.has(scan.here, id) else { return 0 }
                    scan.extra = true
                    return 1  // (one is enough)
                }, Unmanaged.passUnretained(scan).toOpaque())
            }
            if code < 0 { try check(code, .openObjectDatabase) }
            if code > 0 { git_error_clear() }
            return !scan.extra
        }
    }

    /// Whether `odb` holds `id`, as its packs were at its last refresh (no refresh on a miss).
    static func has(_ odb: OpaquePointer?, _ id: UnsafePointer<git_oid>) -> Bool {
        git_odb_exists_ext(odb, id, GIT_ODB_LOOKUP_NO_REFRESH.rawValue) == 1
    }

    /// Moves the quarantine's pack files and loose objects into this repository's `objects` folder (see `takeInObjects`).
    private func moveObjects(from path: String) throws {
        let objects = withRepo { String(cString: git_repository_path($0)) } + "objects"
        let source = path + "/objects"
        func fail(_ code: Int32) -> GitError { .system(errno: code, operation: .takeInObjects(path: path)) }
        func move(_ from: String, _ to: String) throws {
            guard rename(from, to) == 0 else { throw fail(errno) }
        }
        func makeDurable(_ directory: String) throws {
            let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw fail(errno) }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw fail(errno) }
        }
        func isHex(_ name: String, _ count: Int) -> Bool {
            name.utf8.count == count && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        }
        let packs = (try? FileManager.default.contentsOfDirectory(atPath: source + "/pack")) ?? []
        let order: (String) -> Int = { $0.hasSuffix(".pack") ? 0 : $0.hasSuffix(".idx") ? 2 : 1 }
        // (An indexer's temporary files, `pack_git2_…` and `….lock`, are neither: they stay.)
        let moving = packs.filter { $0.hasPrefix("pack-") && ($0.hasSuffix(".pack") || $0.hasSuffix(".idx") || $0.hasSuffix(".rev")) }
        for name in moving.sorted(by: { (order($0), $0) < (order($1), $1) }) {
            try move(source + "/pack/" + name, objects + "/pack/" + name)
        }
        if !moving.isEmpty { try makeDurable(objects + "/pack") }
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []).filter { isHex($0, 2) }
        var madeFolder = false
        for folder in folders.sorted() {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: source + "/" + folder)) ?? []).filter { isHex($0, 38) }
            guard !names.isEmpty else { continue }
            if mkdir(objects + "/" + folder, 0o755) == 0 { madeFolder = true } else if errno != EEXIST { throw fail(errno) }
            for name in names { try move(source + "/" + folder + "/" + name, objects + "/" + folder + "/" + name) }
            try makeDurable(objects + "/" + folder)
        }
        if madeFolder { try makeDurable(objects) }
        try withRepo { repo in
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, repo), .openObjectDatabase)
            defer { git_odb_free(odb) }
            try check(git_odb_refresh(odb), .openObjectDatabase)
        }
    }
}
