// Unlock sessions: the vault key encrypted under a random token the shell keeps (README: "Sessions").
import Foundation
import TresorCore

/// A session file holds the vault key encrypted with a random 256-bit token; the token lives only in the
/// user's environment (`TRESOR_SESSION_<vault>`, or `TRESOR_SESSION`). Either half alone reveals nothing about
/// the vault key.
public enum Session {
    /// The variable scripts set by hand (`--raw`); looked at after the vault's own variable.
    public static let environmentVariable = "TRESOR_SESSION"

    /// The variable that holds the token of one vault's session, so several vaults can be unlocked in one shell:
    /// `TRESOR_SESSION_` and the first 12 hex digits of the vault id.
    public static func environmentVariable(vaultID: String) -> String {
        environmentVariable + "_" + String(vaultID.lowercased().filter(\.isHexDigit).prefix(12))
    }

    /// The session token for a vault in `environment`: its own variable first, then `TRESOR_SESSION`.
    public static func token(vaultID: String, environment: [String: String]) -> String? {
        for name in [environmentVariable(vaultID: vaultID), environmentVariable] {
            if let token = environment[name], !token.isEmpty { return token }
        }
        return nil
    }

    /// Where session files live: `$TRESOR_SESSION_DIR`, else `/dev/shm/tresor-UID` (memory, not disk),
    /// else `$XDG_RUNTIME_DIR/tresor`, else `$TMPDIR/tresor-UID`. Created 0700.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let d = environment["TRESOR_SESSION_DIR"], !d.isEmpty { return d }
        if FileSystem.kind("/dev/shm") == .directory { return "/dev/shm/tresor-\(getuid())" }
        if let r = environment["XDG_RUNTIME_DIR"], !r.isEmpty { return r + "/tresor" }
        return NSTemporaryDirectory() + "tresor-\(getuid())"
    }

    static func file(for vaultID: String, in dir: String) -> String { dir + "/" + vaultID + ".session" }

    static func associatedData(vaultID: String, expires: Timestamp) -> [UInt8] {
        Array("tresor-session\u{0}\(vaultID)\u{0}\(expires)".utf8)
    }

    /// Stores the vault key for `timeout` seconds and returns the token to export.
    public static func start(vault: Vault, timeout: TimeInterval, directory dir: String) throws -> String {
        let key = try vault.currentVaultKey()
        let token = SecretBytes.random(count: Sodium.keyBytes)
        let expires = Timestamp(Date().addingTimeInterval(timeout))
        let nonce = Sodium.randomBytes(Sodium.nonceBytes)
        let id = vault.header.vaultID
        let sealed = try Sodium.seal(key, key: token, nonce: nonce, ad: associatedData(vaultID: id, expires: expires))
        let json = JSONValue.object(["vault": .string(id), "expires": .string(expires.description),
                                     "nonce": .string(Data(nonce).base64EncodedString()),
                                     "key": .string(Data(sealed).base64EncodedString())])
        do {
            try prepareDirectory(dir)
            try FileSystem.writeAtomically(json.canonicalBytes() + [0x0A], to: file(for: id, in: dir))
        } catch let e as CoreError { throw VaultError.session(.cannotWrite(path: file(for: id, in: dir), reason: e.errorDescription ?? "\(e)")) }
        return token.withBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    static func prepareDirectory(_ dir: String) throws {
        switch FileSystem.kind(dir) {
        case .missing:
            guard mkdir(dir, 0o700) == 0 else { throw VaultError.session(.cannotWrite(path: dir, reason: String(cString: strerror(errno)))) }
        case .directory:
            var st = stat()
            guard lstat(dir, &st) == 0, st.st_uid == getuid(), st.st_mode & 0o077 == 0 else {
                throw VaultError.session(.directoryNotPrivate(dir))
            }
        default: throw VaultError.session(.directoryNotPrivate(dir))
        }
    }

    /// The vault key of a live session, or a `VaultError.session` saying why not (expired, locked, bad token).
    /// An expired session file is removed.
    public static func vaultKey(token: String, vaultID: String, directory dir: String) throws -> SecretBytes {
        guard let tokenKey = parseToken(token) else { throw VaultError.session(.notAToken) }
        let path = file(for: vaultID, in: dir)
        guard FileSystem.kind(path) == .file,
              let bytes = try? FileSystem.read(path, limit: 4096),
              let o = (try? JSONValue.parse(bytes))?.objectValue,
              let exp = o["expires"]?.stringValue, let expires = Timestamp(parsing: exp),
              let n = o["nonce"]?.stringValue, let nonce = Data(base64Encoded: n),
              let k = o["key"]?.stringValue, let sealed = Data(base64Encoded: k)
        else { throw VaultError.session(.noSession) }
        guard Timestamp.now() < expires else {
            unlink(path)
            throw VaultError.session(.expired(at: expires))
        }
        do {
            return try Sodium.open([UInt8](sealed), key: tokenKey, nonce: [UInt8](nonce), ad: associatedData(vaultID: vaultID, expires: expires))
        } catch {
            throw VaultError.session(.wrongToken)
        }
    }

    /// Removes the session file of a vault. Returns whether one existed.
    @discardableResult
    public static func end(vaultID: String, directory dir: String) -> Bool {
        unlink(file(for: vaultID, in: dir)) == 0
    }

    static func parseToken(_ s: String) -> SecretBytes? {
        let chars = Array(s.utf8)
        guard chars.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 {
            guard let hi = hexValue(chars[2 * i]), let lo = hexValue(chars[2 * i + 1]) else { return nil }
            bytes[i] = hi << 4 | lo
        }
        defer { Sodium.wipe(&bytes) }
        return SecretBytes(copying: bytes)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}
