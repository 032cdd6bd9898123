// An ssh private key kept in an entry field, in the OpenSSH format, read for the ssh agent (README "ssh-add").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// An unencrypted private key in OpenSSH's `openssh-key-v1` format (what `ssh-keygen` writes): ed25519, ECDSA
/// (nistp256/384/521) or RSA. Only what the agent protocol needs is kept: the public key blob (to remove it again)
/// and the private key in the agent's encoding, which for these types is the file's own (type name, then the key's
/// fields), held in zeroing memory. Keys protected by a passphrase are refused: the vault already encrypts them.
package struct OpenSSHKey: Sendable {
    /// `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, …
    package let type: String
    /// The public key blob (SSH wire encoding), as `SSH2_AGENTC_REMOVE_IDENTITY` names the key.
    package let publicBlob: [UInt8]
    /// The comment `ssh-keygen -C` stored (may be empty).
    package let comment: String
    /// The type name and private fields in the agent's encoding (RFC 4253 strings and mpints), without the comment.
    let privateFields: SecretBytes

    static let begin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let end = "-----END OPENSSH PRIVATE KEY-----"
    static let magic = Array("openssh-key-v1\u{0}".utf8)

    /// The private fields each supported type has after its name: strings (`s`) and mpints (`m`, the same encoding).
    static let fieldCounts: [String: Int] = [
        "ssh-ed25519": 2,  // public key, private key (seed and public key)
        "ecdsa-sha2-nistp256": 3, "ecdsa-sha2-nistp384": 3, "ecdsa-sha2-nistp521": 3,  // curve, public point, private scalar
        "ssh-rsa": 6,  // n, e, d, iqmp, p, q
    ]

    /// Parses the key in `text` (the field `field` of entry `path`, named in errors).
    /// - Throws: `IntegrationError.sshKey` saying what is wrong.
    package init(_ text: SecretText, path: String, field: String) throws {
        func fail(_ p: IntegrationError.SSHKeyProblem) -> IntegrationError { .sshKey(path: path, field: field, problem: p) }
        let decoded: SecretBytes = try text.withUTF8 { t in
            guard let b = OpenSSHKey.find(OpenSSHKey.begin, in: t), let e = OpenSSHKey.find(OpenSSHKey.end, in: t), e > b else {
                let pem = OpenSSHKey.find("-----BEGIN RSA PRIVATE KEY-----", in: t) != nil || OpenSSHKey.find("-----BEGIN EC PRIVATE KEY-----", in: t) != nil
                    || OpenSSHKey.find("-----BEGIN PRIVATE KEY-----", in: t) != nil
                throw fail(.notOpenSSH(pem: pem))
            }
            guard let bytes = OpenSSHKey.base64(UnsafeRawBufferPointer(rebasing: t[(b + OpenSSHKey.begin.utf8.count)..<e])) else { throw fail(.malformed) }
            return bytes
        }
        var parsed: (String, [UInt8], String, SecretBytes)?
        try decoded.withBytes { all in
            var r = WireReader(all)
            guard r.take(OpenSSHKey.magic.count).map({ $0.elementsEqual(OpenSSHKey.magic) }) == true,
                  let cipher = r.string(), let kdf = r.string(), r.string() != nil, let count = r.uint32() else { throw fail(.malformed) }
            let cipherName = String(decoding: cipher, as: UTF8.self)
            guard cipherName == "none", kdf.elementsEqual("none".utf8) else { throw fail(.encrypted(cipher: cipherName)) }
            guard count == 1 else { throw fail(.keyCount(count: Int(count))) }
            guard let publicBlob = r.string(), let section = r.string(), r.isAtEnd else { throw fail(.malformed) }
            var p = WireReader(section)
            guard let check1 = p.uint32(), let check2 = p.uint32(), check1 == check2 else { throw fail(.malformed) }
            let start = p.offset
            guard let typeBytes = p.string() else { throw fail(.malformed) }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard let fields = OpenSSHKey.fieldCounts[type] else { throw fail(.unsupportedType(type: type)) }
            for _ in 0..<fields where p.string() == nil { throw fail(.malformed) }
            let end = p.offset
            guard let comment = p.string() else { throw fail(.malformed) }
            // The padding is 1, 2, 3, … up to the cipher's block size.
            var n: UInt8 = 1
            while !p.isAtEnd { guard p.take(1)?.first == n else { throw fail(.malformed) }; n &+= 1 }
            // The public key inside must be the one outside (a file stitched together from two keys is refused).
            var pub = WireReader(publicBlob)
            guard pub.string().map({ $0.elementsEqual(typeBytes) }) == true else { throw fail(.malformed) }
            parsed = (type, Array(publicBlob), String(decoding: comment, as: UTF8.self),
                      SecretBytes(copying: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(rebasing: section)[start..<end])))
        }
        guard let parsed else { throw fail(.malformed) }
        (type, publicBlob, comment, privateFields) = parsed
    }

    /// `SHA256:…` as `ssh-add -l` prints the key's fingerprint.
    package var fingerprint: String {
        let digest = publicBlob.withUnsafeBytes { LibCrypto.digest(.sha256, $0) }
        var b64 = Data(digest).base64EncodedString()
        while b64.hasSuffix("=") { b64.removeLast() }
        return "SHA256:" + b64
    }

    static func find(_ marker: String, in text: UnsafeRawBufferPointer) -> Int? {
        let m = Array(marker.utf8)
        guard text.count >= m.count else { return nil }
        for i in 0...(text.count - m.count) where text[i] == m[0] && text[i..<(i + m.count)].elementsEqual(m) { return i }
        return nil
    }

    /// Standard base64 with line breaks and spaces between, decoded into zeroing memory; nil when not base64.
    static func base64(_ text: UnsafeRawBufferPointer) -> SecretBytes? {
        var out = SecretByteBuilder(capacity: text.count)
        var acc: UInt32 = 0, bits = 0, padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case 0x2B: v = 62
            case 0x2F: v = 63
            case 0x3D: padding += 1; continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
            acc &= (1 << UInt32(bits)) - 1
        }
        acc = 0
        return out.finish()
    }
}

/// Reads RFC 4251 data types from a buffer.
struct WireReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    init(_ slice: Slice<UnsafeRawBufferPointer>) { self.bytes = UnsafeRawBufferPointer(rebasing: slice) }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ n: Int) -> Slice<UnsafeRawBufferPointer>? {
        guard n >= 0, bytes.count - offset >= n else { return nil }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    mutating func uint32() -> UInt32? {
        guard let b = take(4) else { return nil }
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A length-prefixed string (or mpint).
    mutating func string() -> Slice<UnsafeRawBufferPointer>? {
        guard let n = uint32(), n <= UInt32(Int32.max) else { return nil }
        return take(Int(n))
    }
}
