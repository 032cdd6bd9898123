// Merging `.tresor/scopes/<scope id>.json`: recipient slots by slot id, as the vault header's (Spec/MERGE.md §14.3).
import Foundation

/// The three-way merge of one scope header, for a merger that holds the scope key (Spec/FORMAT.md §3.12.6).
public enum ScopeMerge {
    /// Three-way merge of a scope header whose two sides are under the same scope key (a rekey of the scope on one side
    /// while the other changed it is not merged, Spec/MERGE.md §14.4). An unchanged side takes the
    /// other side's header. When both changed: recipient slots merge by slot id (a slot added on either side stays, a
    /// slot removed on a side while unchanged on the other is gone; of two kept slots with one name or public key the
    /// greater canonical bytes stay), the vault slot and unknown members by the same rule on their canonical bytes, of
    /// two different vault slots the greater; generation one more than the greater side's, no tag (the caller, who
    /// holds the scope key, authenticates it). A nil `base`: both sides made the scope (cannot happen with random ids).
    /// - Throws: `CoreError.malformed` when the sides are not the same scope (vault, scope id or folder differ).
    /// Spec/MERGE.md §14.3
    public static func mergeHeaders(base: ScopeHeader?, ours: ScopeHeader, theirs: ScopeHeader) throws -> (ScopeHeader, [MergeResolution]) {
        for other in [theirs] + (base.map { [$0] } ?? [])
        where !MergeOrder.same(other.vaultID, ours.vaultID) || other.scopeID != ours.scopeID || other.folder != ours.folder {
            throw CoreError.malformed("the scope header \(ScopeHeader.relativePath(scopeID: ours.scopeID)) names another scope or folder on the other side")
        }
        let o = ours.serialized(), t = theirs.serialized()
        if o == t { return (ours, []) }
        if let b = base?.serialized() {
            if b == o { return (theirs, []) }
            if b == t { return (ours, []) }
        }
        var merged = ours
        merged.generation = max(ours.generation, theirs.generation) + 1
        merged.auth = nil
        // Both sides hold the same key here (a merge across a rekey of the scope is `mergeAcrossRekey`): the same proof.
        merged.rekeyProof = theirs.rekeyProof ?? ours.rekeyProof

        func slots(_ h: ScopeHeader?) -> [String: [UInt8]] {
            Dictionary((h?.recipientSlots ?? []).map { ($0.id, $0.json.canonicalBytes()) }, uniquingKeysWith: { a, b in MergeOrder.compare(a, b) >= 0 ? a : b })
        }
        let bm = slots(base), om = slots(ours), tm = slots(theirs)
        let all = ours.recipientSlots + theirs.recipientSlots
        var chosen: [(RecipientSlot, [UInt8])] = []
        for id in MergeOrder.unionSorted(Array(om.keys) + Array(tm.keys)) {
            guard let bytes = VaultMerge.pick(base: bm[id], ours: om[id], theirs: tm[id]) else { continue }
            chosen.append((all.first { $0.json.canonicalBytes() == bytes }!, bytes))
        }
        merged.recipientSlots = []
        for (slot, _) in chosen.sorted(by: { MergeOrder.compare($0.1, $1.1) > 0 })
        where !merged.recipientSlots.contains(where: { $0.name == slot.name || $0.publicKey == slot.publicKey }) {
            merged.recipientSlots.append(slot)
        }
        merged.recipientSlots.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }

        let vaultSlots = [ours.vaultSlot, theirs.vaultSlot].compactMap { $0 }
        let pickedVault = VaultMerge.pick(base: base?.vaultSlot?.json.canonicalBytes(), ours: ours.vaultSlot?.json.canonicalBytes(),
                                          theirs: theirs.vaultSlot?.json.canonicalBytes())
        merged.vaultSlot = pickedVault.flatMap { bytes in vaultSlots.first { $0.json.canonicalBytes() == bytes } }

        func set(_ h: ScopeHeader?) -> [[UInt8]] { (h?.otherSlots ?? []).map { $0.canonicalBytes() } }
        let bo = set(base), oo = set(ours), to = set(theirs)
        var kept: [[UInt8]] = []
        for s in (oo + to).sorted(by: { $0.lexicographicallyPrecedes($1) }) where kept.last != s {
            if (oo.contains(s) && to.contains(s)) || !bo.contains(s) { kept.append(s) }
        }
        merged.otherSlots = kept.map { s in (ours.otherSlots + theirs.otherSlots).first { $0.canonicalBytes() == s }! }

        merged.unknownMembers = [:]
        for name in MergeOrder.unionSorted(Array(ours.unknownMembers.keys) + Array(theirs.unknownMembers.keys)
                                           + (base.map { Array($0.unknownMembers.keys) } ?? [])) {
            let value = VaultMerge.pick(base: base?.unknownMembers[name]?.canonicalBytes(), ours: ours.unknownMembers[name]?.canonicalBytes(),
                                        theirs: theirs.unknownMembers[name]?.canonicalBytes())
            if let value { merged.unknownMembers[name] = try? JSONValue.parse(value) }
        }
        guard !merged.recipientSlots.isEmpty || merged.vaultSlot != nil else {
            // Each side removed what the other kept: no slot would open the merged scope. Keep one side whole.
            let winner = MergeOrder.compare(o, t) > 0 ? ours : theirs
            return (winner, [resolution(ours, .headerConflict, "the scope header of \(ours.folder) was changed on both sides and merging its slots would leave none: kept one side's header whole")])
        }
        return (merged, [resolution(ours, .keySlotsMerged, "the scope header of \(ours.folder) was changed on both sides: the members of both were kept")])
    }

    static func resolution(_ h: ScopeHeader, _ kind: MergeResolution.Kind, _ description: String) -> MergeResolution {
        MergeResolution(entryID: h.scopeID, path: ScopeHeader.relativePath(scopeID: h.scopeID), kind: kind, description: description)
    }
}
