// Plain git integration: decrypted text for `git diff` (textconv) and the merge driver `git merge` calls.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore
import TresorGit

extension Vault {
    /// The text git shows for an entry file in diffs: every field and the history, one per line.
    /// Without a key (locked vault) it says so instead of failing, so `git log -p` still works.
    package func textconv(_ bytes: [UInt8]) -> String {
        guard let env = try? Envelope.parse(bytes) else { return "(not a Tresor entry file)\n" }
        // The nonce differs between versions, so git still shows that a locked entry changed.
        let version = Data(env.nonce.prefix(6)).base64EncodedString()
        guard let cipher = try? requireCipher() else {
            return "(encrypted entry \(env.id), version \(version), \(env.ciphertext.count) bytes; unlock tresor to see decrypted diffs)\n"
        }
        guard let e = try? cipher.open(bytes, expectedPath: nil) else { return "(entry \(env.id) does not decrypt with this vault's key)\n" }
        var lines = ["path: \(e.path)", "id: \(e.id)"]
        for name in e.fields.keys.sorted() {
            let f = e.fields[name]!
            lines.append("\(name): " + f.value.displayText.replacingAll("\n", with: "\n  "))
        }
        for h in e.history { lines.append("history \(h.field) (\(h.reason) \(h.replaced)): " + h.value.displayText.replacingAll("\n", with: "\n  ")) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Joins two versions of one entry file the way `tresor sync` does (Spec/MERGE.md §5); git's merge driver protocol.
    /// `base` is ignored: the join needs none (Spec/MERGE.md §12).
    /// - Throws: `VaultError.differentEntriesAtOnePath` when the two sides are different entries (different ids): only a
    ///   sync can keep both, by renaming one.
    package func mergeEntryFiles(base: [UInt8]?, ours: [UInt8], theirs: [UInt8], path: EntryPath) throws -> ([UInt8], [MergeResolution]) {
        let cipher = try cipher(for: path, header: header)
        func open(_ b: [UInt8], _ side: String) throws -> Entry {
            do { return try cipher.open(b, expectedPath: nil) } catch let e as CoreError { throw VaultError.entry(path: "\(path) (\(side))", e) }
        }
        let o = try open(ours, "ours"), t = try open(theirs, "theirs")
        guard o.id == t.id else { throw VaultError.differentEntriesAtOnePath(path: path.string) }
        var (entry, resolutions) = EntryJoin.join(o, t)
        entry.path = path
        if entry.isIdentical(to: o) { return (ours, resolutions) }
        if entry.isIdentical(to: t) { return (theirs, resolutions) }
        return (try cipher.seal(entry), resolutions)
    }

    /// Joins two versions of `.tresor/vault.json` (Spec/MERGE.md §8). Ours must be authentic under this process's vault
    /// key; theirs under it too, or (a rekey on their side) under the key this process's credential opens from it. The
    /// result is under the newer epoch's key; a header that is neither side's is authenticated with it.
    package func mergeHeaderFiles(base: [UInt8]?, ours: [UInt8], theirs: [UInt8]) throws -> ([UInt8], [MergeResolution]) {
        let ourKey = try currentVaultKey()
        do {
            let o = try VaultHeader.parse(ours), t = try VaultHeader.parse(theirs)
            try VaultAuthenticator(vaultKey: ourKey).verify(o)
            var theirKey = ourKey
            if (try? VaultAuthenticator(vaultKey: ourKey).verify(t)) == nil {
                guard let credential else { throw CoreError.headerNotAuthentic }
                theirKey = try credential.open(t)
                try VaultAuthenticator(vaultKey: theirKey).verify(t)
            }
            let sameKey = theirKey.constantTimeEquals(ourKey)
            let side: HeaderJoin.KeySide? = sameKey ? nil : (o.epoch > t.epoch ? .a : .b)
            let resultKey = side == .a || side == nil ? ourKey : theirKey
            let (h, r) = try HeaderJoin.join(o, t, keySide: side) { slot in
                try RecipientSlot.seal(resultKey, to: slot.publicKey, name: slot.name, vaultID: o.vaultID, id: slot.id, dot: slot.dot)
            }
            return (h == o ? ours : h == t ? theirs : try VaultAuthenticator(vaultKey: resultKey).authenticated(h).serialized(), r)
        } catch let e as CoreError { throw VaultError.header(e) }
    }
}
