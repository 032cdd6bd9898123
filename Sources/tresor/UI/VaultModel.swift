// The vault as `tresor ui` holds it: entry names always; the key and a search index only while unlocked.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Tresor

/// Owns the open `Vault`. Locking replaces it with a freshly opened one, so the key goes with the old
/// object and no background task still using it sees a change.
final class VaultModel {
    enum KeySource: Equatable { case agent, session(String), passphrase }

    let root: String
    private(set) var vault: Vault
    private(set) var paths: [EntryPath] = []
    private(set) var problems: [StoreProblem] = []
    /// Where the key came from while unlocked.
    private(set) var keySource: KeySource?
    /// Hints and field texts of every entry, once the background build after unlocking is done.
    private(set) var index: SearchIndex?
    /// When the background build started, while it runs.
    private(set) var indexingSince: Date?
    /// Changes whenever `paths` or `index` change, so screens know to rebuild their rows.
    private(set) var version = 0

    private var generation = 0
    private let mailboxLock = ThreadLock()
    private var finished: (generation: Int, index: SearchIndex)?

    init(vault: Vault) {
        self.vault = vault
        root = vault.root
        reload()
    }

    var isUnlocked: Bool { vault.isUnlocked }

    /// Lists the entries again (after a change, a sync, or on request).
    func reload() {
        (paths, problems) = vault.list()
        version += 1
    }

    func unlock(passphrase: SecretBytes) throws {
        try vault.unlock(passphrase: passphrase)
        keySource = .passphrase
        startIndexing()
    }

    func unlock(sessionToken token: String) throws {
        try vault.unlock(session: try Session.keys(token: token, vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values)))
        keySource = .session(token)
        startIndexing()
    }

    /// Uses the keys the agent holds for this copy of the vault.
    func unlock(agentKeys keys: SessionKeys) throws {
        try vault.unlock(session: keys)
        keySource = .agent
        startIndexing()
    }

    /// Whether the agent or the session the key came from still holds it (not locked, not expired).
    func sessionStillOpen() -> Bool {
        switch keySource {
        case .agent?: return Agent.client.holdsKeys(for: vault)
        case .session(let token)?: return (try? Session.keys(token: token, vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values))) != nil
        default: return true
        }
    }

    /// Drops the key and every decrypted text. - Throws: when the vault can no longer be opened.
    func lock() throws {
        generation += 1
        index?.wipeAll()
        index = nil
        indexingSince = nil
        keySource = nil
        mailboxLock.lock(); finished?.index.wipeAll(); finished = nil; mailboxLock.unlock()
        vault = try Vault.open(at: root)
        version += 1
    }

    /// Decrypts every entry on other threads; `poll()` picks the result up.
    func startIndexing() {
        generation += 1
        let g = generation, v = vault
        indexingSince = Date()
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let results = (try? v.readAll()) ?? []
            let index = SearchIndex(results)
            guard let self else { index.wipeAll(); return }
            self.mailboxLock.lock()
            self.finished?.index.wipeAll()
            self.finished = (g, index)
            self.mailboxLock.unlock()
        }
    }

    /// Takes a finished index if it belongs to the current key; true when something changed.
    func poll() -> Bool {
        mailboxLock.lock()
        let done = finished
        finished = nil
        mailboxLock.unlock()
        guard let done else { return false }
        guard done.generation == generation else { done.index.wipeAll(); return false }
        index = done.index
        indexingSince = nil
        version += 1
        return true
    }

    // MARK: Changes, each one commit through the Vault API

    func add(_ entry: Entry) throws {
        try vault.add(entry)
        reload()
        index?.update(entry)
    }

    /// Saves an edit of `original`, merged with whatever another command changed meanwhile; returns the
    /// entry as committed.
    /// Applies `changes` to `original` (nil removes a field) and saves, merged with whatever another command
    /// changed meanwhile; returns the entry as committed, or nil when nothing changed.
    func edit(_ original: Entry, changes: [String: FieldValue?]) throws -> (entry: Entry, changed: [String])? {
        guard let outcome = try vault.edit(original, changes: changes), let saved = outcome.entry else { return nil }
        if saved.path != original.path { reload() }
        index?.update(saved)
        version += 1
        return (saved, outcome.changedFields)
    }

    func remove(_ path: EntryPath) throws {
        try vault.remove(path)
        index?.remove(path)
        reload()
    }

    /// After a sync: names again, and the index rebuilt from the merged entries.
    func afterSync() {
        reload()
        if isUnlocked { startIndexing() }
    }
}
