// The in-process merge of two diverged vault histories: entries by id, field by field, into one merge commit.
import Foundation
import TresorCore
import TresorGit

/// In a merge across a rekey, the side whose header is under the new key, and the key before it.
enum RekeyedSide: Equatable {
    case ours(previousKey: SecretBytes)
    case theirs(previousKey: SecretBytes)

    var previousKey: SecretBytes {
        switch self { case .ours(let k), .theirs(let k): return k }
    }

    static func == (a: RekeyedSide, b: RekeyedSide) -> Bool {
        switch (a, b) {
        case (.ours(let x), .ours(let y)), (.theirs(let x), .theirs(let y)): return x.constantTimeEquals(y)
        default: return false
        }
    }
}

extension Vault {
    struct MergeOutput {
        /// The merge commit (written, not yet on the branch).
        var commit: String
        var changed: [String]
        var resolutions: [MergeResolution]
    }

    /// Merges `theirs` into `ours` (HEAD) with the real merge base, writes every decided entry into the
    /// merged tree, verifies each written entry decrypts to what was decided, and writes a commit with two
    /// parents (the caller moves the branch).
    /// Across a rekey (`rekey` names the side that rekeyed and the key before; `cipher` is the new one, which
    /// the vault uses), every entry is written under the new key, the old side's included, and the header by
    /// `VaultMerge.mergeAcrossRekey`.
    func mergeDiverged(repo: GitRepository, cipher: EntryCipher, base: String?, ours: String, theirs: String,
                       snapshots: (VaultSnapshot?, VaultSnapshot, VaultSnapshot), remote: String,
                       rekey: RekeyedSide? = nil, baseKey: SecretBytes? = nil) throws -> MergeOutput {
        let (b, o, t) = snapshots
        let baseCipher = try baseKey.map { try EntryCipher(vaultKey: $0) }
        let historyCipher = try rekey.map { r in
            var previous = try baseCipher.map { try EntryCipher(vaultKey: r.previousKey, previous: $0) } ?? EntryCipher(vaultKey: r.previousKey)
            for key in historyKeys { previous = try EntryCipher(vaultKey: key, previous: previous) }
            return try EntryCipher(vaultKey: try currentVaultKey(), previous: previous)
        } ?? historyKeys.reduce(cipher) { chain, key in (try? EntryCipher(vaultKey: key, previous: chain)) ?? chain }
        // Ciphertext of the side still on the old key is never reused.
        let reuseOurs: Bool, reuseTheirs: Bool
        switch rekey {
        case .theirs: (reuseOurs, reuseTheirs) = (false, true)
        case .ours: (reuseOurs, reuseTheirs) = (true, false)
        case nil: (reuseOurs, reuseTheirs) = (true, true)
        }
        let result = try Vault.git { try repo.mergeTrees(base: base, ours: ours, theirs: theirs) }
        // An entry deleted on one side but changed on the other survives; it is merged with the deleting
        // side's versions from before the deletion, so nothing that side wrote is lost (§3.2.1).
        let baseList = b?.entryList ?? []
        let deletedOurs = try deletedVersions(repo: repo, cipher: historyCipher, base: base, baseEntries: baseList,
                                              side: o.entryList, sideTip: ours, other: t.entryList)
        let deletedTheirs = try deletedVersions(repo: repo, cipher: historyCipher, base: base, baseEntries: baseList,
                                                side: t.entryList, sideTip: theirs, other: o.entryList)
        let (entries, entryResolutions) = VaultMerge.merge(base: baseList, ours: o.entryList, theirs: t.entryList,
                                                           deletedVersions: (deletedOurs, deletedTheirs))
        var resolutions = entryResolutions
        // Spec/MERGE.md §8 order: by entry id (stable within one id), path collisions last.
        resolutions = resolutions.enumerated().sorted { a, b in
            let ca = Vault.isCollision(a.element.kind), cb = Vault.isCollision(b.element.kind)
            if ca != cb { return !ca }
            if !ca, a.element.entryID != b.element.entryID { return a.element.entryID.utf8.lexicographicallyPrecedes(b.element.entryID.utf8) }
            return a.offset < b.offset
        }.map(\.element)
        var changed: [String] = []

        func choose(_ path: String, _ bytes: [UInt8]) throws {
            let conflicted = result.conflicts.contains { $0.path == path }
            if try conflicted || Vault.git({ try result.contents(at: path) }) != bytes {
                try Vault.git { try result.write(bytes, at: path) }
            }
        }

        // The header: key slots merge by slot id (Spec/MERGE.md §10).
        if let oh = o.header, let th = t.header {
            let merged: VaultHeader
            do {
                let r: (VaultHeader, [MergeResolution])
                switch rekey {
                case nil: r = try VaultMerge.mergeHeaders(base: b?.header, ours: oh, theirs: th)
                case .theirs: r = try VaultMerge.mergeAcrossRekey(base: b?.header, ours: oh, theirs: th, newKey: try currentVaultKey())
                case .ours: r = try VaultMerge.mergeAcrossRekey(base: b?.header, ours: th, theirs: oh, newKey: try currentVaultKey())
                }
                merged = r.0
                resolutions += r.1
            } catch let e as CoreError { throw VaultError.header(e) }
            let bytes: [UInt8]
            if merged == oh, let id = o.headerBlob { bytes = try Vault.git { try repo.blob(id: id) } }
            else if merged == th, let id = t.headerBlob { bytes = try Vault.git { try repo.blob(id: id) } }
            else {
                do { bytes = try requireAuthenticator().authenticated(merged).serialized() }
                catch let e as CoreError { throw VaultError.header(e) }
            }
            try choose(VaultHeader.relativePath, bytes)
        }

        // Entries: remove every entry file the merge did not keep, then write each kept entry,
        // reusing a side's ciphertext when the entry is exactly that side's.
        var final: [String: Entry] = [:]
        for e in entries { final[e.path.filePath] = e }
        let present = Set(try Vault.git { try result.paths() }).union(result.conflicts.map(\.path))
        for path in present.sorted() where EntryPath(filePath: path) != nil && final[path] == nil {
            try Vault.git { try result.remove(path) }
            if o.entries[path] != nil { changed.append(path) }
        }
        var written: [String] = []
        for (path, entry) in final.sorted(by: { $0.key < $1.key }) {
            let bytes: [UInt8]
            if reuseOurs, let mine = o.entries[path], mine.entry == entry { bytes = try Vault.git { try repo.blob(id: mine.blob) } }
            else if reuseTheirs, let other = t.entries[path], other.entry == entry { bytes = try Vault.git { try repo.blob(id: other.blob) } }
            else { bytes = try cipher.seal(entry) }
            try choose(path, bytes)
            if o.entries[path]?.entry != entry { changed.append(path) }
            if o.entries[path]?.entry != entry || rekey != nil { written.append(path) }
        }

        // Files that are not entries (.gitattributes, stray files): keep ours, else theirs.
        for conflict in result.conflicts {
            if let mine = conflict.ours { try Vault.git { try result.write(mine.contents, at: conflict.path) } }
            else if let other = conflict.theirs { try Vault.git { try result.write(other.contents, at: conflict.path) } }
            else { try Vault.git { try result.remove(conflict.path) } }
        }

        // Every entry the merge wrote must decrypt, at its path, to exactly what was decided.
        for path in written {
            guard let bytes = try Vault.git({ try result.contents(at: path) }),
                  let entry = final[path], (try? cipher.open(bytes, expectedPath: entry.path)) == entry else {
                throw VaultError.mergeDidNotVerify(path: path)
            }
        }
        let message = Vault.mergeMessage(remote: remote, changed: changed, resolutions: resolutions)
        let tree = try Vault.git { try result.writeTree() }
        let commit = try Vault.git { try repo.writeCommit(tree: tree, parents: [ours, theirs], message: message,
                                                          authentication: try commitAuthentication()) }
        return MergeOutput(commit: commit, changed: changed.sorted(), resolutions: resolutions)
    }

    static func isCollision(_ kind: MergeResolution.Kind) -> Bool {
        if case .pathCollisionRenamed = kind { return true }
        return false
    }

    /// "Merge origin: 2 entries changed, 1 conflict resolved". The resolutions themselves name fields,
    /// so they are printed by `tresor sync`, not stored where the git host can read them.
    static func mergeMessage(remote: String, changed: [String], resolutions: [MergeResolution]) -> String {
        var line = "Merge \(remote): \(changed.count) entr\(changed.count == 1 ? "y" : "ies") changed"
        if !resolutions.isEmpty { line += ", \(resolutions.count) conflict\(resolutions.count == 1 ? "" : "s") resolved" }
        return line
    }
}
