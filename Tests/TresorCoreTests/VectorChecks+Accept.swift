// The test `accept` of Spec/AUTH.md §12, and the tip trees the state and accept vectors describe as flat file lists.
import Foundation
import Testing
@testable import TresorCore

/// A tip tree (Spec/AUTH.md §5 *inputs*) from a flat list of files, the way `Vault.tipTree` walks a commit: every
/// tree's entries in git's order, each folder's item before its content, folders of mode 40000 whose ids are the git
/// tree ids of their content (`DomainTree.treeID`).
enum FlatTree {
    struct File {
        var mode: UInt32
        var blob: String
        var size: Int
    }

    /// `files`: path → mode, blob id and size; `bytes`: the bytes of the files under `.tresor/` (by path).
    static func tip(_ files: [String: File], bytes: [String: [UInt8]]) throws -> TipTree {
        var children: [[String]: [String: File]] = [:]   // folder → file name → file
        var subfolders: [[String]: Set<String>] = [[]: []]
        for (path, file) in files {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let folder = Array(parts.dropLast())
            children[folder, default: [:]][parts.last!] = file
            for k in 0..<folder.count { subfolders[Array(folder.prefix(k)), default: []].insert(folder[k]) }
            if subfolders[folder] == nil { subfolders[folder] = [] }
        }
        var ids: [[String]: String] = [:]
        func entries(_ folder: [String]) throws -> [RawTreeEntry] {
            var out = (children[folder] ?? [:]).map { RawTreeEntry(name: Array($0.key.utf8), mode: $0.value.mode, id: $0.value.blob) }
            for name in subfolders[folder] ?? [] { out.append(RawTreeEntry(name: Array(name.utf8), mode: 0o40000, id: try id(folder + [name]))) }
            return out.sorted { DomainTree.gitOrder($0).lexicographicallyPrecedes(DomainTree.gitOrder($1)) }
        }
        func id(_ folder: [String]) throws -> String {
            if let known = ids[folder] { return known }
            let id = try DomainTree.treeID(try entries(folder))
            ids[folder] = id
            return id
        }
        var items: [TipTree.Item] = []
        func walk(_ folder: [String]) throws {
            for e in try entries(folder) {
                let name = String(decoding: e.name, as: UTF8.self)
                let size = e.mode == 0o40000 ? 0 : children[folder]?[name]?.size ?? 0
                items.append(TipTree.Item(folder: folder, name: e.name, mode: e.mode, id: e.id, size: size))
                if e.mode == 0o40000 { try walk(folder + [name]) }
            }
        }
        try walk([])
        var small: [String: [UInt8]] = [:]
        for (path, file) in files where file.mode == 0o100644 && TipTree.isSmallFile(path) { small[path] = bytes[path] }
        return TipTree(items: items, smallFiles: small)
    }

    /// The tip of a commit whose files are `tree` (path → contents), all of mode 100644.
    static func tip(contents tree: [String: [UInt8]]) throws -> TipTree {
        try tip(tree.mapValues { File(mode: 0o100644, blob: GitBlobID.of($0), size: $0.count) }, bytes: tree)
    }
}

extension FormatVectorTests {
    /// Spec/AUTH.md §5, §12: the acceptance rule on a tip, this replica's keys, trust record and HEAD.
    func accept(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let t = try #require(i["tip"]?.objectValue)
        let blobs = (t["blobs"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        var files: [String: FlatTree.File] = [:], contents: [String: [UInt8]] = [:]
        for (path, f) in t["files"]?.objectValue ?? [:] {
            let o = try #require(f.objectValue)
            guard let mode = UInt32(try str(o, "mode"), radix: 8) else { throw VectorError("bad mode of \(path)") }
            let blob = try str(o, "blob")
            files[path] = FlatTree.File(mode: mode, blob: blob, size: Int(try int(o, "size")))
            if let text = blobs[blob] { contents[path] = Array(text.utf8) }
        }
        let tip = try FlatTree.tip(files, bytes: contents)
        func epochKeys(_ member: String) throws -> [String: [EpochKey]] {
            var out: [String: [EpochKey]] = [:]
            for (domain, k) in i[member]?.objectValue ?? [:] {
                let o = try #require(k.objectValue)
                var keys = [EpochKey(epoch: try int(o, "epoch"), key: SecretBytes(copying: try bytes(o, "key")))]
                for (epoch, key) in o["previous"]?.objectValue ?? [:] {
                    keys.append(EpochKey(epoch: try #require(UInt64(epoch)), key: SecretBytes(copying: try bytes(["k": key], "k"))))
                }
                out[domain] = keys
            }
            return out
        }
        let trustInput = i["trust"]?.objectValue ?? [:]
        let trust = TrustRecord(
            published: (trustInput["published"]?.objectValue ?? [:]).compactMapValues(\.uint64Value),
            remote: try (trustInput["remote"]?.objectValue ?? [:]).mapValues { try clock($0) },
            scopesAccepted: trustInput["scopesAccepted"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) })
        let local = try (i["local"]?.objectValue ?? [:]).mapValues { v -> Acceptance.LocalDomain in
            let o = try #require(v.objectValue)
            return Acceptance.LocalDomain(epoch: try int(o, "epoch"), clock: try clock(o["clock"]))
        }
        let verdicts: [String: DomainVerdict]
        do {
            verdicts = try Acceptance.decide(tip: tip, vaultID: try str(i, "vault"), held: try epochKeys("keys"), opened: try epochKeys("opened"),
                                             trust: trust, local: local)
        } catch let refusal as AcceptanceRefusal {
            let want = try #require(e?["refused"]?.objectValue, "refused by \(refusal.rule.rawValue) (\(refusal.finding)), expected acceptance")
            #expect(refusal.rule.rawValue == want["rule"]?.stringValue, "\(refusal.finding)")
            #expect(refusal.domain == want["domain"]?.stringValue, "domain of the refusal")
            #expect(refusal.path == want["path"]?.stringValue, "path of the refusal")
            return
        }
        if let want = e?["refused"]?.objectValue { Issue.record("accepted, expected refusal \(want)"); return }
        let want = try #require(e?["accepted"]?.objectValue)
        #expect(Set(verdicts.keys) == Set(want.keys), "the domains of the verdict")
        for (domain, w) in want {
            let o = try #require(w.objectValue)
            guard let v = verdicts[domain] else { continue }
            #expect(v.verified == (o["verified"] == .bool(true)), "\(domain) verified")
            #expect(v.relation.rawValue == o["relation"]?.stringValue, "\(domain) relation")
            #expect(v.rolledBack == (o["rolledBack"] == .bool(true)), "\(domain) rolledBack")
            #expect(v.epoch == o["epoch"]?.uint64Value, "\(domain) epoch")
            #expect(v.olderEpoch == (o["olderEpoch"] == .bool(true)), "\(domain) olderEpoch")
            #expect(v.offered == (o["offered"] == .bool(true)), "\(domain) offered")
            // A verified domain names the key it verified under.
            #expect((v.key != nil) == v.verified, "\(domain) key")
        }
    }
}
