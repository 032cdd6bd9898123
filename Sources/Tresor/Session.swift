// Unlock sessions: the vault key and scope keys encrypted under a random token the shell keeps (README: "Sessions").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// The keys a session holds: the vault key when the process that unlocked held it, and the keys of the scopes it
/// held (Spec/FORMAT.md §3.12.4) by scope id.
package struct SessionKeys {
    package var vaultKey: SecretBytes?
    package var scopeKeys: [String: SecretBytes]
}

/// A session file holds the vault key and the scope keys encrypted with a random 256-bit token; the token lives
/// only in the user's environment (`TRESOR_SESSION_<vault>`, or `TRESOR_SESSION`). Either half alone reveals
/// nothing about the keys.
package enum Session {
    /// The variable scripts set by hand (`--raw`); looked at after the vault's own variable.
    package static let environmentVariable = "TRESOR_SESSION"

    /// The variable that holds the token of one vault's session, so several vaults can be unlocked in one shell:
    /// `TRESOR_SESSION_` and the first 12 hex digits of the vault id.
    package static func environmentVariable(vaultID: String) -> String {
        environmentVariable + "_" + String(vaultID.lowercased().filter(\.isHexDigit).prefix(12))
    }

    /// The session token for a vault in `environment`: its own variable first, then `TRESOR_SESSION`.
    package static func token(vaultID: String, environment: [String: String]) -> String? {
        for name in [environmentVariable(vaultID: vaultID), environmentVariable] {
            if let token = environment[name], !token.isEmpty { return token }
        }
        return nil
    }

    /// Where session files live: `$TRESOR_SESSION_DIR`, else `/dev/shm/tresor-UID` (memory, not disk),
    /// else `$XDG_RUNTIME_DIR/tresor`, else `$TMPDIR/tresor-UID`. Created 0700.
    package static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let d = environment["TRESOR_SESSION_DIR"], !d.isEmpty { return d }
        if FileSystem.kind("/dev/shm") == .directory { return "/dev/shm/tresor-\(getuid())" }
        if let r = environment["XDG_RUNTIME_DIR"], !r.isEmpty { return r + "/tresor" }
        // Foundation's NSTemporaryDirectory(): $TMPDIR with a trailing "/", else /tmp/.
        let tmp = environment["TMPDIR"].map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "/tmp/"
        return tmp + "tresor-\(getuid())"
    }

    static func file(for vaultID: String, in dir: String) -> String { dir + "/" + vaultID + ".session" }

    static func associatedData(vaultID: String, expires: Timestamp) -> [UInt8] {
        Array("tresor-session\u{0}\(vaultID)\u{0}\(expires)".utf8)
    }

    /// The additional data of the sealed scope keys: another purpose than the vault key's, same vault and expiry.
    static func scopeAssociatedData(vaultID: String, expires: Timestamp) -> [UInt8] {
        Array("tresor-session-scopes\u{0}\(vaultID)\u{0}\(expires)".utf8)
    }

    /// One scope key in the sealed list: the scope id (36 ASCII bytes), then the key.
    static let scopeRecordBytes = 36 + Sodium.keyBytes

    /// Stores the keys `vault` holds (its vault key, if held, and its scope keys) for `timeout` seconds and returns
    /// the token to export. - Throws: `VaultError.vaultLocked` when it holds no key.
    package static func start(vault: Vault, timeout: TimeInterval, directory dir: String) throws -> String {
        let key = vault.vaultKeyIfHeld
        let scopes = vault.scopeKeys.sorted { $0.key < $1.key }
        guard key != nil || !scopes.isEmpty else { throw VaultError.vaultLocked }
        let token = SecretBytes.random(count: Sodium.keyBytes)
        let expires = Timestamp(Date().addingTimeInterval(timeout))
        let id = vault.header.vaultID
        var fields: [String: JSONValue] = ["vault": .string(id), "expires": .string(expires.description)]
        if let key {
            let nonce = Sodium.randomBytes(Sodium.nonceBytes)
            let sealed = try Sodium.seal(key, key: token, nonce: nonce, ad: associatedData(vaultID: id, expires: expires))
            fields["nonce"] = .string(Data(nonce).base64EncodedString())
            fields["key"] = .string(Data(sealed).base64EncodedString())
        }
        if !scopes.isEmpty {
            var plain: [UInt8] = []
            defer { Sodium.wipe(&plain) }
            for (scope, keys) in scopes where scope.utf8.count == 36 {
                plain += Array(scope.utf8)
                keys.key.withBytes { plain += $0 }
            }
            let nonce = Sodium.randomBytes(Sodium.nonceBytes)
            let sealed = try Sodium.seal(SecretBytes(copying: plain), key: token, nonce: nonce, ad: scopeAssociatedData(vaultID: id, expires: expires))
            fields["scopeNonce"] = .string(Data(nonce).base64EncodedString())
            fields["scopeKeys"] = .string(Data(sealed).base64EncodedString())
        }
        let json = JSONValue.object(fields)
        do {
            try prepareDirectory(dir)
            try FileSystem.writeAtomically(json.canonicalBytes() + [0x0A], to: file(for: id, in: dir))
        } catch let e as CoreError { throw VaultError.session(.cannotWrite(path: file(for: id, in: dir), e)) }
        return token.withBytes { Hex.lower($0) }
    }

    static func prepareDirectory(_ dir: String) throws {
        switch FileSystem.kind(dir) {
        case .missing:
            do { try FileSystem.makeDirectory(dir) }
            catch { throw VaultError.session(.cannotWrite(path: dir, .io(.failed(.createDirectory, path: dir, errno: error.errno)))) }
        case .directory:
            let st = try Vault.io { try FileSystem.status(dir) }
            guard let st, st.st_uid == getuid(), st.st_mode & 0o077 == 0 else {
                throw VaultError.session(.directoryNotPrivate(dir))
            }
        default: throw VaultError.session(.directoryNotPrivate(dir))
        }
    }

    /// The vault key of a live session, or a `VaultError.session` saying why not (expired, locked, bad token);
    /// `VaultError.needsVaultKey` for the session of a scope-only member.
    package static func vaultKey(token: String, vaultID: String, directory dir: String) throws -> SecretBytes {
        guard let key = try keys(token: token, vaultID: vaultID, directory: dir).vaultKey else { throw VaultError.needsVaultKey }
        return key
    }

    /// The keys of a live session, or a `VaultError.session` saying why not (expired, locked, bad token).
    /// An expired session file is removed.
    package static func keys(token: String, vaultID: String, directory dir: String) throws -> SessionKeys {
        guard let tokenKey = parseToken(token) else { throw VaultError.session(.notAToken) }
        let path = file(for: vaultID, in: dir)
        // No session file: no session. One that cannot be read is an error of its own, never "no session".
        let read: [UInt8]?
        do { read = try FileSystem.readIfPresent(path, limit: 64 * 1024) } catch let e as CoreError { throw VaultError.file(path: path, e) }
        guard let bytes = read,
              let o = (try? JSONValue.parse(bytes))?.objectValue,  // (a damaged file holds no session a token opens)
              let exp = o["expires"]?.stringValue, let expires = Timestamp(parsing: exp)
        else { throw VaultError.session(.noSession) }
        guard Timestamp.now() < expires else {
            _ = try? FileSystem.removeIfPresent(path)  // (tidying: the session has expired whether or not its file goes)
            throw VaultError.session(.expired(at: expires))
        }
        func sealed(_ nonceField: String, _ keyField: String) throws -> (nonce: [UInt8], sealed: [UInt8])? {
            guard o[nonceField] != nil || o[keyField] != nil else { return nil }
            guard let n = o[nonceField]?.stringValue, let nonce = Data(base64Encoded: n),
                  let k = o[keyField]?.stringValue, let sealed = Data(base64Encoded: k) else { throw VaultError.session(.noSession) }
            return ([UInt8](nonce), [UInt8](sealed))
        }
        var result = SessionKeys(vaultKey: nil, scopeKeys: [:])
        do {
            if let (nonce, box) = try sealed("nonce", "key") {
                result.vaultKey = try Sodium.open(box, key: tokenKey, nonce: nonce, ad: associatedData(vaultID: vaultID, expires: expires))
            }
            if let (nonce, box) = try sealed("scopeNonce", "scopeKeys") {
                let plain = try Sodium.open(box, key: tokenKey, nonce: nonce, ad: scopeAssociatedData(vaultID: vaultID, expires: expires))
                guard plain.count % scopeRecordBytes == 0 else { throw VaultError.session(.wrongToken) }
                plain.withBytes { raw in
                    for start in stride(from: 0, to: raw.count, by: scopeRecordBytes) {
                        let id = String(decoding: raw[start..<start + 36], as: UTF8.self)
                        result.scopeKeys[id] = SecretBytes(copying: raw[(start + 36)..<(start + scopeRecordBytes)])
                    }
                }
            }
        } catch let e as VaultError { throw e } catch {
            throw VaultError.session(.wrongToken)
        }
        guard result.vaultKey != nil || !result.scopeKeys.isEmpty else { throw VaultError.session(.noSession) }
        return result
    }

    /// Removes the session file of a vault. Returns whether one existed. - Throws: `VaultError.io` when it is there and
    /// cannot be removed (the session would go on).
    @discardableResult
    package static func end(vaultID: String, directory dir: String) throws -> Bool {
        try Vault.io { try FileSystem.removeIfPresent(file(for: vaultID, in: dir)) }
    }

    static func parseToken(_ s: String) -> SecretBytes? {
        let chars = Array(s.utf8)
        guard chars.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 {
            guard let hi = Hex.digit(chars[2 * i]), let lo = Hex.digit(chars[2 * i + 1]) else { return nil }
            bytes[i] = hi << 4 | lo
        }
        defer { Sodium.wipe(&bytes) }
        return SecretBytes(copying: bytes)
    }
}
