// The one acceptance rule: whether a replica takes a fetched tip, as a pure function of the tip, its keys and its trust record (Spec/AUTH.md §5).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rules of Spec/AUTH.md §5.2, by id.
public enum AcceptanceRule: String, Sendable, CaseIterable {
    case treeShape = "tree-shape"
    case foreignFile = "foreign-file"
    case vaultHeader = "vault-header"
    case differentVault = "different-vault"
    case formatVersion = "format-version"
    case domainListing = "domain-listing"
    case stateRecord = "state-record"
    case stateFiles = "state-files"
    case epochReplaced = "epoch-replaced"
    case rekeyProof = "rekey-proof"
    case headerAuthentic = "header-authentic"
    case stateAuthentic = "state-authentic"
}

/// A refusal: the rule, and where (Spec/AUTH.md §5 *output*).
public struct AcceptanceRefusal: Error, Equatable, Sendable {
    public var rule: AcceptanceRule
    /// The domain the rule was applied to, if it is a per-domain rule.
    public var domain: String?
    /// The file concerned, if one.
    public var path: String?
    /// What was found, for people (no secret).
    public var detail: String
    public init(_ rule: AcceptanceRule, domain: String? = nil, path: String? = nil, _ detail: String) {
        self.rule = rule; self.domain = domain; self.path = path; self.detail = detail
    }
}

/// A key of one domain at one epoch.
package struct EpochKey: Sendable {
    package var epoch: UInt64
    package var key: SecretBytes
    package init(epoch: UInt64, key: SecretBytes) { self.epoch = epoch; self.key = key }
}

/// What a replica keeps to judge tips (Spec/AUTH.md §3): the newest epoch it has seen published per domain, and the
/// clock it last took from the remote per domain.
package struct TrustRecord: Equatable, Sendable {
    package var published: [String: UInt64]
    /// Domain → clock last taken from (or pushed to) the remote in question.
    package var remote: [String: Clock]
    /// For a replica without the vault key: the scopes it accepted (Spec/AUTH.md §7.3); nil when it holds the vault key.
    package var scopesAccepted: Set<String>?
    package init(published: [String: UInt64] = [:], remote: [String: Clock] = [:], scopesAccepted: Set<String>? = nil) {
        self.published = published; self.remote = remote; self.scopesAccepted = scopesAccepted
    }
}

/// What the acceptance rule says about one domain of an accepted tip.
package struct DomainVerdict: Sendable {
    /// Its tags verified under a key this replica holds or followed; false: checked for shape only (Spec/AUTH.md §7.1).
    package var verified: Bool
    /// The tip's domain clock against the replica's own.
    package var relation: ClockRelation
    /// Older than what this replica last took from the remote (`rolled-back`).
    package var rolledBack: Bool
    /// The tip's epoch of the domain.
    package var epoch: UInt64
    /// The key the domain verified under (the key held, an earlier one kept, or a newer one followed).
    package var key: SecretBytes?
    /// The key is newer than the one the replica held: it follows a rekey (Spec/FORMAT.md §11.5).
    package var followsRekey: Bool
    /// `older-epoch`: under a key before the replica's own (its rekey is not published yet).
    package var olderEpoch: Bool
    /// `offered-scope`: a scope this replica, without the vault key, has not accepted.
    package var offered: Bool
    package var clock: Clock
}

/// The acceptance rule of Spec/AUTH.md §5. Pure: no network, no git, no clock; fails closed.
package enum Acceptance {
    /// The replica's own state of a domain.
    package struct LocalDomain: Sendable {
        package var epoch: UInt64
        package var clock: Clock
        package init(epoch: UInt64, clock: Clock) { self.epoch = epoch; self.clock = clock }
    }

    /// Decides about `tip` (Spec/AUTH.md §5). `held`: the keys this replica holds per domain (its current key and the
    /// earlier ones it keeps); `opened`: keys its credential opened from the tip's headers, per domain; `local`: its
    /// HEAD's epoch and clock per domain.
    /// - Returns: per domain, the verdict. - Throws: `AcceptanceRefusal` naming the first rule broken.
    package static func decide(tip: TipTree, vaultID: String, held: [String: [EpochKey]], opened: [String: [EpochKey]],
                              trust: TrustRecord, local: [String: LocalDomain]) throws -> [String: DomainVerdict] {
        try TreeShape.check(tip.items)
        // vault-header, different-vault, format-version
        guard let headerBytes = tip.smallFiles[VaultHeader.relativePath] else {
            throw AcceptanceRefusal(.vaultHeader, path: VaultHeader.relativePath, "the tip has no vault header")
        }
        let header: VaultHeader
        do { header = try VaultHeader.parse(headerBytes) } catch let e as CoreError {
            if case .unsupportedVersion(let v) = e { throw AcceptanceRefusal(.formatVersion, path: VaultHeader.relativePath, "format version \(v)") }
            throw AcceptanceRefusal(.vaultHeader, path: VaultHeader.relativePath, e.kind)
        }
        guard MergeOrder.same(header.vaultID, vaultID) else {
            throw AcceptanceRefusal(.differentVault, path: VaultHeader.relativePath, "vault \(header.vaultID)")
        }
        guard header.version == FormatVersion.header else {
            throw AcceptanceRefusal(.formatVersion, path: VaultHeader.relativePath, "format version \(header.version)")
        }
        let scopeHeaders = try listing(tip, header)
        var verdicts: [String: DomainVerdict] = [:]
        for domain in [Domain.vault] + header.scopes.keys.sorted() {
            let domainEpoch = domain == Domain.vault ? header.epoch : scopeHeaders[domain]!.epoch
            let path = StateRecord.relativePath(domain: domain)
            // state-record
            let record: StateRecord
            do { record = try StateRecord.parse(tip.smallFiles[path] ?? []) } catch let e as CoreError {
                throw AcceptanceRefusal(.stateRecord, domain: domain, path: path, e.kind)
            }
            guard MergeOrder.same(record.vaultID, vaultID), record.domain == domain, record.epoch == domainEpoch else {
                throw AcceptanceRefusal(.stateRecord, domain: domain, path: path, "the record names another vault, domain or epoch")
            }
            // state-files
            let tree: String
            do { tree = try DomainTree.id(domain: domain, scopes: header.scopes, source: tip) } catch {
                throw AcceptanceRefusal(.stateFiles, domain: domain, path: path, "an object id does not parse")
            }
            guard tree == record.tree else {
                throw AcceptanceRefusal(.stateFiles, domain: domain, path: path, "the domain's files are not the files its state record names")
            }
            // epoch-replaced
            let headerPath = domain == Domain.vault ? VaultHeader.relativePath : ScopeHeader.relativePath(scopeID: domain)
            if let published = trust.published[domain], domainEpoch < published {
                throw AcceptanceRefusal(.epochReplaced, domain: domain, path: headerPath,
                                        "epoch \(domainEpoch), while epoch \(published) has been published")
            }
            var verdict = DomainVerdict(verified: false, relation: .newer, rolledBack: false, epoch: domainEpoch, key: nil,
                                        followsRekey: false, olderEpoch: false, offered: false, clock: record.clock)
            // A scope the vault key opens is held by whoever verified the vault domain.
            var heldKeys = held[domain] ?? []
            if domain != Domain.vault, heldKeys.isEmpty, let vaultKey = verdicts[Domain.vault]?.key,
               let s = scopeHeaders[domain], s.vaultSlot != nil, let k = try? s.unlock(vaultKey: vaultKey) {
                heldKeys = [EpochKey(epoch: s.epoch, key: k)]
            }
            let openedKeys = opened[domain] ?? []
            verdict.offered = domain != Domain.vault && trust.scopesAccepted.map { !$0.contains(domain) } ?? false
            if !heldKeys.isEmpty || !openedKeys.isEmpty {
                try verify(domain: domain, epoch: domainEpoch, header: header, scope: scopeHeaders[domain], record: record,
                           held: heldKeys, opened: openedKeys, vaultID: vaultID, verdict: &verdict)
            }
            if let mine = local[domain] {
                verdict.relation = record.clock.relation(to: mine.clock)
                if verdict.verified, domainEpoch < mine.epoch { verdict.olderEpoch = true }
            }
            // rolled-back: the remote no longer holds everything it held (older, or one change dropped and another added).
            if let last = trust.remote[domain] { verdict.rolledBack = !last.isAtMost(record.clock) }
            verdicts[domain] = verdict
        }
        return verdicts
    }

    /// domain-listing (Spec/AUTH.md §5.2), in its order: the vault's state record; for each listed scope by id, its header
    /// (there, parses, names this vault, that scope and the folder) and its state record; then no other file under
    /// `.tresor/`. Returns the parsed scope headers.
    static func listing(_ tip: TipTree, _ header: VaultHeader) throws -> [String: ScopeHeader] {
        func refuse(_ domain: String?, _ path: String, _ why: String) -> AcceptanceRefusal { AcceptanceRefusal(.domainListing, domain: domain, path: path, why) }
        let vaultState = StateRecord.relativePath(domain: Domain.vault)
        guard tip.smallFiles[vaultState] != nil else { throw refuse(Domain.vault, vaultState, "the vault domain has no state record") }
        var scopes: [String: ScopeHeader] = [:]
        var expected: Set<String> = [VaultHeader.relativePath, vaultState]
        for id in header.scopes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let bytes = tip.smallFiles[path] else { throw refuse(id, path, "the vault header lists a scope without its header") }
            let s: ScopeHeader
            do { s = try ScopeHeader.parse(bytes) } catch let e as CoreError { throw refuse(id, path, e.kind) }
            guard s.version == FormatVersion.scopeHeader else { throw refuse(id, path, "scope header version \(s.version)") }
            do { try s.checkPlace(in: header, path: path) } catch { throw refuse(id, path, "the scope header names another vault, scope or folder") }
            scopes[id] = s
            let state = StateRecord.relativePath(domain: id)
            guard tip.smallFiles[state] != nil else { throw refuse(id, state, "the scope has no state record") }
            expected.formUnion([path, state])
        }
        for path in tip.smallFiles.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !expected.contains(path) {
            // A scope the vault header does not list is no domain of the tip: the refusal names the file only.
            throw refuse(nil, path, "a file of a domain the vault header does not list")
        }
        return scopes
    }

    /// rekey-proof, header-authentic, state-authentic for a domain whose key the replica holds or opened.
    static func verify(domain: String, epoch: UInt64, header: VaultHeader, scope: ScopeHeader?, record: StateRecord,
                       held: [EpochKey], opened: [EpochKey], vaultID: String, verdict: inout DomainVerdict) throws {
        let headerPath = scope == nil ? VaultHeader.relativePath : ScopeHeader.relativePath(scopeID: domain)
        func headerVerifies(_ key: SecretBytes) -> Bool {
            guard let a = try? VaultAuthenticator(vaultKey: key) else { return false }
            if let scope { return (try? a.verify(scope)) != nil }
            return (try? a.verify(header)) != nil
        }
        let chain = scope?.rekeyChain ?? (scope == nil ? header.rekeyChain : nil)
        var key: SecretBytes?
        // A key held of this epoch under which the header verifies.
        if let k = held.first(where: { $0.epoch == epoch && headerVerifies($0.key) }) {
            key = k.key
        } else if held.isEmpty, let k = opened.first(where: { $0.epoch == epoch && headerVerifies($0.key) }) {
            // A domain this replica did not hold (a scope new to it, opened by its credential): verified under that key.
            // Whether the replica takes the scope is the caller's (Spec/AUTH.md §7.3).
            key = k.key
        } else {
            // A newer key (or one of a concurrent rekey to the same epoch) the credential opened, vouched for by a proof
            // made with a key held (Spec/FORMAT.md §11.5).
            for candidate in opened where candidate.epoch == epoch && headerVerifies(candidate.key) {
                if let chain, held.contains(where: { chain.vouches(heldKey: $0.key, heldEpoch: $0.epoch, newKey: candidate.key, epoch: epoch,
                                                                   vaultID: vaultID, domain: domain) }) {
                    key = candidate.key
                    verdict.followsRekey = true
                    break
                }
            }
            guard key != nil else {
                let newest = held.map(\.epoch).max() ?? 0
                if epoch > newest || !opened.isEmpty {
                    throw AcceptanceRefusal(.rekeyProof, domain: domain, path: headerPath,
                                            "epoch \(epoch) is not vouched for by a key this replica holds (epoch \(newest))")
                }
                throw AcceptanceRefusal(.headerAuthentic, domain: domain, path: headerPath, "the header's tag does not verify")
            }
        }
        guard let key, let authenticator = try? VaultAuthenticator(vaultKey: key), record.isAuthentic(under: authenticator) else {
            throw AcceptanceRefusal(.stateAuthentic, domain: domain, path: StateRecord.relativePath(domain: domain), "the state record's tag does not verify")
        }
        verdict.verified = true
        verdict.key = key
    }
}
