// Epochs of a domain key: proofs from every earlier key, and the earlier header keys sealed for the next rekey (Spec/FORMAT.md §11.5).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `rekey` member of a version 5 header of epoch e > 1 (Spec/FORMAT.md §11.5): for every earlier epoch i a proof,
/// made with epoch i's header key, that the key of epoch e is its successor; and the header keys of epochs 1 … e−1
/// sealed under the chain key of epoch e's key.
package struct RekeyChain: Equatable, Sendable {
    /// Earlier epoch → proof (32 bytes).
    package var proofs: [UInt64: [UInt8]]
    package var nonce: [UInt8]
    /// hk_1 || … || hk_{e−1}, sealed.
    package var sealedKeys: [UInt8]

    package init(proofs: [UInt64: [UInt8]], nonce: [UInt8], sealedKeys: [UInt8]) {
        self.proofs = proofs; self.nonce = nonce; self.sealedKeys = sealedKeys
    }

    static func proofMessage(vaultID: String, domain: String, epoch: UInt64, newHeaderKey: SecretBytes) -> [UInt8] {
        var m = Array("tresor-rekey\u{0}\(vaultID)\u{0}\(domain)\u{0}\(epoch)\u{0}".utf8)
        newHeaderKey.withBytes { m += $0 }
        return m
    }

    static func associatedData(vaultID: String, domain: String, epoch: UInt64) -> [UInt8] {
        Array("tresor-chain\u{0}\(vaultID)\u{0}\(domain)\u{0}\(epoch)".utf8)
    }

    /// The chain of the header of epoch `epoch` (≥ 2) under `newKey`, written by a holder of `previousKey`, the key of
    /// epoch `epoch` − 1, whose header had `previousChain` (nil at epoch 1). A fresh nonce unless one is given (vectors).
    /// - Throws: `CoreError.authenticationFailed` when `previousChain` does not open with `previousKey`, `CryptoError`.
    package static func make(vaultID: String, domain: String, epoch: UInt64, newKey: SecretBytes, previousKey: SecretBytes,
                            previousChain: RekeyChain?, nonce: [UInt8] = Sodium.randomBytes(Sodium.nonceBytes)) throws -> RekeyChain {
        precondition(epoch >= 2, "RekeyChain.make: the first epoch has no chain")
        var earlier = try previousChain?.headerKeys(vaultID: vaultID, domain: domain, epoch: epoch - 1, key: previousKey) ?? []
        guard earlier.count == Int(epoch) - 2 else { throw CoreError.malformed(.mismatch(.rekeyChain(epoch: epoch - 1))) }
        earlier.append(try VaultAuthenticator.headerKey(of: previousKey))
        let next = try VaultAuthenticator.headerKey(of: newKey)
        var proofs: [UInt64: [UInt8]] = [:]
        for (i, hk) in earlier.enumerated() {
            proofs[UInt64(i + 1)] = try Sodium.keyedHash(proofMessage(vaultID: vaultID, domain: domain, epoch: epoch, newHeaderKey: next), key: hk)
        }
        var plain: [UInt8] = []
        defer { Sodium.wipe(&plain) }
        for hk in earlier { hk.withBytes { plain += $0 } }
        let chainKey = try VaultAuthenticator(vaultKey: newKey).chainKey
        let sealed = try Sodium.seal(SecretBytes(copying: plain), key: chainKey, nonce: nonce,
                                     ad: associatedData(vaultID: vaultID, domain: domain, epoch: epoch))
        return RekeyChain(proofs: proofs, nonce: nonce, sealedKeys: sealed)
    }

    /// The header keys of epochs 1 … `epoch` − 1, opened with `key`, the key of `epoch`.
    /// - Throws: `CoreError.authenticationFailed`.
    package func headerKeys(vaultID: String, domain: String, epoch: UInt64, key: SecretBytes) throws -> [SecretBytes] {
        let chainKey = try VaultAuthenticator(vaultKey: key).chainKey
        let plain: SecretBytes
        do { plain = try Sodium.open(sealedKeys, key: chainKey, nonce: nonce, ad: Self.associatedData(vaultID: vaultID, domain: domain, epoch: epoch)) }
        catch { throw CoreError.authenticationFailed }
        guard plain.count == Sodium.keyBytes * (Int(epoch) - 1) else { throw CoreError.authenticationFailed }
        return plain.withBytes { b in stride(from: 0, to: b.count, by: Sodium.keyBytes).map { SecretBytes(copying: b[$0..<$0 + Sodium.keyBytes]) } }
    }

    /// Whether a holder of `heldKey`, the key of epoch `heldEpoch`, made `newKey` (of epoch `epoch` > `heldEpoch`) its
    /// successor: the proof for `heldEpoch` verifies under the held key's header key (Spec/FORMAT.md §11.5).
    package func vouches(heldKey: SecretBytes, heldEpoch: UInt64, newKey: SecretBytes, epoch: UInt64, vaultID: String, domain: String) -> Bool {
        guard heldEpoch < epoch, let proof = proofs[heldEpoch], let held = try? VaultAuthenticator.headerKey(of: heldKey),
              let next = try? VaultAuthenticator.headerKey(of: newKey),
              let expected = try? Sodium.keyedHash(Self.proofMessage(vaultID: vaultID, domain: domain, epoch: epoch, newHeaderKey: next), key: held)
        else { return false }
        return Sodium.equalInConstantTime(proof, expected)
    }

    var json: JSONValue {
        .object(["proofs": .object(Dictionary(uniqueKeysWithValues: proofs.map { (String($0.key), .string(Base64.encode($0.value))) })),
                 "nonce": .string(Base64.encode(nonce)), "keys": .string(Base64.encode(sealedKeys))])
    }

    /// Parses the `rekey` member of a header of epoch `epoch` (Spec/FORMAT.md §11.5): one proof for every earlier epoch,
    /// 32 bytes each; 24 nonce bytes; 32 × (epoch − 1) key bytes plus the tag. - Throws: `CoreError.malformed`, `.badEncoding`.
    init(json: JSONValue?, epoch: UInt64) throws {
        guard let o = json?.objectValue, Set(o.keys) == ["proofs", "nonce", "keys"], let po = o["proofs"]?.objectValue else {
            throw CoreError.malformed(.notAnObject(.rekey))
        }
        // Exactly one proof per earlier epoch, named by its decimal number.
        guard Set(po.keys) == Set((1..<epoch).map { String($0) }) else { throw CoreError.malformed(.mismatch(.rekeyProofs)) }
        var proofs: [UInt64: [UInt8]] = [:]
        for i in 1..<epoch {
            guard let t = po[String(i)]?.stringValue else { throw CoreError.malformed(.member(.rekey, name: "proofs", expected: .string)) }
            guard let b = Base64.decodeCanonical(t), b.count == 32 else { throw CoreError.badEncoding(.notBase64(.rekey, member: "proofs", bytes: 32)) }
            proofs[i] = b
        }
        guard let n = o["nonce"]?.stringValue else { throw CoreError.malformed(.member(.rekey, name: "nonce", expected: .string)) }
        guard let k = o["keys"]?.stringValue else { throw CoreError.malformed(.member(.rekey, name: "keys", expected: .string)) }
        guard let nonce = Base64.decodeCanonical(n), nonce.count == Sodium.nonceBytes else { throw CoreError.badEncoding(.notBase64(.rekey, member: "nonce", bytes: Sodium.nonceBytes)) }
        guard let keys = Base64.decodeCanonical(k), keys.count == Sodium.keyBytes * (Int(epoch) - 1) + Sodium.tagBytes else {
            throw CoreError.badEncoding(.notBase64(.rekey, member: "keys", bytes: Sodium.keyBytes * (Int(epoch) - 1) + Sodium.tagBytes))
        }
        self.init(proofs: proofs, nonce: nonce, sealedKeys: keys)
    }
}
