// Converting a vault of version 1–4 to version 5, deterministically from its tree (Spec/FORMAT.md §11.10).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Spec/FORMAT.md §11.10: the files of a version 5 vault made from those of a vault of version 1–4.
package enum Conversion {
    /// The conversion replica id: the first 16 hex digits of BLAKE2b-256(`"tresor-upgrade" 0x00` vault id `0x00` tree id).
    package static func replicaID(vaultID: String, treeID: String) -> String {
        let digest = Sodium.hash(Array("tresor-upgrade\u{0}\(vaultID)\u{0}\(treeID)".utf8))
        return Hex.lower(digest.prefix(8))
    }

    /// The converted files (path → bytes) of a vault whose files are `files` (every file of its tree), whose tree id is
    /// `treeID`, under `vaultKey` and the keys of its scopes (`scopeKeys`, scope id → key; every scope must be there).
    /// Entries are sealed under the same keys (epoch 1) with fresh nonces; everything else is a function of the input.
    /// - Throws: `CoreError` for a file that does not parse or open, `.notARecipient` for a scope whose key is missing.
    package static func convert(files: [String: [UInt8]], treeID: String, vaultKey: SecretBytes,
                               scopeKeys: [String: SecretBytes], attributes: [UInt8]) throws -> [String: [UInt8]] {
        guard let headerBytes = files[VaultHeader.relativePath] else { throw CoreError.malformed(.missingFile(path: VaultHeader.relativePath)) }
        let old = try VaultHeader.parse(headerBytes)
        guard old.version < FormatVersion.header else { throw CoreError.unsupportedVersion(old.version) }
        // The key must be the one the old header is authentic under (versions with a tag).
        try VaultAuthenticator(vaultKey: vaultKey).verify(old)
        let dot = Dot(replica: replicaID(vaultID: old.vaultID, treeID: treeID), counter: 1)
        let clock = Clock([dot.replica: dot.counter])
        var out: [String: [UInt8]] = [:]

        var header = old
        header.version = FormatVersion.header
        header.generation = 1
        header.rekeyProof = nil
        header.epoch = 1
        header.clock = clock
        header.rekeyChain = nil
        for i in header.keySlots.indices { header.keySlots[i].dot = dot }
        for i in header.recipientSlots.indices { header.recipientSlots[i].dot = dot }
        header.scopeDots = header.scopes.mapValues { _ in dot }
        let vaultAuth = try VaultAuthenticator(vaultKey: vaultKey)
        header = try vaultAuth.authenticated(header)
        out[VaultHeader.relativePath] = header.serialized()
        out[".gitattributes"] = attributes

        var authenticators: [String: VaultAuthenticator] = [Domain.vault: vaultAuth]
        var ciphers: [String: EntryCipher] = [Domain.vault: try EntryCipher(vaultKey: vaultKey)]
        for (id, _) in header.scopes {
            guard let key = scopeKeys[id] else { throw CoreError.notARecipient }
            let path = ScopeHeader.relativePath(scopeID: id)
            guard let bytes = files[path] else { throw CoreError.malformed(.missingFile(path: path)) }
            var s = try ScopeHeader.parse(bytes)
            let a = try VaultAuthenticator(vaultKey: key)
            s.version = FormatVersion.scopeHeader
            s.generation = 1
            s.rekeyProof = nil
            s.epoch = 1
            s.clock = clock
            s.rekeyChain = nil
            for i in s.recipientSlots.indices { s.recipientSlots[i].dot = dot }
            s.vaultSlot?.dot = dot
            out[path] = try a.authenticated(s).serialized()
            authenticators[id] = a
            ciphers[id] = try EntryCipher(vaultKey: key)
        }
        for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
            guard let entryPath = EntryPath(filePath: path) else { continue }
            let domain = header.domain(of: entryPath)
            guard let cipher = ciphers[domain] else { throw CoreError.notARecipient }
            var entry = try cipher.openVersion1(bytes, expectedPath: entryPath, dot: dot)
            entry.capHistory()
            out[path] = try cipher.seal(entry)
        }
        let tree = FileMapTree(out.mapValues { GitBlobID.of($0) })
        for (domain, authenticator) in authenticators {
            let record = StateRecord(vaultID: header.vaultID, domain: domain, epoch: 1, clock: clock,
                                     tree: try DomainTree.id(domain: domain, scopes: header.scopes, source: tree))
            out[StateRecord.relativePath(domain: domain)] = try record.authenticated(by: authenticator).serialized()
        }
        return out
    }
}

/// The git blob id of a file's bytes: SHA-1 of `"blob "`, the size in decimal, 0x00 and the bytes (Spec/FORMAT.md §11.6).
package enum GitBlobID {
    package static func of(_ bytes: [UInt8]) -> String {
        let object = Array("blob \(bytes.count)\u{0}".utf8) + bytes
        return Hex.lower(object.withUnsafeBytes { LibCrypto.digest(.sha1, $0) })
    }
}
