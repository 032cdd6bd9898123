// Members (recipient key slots) and rekeying: a new vault key, every entry re-encrypted, one commit.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TresorCore
import TresorGit

/// What opens a vault key slot: a passphrase or an identity.
package enum KeyCredential {
    case passphrase(SecretBytes)
    case identity(Identity)

    /// The vault key `header` gives this credential. - Throws: `CoreError` (`.wrongPassphrase`, `.notARecipient`).
    func open(_ header: VaultHeader) throws -> SecretBytes {
        switch self {
        case .passphrase(let p): return try header.unlock(passphrase: p)
        case .identity(let i): return try header.unlock(identity: i)
        }
    }
}

/// A member as `member ls` shows it.
public struct Member: Equatable, Sendable {
    /// The member's name (its recipient key slot's label).
    public var name: String
    /// The member's public key (its recipient key slot).
    public var publicKey: RecipientKey
    /// Whether the identity that unlocked this process is this member.
    public var isThisDevice: Bool
}

/// What a rekey did.
package struct RekeyOutcome: Equatable, Sendable {
    package var entries: Int
    package var members: Int
    /// The new key's epoch.
    package var generation: UInt64
    /// Slots of unknown types that were dropped (they could not be rewrapped).
    package var droppedOtherSlots: Int
}

extension Vault {
    /// The members of the vault (recipient key slots), by name (then public key: two replicas may each have added one
    /// name).
    public var members: [Member] {
        let mine: RecipientKey? = if case .identity(let i) = credential { i.publicKey } else { nil }
        return header.recipientSlots.map { Member(name: $0.name, publicKey: $0.publicKey, isThisDevice: $0.publicKey == mine) }
            .sorted { ($0.name, $0.publicKey.text) < ($1.name, $1.publicKey.text) }
    }

    /// Adds a recipient key slot sealed to `publicKey`: one slot, no entry is re-encrypted. Commits "Add member NAME".
    /// - Throws: `VaultError.formatTooOld` before `upgrade`, `.header(.memberExists)`, `.header(.malformed)` for a bad name.
    package func addMember(_ name: String, publicKey: RecipientKey) throws {
        let key = try currentVaultKey()
        let authenticator = try requireAuthenticator()
        try transaction { txn in
            let header = try txn.header()
            do { txn.putHeader(try authenticator.authenticated(try header.addingMember(name, publicKey: publicKey, vaultKey: key, change: txn.change))) }
            catch let e as CoreError { throw VaultError.header(e) }
            txn.message = "Add member \(name)"
        }
        try reloadHeader()
    }

    /// Removes member `name` and rekeys in the same commit, so that nothing written afterwards opens with
    /// that member's identity (Spec/FORMAT.md §3.11). `passphrase` wraps the new key in the passphrase slot.
    /// - Throws: `VaultError.header(.noSuchMember)`, and what `rekey` throws.
    @discardableResult
    package func removeMember(_ name: String, passphrase: SecretBytes, level: KDFLevel) throws -> RekeyOutcome {
        try rekey(passphrase: passphrase, level: level, removing: name)
    }

    /// Rekey (Spec/FORMAT.md §11.5): a new random vault key of the next epoch, with proofs from every earlier epoch;
    /// every entry of the vault domain re-encrypted under it (one AEAD each, the payload is not parsed); the passphrase
    /// slots replaced by one slot of `passphrase` (the current one or a new one: with `passwd --revoke` the old
    /// passphrase opens nothing written afterwards); every recipient slot sealed again from its public key; every open
    /// scope rekeyed with it (a holder of the vault key holds them: after a removal it must hold none); one change.
    /// Entries already in git history stay readable with the old key: that cannot be revoked.
    /// - Throws: `VaultError.vaultLocked`, `.entry` for an entry that does not open, `.noKeyFor` for an open scope not
    ///   held, transaction errors.
    @discardableResult
    package func rekey(passphrase: SecretBytes, level: KDFLevel, removing member: String? = nil) throws -> RekeyOutcome {
        let oldCipher = try requireCipher()
        let oldKey = try currentVaultKey()
        let outcome = try transaction { txn -> RekeyOutcome in
            let header = try txn.header()
            let newKey = SecretBytes.random(count: Sodium.keyBytes)
            let newCipher: EntryCipher, newHeader: VaultHeader
            do {
                newCipher = try EntryCipher(vaultKey: newKey)
                let slot = try KeySlot.wrap(newKey, passphrase: passphrase, level: level, vaultID: header.vaultID, dot: txn.change.dot)
                let chain = try RekeyChain.make(vaultID: header.vaultID, domain: Domain.vault, epoch: header.epoch + 1, newKey: newKey,
                                                previousKey: oldKey, previousChain: header.rekeyChain)
                newHeader = try VaultAuthenticator(vaultKey: newKey).authenticated(try header.rekeyed(
                    newKey: newKey, passphraseSlot: slot, removing: member, chain: chain, change: txn.change))
            } catch let e as CoreError { throw VaultError.header(e) }
            var count = 0
            if let base = txn.base {
                // The repository is read on this thread; the cryptography runs on every core.
                // Entries in scopes stay under their scope keys (open scopes are rekeyed below).
                let files = try Vault.git({ try txn.repo.treeEntries(at: base) }).filter { file in
                    guard let path = EntryPath(filePath: file.path) else { return false }
                    return header.scope(containing: path) == nil
                }
                let old = try files.map { file in try Vault.git { try txn.repo.blob(id: file.id) } }
                var resealed = [Result<[UInt8], CoreError>](repeating: .failure(.io(.other(""))), count: files.count)
                resealed.withUnsafeMutableBufferPointer { out in
                    let chunks = max(1, min(files.count, ProcessInfo.processInfo.activeProcessorCount * 4))
                    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                        for i in stride(from: chunk, to: files.count, by: chunks) {
                            do { out[i] = .success(try newCipher.reseal(old[i], from: oldCipher)) }
                            catch let e as CoreError { out[i] = .failure(e) }
                            catch { out[i] = .failure(.io(.other(String(reflecting: error)))) }
                        }
                    }
                }
                for (file, result) in zip(files, resealed) {
                    switch result {
                    case .success(let bytes): txn.putFile(file.path, bytes)
                    case .failure(let e): throw VaultError.entry(path: String(file.path.dropLast(EntryPath.fileExtension.count)), e)
                    }
                    count += 1
                }
            }
            txn.putHeader(newHeader)
            // Every open scope gets a key of its next epoch, wrapped under the new vault key; closed scopes stay.
            for id in header.scopes.keys.sorted() {
                let path = ScopeHeader.relativePath(scopeID: id)
                // (A scope header that does not parse stops the rekey: skipped, that scope would keep a key the removed
                // member may hold.)
                guard let bytes = try txn.file(path) else { continue }
                let scope: ScopeHeader
                do { scope = try ScopeHeader.parse(bytes) } catch let e as CoreError { throw VaultError.scopeHeader(path: path, e) }
                guard scope.vaultSlot != nil else { continue }
                count += try rekeyScope(id, removing: nil, vaultKey: newKey, in: txn).0
            }
            txn.newVaultKey = newKey
            txn.message = (member.map { "Remove member \($0) and rekey" } ?? "Rekey") + ": \(count) entr\(count == 1 ? "y" : "ies") re-encrypted"
            return RekeyOutcome(entries: count, members: newHeader.recipientSlots.count, generation: newHeader.epoch,
                                droppedOtherSlots: header.otherSlots.count)
        }
        credential = .passphrase(passphrase)
        return outcome
    }
}

/// What a removed member could have read and may have copied (`tresor audit --removed`).
package struct RemovedMemberExposure: Sendable {
    /// The commit that removed the member.
    package var removal: GitCommit
    /// Current entries that existed while the member was one, with the fields whose values have not changed
    /// since (by the field's `modified` time): the values to rotate.
    package var entries: [(path: EntryPath, fields: [String])]
}

extension Vault {
    /// The entries member `name` could read before their removal whose values are still current.
    /// - Throws: `VaultError.header(.noSuchMember)` if no commit removed such a member.
    package func exposure(ofRemoved name: String) throws -> RemovedMemberExposure {
        let repo = try repository()
        let commits = try Vault.git { try repo.log(path: VaultHeader.relativePath) }
        // A header git cannot read is an error, never "no such member" (which would name the wrong removal).
        func hasMember(_ rev: String) throws -> Bool {
            guard let bytes = try Vault.git({ try repo.blob(at: rev, path: VaultHeader.relativePath) }),
                  let h = try? VaultHeader.parse(bytes) else { return false }  // (no header, or not one: no members)
            return h.member(named: name) != nil
        }
        guard let removal = try commits.first(where: { c in try !hasMember(c.id) && c.parents.first.map(hasMember) == true }),
              let before = removal.parents.first else { throw VaultError.header(.noSuchMember(name)) }
        var ids: Set<String> = []
        for file in try Vault.git({ try repo.treeEntries(at: before) }) where EntryPath(filePath: file.path) != nil {
            let bytes = try Vault.git { try repo.blob(id: file.id) }
            if let env = try? Envelope.parse(bytes) { ids.insert(env.id) }
        }
        let cutoff = Int64(removal.date.timeIntervalSince1970 * 1000) + 999
        var found: [(EntryPath, [String])] = []
        for path in list().paths {
            // Entries under a key this process does not hold (a closed scope) are not this member's to audit.
            guard canOpen(path) else { continue }
            let entry = try read(path)
            guard ids.contains(entry.id) else { continue }
            let fields = entry.fields.filter { $0.value.modified.milliseconds <= cutoff }.map(\.key).sorted()
            if !fields.isEmpty { found.append((path, fields)) }
        }
        return RemovedMemberExposure(removal: removal, entries: found)
    }
}
