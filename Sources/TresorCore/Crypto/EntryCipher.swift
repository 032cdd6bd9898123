// Sealing and opening entry files with the entry subkey (Spec/FORMAT.md §6.3).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encrypts and decrypts entries under one vault key. Holds only the derived entry subkey.
package final class EntryCipher: @unchecked Sendable {
    /// `crypto_kdf` context and subkey id of the entry key (Spec/FORMAT.md §2.3).
    static let kdfContext = "tresorv1"
    static let entryKeyID: UInt64 = 1
    private let entryKey: SecretBytes
    /// Tried when this key does not open a file: the previous vault key, for reading history across a rekey.
    private let previous: EntryCipher?
    /// Whether `open` also reads envelope version 1 (a vault of format 1–4 not converted yet, read only): its values get
    /// the placeholder dot. Set once, before the cipher is shared.
    package var readsVersion1 = false

    /// - Throws: `CryptoError` if the vault key has the wrong length.
    package init(vaultKey: SecretBytes) throws {
        entryKey = try Sodium.deriveSubkey(from: vaultKey, id: EntryCipher.entryKeyID, context: EntryCipher.kdfContext)
        previous = nil
    }

    /// A cipher that seals with `vaultKey` and opens with it or, failing that, with `previous`: for reading
    /// commits from before a rekey. Never for checking what arrives from elsewhere.
    package init(vaultKey: SecretBytes, previous: EntryCipher) throws {
        entryKey = try Sodium.deriveSubkey(from: vaultKey, id: EntryCipher.entryKeyID, context: EntryCipher.kdfContext)
        self.previous = previous
    }

    /// The entry as file bytes, with a fresh random nonce.
    /// The payload is serialised straight into zeroing memory (field values never pass through a `String`).
    package func seal(_ entry: Entry) throws -> [UInt8] {
        try seal(entry.payloadJSON().canonicalSecretBytes(), id: entry.id, nonce: Sodium.randomBytes(Sodium.nonceBytes))
    }

    private func seal(_ plaintext: SecretBytes, id: String, nonce: [UInt8]) throws -> [UInt8] {
        var env = Envelope(id: id, nonce: nonce, ciphertext: [])
        env.ciphertext = try Sodium.seal(plaintext, key: entryKey, nonce: env.nonce, ad: env.associatedData)
        return env.serialized()
    }

    /// File bytes for an explicit payload, id and nonce. For Spec/vectors and tests only: production code
    /// calls `seal(_:)`, which draws a fresh nonce; a nonce must never be used twice with one key.
    /// - Throws: `CryptoError.badLength` for a nonce that is not 24 bytes. Spec/FORMAT.md §6.3
    func sealPayload(_ payload: [UInt8], id: String, nonce: [UInt8]) throws -> [UInt8] {
        try seal(SecretBytes(copying: payload), id: id, nonce: nonce)
    }

    /// An entry file of `other`'s key as a file of this key, same id and payload, fresh nonce: one decryption
    /// and one encryption, the payload is not parsed (rekey, Spec/FORMAT.md §3.11).
    /// - Throws: `CoreError` if the file does not parse or open with `other`.
    package func reseal(_ bytes: [UInt8], from other: EntryCipher) throws -> [UInt8] {
        let env = try Envelope.parse(bytes)
        return try seal(try other.openPayload(env), id: env.id, nonce: Sodium.randomBytes(Sodium.nonceBytes))
    }

    /// Decrypts the payload of parsed file bytes into a zeroing buffer.
    package func openPayload(_ env: Envelope) throws -> SecretBytes {
        do { return try Sodium.open(env.ciphertext, key: entryKey, nonce: env.nonce, ad: env.associatedData) }
        catch {
            if let previous { return try previous.openPayload(env) }
            throw CoreError.authenticationFailed
        }
    }

    /// Parses, decrypts and checks an entry file. When `expectedPath` is given the inner path must equal it.
    /// - Throws: `CoreError` of the first rule broken (Spec/FORMAT.md §6.2 order).
    package func open(_ bytes: [UInt8], expectedPath: EntryPath?) throws -> Entry {
        let env = try Envelope.parse(bytes, acceptingVersion1: readsVersion1)
        if env.version == FormatVersion.entryVersion1 { return try openVersion1(bytes, expectedPath: expectedPath, dot: .placeholder) }
        let plaintext = try openPayload(env)
        return try plaintext.withBytes { try entry(id: env.id, payload: $0, expectedPath: expectedPath) }
    }

    /// Opens an entry file of a vault of version 1–4 (envelope version 1, Spec/FORMAT.md §6) and gives every value the
    /// dot `dot`: converting a vault (§11.10).
    /// - Throws: `CoreError` of the first rule broken.
    package func openVersion1(_ bytes: [UInt8], expectedPath: EntryPath?, dot: Dot) throws -> Entry {
        // A reader of version 1 files checks the version first (Spec/FORMAT.md §6.2).
        if let v = (try? JSONValue.parse(bytes))?.objectValue?["version"]?.uint64Value, v != UInt64(FormatVersion.entryVersion1) {
            throw CoreError.unsupportedVersion(Int(clamping: v))
        }
        let env = try Envelope.parse(bytes, acceptingVersion1: true)
        guard env.version == FormatVersion.entryVersion1 else { throw CoreError.unsupportedVersion(env.version) }
        let plaintext = try openPayload(env)
        let entry = try plaintext.withBytes { bytes -> Entry in
            let payload: JSONValue
            do { payload = try JSONValue.parsePayload(bytes) } catch { throw CoreError.malformed(.notJSON(.payload, nil)) }
            return try Entry(id: env.id, version1Payload: payload, dot: dot)
        }
        if let expectedPath, entry.path != expectedPath {
            throw CoreError.pathMismatch(inner: entry.path.string, outer: expectedPath.string)
        }
        return entry
    }

    /// The entry of a decrypted payload (as `openPayload` gives it) of an entry file with envelope id `id`.
    /// The payload is parsed in place; field values go straight into zeroing buffers (`SecretText`).
    /// - Throws: `CoreError` of the first payload rule broken (Spec/FORMAT.md §5.5, §6.2).
    package func entry(id: String, payload bytes: UnsafeRawBufferPointer, expectedPath: EntryPath?) throws -> Entry {
        let payload: JSONValue
        do { payload = try JSONValue.parsePayload(bytes) }
        catch { throw CoreError.malformed(.notJSON(.payload, nil)) }
        // A payload of envelope version 1 has no clock (Spec/FORMAT.md §11.8): read only where the vault is of format 1–4.
        let entry = readsVersion1 && payload.objectValue?["clock"] == nil
            ? try Entry(id: id, version1Payload: payload, dot: .placeholder) : try Entry(id: id, payload: payload)
        if let expectedPath, entry.path != expectedPath {
            throw CoreError.pathMismatch(inner: entry.path.string, outer: expectedPath.string)
        }
        return entry
    }
}
