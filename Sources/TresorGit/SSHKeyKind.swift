// The type of an ssh private key file, as far as libssh2 can use it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What kind of key a private key file holds, as far as libssh2 is concerned.
enum SSHKeyKind: Equatable {
    case usable, rsa, dsa, fido

    /// Judged by `<path>.pub`, else the private key's PEM header or OpenSSH key blob.
    init(path: String) {
        if let publicKey = try? String(contentsOfFile: path + ".pub", encoding: .utf8) {
            self.init(typeName: String(publicKey.prefix { $0 != " " }))
            return
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { self = .usable; return }
        if text.hasPrefix("-----BEGIN RSA PRIVATE KEY-----") { self = .rsa; return }
        if text.hasPrefix("-----BEGIN DSA PRIVATE KEY-----") { self = .dsa; return }
        // "openssh-key-v1\0", cipher, kdf, kdf options, key count, then the public key blob: its type name first.
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard text.hasPrefix("-----BEGIN OPENSSH PRIVATE KEY-----"), let data = Data(base64Encoded: body) else { self = .usable; return }
        var bytes = [UInt8](data)[...]
        guard bytes.starts(with: Array("openssh-key-v1\u{0}".utf8)) else { self = .usable; return }
        bytes = bytes.dropFirst(15)
        func string() -> ArraySlice<UInt8>? {
            guard bytes.count >= 4 else { return nil }
            let n = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            bytes = bytes.dropFirst(4)
            guard n <= bytes.count else { return nil }
            defer { bytes = bytes.dropFirst(n) }
            return bytes.prefix(n)
        }
        _ = string(); _ = string(); _ = string()
        bytes = bytes.dropFirst(4)
        guard var blob = string(), blob.count >= 4 else { self = .usable; return }
        let n = blob.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        blob = blob.dropFirst(4)
        self.init(typeName: String(decoding: blob.prefix(n), as: UTF8.self))
    }

    init(typeName: String) {
        switch typeName {
        case "ssh-rsa": self = .rsa
        case "ssh-dss": self = .dsa
        case _ where typeName.hasPrefix("sk-"): self = .fido
        default: self = .usable
        }
    }
}
