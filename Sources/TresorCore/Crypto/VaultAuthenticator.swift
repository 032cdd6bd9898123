// Authentication tags that only a holder of the vault key can make: for commits and for the vault header.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keyed BLAKE2b tags under subkeys of the vault key (Spec/FORMAT.md §2.3, §3.5, §7): a commit's tag covers
/// its whole content (tree, parents, author, message), a header's tag everything in it but the tag.
package struct VaultAuthenticator: Sendable {
    /// The commit header field that carries a commit's tag.
    package static let commitField = "tresor-auth"
    static let commitKeyID: UInt64 = 2
    static let headerKeyID: UInt64 = 3
    /// Version 5 (Spec/FORMAT.md §11.2): the state key tags state records, the chain key seals earlier header keys.
    static let stateKeyID: UInt64 = 6
    static let chainKeyID: UInt64 = 7
    private let commitKey: SecretBytes
    /// The header key (id 3): what header tags and rekey proofs are made with.
    let headerKey: SecretBytes
    private let stateKey: SecretBytes
    let chainKey: SecretBytes

    /// - Throws: `CryptoError` if the vault key has the wrong length.
    package init(vaultKey: SecretBytes) throws {
        commitKey = try Sodium.deriveSubkey(from: vaultKey, id: Self.commitKeyID, context: EntryCipher.kdfContext)
        headerKey = try Sodium.deriveSubkey(from: vaultKey, id: Self.headerKeyID, context: EntryCipher.kdfContext)
        stateKey = try Sodium.deriveSubkey(from: vaultKey, id: Self.stateKeyID, context: EntryCipher.kdfContext)
        chainKey = try Sodium.deriveSubkey(from: vaultKey, id: Self.chainKeyID, context: EntryCipher.kdfContext)
    }

    /// The header key (subkey id 3) of `key`.
    static func headerKey(of key: SecretBytes) throws -> SecretBytes {
        try Sodium.deriveSubkey(from: key, id: headerKeyID, context: EntryCipher.kdfContext)
    }

    /// The tag of a state record (Spec/FORMAT.md §11.6): BLAKE2b-256 under the state key over `"tresor-state" 0x00` and
    /// the canonical JSON without `auth`.
    package func stateTag(_ authenticated: [UInt8]) throws -> [UInt8] {
        try Sodium.keyedHash(Array("tresor-state".utf8) + [0] + authenticated, key: stateKey)
    }

    /// Whether `tag` is the tag of the state record bytes `authenticated`, compared in constant time.
    package func verifyState(_ authenticated: [UInt8], tag: [UInt8]) -> Bool {
        guard let expected = try? stateTag(authenticated) else { return false }
        return Sodium.equalInConstantTime(tag, expected)
    }

    /// The tag of a version 5 header's JSON object as parsed, without `auth` (Spec/FORMAT.md §11.4): `prefix` is
    /// `tresor-header` for the vault header, `tresor-scope` for a scope header.
    func headerTag(prefix: String, object: JSONValue) throws -> [UInt8] {
        try Sodium.keyedHash(Array(prefix.utf8) + [0] + object.canonicalBytes(), key: headerKey)
    }

    /// The tag of a commit, as the value of its `tresor-auth` field: base64 of
    /// BLAKE2b-256(key = commit key, `"tresor-commit" 0x00` || the commit's content without that field).
    package func commitTag(_ content: [UInt8]) throws -> String {
        Base64.encode(try Sodium.keyedHash(Array("tresor-commit".utf8) + [0] + content, key: commitKey))
    }

    /// The tag of a version 4 commit carrying the tag fields `fields` (Spec/FORMAT.md §3.12.6): as `commitTag(_:)` when
    /// the only field is `tresor-auth`, else over C and the sorted field names, so no tag line can be added or removed.
    package func commitTag(_ content: [UInt8], fields: [String]) throws -> String {
        let names = fields.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        guard names != [Array(Self.commitField.utf8)] else { return try commitTag(content) }
        var message = Array("tresor-commit".utf8) + [0] + content + [0] + Array("tresor-fields".utf8) + [0]
        for n in names { message += n + [0] }
        return Base64.encode(try Sodium.keyedHash(message, key: commitKey))
    }

    /// Whether `value` is the tag of a version 4 commit's `content` with tag fields `fields`, in constant time.
    package func verifyCommit(content: [UInt8], fields: [String], value: String) -> Bool {
        guard let expected = try? commitTag(content, fields: fields) else { return false }
        return Sodium.equalInConstantTime(Array(expected.utf8), Array(value.utf8))
    }

    /// Whether `value` is the tag of `content`, compared in constant time.
    package func verifyCommit(content: [UInt8], value: String) -> Bool {
        guard let expected = try? commitTag(content) else { return false }
        return Sodium.equalInConstantTime(Array(expected.utf8), Array(value.utf8))
    }

    /// `header` with its tag set (a version 1 header is returned as it is: it has none).
    package func authenticated(_ header: VaultHeader) throws -> VaultHeader {
        guard header.version >= 2 else { return header }
        var h = header
        h.auth = try Sodium.keyedHash(header.authenticatedBytes, key: headerKey)
        return h
    }

    /// The rekey proof of a header of `newKey` (Spec/FORMAT.md §3.11): BLAKE2b-256 keyed with this (the previous)
    /// key's header key over `"tresor-rekey" 0x00` || the new key's header key.
    package func rekeyProof(newKey: SecretBytes) throws -> [UInt8] {
        let next = try Sodium.deriveSubkey(from: newKey, id: Self.headerKeyID, context: EntryCipher.kdfContext)
        return try next.withBytes { try Sodium.keyedHash(Array("tresor-rekey".utf8) + [0] + Array($0), key: headerKey) }
    }

    /// Whether `proof` shows that a holder of this key made `newKey` its successor, compared in constant time.
    package func verifyRekeyProof(_ proof: [UInt8]?, newKey: SecretBytes) -> Bool {
        guard let proof, let expected = try? rekeyProof(newKey: newKey) else { return false }
        return Sodium.equalInConstantTime(proof, expected)
    }

    /// `scope` with its tag set, this being the scope key's authenticator (Spec/FORMAT.md §3.12.2).
    package func authenticated(_ scope: ScopeHeader) throws -> ScopeHeader {
        var h = scope
        h.auth = try Sodium.keyedHash(scope.authenticatedBytes, key: headerKey)
        return h
    }

    /// Checks a scope header's tag under this (the scope's) key. - Throws: `CoreError.headerNotAuthentic`.
    package func verify(_ scope: ScopeHeader) throws {
        guard let auth = scope.auth, let expected = try? Sodium.keyedHash(scope.authenticatedBytes, key: headerKey),
              Sodium.equalInConstantTime(auth, expected) else { throw CoreError.headerNotAuthentic }
    }

    /// Checks a version 2 header's tag. - Throws: `CoreError.headerNotAuthentic`.
    package func verify(_ header: VaultHeader) throws {
        guard header.version >= 2 else { return }
        guard let auth = header.auth, let expected = try? Sodium.keyedHash(header.authenticatedBytes, key: headerKey),
              Sodium.equalInConstantTime(auth, expected) else { throw CoreError.headerNotAuthentic }
    }
}
