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
        var st = stat()
        guard lstat(root + "/.git", &st) == 0 else { throw VaultError.io(path: root + "/.git", errno: errno) }
        let stamp = "\(st.st_dev):\(st.st_ino)"
        if let bytes = try? FileSystem.read(root + "/" + Vault.replicaPath, limit: 256) {
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
            // A new id numbers its events from 1.
            unlink(root + "/" + Vault.eventsPath)
        } catch let e as CoreError { throw VaultError.file(path: root + "/" + Vault.replicaPath, e) }
        cachedReplicaID = id
        return id
    }

    /// The greatest event number this replica has used, as recorded locally.
    func usedEvents() -> UInt64 {
        guard let bytes = try? FileSystem.read(root + "/" + Vault.eventsPath, limit: 64) else { return 0 }
        return UInt64(String(decoding: bytes, as: UTF8.self).trimming(.whitespacesAndNewlines)) ?? 0
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
        return Change(time: Timestamp.now(), origin: deviceID, dot: Dot(replica: r, counter: max(seen, usedEvents()) + 1))
    }

    // MARK: States of commits

    /// The state records of commit `rev` by domain (those that parse; the acceptance rule judges the rest).
    func stateRecords(at rev: String?, repo: GitRepository) throws -> [String: StateRecord] {
        guard let rev else { return [:] }
        let tree = try CommitTree(repo: repo, commit: rev)
        var out: [String: StateRecord] = [:]
        for e in try tree.entries(of: [EntryStore.metadataDirectory, "state"]) ?? [] where e.mode == 0o100644 {
            let name = String(decoding: e.name, as: UTF8.self)
            guard name.hasSuffix(".json"), let d = StateRecord.domain(ofPath: StateRecord.directory + "/" + name),
                  let bytes = try? repo.blob(id: e.id), bytes.count <= 1 << 20, let r = try? StateRecord.parse(bytes) else { continue }
            out[d] = r
        }
        return out
    }

    // MARK: The trust record (Spec/AUTH.md §3, Spec/FORMAT.md §11.9)

    static let trustPath = ".git/tresor/trust"

    /// The trust record for `remote` (published epochs are the replica's, clocks the remote's).
    func trustRecord(remote: String) -> TrustRecord {
        let all = readTrust()
        var t = TrustRecord(published: all.published, remote: all.remotes[remote] ?? [:])
        if !holdsVaultKey { t.scopesAccepted = acceptedScopeIDs() ?? Set(scopeKeys.keys) }
        return t
    }

    struct StoredTrust {
        var published: [String: UInt64] = [:]
        var remotes: [String: [String: Clock]] = [:]
    }

    func readTrust() -> StoredTrust {
        guard let bytes = try? FileSystem.read(root + "/" + Vault.trustPath, limit: 16 << 20),
              let o = (try? JSONValue.parse(bytes))?.objectValue, o["version"]?.uint64Value == 1 else { return StoredTrust() }
        var t = StoredTrust()
        for (d, v) in o["published"]?.objectValue ?? [:] { if let e = v.uint64Value { t.published[d] = e } }
        for (name, v) in o["remotes"]?.objectValue ?? [:] {
            var clocks: [String: Clock] = [:]
            for (d, c) in v.objectValue ?? [:] { if let clock = try? Clock(json: c, context: "trust") { clocks[d] = clock } }
            t.remotes[name] = clocks
        }
        return t
    }

    /// Records that `remote` now holds `states` (taken from it or pushed to it) and that their epochs are published.
    func recordTrust(remote: String, states: [String: StateRecord]) throws {
        var t = readTrust()
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
    /// key of each scope it holds): domain → keys.
    func previousKeys(openedWith given: [String: SecretBytes] = [:]) -> [String: [EpochKey]] {
        guard let bytes = try? FileSystem.read(root + "/" + Vault.previousKeysPath, limit: 1 << 20),
              let o = (try? JSONValue.parse(bytes))?.objectValue else { return [:] }
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
        var o = (try? FileSystem.read(root + "/" + Vault.previousKeysPath, limit: 1 << 20)).flatMap { try? JSONValue.parse($0) }?.objectValue ?? [:]
        let earlier = previousKeys(openedWith: [domain: key])[domain] ?? []
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

    /// The key this process holds for `domain` (the vault key, or a scope key), nil if none.
    func domainKey(_ domain: String) -> SecretBytes? {
        domain == Domain.vault ? vaultKeyIfHeld : scopeKeys[domain]?.key
    }
}
