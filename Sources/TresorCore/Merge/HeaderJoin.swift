// The join of two vault headers or two scope headers by their clocks: slots and scopes by id, the newer epoch's key (Spec/MERGE.md §8).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Joins version 5 vault headers and version 2 scope headers. Pure but for `reseal`, which the caller gives to seal a
/// slot of the older epoch again to the result's key.
package enum HeaderJoin {
    /// Which side's key the joined header is under when the two sides are under different keys (a rekey on one side,
    /// or on both), Spec/MERGE.md §8 step 2; nil when both are under the same key.
    package enum KeySide: Sendable { case a, b }

    /// Joins two vault headers (Spec/MERGE.md §8). `keySide` names the side whose key the result is under when the keys
    /// differ; `reseal` seals a recipient slot of the other side to that key (same id, name, key and dot). The result has
    /// no tag: the caller authenticates it.
    /// - Throws: `CoreError.differentVault`, `.malformed` for folders that would nest, and what `reseal` throws.
    package static func join(_ a: VaultHeader, _ b: VaultHeader, keySide: KeySide?,
                            reseal: (RecipientSlot) throws -> RecipientSlot) throws -> (VaultHeader, [MergeResolution]) {
        guard MergeOrder.same(a.vaultID, b.vaultID) else { throw CoreError.differentVault(ours: a.vaultID, theirs: b.vaultID) }
        if a.serialized() == b.serialized() { return (a, []) }
        let (base, other) = keySide == .b ? (b, a) : (a, b)
        let otherIsOld = keySide != nil
        var out = base
        out.auth = nil
        out.clock = a.clock.joined(b.clock)
        var resolutions: [MergeResolution] = []
        let path = VaultHeader.relativePath

        // Passphrase slots by id; one of an older key's side is dropped (it wraps the key before the rekey).
        var dropped: [String] = []
        out.keySlots = try live(base.keySlots, other.keySlots, id: \.id, dot: { $0.dot }, json: \.json, base.clock, other.clock, otherIsOld: otherIsOld)
            .compactMap { slot, fromOther in
                if fromOther && otherIsOld { dropped.append(slot.id); return nil }
                return slot
            }
        // Recipient slots by id, then one per name and public key (the greater canonical bytes); the older key's side
        // sealed again to the result's key.
        var members: [(RecipientSlot, Bool)] = []
        for (slot, fromOther) in try live(base.recipientSlots, other.recipientSlots, id: \.id, dot: { $0.dot }, json: \.json, base.clock, other.clock, otherIsOld: otherIsOld)
            .sorted(by: { MergeOrder.compare($0.0.json.canonicalBytes(), $1.0.json.canonicalBytes()) > 0 })
        where !members.contains(where: { $0.0.name == slot.name || $0.0.publicKey == slot.publicKey }) {
            members.append((slot, fromOther))
        }
        out.recipientSlots = try members.map { slot, fromOther in fromOther && otherIsOld ? try reseal(slot) : slot }
        // Slots of unknown types: those of either side under the result's key; an older key's side's are dropped.
        out.otherSlots = unknownSlots(base.otherSlots, otherIsOld ? [] : other.otherSlots)
        let joinedScopes = scopes(a, b)
        try VaultHeader.checkScopes(joinedScopes.scopes)
        out.scopes = joinedScopes.scopes
        out.scopeDots = joinedScopes.dots
        out.unknownMembers = unknownMembers(a.unknownMembers, b.unknownMembers)
        // One key, two proofs that both verify (Spec/MERGE.md §8 step 5): the greater canonical bytes, whatever the order.
        if keySide == nil, let x = a.rekeyChain, let y = b.rekeyChain {
            out.rekeyChain = MergeOrder.compare(x.json.canonicalBytes(), y.json.canonicalBytes()) >= 0 ? x : y
        }

        if out.keySlots.isEmpty {
            let winner = MergeOrder.compare(a.serialized(), b.serialized()) > 0 ? a : b
            return (winner, [MergeResolution(entryID: a.vaultID, path: path, kind: .headerConflict,
                description: "joining the vault headers of both sides would leave no passphrase key slot: kept one side's header whole; the other side's passphrase no longer opens the vault")])
        }
        // Records in the order of Spec/MERGE.md §9: key-slots-merged, the dropped passphrase slots, unknown members.
        func ids(_ h: VaultHeader) -> [String] { (h.keySlots.map(\.id) + h.recipientSlots.map(\.id)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        if ids(out) != ids(a) && ids(out) != ids(b) {
            resolutions.append(MergeResolution(entryID: a.vaultID, path: path, kind: .keySlotsMerged,
                description: "the vault header was changed on both sides: the key slots of both are kept, so each side's passphrase and members open the vault"))
        }
        for _ in dropped.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            resolutions.append(MergeResolution(entryID: a.vaultID, path: path, kind: .passphraseSlotDropped,
                description: "a passphrase set on one side before it learned of the other side's new vault key no longer opens the vault"))
        }
        for name in Set(a.unknownMembers.keys).intersection(b.unknownMembers.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        where !MergeOrder.same(a.unknownMembers[name], b.unknownMembers[name]) {
            resolutions.append(MergeResolution(entryID: a.vaultID, path: path, field: name, kind: .unknownMemberConflict,
                description: "header member \"\(name)\" differs on the two sides: kept the greater value"))
        }
        return (out, resolutions)
    }

    /// Joins two scope headers of one scope (Spec/MERGE.md §8). `rewrap` wraps the result's scope key in a vault slot
    /// again when the kept vault slot came from the older key's side; `reseal` as for vault headers.
    /// - Throws: `CoreError.malformed` when the sides are not the same scope, and what the closures throw.
    package static func join(_ a: ScopeHeader, _ b: ScopeHeader, keySide: KeySide?, reseal: (RecipientSlot) throws -> RecipientSlot,
                            rewrap: (ScopeVaultSlot) throws -> ScopeVaultSlot) throws -> (ScopeHeader, [MergeResolution]) {
        guard MergeOrder.same(a.vaultID, b.vaultID), a.scopeID == b.scopeID, MergeOrder.same(a.folder, b.folder) else {
            throw CoreError.malformed(.mismatch(.scopeDiffers(path: ScopeHeader.relativePath(scopeID: a.scopeID))))
        }
        if a.serialized() == b.serialized() { return (a, []) }
        let (base, other) = keySide == .b ? (b, a) : (a, b)
        let otherIsOld = keySide != nil
        var out = base
        out.auth = nil
        out.clock = a.clock.joined(b.clock)
        var members: [(RecipientSlot, Bool)] = []
        for (slot, fromOther) in try live(base.recipientSlots, other.recipientSlots, id: \.id, dot: { $0.dot }, json: \.json, base.clock, other.clock, otherIsOld: otherIsOld)
            .sorted(by: { MergeOrder.compare($0.0.json.canonicalBytes(), $1.0.json.canonicalBytes()) > 0 })
        where !members.contains(where: { $0.0.name == slot.name || $0.0.publicKey == slot.publicKey }) {
            members.append((slot, fromOther))
        }
        out.recipientSlots = try members.map { slot, fromOther in fromOther && otherIsOld ? try reseal(slot) : slot }
        let vault = try live(base.vaultSlot.map { [$0] } ?? [], other.vaultSlot.map { [$0] } ?? [], id: { _ in "vault" }, dot: { $0.dot },
                             json: \.json, base.clock, other.clock, otherIsOld: otherIsOld).first
        out.vaultSlot = try vault.map { slot, fromOther in fromOther && otherIsOld ? try rewrap(slot) : slot }
        out.otherSlots = unknownSlots(base.otherSlots, otherIsOld ? [] : other.otherSlots)
        out.unknownMembers = unknownMembers(a.unknownMembers, b.unknownMembers)
        let path = ScopeHeader.relativePath(scopeID: a.scopeID)
        guard !out.recipientSlots.isEmpty || out.vaultSlot != nil else {
            let winner = MergeOrder.compare(a.serialized(), b.serialized()) > 0 ? a : b
            return (winner, [MergeResolution(entryID: a.scopeID, path: path, kind: .headerConflict,
                description: "joining the scope header of \(a.folder) would leave no slot: kept one side's header whole")])
        }
        if keySide == nil, let x = a.rekeyChain, let y = b.rekeyChain {
            out.rekeyChain = MergeOrder.compare(x.json.canonicalBytes(), y.json.canonicalBytes()) >= 0 ? x : y
        }
        func ids(_ h: ScopeHeader) -> [String] { h.recipientSlots.map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        var records: [MergeResolution] = []
        if ids(out) != ids(a) && ids(out) != ids(b) {
            records.append(MergeResolution(entryID: a.scopeID, path: path, kind: .keySlotsMerged,
                description: "the scope header of \(a.folder) was changed on both sides: the members of both were kept"))
        }
        for name in Set(a.unknownMembers.keys).intersection(b.unknownMembers.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        where !MergeOrder.same(a.unknownMembers[name], b.unknownMembers[name]) {
            records.append(MergeResolution(entryID: a.scopeID, path: path, field: name, kind: .unknownMemberConflict,
                description: "header member \"\(name)\" differs on the two sides: kept the greater value"))
        }
        return (out, records)
    }

    /// The live elements of two lists by id (Spec/MERGE.md §5.1 on slots): an element whose dot the other side's clock
    /// covers and which the other side does not have is gone; of two live elements with one id, the greater canonical
    /// bytes. Two elements with one id and one dot are one write (a slot sealed or wrapped again to a newer key keeps its
    /// dot, §8 step 3): `mine`'s when `mine` is the side of the result's key (`otherIsOld`), else the greater canonical
    /// bytes. Each result says whether it came from `other`. Sorted by id bytes.
    static func live<T>(_ mine: [T], _ other: [T], id: (T) -> String, dot: (T) -> Dot?, json: (T) -> JSONValue,
                        _ mineClock: Clock, _ otherClock: Clock, otherIsOld: Bool) throws -> [(T, Bool)] {
        let m = Dictionary(mine.map { (id($0), $0) }, uniquingKeysWith: { a, _ in a })
        let o = Dictionary(other.map { (id($0), $0) }, uniquingKeysWith: { a, _ in a })
        var out: [(T, Bool)] = []
        for key in MergeOrder.unionSorted(Array(m.keys) + Array(o.keys)) {
            let x = m[key], y = o[key]
            if let x, let y, json(x).canonicalBytes() == json(y).canonicalBytes() { out.append((x, false)); continue }
            if let x, let y, let dx = dot(x), dot(y) == dx {
                let yGreater = MergeOrder.compare(json(y).canonicalBytes(), json(x).canonicalBytes()) > 0
                out.append(!otherIsOld && yGreater ? (y, true) : (x, false))
                continue
            }
            var candidates: [(T, Bool)] = []
            if let x, !(dot(x).map(otherClock.covers) ?? false) { candidates.append((x, false)) }
            if let y, !(dot(y).map(mineClock.covers) ?? false) { candidates.append((y, true)) }
            if let best = candidates.max(by: { MergeOrder.compare(json($0.0).canonicalBytes(), json($1.0).canonicalBytes()) < 0 }) { out.append(best) }
        }
        return out
    }

    /// The scopes of the join of two vault headers (Spec/MERGE.md §8 step 4): by scope id, each `{folder, dot}` a
    /// register (§5.1); then, of scopes whose folders nest (made concurrently: the same folder, or one inside another),
    /// the one with the greater dot stays (then the greater folder, then id, bytewise) and the others are left out —
    /// their entries lie, by path, in the domain that stays. `folded` maps each scope left out to the scope that stays at
    /// the same folder (its members join that scope, §4.5).
    package static func scopes(_ a: VaultHeader, _ b: VaultHeader) -> (scopes: [String: String], dots: [String: Dot], folded: [String: String]) {
        var live: [String: (String, Dot?)] = [:]
        for id in MergeOrder.unionSorted(Array(a.scopes.keys) + Array(b.scopes.keys)) {
            let x = a.scopes[id].map { ($0, a.scopeDots[id]) }, y = b.scopes[id].map { ($0, b.scopeDots[id]) }
            var candidates: [(String, Dot?)] = []
            if let x, let y, x.0 == y.0, x.1 == y.1 { candidates = [x] } else {
                if let x, !(x.1.map(b.clock.covers) ?? false) { candidates.append(x) }
                if let y, !(y.1.map(a.clock.covers) ?? false) { candidates.append(y) }
            }
            if let pick = candidates.max(by: { scopeLess($0, $1) }) { live[id] = pick }
        }
        let ranked = live.keys.sorted { i, j in
            let x = live[i]!, y = live[j]!
            if scopeLess(x, y) != scopeLess(y, x) { return scopeLess(y, x) }
            return MergeOrder.compare(i, j) > 0
        }
        var scopes: [String: String] = [:], dots: [String: Dot] = [:], folded: [String: String] = [:]
        for id in ranked {
            let folder = live[id]!.0
            if let (keptID, keptFolder) = scopes.first(where: { $0.value == folder || EntryPath.isInside($0.value, folder: folder) || EntryPath.isInside(folder, folder: $0.value) }) {
                if keptFolder == folder { folded[id] = keptID }
                continue
            }
            scopes[id] = folder
            dots[id] = live[id]!.1
        }
        return (scopes, dots, folded)
    }

    static func scopeLess(_ x: (String, Dot?), _ y: (String, Dot?)) -> Bool {
        switch (x.1, y.1) {
        case (let a?, let b?) where a != b: return a < b
        default: return MergeOrder.compare(x.0, y.0) < 0
        }
    }

    /// Slots of unknown types: each distinct one (canonical bytes), sorted.
    static func unknownSlots(_ a: [JSONValue], _ b: [JSONValue]) -> [JSONValue] {
        var seen: [[UInt8]: JSONValue] = [:]
        for s in a + b { seen[s.canonicalBytes()] = s }
        return seen.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { seen[$0]! }
    }

    /// Unknown members: equal → it; one side → it; different → the greater canonical bytes (Spec/MERGE.md §5.4).
    static func unknownMembers(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String: JSONValue] {
        var out = a
        for (k, v) in b {
            if let x = out[k] { out[k] = MergeOrder.compare(x.canonicalBytes(), v.canonicalBytes()) >= 0 ? x : v } else { out[k] = v }
        }
        return out
    }
}
