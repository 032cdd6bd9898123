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
    /// What was found (no secret).
    public var finding: Finding
    /// `rule` refused the tip at `path` (of `domain`) for `finding`.
    public init(_ rule: AcceptanceRule, domain: String? = nil, path: String? = nil, _ finding: Finding) {
        self.rule = rule; self.domain = domain; self.path = path; self.finding = finding
    }

    /// What a rule found, as data; the front end words it.
    public enum Finding: Equatable, Sendable {
        // tree-shape and foreign-file
        /// A name git refuses or hides (empty, `.`, `..`, `.git` in any case, with `/` or NUL); `folder` when it is
        /// the name of a folder the refused file is in.
        case nameGitRefuses(folder: String?)
        /// A name twice in one folder, or names out of git's order.
        case nameOutOfOrder
        /// A file larger than `limit` bytes.
        case fileTooLarge(limit: Int)
        /// More than `limit` files.
        case tooManyFiles(limit: Int)
        /// Folders more than `limit` deep (nil: deeper than an entry path can be).
        case foldersTooDeep(limit: Int?)
        /// A symbolic link.
        case symbolicLink
        /// An executable file.
        case executable
        /// A submodule.
        case submodule
        /// A mode git does not write for files or folders.
        case mode(UInt32)
        /// A file that is not a blob.
        case notABlob
        /// A tree object that does not parse.
        case damagedTree
        /// A file no domain governs.
        case fileNoDomainGoverns
        /// A folder no domain governs.
        case folderNoDomainGoverns
        /// A folder name no entry path can have.
        case folderNoEntryPathCanHave
        // vault-header, different-vault, format-version
        /// The tip has no vault header.
        case noVaultHeader
        /// The file does not parse (the vault header, a scope header, a state record).
        case unparsable(CoreError)
        /// The vault header names the vault with this id.
        case otherVault(String)
        /// The vault header (or a scope header) has this format version.
        case formatVersion(Int)
        // domain-listing
        /// The vault domain has no state record.
        case noVaultStateRecord
        /// The vault header lists a scope without its header.
        case scopeWithoutHeader
        /// The scope header names another vault, scope or folder.
        case scopeHeaderMisplaced
        /// The scope has no state record.
        case noScopeStateRecord
        /// A file of a domain the vault header does not list.
        case unlistedDomain
        // state-record, state-files
        /// The state record names another vault, domain or epoch.
        case recordNamesAnother
        /// An object id of the domain's tree does not parse.
        case objectIDDoesNotParse
        /// The domain's files are not the files its state record names.
        case filesDiffer
        // epoch-replaced, rekey-proof, header-authentic, state-authentic
        /// The domain is at `epoch` while `published` has been published.
        case epochReplaced(epoch: UInt64, published: UInt64)
        /// `epoch` is not vouched for by a key this replica holds (its newest: `held`).
        case rekeyNotVouched(epoch: UInt64, held: UInt64)
        /// The header's tag does not verify.
        case headerTag
        /// The state record's tag does not verify.
        case stateTag
        // what plain git brought (Spec/MERGE.md §12)
        /// A merge made with git, fetched.
        case mergeMadeWithGit
        /// A merge made with git on top of commits not taken in yet.
        case mergeOnCommitsNotTakenIn
        /// Commits made with git on top of a state tresor did not accept.
        case commitsOnUnacceptedState
        /// Commits made with git on top of a merge not taken in yet.
        case commitsOnMergeNotTakenIn
        /// Commits made with git that do not build on the state last accepted.
        case commitsNotOnAcceptedState
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
            throw AcceptanceRefusal(.vaultHeader, path: VaultHeader.relativePath, .noVaultHeader)
        }
        let header: VaultHeader
        do { header = try VaultHeader.parse(headerBytes) } catch let e as CoreError {
            if case .unsupportedVersion(let v) = e { throw AcceptanceRefusal(.formatVersion, path: VaultHeader.relativePath, .formatVersion(v)) }
            throw AcceptanceRefusal(.vaultHeader, path: VaultHeader.relativePath, .unparsable(e))
        }
        guard MergeOrder.same(header.vaultID, vaultID) else {
            throw AcceptanceRefusal(.differentVault, path: VaultHeader.relativePath, .otherVault(header.vaultID))
        }
        guard header.version == FormatVersion.header else {
            throw AcceptanceRefusal(.formatVersion, path: VaultHeader.relativePath, .formatVersion(header.version))
        }
        let scopeHeaders = try listing(tip, header)
        var verdicts: [String: DomainVerdict] = [:]
        for domain in [Domain.vault] + header.scopes.keys.sorted() {
            let domainEpoch = domain == Domain.vault ? header.epoch : scopeHeaders[domain]!.epoch
            let path = StateRecord.relativePath(domain: domain)
            // state-record
            let record: StateRecord
            do { record = try StateRecord.parse(tip.smallFiles[path] ?? []) } catch let e as CoreError {
                throw AcceptanceRefusal(.stateRecord, domain: domain, path: path, .unparsable(e))
            }
            guard MergeOrder.same(record.vaultID, vaultID), record.domain == domain, record.epoch == domainEpoch else {
                throw AcceptanceRefusal(.stateRecord, domain: domain, path: path, .recordNamesAnother)
            }
            // state-files
            let tree: String
            do { tree = try DomainTree.id(domain: domain, scopes: header.scopes, source: tip) } catch {
                throw AcceptanceRefusal(.stateFiles, domain: domain, path: path, .objectIDDoesNotParse)
            }
            guard tree == record.tree else {
                throw AcceptanceRefusal(.stateFiles, domain: domain, path: path, .filesDiffer)
            }
            // epoch-replaced
            let headerPath = domain == Domain.vault ? VaultHeader.relativePath : ScopeHeader.relativePath(scopeID: domain)
            if let published = trust.published[domain], domainEpoch < published {
                throw AcceptanceRefusal(.epochReplaced, domain: domain, path: headerPath,
                                        .epochReplaced(epoch: domainEpoch, published: published))
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
        func refuse(_ domain: String?, _ path: String, _ finding: AcceptanceRefusal.Finding) -> AcceptanceRefusal {
            AcceptanceRefusal(.domainListing, domain: domain, path: path, finding)
        }
        let vaultState = StateRecord.relativePath(domain: Domain.vault)
        guard tip.smallFiles[vaultState] != nil else { throw refuse(Domain.vault, vaultState, .noVaultStateRecord) }
        var scopes: [String: ScopeHeader] = [:]
        var expected: Set<String> = [VaultHeader.relativePath, vaultState]
        for id in header.scopes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let bytes = tip.smallFiles[path] else { throw refuse(id, path, .scopeWithoutHeader) }
            let s: ScopeHeader
            do { s = try ScopeHeader.parse(bytes) } catch let e as CoreError { throw refuse(id, path, .unparsable(e)) }
            guard s.version == FormatVersion.scopeHeader else { throw refuse(id, path, .formatVersion(s.version)) }
            do { try s.checkPlace(in: header, path: path) } catch { throw refuse(id, path, .scopeHeaderMisplaced) }
            scopes[id] = s
            let state = StateRecord.relativePath(domain: id)
            guard tip.smallFiles[state] != nil else { throw refuse(id, state, .noScopeStateRecord) }
            expected.formUnion([path, state])
        }
        for path in tip.smallFiles.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !expected.contains(path) {
            // A scope the vault header does not list is no domain of the tip: the refusal names the file only.
            throw refuse(nil, path, .unlistedDomain)
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
                    throw AcceptanceRefusal(.rekeyProof, domain: domain, path: headerPath, .rekeyNotVouched(epoch: epoch, held: newest))
                }
                throw AcceptanceRefusal(.headerAuthentic, domain: domain, path: headerPath, .headerTag)
            }
        }
        guard let key, let authenticator = try? VaultAuthenticator(vaultKey: key), record.isAuthentic(under: authenticator) else {
            throw AcceptanceRefusal(.stateAuthentic, domain: domain, path: StateRecord.relativePath(domain: domain), .stateTag)
        }
        verdict.verified = true
        verdict.key = key
    }
}
