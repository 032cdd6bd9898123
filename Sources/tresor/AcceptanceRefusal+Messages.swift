// The words for a refusal of the acceptance rule (Spec/AUTH.md §5.2): what the rule found, where, and the way out.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

extension AcceptanceRefusal {
    /// What the rule found, for people: the rule's name, where, and what (Spec/AUTH.md §5.2).
    var message: String {
        let place = path.map { " (\(Output.quoted($0)))" } ?? ""
        let what: String
        switch rule {
        case .treeShape: what = "its tree is not one a vault has"
        case .foreignFile: what = "it holds a file no key governs"
        case .vaultHeader: what = "its vault header does not parse"
        case .differentVault: what = "it is another vault"
        case .formatVersion: what = "it is of another format version"
        case .domainListing: what = "its scopes, scope headers and state records do not agree"
        case .stateRecord: what = "a state record does not parse or names another domain"
        case .stateFiles: what = "files were changed, added or removed without their key"
        case .epochReplaced: what = "it was written under a key that has been replaced (after a member was removed, or a rekey)"
        case .rekeyProof: what = "it is under a new key that no key this replica holds vouches for"
        case .headerAuthentic: what = "a header was changed by someone without its key"
        case .stateAuthentic: what = "a state was written by someone without its key"
        }
        return what + place + " [\(rule.rawValue): \(finding.text)]"
    }

    /// The way out, after "nothing was taken".
    func hint(remote: String) -> String {
        switch rule {
        case .differentVault: return " Check the remote's URL ('tresor remote list')"
        case .formatVersion: return " An older or newer tresor wrote it; 'tresor upgrade' converts older vaults"
        case .rekeyProof:
            // Most often a member removed from that scope or vault; telling it to repair would push its stale state.
            return " If your passphrase or identity opens none of that header's key slots, you were removed from it: ask a member to add you again."
                + " Otherwise it was made without a key you hold; if you own this vault, 'tresor sync --repair-remote' joins what is authentic there and puts the result back on \(Output.quoted(remote))"
        default: return " If you own this vault, 'tresor sync --repair-remote' joins what is authentic there and puts the result back on \(Output.quoted(remote))"
        }
    }
}

extension AcceptanceRefusal.Finding {
    /// What the rule found, in a few words (inside the refusal's brackets).
    var text: String {
        let q = Output.quoted
        switch self {
        case .nameGitRefuses(let folder?): return "a name git refuses (\(q(folder)))"
        case .nameGitRefuses(nil): return "a name git refuses"
        case .nameOutOfOrder: return "a name twice or out of git's order"
        case .fileTooLarge(let limit): return "a file larger than \(limit) bytes"
        case .tooManyFiles(let limit): return "more than \(limit) files"
        case .foldersTooDeep(let limit?): return "folders more than \(limit) deep"
        case .foldersTooDeep(nil): return "folders too deep"
        case .symbolicLink: return "a symbolic link"
        case .executable: return "an executable file"
        case .submodule: return "a submodule"
        case .mode(let mode): return "mode \(String(mode, radix: 8))"
        case .notABlob: return "a file that is not a blob"
        case .damagedTree: return "a damaged tree"
        case .fileNoDomainGoverns: return "a file no domain governs"
        case .folderNoDomainGoverns: return "a folder no domain governs"
        case .folderNoEntryPathCanHave: return "a folder no entry path can have"
        case .noVaultHeader: return "the tip has no vault header"
        case .unparsable(let e): return e.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? e.kind
        case .otherVault(let id): return "vault \(id)"
        case .formatVersion(let v): return "format version \(v)"
        case .noVaultStateRecord: return "the vault domain has no state record"
        case .scopeWithoutHeader: return "the vault header lists a scope without its header"
        case .scopeHeaderMisplaced: return "the scope header names another vault, scope or folder"
        case .noScopeStateRecord: return "the scope has no state record"
        case .unlistedDomain: return "a file of a domain the vault header does not list"
        case .recordNamesAnother: return "the record names another vault, domain or epoch"
        case .objectIDDoesNotParse: return "an object id does not parse"
        case .filesDiffer: return "the domain's files are not the files its state record names"
        case .epochReplaced(let epoch, let published): return "epoch \(epoch), while epoch \(published) has been published"
        case .rekeyNotVouched(let epoch, let held): return "epoch \(epoch) is not vouched for by a key this replica holds (epoch \(held))"
        case .headerTag: return "the header's tag does not verify"
        case .stateTag: return "the state record's tag does not verify"
        case .mergeMadeWithGit: return "a merge made with git"
        case .mergeOnCommitsNotTakenIn: return "a merge made with git on top of commits not taken in yet"
        case .commitsOnUnacceptedState: return "commits made with git on top of a state tresor did not accept"
        case .commitsOnMergeNotTakenIn: return "commits made with git on top of a merge not taken in yet"
        case .commitsNotOnAcceptedState: return "commits made with git that do not build on the state last accepted"
        }
    }
}
