// Runs every Spec/vectors/*.json against TresorCore: successes checked exactly, failures by CoreError.kind.
import Foundation
import TresorCore
import XCTest

final class VectorTests: XCTestCase {
    /// Spec/vectors, found from this file's path (Tests/TresorCoreTests/VectorTests.swift → repository root).
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/vectors")

    func testEveryVector() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(names.isEmpty, "no vectors in \(Self.directory.path)")
        var failures = 0, successes = 0
        for name in names {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
            guard let v = try JSONValue.parse([UInt8](data)).objectValue else { XCTFail("\(name): not an object"); continue }
            XCTAssertNotNil(v["description"]?.stringValue, "\(name): no description")
            guard let test = v["test"]?.stringValue, let inputs = v["inputs"]?.objectValue else {
                XCTFail("\(name): no test or inputs"); continue
            }
            let expected = v["expected"]?.objectValue, error = v["error"]?.stringValue
            XCTAssert((expected == nil) != (error == nil), "\(name): needs exactly one of expected and error")
            let run: () throws -> Void
            switch test {
            case "kdf": run = { try self.kdf(inputs, expected, name) }
            case "entry-key": run = { try self.entryKey(inputs, expected, name) }
            case "header": run = { try self.header(inputs, expected, name) }
            case "entry": run = { try self.entry(inputs, expected, name) }
            case "commit-auth": run = { try self.commitAuth(inputs, expected, name) }
            default: XCTFail("\(name): unknown test \"\(test)\""); continue
            }
            if let error {
                failures += 1
                do {
                    try run()
                    XCTFail("\(name): succeeded, expected \(error)")
                } catch let e as CoreError {
                    XCTAssertEqual(e.kind, error, "\(name): \(e.localizedDescription)")
                } catch {
                    XCTFail("\(name): threw \(error), not a CoreError")
                }
            } else {
                successes += 1
                XCTAssertNoThrow(try run(), name)
            }
        }
        XCTAssertGreaterThan(successes, 0)
        XCTAssertGreaterThan(failures, 0)
    }

    // MARK: Tests by kind

    func kdf(_ i: [String: JSONValue], _ e: [String: JSONValue]?, _ name: String) throws {
        let pass = try str(i, "passphrase")
        XCTAssertEqual(hex(Array(pass.utf8)), try str(i, "passphrase_hex"), name)
        let params = KDFParameters(ops: try int(i, "ops"), mem: try int(i, "mem"), salt: try bytes(i, "salt"))
        try params.validate()
        let key = try Sodium.argon2id(passphrase: SecretBytes(utf8: pass), salt: params.salt, ops: params.ops, mem: params.mem)
        if let e { XCTAssertEqual(hex(key), try str(e, "key"), name) }
    }

    func entryKey(_ i: [String: JSONValue], _ e: [String: JSONValue]?, _ name: String) throws {
        let sub = try Sodium.deriveSubkey(from: SecretBytes(copying: try bytes(i, "vault_key")), id: 1, context: "tresorv1")
        if let e { XCTAssertEqual(hex(sub), try str(e, "entry_key"), name) }
    }

    func header(_ i: [String: JSONValue], _ e: [String: JSONValue]?, _ name: String) throws {
        let file = Array(try str(i, "file").utf8)
        let h = try VaultHeader.parse(file)
        let key = try i["passphrase"]?.stringValue.map { try h.unlock(passphrase: SecretBytes(utf8: $0)) }
        if let key { try VaultAuthenticator(vaultKey: key).verify(h) }
        guard let e else { return }
        if h.version >= 2, let vaultKey = key {
            XCTAssertEqual(h.generation, try int(e, "generation"), name)
            XCTAssertEqual(hex(try Sodium.deriveSubkey(from: vaultKey, id: 3, context: "tresorv1")), try str(e, "header_key"), name)
            XCTAssertEqual(hex(h.authenticatedBytes), try str(e, "authenticated_bytes"), name)
            XCTAssertEqual(h.auth.map(hex), try str(e, "auth"), name)
        }
        XCTAssertEqual(h.vaultID, try str(e, "vault"), name)
        XCTAssertEqual(h.serialized(), file, "\(name): re-serialising changed the bytes")
        XCTAssertEqual(UInt64(h.otherSlots.count), try int(e, "other_slots"), name)
        let slots = e["key_slots"]?.arrayValue?.compactMap(\.objectValue) ?? []
        XCTAssertEqual(slots.count, h.keySlots.count, name)
        for (slot, want) in zip(h.keySlots, slots) {
            XCTAssertEqual(slot.id, try str(want, "id"), name)
            XCTAssertEqual(slot.kdf, KDFParameters(ops: try int(want, "ops"), mem: try int(want, "mem"), salt: try bytes(want, "salt")), name)
            XCTAssertEqual(slot.nonce, try bytes(want, "nonce"), name)
            XCTAssertEqual(slot.wrappedKey, try bytes(want, "wrapped_key"), name)
            // The additional data as Spec/FORMAT.md §3.3 spells it, built here independently of the library.
            let ad = "tresor-keyslot\u{0}1\u{0}\(h.vaultID)\u{0}\(slot.id)\u{0}argon2id13\u{0}\(slot.kdf.ops)\u{0}\(slot.kdf.mem)\u{0}"
                + Data(slot.kdf.salt).base64EncodedString()
            XCTAssertEqual(hex(Array(ad.utf8)), try str(want, "additional_data"), name)
            if let pass = i["passphrase"]?.stringValue {
                let kek = try Sodium.argon2id(passphrase: SecretBytes(utf8: pass), salt: slot.kdf.salt, ops: slot.kdf.ops, mem: slot.kdf.mem)
                XCTAssertEqual(hex(kek), try str(want, "kek"), name)
                let opened = try Sodium.open(slot.wrappedKey, key: kek, nonce: slot.nonce, ad: Array(ad.utf8))
                XCTAssertEqual(hex(opened), e["vault_key"]?.stringValue, name)
            }
        }
        if let want = e["vault_key"]?.stringValue {
            XCTAssertEqual(key.map(hex), want, name)
        }
    }

    func commitAuth(_ i: [String: JSONValue], _ e: [String: JSONValue]?, _ name: String) throws {
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let content = Array(try str(i, "content").utf8)
        let authenticator = try VaultAuthenticator(vaultKey: vaultKey)
        guard let e else { return }
        XCTAssertEqual(hex(try Sodium.deriveSubkey(from: vaultKey, id: 2, context: "tresorv1")), try str(e, "commit_key"), name)
        let tag = try str(e, "tag")
        XCTAssertEqual(try authenticator.commitTag(content), tag, name)
        XCTAssertTrue(authenticator.verifyCommit(content: content, value: tag), name)
        XCTAssertFalse(authenticator.verifyCommit(content: content + [0x0A], value: tag), name)
    }

    func entry(_ i: [String: JSONValue], _ e: [String: JSONValue]?, _ name: String) throws {
        let file = Array(try str(i, "file").utf8)
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let cipher = try EntryCipher(vaultKey: vaultKey)
        let entry = try cipher.open(file, expectedPath: try EntryPath(try str(i, "path")))
        guard let e else { return }
        let env = try Envelope.parse(file)
        let plaintext = Array(try str(e, "plaintext").utf8)
        XCTAssertEqual(hex(try Sodium.deriveSubkey(from: vaultKey, id: 1, context: "tresorv1")), try str(e, "entry_key"), name)
        XCTAssertEqual(env.id, try str(e, "id"), name)
        XCTAssertEqual(env.nonce, try bytes(e, "nonce"), name)
        XCTAssertEqual(env.associatedData, try bytes(e, "additional_data"), name)
        XCTAssertEqual(UInt64(env.ciphertext.count), try int(e, "ciphertext_bytes"), name)
        XCTAssertEqual(env.serialized(), file, "\(name): envelope is not canonical")
        XCTAssertEqual(try cipher.openPayload(env).withBytes { Array($0) }, plaintext, name)
        XCTAssertEqual(entry.payloadJSON().canonicalBytes(), plaintext, "\(name): payload did not round-trip")
        XCTAssertEqual(try cipher.sealPayload(plaintext, id: env.id, nonce: env.nonce), file, "\(name): sealing again differs")
        XCTAssertEqual(entry.id, env.id, name)
        XCTAssertEqual(entry.path.string, try str(e, "path"), name)
        XCTAssertEqual(entry.created.description, try str(e, "created"), name)
        XCTAssertEqual(entry.modified.description, try str(e, "modified"), name)
        XCTAssertEqual(UInt64(entry.history.count), try int(e, "history_items"), name)
        let fields = e["fields"]?.objectValue ?? [:]
        XCTAssertEqual(Set(entry.fields.keys), Set(fields.keys), name)
        for (field, want) in fields {
            switch want {
            case .string(let s): XCTAssertEqual(entry.fields[field]?.value, .text(s), "\(name): \(field)")
            case .array(let a): XCTAssertEqual(entry.fields[field]?.value, .list(a.compactMap(\.stringValue)), "\(name): \(field)")
            default: XCTFail("\(name): field \(field) has an unexpected expected value")
            }
        }
    }

    // MARK: Helpers

    struct VectorError: Error, CustomStringConvertible { let description: String }

    func str(_ o: [String: JSONValue], _ k: String) throws -> String {
        guard let s = o[k]?.stringValue else { throw VectorError(description: "vector has no string \"\(k)\"") }
        return s
    }
    func int(_ o: [String: JSONValue], _ k: String) throws -> UInt64 {
        guard let n = o[k]?.uint64Value else { throw VectorError(description: "vector has no integer \"\(k)\"") }
        return n
    }
    func bytes(_ o: [String: JSONValue], _ k: String) throws -> [UInt8] {
        let s = Array(try str(o, k).utf8)
        guard s.count % 2 == 0 else { throw VectorError(description: "odd hex in \"\(k)\"") }
        return try stride(from: 0, to: s.count, by: 2).map { i in
            guard let b = UInt8(String(decoding: s[i...i + 1], as: UTF8.self), radix: 16) else {
                throw VectorError(description: "bad hex in \"\(k)\"")
            }
            return b
        }
    }
    func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    func hex(_ s: SecretBytes) -> String { s.withBytes { hex(Array($0)) } }
}
