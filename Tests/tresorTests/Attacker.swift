// Someone who can write the bare repository with git plumbing but has no vault key: raw trees, blobs, commits.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

/// One tree entry as git stores it.
struct RawEntry {
    var mode: String
    var name: [UInt8]
    var id: String

    init(_ mode: String, _ name: String, _ id: String) { self.mode = mode; self.name = Array(name.utf8); self.id = id }
    init(mode: String, name: [UInt8], id: String) { self.mode = mode; self.name = name; self.id = id }
}

/// Writes objects straight into a bare repository with `git hash-object --literally`, `git commit-tree` and
/// `git update-ref`, as an attacker on the git host can; nothing checks what it writes.
struct Attacker {
    let bare: String
    let scratch: String
    let test: CLITestCase

    @discardableResult
    func git(_ args: [String], input: String? = nil) throws -> String {
        let r = try test.run("/usr/bin/git", ["-C", bare] + args, stdin: input,
                             extraEnv: ["GIT_AUTHOR_NAME": "mallory", "GIT_AUTHOR_EMAIL": "m@evil", "GIT_COMMITTER_NAME": "mallory",
                                        "GIT_COMMITTER_EMAIL": "m@evil"])
        guard r.code == 0 else { throw NSError(domain: "git", code: Int(r.code), userInfo: [NSLocalizedDescriptionKey: "git \(args): \(r.stderr)"]) }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var tip: String { get throws { try git(["rev-parse", "refs/heads/main"]) } }
    func tree(of commit: String) throws -> String { try git(["rev-parse", commit + "^{tree}"]) }

    /// The entries of `tree`, names as raw bytes (`git ls-tree -z`).
    func entries(_ tree: String) throws -> [RawEntry] {
        let r = try test.run("/usr/bin/git", ["-C", bare, "ls-tree", "-z", tree], stdin: nil, extraEnv: [:])
        return r.stdout.split(separator: "\0").map { line in
            let tab = line.firstIndex(of: "\t")!
            let meta = line[..<tab].split(separator: " ")
            // ls-tree prints a folder's mode as 040000; the tree object holds 40000 (git fsck: zeroPaddedFilemode).
            let mode = meta[0] == "040000" ? "40000" : String(meta[0])
            return RawEntry(mode: mode, name: Array(line[line.index(after: tab)...].utf8), id: String(meta[2]))
        }
    }

    /// A tree object made of exactly these entries, in this order (git's own checks are bypassed).
    func rawTree(_ entries: [RawEntry]) throws -> String {
        var bytes: [UInt8] = []
        for e in entries {
            bytes += Array(e.mode.utf8) + [0x20] + e.name + [0]
            var hex = Array(e.id.utf8)
            while !hex.isEmpty { bytes.append(UInt8(String(decoding: hex.prefix(2), as: UTF8.self), radix: 16)!); hex.removeFirst(2) }
        }
        let file = scratch + "/tree-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return try git(["hash-object", "-t", "tree", "-w", "--literally", file])
    }

    /// `depth` trees each holding only the next one under the name `name`, around `innermost`: the ids are
    /// computed here (git's object id is the SHA-1 of "tree SIZE\0" and the content) and every object is
    /// written by one `git hash-object --stdin-paths`, not one git process per level.
    func nestedTrees(depth: Int, name: String, around innermost: String) throws -> String {
        var id = innermost
        var paths: [String] = []
        let folder = scratch + "/nested-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for level in 0..<depth {
            var bytes = Array("40000 \(name)".utf8) + [0]
            var hex = Array(id.utf8)
            while !hex.isEmpty { bytes.append(UInt8(String(decoding: hex.prefix(2), as: UTF8.self), radix: 16)!); hex.removeFirst(2) }
            let file = folder + "/\(level)"
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            paths.append(file)
            let object = Array("tree \(bytes.count)".utf8) + [0] + bytes
            id = object.withUnsafeBytes { LibCrypto.digest(.sha1, $0) }.map { String(format: "%02x", $0) }.joined()
        }
        let written = try git(["hash-object", "-t", "tree", "-w", "--literally", "--stdin-paths"], input: paths.joined(separator: "\n") + "\n")
        guard written.split(separator: "\n").last.map(String.init) == id else { throw NSError(domain: "nestedTrees", code: 1) }
        return id
    }

    func blob(_ bytes: [UInt8]) throws -> String {
        let file = scratch + "/blob-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return try git(["hash-object", "-w", file])
    }

    func blob(at path: String, in commit: String) throws -> String { try git(["rev-parse", "\(commit):\(path)"]) }
    func bytes(ofBlob id: String) throws -> [UInt8] { Array(try test.run("/usr/bin/git", ["-C", bare, "cat-file", "blob", id], stdin: nil, extraEnv: [:]).stdout.utf8) }

    /// `tree` with the entry at `path` (components, names as strings) replaced by `entry`, or removed.
    func editing(_ tree: String, _ path: [String], _ entry: RawEntry?) throws -> String {
        var list = try entries(tree)
        let name = Array(path[0].utf8)
        if path.count == 1 {
            list.removeAll { $0.name == name }
            if var e = entry { e.name = name; list.append(e) }
        } else {
            let sub = list.first { $0.name == name && $0.mode == "40000" }
            let newSub = try editing(sub?.id ?? emptyTree(), Array(path.dropFirst()), entry)
            list.removeAll { $0.name == name }
            list.append(RawEntry(mode: "40000", name: name, id: newSub))
        }
        return try rawTree(sorted(list))
    }

    func emptyTree() throws -> String { try rawTree([]) }

    /// git's tree order: bytes, a folder compared as if its name ended in "/".
    func sorted(_ list: [RawEntry]) -> [RawEntry] {
        list.sorted { a, b in
            (a.name + (a.mode == "40000" ? [0x2F] : [])).lexicographicallyPrecedes(b.name + (b.mode == "40000" ? [0x2F] : []))
        }
    }

    /// A commit of `tree` on top of `parents` (its id, parents and message decide nothing: Spec/AUTH.md §2).
    func commit(_ tree: String, parents: [String], message: String = "update") throws -> String {
        try git(["commit-tree", tree] + parents.flatMap { ["-p", $0] } + ["-m", message])
    }

    func push(_ commit: String) throws { try git(["update-ref", "refs/heads/main", commit]) }
}

extension Attacker {
    /// Every file of commit `rev`: path → blob id (`git ls-tree -r`).
    func files(_ rev: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for line in try git(["ls-tree", "-r", "--full-tree", rev]).split(separator: "\n") {
            let tab = line.firstIndex(of: "\t")!
            out[String(line[line.index(after: tab)...])] = String(line[..<tab].split(separator: " ")[2])
        }
        return out
    }

    /// A tree holding exactly `files` (path → blob id, every file mode 100644), built with git's own index plumbing.
    func tree(files: [String: String]) throws -> String {
        let index = scratch + "/index-" + UUID().uuidString
        let input = files.map { "100644 \($0.value)\t\($0.key)" }.joined(separator: "\n") + "\n"
        let env = ["GIT_INDEX_FILE": index]
        let r1 = try test.run("/usr/bin/git", ["-C", bare, "update-index", "--add", "--index-info"], stdin: input, extraEnv: env)
        guard r1.code == 0 else { throw NSError(domain: "git", code: 1, userInfo: [NSLocalizedDescriptionKey: r1.stderr]) }
        let r2 = try test.run("/usr/bin/git", ["-C", bare, "write-tree"], stdin: nil, extraEnv: env)
        return r2.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `files` with the state record of every domain whose key is in `keys` (domain → key) written again: a clock one
    /// event further (a replica of the forger's), the id of the domain's tree, a tag under that key. What a holder of
    /// those keys (a faulty replica, or a removed member with an old key) can publish.
    func retagged(_ files: [String: String], keys: [String: SecretBytes]) throws -> [String: String] {
        var out = files
        let header = try VaultHeader.parse(try bytes(ofBlob: try XCTUnwrap(files[VaultHeader.relativePath])))
        let source = FileMapTree(files.filter { StateRecord.domain(ofPath: $0.key) == nil })
        for (domain, key) in keys {
            let path = StateRecord.relativePath(domain: domain)
            let old = try files[path].map { try StateRecord.parse(try bytes(ofBlob: $0)) }
            var clock = old?.clock ?? .empty
            clock.advance(to: Dot(replica: "f0f0f0f0f0f0f0f0", counter: clock["f0f0f0f0f0f0f0f0"] + 1))
            let epoch = domain == Domain.vault ? header.epoch
                : try ScopeHeader.parse(try bytes(ofBlob: try XCTUnwrap(files[ScopeHeader.relativePath(scopeID: domain)]))).epoch
            let record = StateRecord(vaultID: header.vaultID, domain: domain, epoch: epoch, clock: clock,
                                     tree: try DomainTree.id(domain: domain, scopes: header.scopes, source: source))
            out[path] = try blob(try record.authenticated(by: try VaultAuthenticator(vaultKey: key)).serialized())
        }
        return out
    }
}

extension Attacker {
    /// A commit of exactly `files` on top of `parents` (the tip by default), made the remote's `main`.
    @discardableResult
    func push(files: [String: String], parents: [String]? = nil, message: String = "update") throws -> String {
        let commit = try commit(try tree(files: files), parents: try parents ?? [try tip], message: message)
        try push(commit)
        return commit
    }
}
