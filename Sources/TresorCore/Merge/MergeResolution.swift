// What a join decided on its own: one record per automatic resolution, safe to print (Spec/MERGE.md §9).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One automatic decision of a merge. Never holds a field value: `description` names the entry, the
/// field, and the origins and times of the writes involved, so it can be shown and logged.
/// Spec/MERGE.md §9
public struct MergeResolution: Equatable, Sendable {
    /// What was decided, and where the losing side went.
    public enum Kind: Hashable, Sendable {
        /// Both sides changed a field to different values; the winner is current, the loser is in the
        /// entry's history with reason `merge`.
        case fieldConflict
        /// One side deleted a field, the other changed it; the change is current.
        case fieldDeleteKeptEdit
        /// One side deleted the entry after seeing part of it, the other changed it meanwhile; the entry is kept as the
        /// changing side has it (Spec/MERGE.md §4.2).
        case editDeleteKeptEdit
        /// Both sides moved the entry to different paths; the entry is at the winner's path and the
        /// losing path is only reported here.
        case renameConflict(losingPath: String)
        /// Two entries ended at the same path (added on both sides, or moved there); this one was moved
        /// to `newPath`.
        case pathCollisionRenamed(newPath: String)
        /// Both sides changed a payload member this version does not know; the greater value was kept,
        /// the other is only in git history.
        case unknownMemberConflict
        /// Both sides changed the vault header; key slots were merged by slot id, so each side's
        /// passphrase opens the vault.
        case keySlotsMerged
        /// Both sides changed the vault header and merging slots would leave none; the header with the
        /// greater bytes was kept.
        case headerConflict
        /// A passphrase slot added on the side of an older key epoch: it wraps the key before the rekey and was
        /// dropped, so that passphrase does not open the vault (Spec/MERGE.md §8 step 3).
        case passphraseSlotDropped

        /// Stable name used by Spec/vectors/merge.
        public var name: String {
            switch self {
            case .fieldConflict: return "field-conflict"
            case .fieldDeleteKeptEdit: return "field-delete-kept-edit"
            case .editDeleteKeptEdit: return "edit-delete-kept-edit"
            case .renameConflict: return "rename-conflict"
            case .pathCollisionRenamed: return "path-collision-renamed"
            case .unknownMemberConflict: return "unknown-member-conflict"
            case .keySlotsMerged: return "key-slots-merged"
            case .headerConflict: return "header-conflict"
            case .passphraseSlotDropped: return "passphrase-slot-dropped"
            }
        }
    }

    /// The entry id (the vault id for header resolutions).
    public var entryID: String
    /// The entry's path once its versions were merged, before a path collision moved it: the winning path
    /// of a rename conflict, the colliding path of a collision (`.tresor/vault.json` for the header).
    public var path: String
    /// The field or payload member concerned, nil for whole-entry and header decisions.
    public var field: String?
    public var kind: Kind
    /// Origin of the winning write (field decisions only).
    public var winnerOrigin: String?
    /// `modified` of the winning write, or of the winning entry for a rename conflict.
    public var winnerModified: Timestamp?
    /// Origin of the losing write (field conflicts only).
    public var loserOrigin: String?
    /// `modified` of the losing write, or of the losing entry for a rename conflict.
    public var loserModified: Timestamp?
    /// One human sentence without any field value.
    public var description: String

    /// The losing path of a `rename-conflict` (reported only, not stored), nil for other kinds.
    public var losingPath: String? {
        if case .renameConflict(let p) = kind { return p }
        return nil
    }

    /// Where a `path-collision-renamed` moved the entry, nil for other kinds.
    public var newPath: String? {
        if case .pathCollisionRenamed(let p) = kind { return p }
        return nil
    }

    /// The record as Spec/MERGE.md §9 names its members, every member present (null where it does not apply).
    public var json: JSONValue {
        func string(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func time(_ t: Timestamp?) -> JSONValue { t.map { .string($0.description) } ?? .null }
        return .object([
            "entryID": .string(entryID), "path": .string(path), "field": string(field), "kind": .string(kind.name),
            "losingPath": string(losingPath), "newPath": string(newPath),
            "winnerOrigin": string(winnerOrigin), "winnerModified": time(winnerModified),
            "loserOrigin": string(loserOrigin), "loserModified": time(loserModified),
            "description": .string(description),
        ])
    }

    public init(entryID: String, path: String, field: String? = nil, kind: Kind,
                winnerOrigin: String? = nil, winnerModified: Timestamp? = nil,
                loserOrigin: String? = nil, loserModified: Timestamp? = nil, description: String) {
        self.entryID = entryID; self.path = path; self.field = field; self.kind = kind
        self.winnerOrigin = winnerOrigin; self.winnerModified = winnerModified
        self.loserOrigin = loserOrigin; self.loserModified = loserModified; self.description = description
    }
}
