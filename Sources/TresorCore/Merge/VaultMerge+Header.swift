// Merging `.tresor/vault.json`: key slots by slot id, the rest member by member (Spec/MERGE.md §10).
import Foundation

extension VaultMerge {
    /// Three-way merge of the vault header. An unchanged side takes the other side's header. When both
    /// changed (two passphrase changes), key slots merge by slot id: a slot removed on either side is
    /// gone, a slot added on either side stays, so each side's new passphrase opens the vault (all
    /// slots wrap the same vault key). If no passphrase slot would remain, the header with the greater
    /// serialized bytes is kept. A nil `base` merges against an empty header. A merged header that is
    /// neither side's is of the newer version and, for version 2, of generation max(ours, theirs) + 1 with
    /// no tag: the caller, who holds the vault key, authenticates it.
    /// - Throws: `CoreError.differentVault` if the headers name different vault ids.
    /// Spec/MERGE.md §10
    public static func mergeHeaders(base: VaultHeader?, ours: VaultHeader, theirs: VaultHeader) throws -> (VaultHeader, [MergeResolution]) {
        for other in [theirs.vaultID] + (base.map { [$0.vaultID] } ?? []) where !MergeOrder.same(other, ours.vaultID) {
            throw CoreError.differentVault(ours: ours.vaultID, theirs: other)
        }
        let o = ours.serialized(), t = theirs.serialized()
        if o == t { return (ours, []) }
        if let b = base?.serialized() {
            if b == o { return (theirs, []) }
            if b == t { return (ours, []) }
        }
        let version = max(ours.version, theirs.version)
        var merged = VaultHeader(version: version, vaultID: ours.vaultID, keySlots: [], otherSlots: [], unknownMembers: [:],
                                 generation: version >= 2 ? max(ours.version >= 2 ? ours.generation : 0, theirs.version >= 2 ? theirs.generation : 0) + 1 : 1)

        // Both sides hold the same key here (a merge across a rekey is `mergeAcrossRekey`): the same proof.
        merged.rekeyProof = theirs.rekeyProof ?? ours.rekeyProof

        func slots(_ h: VaultHeader?) -> [String: [UInt8]] {
            Dictionary((h?.keySlots ?? []).map { ($0.id, $0.json.canonicalBytes()) }, uniquingKeysWith: { a, b in MergeOrder.compare(a, b) >= 0 ? a : b })
        }
        let bs = slots(base), os = slots(ours), ts = slots(theirs)
        let all = (ours.keySlots + theirs.keySlots)
        for id in MergeOrder.unionSorted(Array(os.keys) + Array(ts.keys)) {
            guard let bytes = pick(base: bs[id], ours: os[id], theirs: ts[id]) else { continue }
            merged.keySlots.append(all.first { $0.json.canonicalBytes() == bytes }!)
        }

        // Recipient slots (version 3) merge the same way, by slot id; a name or public key taken twice keeps
        // the slot with the greater bytes.
        func members(_ h: VaultHeader?) -> [String: [UInt8]] {
            Dictionary((h?.recipientSlots ?? []).map { ($0.id, $0.json.canonicalBytes()) }, uniquingKeysWith: { a, b in MergeOrder.compare(a, b) >= 0 ? a : b })
        }
        let bm = members(base), om = members(ours), tm = members(theirs)
        let allMembers = ours.recipientSlots + theirs.recipientSlots
        var chosen: [(RecipientSlot, [UInt8])] = []
        for id in MergeOrder.unionSorted(Array(om.keys) + Array(tm.keys)) {
            guard let bytes = pick(base: bm[id], ours: om[id], theirs: tm[id]) else { continue }
            chosen.append((allMembers.first { $0.json.canonicalBytes() == bytes }!, bytes))
        }
        for (slot, bytes) in chosen.sorted(by: { MergeOrder.compare($0.1, $1.1) > 0 })
        where !merged.recipientSlots.contains(where: { $0.name == slot.name || $0.publicKey == slot.publicKey }) {
            merged.recipientSlots.append(slot)
        }
        merged.recipientSlots.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }

        // Slots of unknown types have no id: each distinct slot is kept unless a side removed it.
        func set(_ h: VaultHeader?) -> [[UInt8]] { (h?.otherSlots ?? []).map { $0.canonicalBytes() } }
        let bo = set(base), oo = set(ours), to = set(theirs)
        var kept: [[UInt8]] = []
        for s in (oo + to).sorted(by: { $0.lexicographicallyPrecedes($1) }) where kept.last != s {
            if (oo.contains(s) && to.contains(s)) || !bo.contains(s) { kept.append(s) }
        }
        merged.otherSlots = kept.map { s in (ours.otherSlots + theirs.otherSlots).first { $0.canonicalBytes() == s }! }

        for name in MergeOrder.unionSorted(Array(ours.unknownMembers.keys) + Array(theirs.unknownMembers.keys)
                                           + (base.map { Array($0.unknownMembers.keys) } ?? [])) {
            let value = pick(base: base?.unknownMembers[name]?.canonicalBytes(), ours: ours.unknownMembers[name]?.canonicalBytes(),
                             theirs: theirs.unknownMembers[name]?.canonicalBytes())
            if let value { merged.unknownMembers[name] = try? JSONValue.parse(value) }
        }

        // Scopes (version 4) by scope id, each folder by the same rule: a scope made on either side stays, a scope
        // removed on one side while unchanged on the other is gone. Folders made on both sides must not nest.
        for id in MergeOrder.unionSorted(Array(ours.scopes.keys) + Array(theirs.scopes.keys)) {
            let folder = pick(base: base?.scopes[id].map { Array($0.utf8) }, ours: ours.scopes[id].map { Array($0.utf8) },
                              theirs: theirs.scopes[id].map { Array($0.utf8) })
            if let folder { merged.scopes[id] = String(decoding: folder, as: UTF8.self) }
        }
        try VaultHeader.checkScopes(merged.scopes)

        let path = VaultHeader.relativePath
        guard merged.keySlots.isEmpty else {
            return (merged, [MergeResolution(
                entryID: ours.vaultID, path: path, kind: .keySlotsMerged,
                description: "the vault header was changed on both sides (passphrase changed on both?): the key slots of both are kept, so each side's passphrase opens the vault")])
        }
        let winner = MergeOrder.compare(o, t) > 0 ? ours : theirs
        return (winner, [MergeResolution(
            entryID: ours.vaultID, path: path, kind: .headerConflict,
            description: "the vault header was changed on both sides and merging its key slots would leave none: kept one side's header whole; the other side's passphrase no longer opens the vault")])
    }

    /// Merges a header of the previous vault key (`ours`, changed or not since `base`) into `theirs`, a rekeyed
    /// header of `newKey` (Spec/MERGE.md §10.1): theirs is kept, with every recipient slot `ours` added since the
    /// base sealed again to the new key (a member added concurrently with the rekey stays a member); passphrase
    /// slots of `ours` wrap the old key and are dropped (the rekey's passphrase slot decides). Returns `theirs`
    /// unchanged when there is nothing to add, else its next generation for the caller to authenticate.
    /// - Throws: `CoreError.differentVault`, `CryptoError`.
    public static func mergeAcrossRekey(base: VaultHeader?, ours: VaultHeader, theirs: VaultHeader, newKey: SecretBytes) throws -> (VaultHeader, [MergeResolution]) {
        guard MergeOrder.same(ours.vaultID, theirs.vaultID) else { throw CoreError.differentVault(ours: ours.vaultID, theirs: theirs.vaultID) }
        let baseIDs = Set((base?.recipientSlots ?? []).map(\.id))
        var merged = theirs
        var added: [String] = []
        // A member the old side removed since the base (both sides rekeyed) is removed here too; the caller
        // rekeys again, since the new key was sealed to it.
        let removedByOurs = baseIDs.subtracting(ours.recipientSlots.map(\.id))
        let before = merged.recipientSlots.count
        merged.recipientSlots.removeAll { removedByOurs.contains($0.id) }
        if merged.recipientSlots.count != before { added.append("(removal)") }
        for slot in ours.recipientSlots where !baseIDs.contains(slot.id)
            && !merged.recipientSlots.contains(where: { $0.id == slot.id || $0.name == slot.name || $0.publicKey == slot.publicKey }) {
            merged.recipientSlots.append(try RecipientSlot.seal(newKey, to: slot.publicKey, name: slot.name, vaultID: theirs.vaultID, id: slot.id))
            added.append(slot.name)
        }
        guard !added.isEmpty else { return (theirs, []) }
        merged.generation = max(ours.generation, theirs.generation) + 1
        merged.auth = nil
        return (merged, [MergeResolution(
            entryID: ours.vaultID, path: VaultHeader.relativePath, kind: .keySlotsMerged,
            description: "the vault was rekeyed on one side while members were added on the other: the new members' slots were sealed to the new key")])
    }

    /// The three-way rule on byte strings shared by slots and members: unchanged on one side takes the
    /// other; a change beats a removal; two different changes keep the greater bytes.
    static func pick(base: [UInt8]?, ours: [UInt8]?, theirs: [UInt8]?) -> [UInt8]? {
        if ours == theirs { return ours }
        if ours == base { return theirs }
        if theirs == base { return ours }
        guard let ours, let theirs else { return ours ?? theirs }
        return MergeOrder.compare(ours, theirs) > 0 ? ours : theirs
    }
}
