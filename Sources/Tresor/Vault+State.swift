// What a replica keeps of itself and of its remotes: its replica id and events, its trust record, earlier keys, and
// the states (state records and domain trees) of commits (Spec/FORMAT.md §11.3, §11.6, §11.9; Spec/AUTH.md §3).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore
import TresorGit

/// The trees of one commit, read folder by folder from git objects (only the folders asked for).
final class CommitTree: TreeSource {
    let repo: GitRepository
    let root: String
    private var cache: [[String]: [RawTreeEntry]] = [:]

    /// The tree of commit `rev`. - Throws: `VaultError.git`.
    init(repo: GitRepository, commit rev: String) throws {
        self.repo = repo
        root = try Vault.git { try repo.treeEntriesID(of: rev) }
    }

    init(repo: GitRepository, tree: String) { self.repo = repo; root = tree }

    func entries(of folder: [String]) throws -> [RawTreeEntry]? {
        if let known = cache[folder] { return known }
        var id = root
        for (i, part) in folder.enumerated() {
            guard let parent = try entries(of: Array(folder.prefix(i))),
                  let e = parent.first(where: { $0.mode == 0o40000 && $0.name == Array(part.utf8) }) else { return nil }
            id = e.id
        }
        let list = try Vault.git { try repo.rawTree(id, limit: 64 << 20) }.map { RawTreeEntry(name: $0.name, mode: $0.mode, id: $0.id) }
        cache[folder] = list
        return list
    }
}

extension Vault {
    // MARK: Replica id and events (Spec/FORMAT.md §11.3, §11.9)

    static let replicaPath = ".git/tresor/replica"
    static let eventsPath = ".git/tresor/events"

    /// This replica's id: kept in `.git/tresor/replica` with the device and inode of `.git`, so that a copy of the
    /// folder (another inode) draws a new one and never numbers events like the original (Spec/FORMAT.md §11.9).
    /// Written on first use, under the vault lock.
    func replicaID() throws -> String {
        if let cachedReplicaID { return cachedReplicaID }
        guard let st = try Vault.io({ try FileSystem.status(root + "/.git") }) else {
            throw VaultError.io(path: root + "/.git", errno: ENOENT)
        }
        let stamp = "\(st.st_dev):\(st.st_ino)"
        if let bytes = try readLocalRecord(Vault.replicaPath, limit: 256) {
            let parts = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
            if parts.count == 2, Dot.isReplicaID(parts[0]), parts[1] == stamp {
                cachedReplicaID = parts[0]
                return parts[0]
            }
        }
        let id = Dot.newReplicaID()
        do {
            try FileSystem.makeDirectories(".git/tresor", under: root)
            try FileSystem.writeAtomically(Array("\(id) \(stamp)\n".utf8), to: root + "/" + Vault.replicaPath)
            // A new id numbers its events from 1. (A count that cannot be removed only makes them start higher: still
            // numbers no other change of this new id has.)
            _ = try? FileSystem.removeIfPresent(root + "/" + Vault.eventsPath)
        } catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.replicaPath, e) }
        cachedReplicaID = id
        return id
    }

    /// The greatest event number this replica has used, as recorded locally (0 before its first). - Throws:
    /// `VaultError.file` when the record cannot be read or holds no number: taken for 0, it could make this replica
    /// number a new change like one already published (Spec/FORMAT.md §11.9).
    func usedEvents() throws -> UInt64 {
        guard let bytes = try readLocalRecord(Vault.eventsPath, limit: 64) else { return 0 }
        guard let n = UInt64(String(decoding: bytes, as: UTF8.self).trimming(.whitespacesAndNewlines)) else {
            throw VaultError.file(path: root + "/" + Vault.eventsPath, .malformed(.member(.localRecord, name: "events", expected: .nonNegativeInteger)))
        }
        return n
    }

    /// The bytes of the local record at `relativePath` (under `.git/tresor`), nil when it was never written.
    /// - Throws: `VaultError.file` when it is there and cannot be read.
    func readLocalRecord(_ relativePath: String, limit: Int) throws -> [UInt8]? {
        do { return try FileSystem.readIfPresent(root + "/" + relativePath, limit: limit) }
        catch let e as CoreError { throw VaultError.file(path: root + "/" + relativePath, e) }
    }

    func recordUsedEvents(_ n: UInt64) throws {
        do { try FileSystem.writeAtomically(Array("\(n)\n".utf8), to: root + "/" + Vault.eventsPath) }
        catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.eventsPath, e) }
    }

    /// The change a transaction on top of `states` makes (Spec/FORMAT.md §11.3): this replica's next event number,
    /// one more than any it has used or that a state shows for it.
    func nextChange(after states: [String: StateRecord]) throws -> Change {
        let r = try replicaID()
        let seen = states.values.map { $0.clock[r] }.max() ?? 0
        return Change(time: Timestamp.now(), origin: deviceID, dot: Dot(replica: r, counter: max(seen, try usedEvents()) + 1))
    }

    // MARK: States of commits

    /// The state records of commit `rev` by domain (those that parse; the acceptance rule judges the rest). A record that
    /// cannot be read from git is an error, never a record missing. - Throws: `VaultError.git`.
    func stateRecords(at rev: String?, repo: GitRepository) throws -> [String: StateRecord] {
        guard let rev else { return [:] }
        let tree = try CommitTree(repo: repo, commit: rev)
        var out: [String: StateRecord] = [:]
        for e in try tree.entries(of: [EntryStore.metadataDirectory, "state"]) ?? [] where e.mode == 0o100644 {
            let name = String(decoding: e.name, as: UTF8.self)
            guard name.hasSuffix(".json"), let d = StateRecord.domain(ofPath: StateRecord.directory + "/" + name) else { continue }
            let bytes = try Vault.git { try repo.blob(id: e.id) }
            guard bytes.count <= 1 << 20, let r = try? StateRecord.parse(bytes) else { continue }
            out[d] = r
        }
        return out
    }

    // MARK: The trust record (Spec/AUTH.md §3, Spec/FORMAT.md §11.9)

    static let trustPath = ".git/tresor/trust"

    /// The trust record for `remote` (published epochs are the replica's, clocks the remote's). - Throws: as `readTrust`.
    func trustRecord(remote: String) throws -> TrustRecord {
        let all = try readTrust()
        var t = TrustRecord(published: all.published, remote: all.remotes[remote] ?? [:])
        if !holdsVaultKey { t.scopesAccepted = try acceptedScopeIDs() ?? Set(scopeKeys.keys) }
        return t
    }

    struct StoredTrust {
        var published: [String: UInt64] = [:]
        var remotes: [String: [String: Clock]] = [:]
    }

    /// The stored trust record; empty before the first contact with a remote. - Throws: `VaultError.file` when it is
    /// there and cannot be read or does not parse: taken for empty, it would make a rolled-back remote look like a first
    /// contact (Spec/AUTH.md §3).
    func readTrust() throws -> StoredTrust {
        let path = root + "/" + Vault.trustPath
        guard let bytes = try readLocalRecord(Vault.trustPath, limit: 16 << 20) else { return StoredTrust() }
        func damaged(_ member: String, _ expected: CoreError.Expectation) -> VaultError {
            .file(path: path, .malformed(.member(.localRecord, name: member, expected: expected)))
        }
        let o = try localRecordObject(bytes, path: path)
        guard o["version"]?.uint64Value == 1 else { throw damaged("version", .value("1")) }
        var t = StoredTrust()
        for (d, v) in o["published"]?.objectValue ?? [:] {
            guard let e = v.uint64Value else { throw damaged("published", .nonNegativeInteger) }
            t.published[d] = e
        }
        for (name, v) in o["remotes"]?.objectValue ?? [:] {
            guard let domains = v.objectValue else { throw damaged("remotes", .object) }
            var clocks: [String: Clock] = [:]
            for (d, c) in domains {
                do { clocks[d] = try Clock(json: c, context: .localRecord) } catch let e as CoreError { throw VaultError.file(path: path, e) }
            }
            t.remotes[name] = clocks
        }
        return t
    }

    /// Records that `remote` now holds `states` (taken from it or pushed to it) and that their epochs are published.
    func recordTrust(remote: String, states: [String: StateRecord]) throws {
        var t = try readTrust()
        for (d, r) in states { t.published[d] = max(t.published[d] ?? 0, r.epoch) }
        t.remotes[remote] = states.mapValues(\.clock)
        let json = JSONValue.object([
            "version": .integer(1),
            "published": .object(t.published.mapValues { .integer($0) }),
            "remotes": .object(t.remotes.mapValues { .object($0.mapValues { $0.json }) }),
        ])
        do {
            try FileSystem.makeDirectories(".git/tresor", under: root)
            try FileSystem.writeAtomically(json.canonicalBytes() + [0x0A], to: root + "/" + Vault.trustPath)
        } catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.trustPath, e) }
    }

    // MARK: Keys of earlier epochs (Spec/FORMAT.md §11.9)

    static let previousKeysPath = ".git/tresor/previous-keys"

    /// The domain keys of earlier epochs this replica kept, opened with the vault key it holds (or, without it, the
    /// key of each scope it holds): domain → keys; items sealed under a key not held are not among them.
    /// - Throws: `VaultError.file` when the record is there and cannot be read or does not parse: taken for none, a
    ///   scope whose key only an earlier vault key opens would not be found stale, nor an old version opened.
    func previousKeys(openedWith given: [String: SecretBytes] = [:]) throws -> [String: [EpochKey]] {
        let o = try previousKeysRecord()
        var out: [String: [EpochKey]] = [:]
        for (domain, list) in o {
            guard let sealer = given[domain] ?? domainKey(domain), let items = list.arrayValue else { continue }
            for item in items {
                guard let io = item.objectValue, let epoch = io["epoch"]?.uint64Value,
                      let n = io["nonce"]?.stringValue.flatMap(Base64.decodeCanonical), let c = io["key"]?.stringValue.flatMap(Base64.decodeCanonical),
                      let key = try? Sodium.open(c, key: sealer, nonce: n, ad: Array("tresor-previous-key\u{0}\(header.vaultID)\u{0}\(domain)\u{0}\(epoch)".utf8))
                else { continue }
                out[domain, default: []].append(EpochKey(epoch: epoch, key: key))
            }
        }
        return out
    }

    /// Keeps `key`, the key of `domain` at `epoch` that `current` replaces, sealed under `current` with the earlier keys
    /// that were sealed under `key`.
    func keepPreviousKey(_ key: SecretBytes, domain: String, epoch: UInt64, sealedUnder current: SecretBytes) throws {
        // (A record that cannot be read stops this: written over, it would lose the earlier keys of every other domain.)
        var o = try previousKeysRecord()
        let earlier = try previousKeys(openedWith: [domain: key])[domain] ?? []
        var list: [JSONValue] = []
        for k in earlier + [EpochKey(epoch: epoch, key: key)] {
            let nonce = Sodium.randomBytes(Sodium.nonceBytes)
            let sealed = try Sodium.seal(k.key, key: current, nonce: nonce, ad: Array("tresor-previous-key\u{0}\(header.vaultID)\u{0}\(domain)\u{0}\(k.epoch)".utf8))
            list.append(.object(["epoch": .integer(k.epoch), "nonce": .string(Base64.encode(nonce)), "key": .string(Base64.encode(sealed))]))
        }
        o[domain] = .array(list)
        do {
            try FileSystem.makeDirectories(".git/tresor", under: root)
            try FileSystem.writeAtomically(JSONValue.object(o).canonicalBytes() + [0x0A], to: root + "/" + Vault.previousKeysPath)
        } catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.previousKeysPath, e) }
    }

    /// The JSON object of the earlier keys' record, empty when there is none. - Throws: `VaultError.file`.
    func previousKeysRecord() throws -> [String: JSONValue] {
        let path = root + "/" + Vault.previousKeysPath
        guard let bytes = try readLocalRecord(Vault.previousKeysPath, limit: 1 << 20) else { return [:] }
        return try localRecordObject(bytes, path: path)
    }

    /// The JSON object a local record read from `path` holds. - Throws: `VaultError.file` when it holds none.
    private func localRecordObject(_ bytes: [UInt8], path: String) throws -> [String: JSONValue] {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) }
        catch let e as JSONParseError { throw VaultError.file(path: path, .malformed(.notJSON(.localRecord, e))) }
        guard let o = json.objectValue else { throw VaultError.file(path: path, .malformed(.notAnObject(.localRecord))) }
        return o
    }

    /// The key this process holds for `domain` (the vault key, or a scope key), nil if none.
    func domainKey(_ domain: String) -> SecretBytes? {
        domain == Domain.vault ? vaultKeyIfHeld : scopeKeys[domain]?.key
    }
}
