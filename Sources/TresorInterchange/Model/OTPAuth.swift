// One-time-password secrets of every source turned into the `otpauth://totp/...` URI Tresor keeps in the `otp` field.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Converts the forms other managers store TOTP secrets in to one `otpauth://` URI (the Key Uri Format
/// of Google Authenticator, which KeePassXC, Bitwarden and 1Password also read).
public enum OTPAuth {
    /// Tresor's field name for the URI.
    public static let fieldName = "otp"

    /// `value` as an `otpauth://` URI: kept if it already is one; a bare base32 secret, a KeeOTP
    /// `key=…&step=…&size=…` string or a `steam://` secret is converted. nil for anything else.
    public static func uri(from value: String, issuer: String?, account: String?) -> String? {
        let v = value.trimming(.whitespacesAndNewlines)
        if v.lowercased().hasPrefix("otpauth://") { return v }
        if v.lowercased().hasPrefix("steam://") {
            guard let secret = base32(String(v.dropFirst(8))) else { return nil }
            return build(secret: secret, issuer: issuer, account: account, period: nil, digits: nil, algorithm: nil, steam: true)
        }
        if v.contains("key=") {
            var items: [String: String] = [:]
            for part in v.split(separator: "&") {
                let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { items[kv[0].lowercased()] = kv[1].percentDecoded ?? kv[1] }
            }
            guard let key = items["key"], let secret = base32(key) else { return nil }
            return build(secret: secret, issuer: issuer, account: account, period: items["step"].flatMap { Int($0) },
                         digits: items["size"].flatMap { Int($0) }, algorithm: items["otphashmode"], steam: false)
        }
        guard let secret = base32(v) else { return nil }
        return build(secret: secret, issuer: issuer, account: account, period: nil, digits: nil, algorithm: nil, steam: false)
    }

    /// KeePassXC's legacy attributes: `TOTP Seed` and `TOTP Settings` (`30;6`, or `30;S` for Steam).
    public static func uri(keePassSeed seed: String, settings: String?, issuer: String?, account: String?) -> String? {
        if seed.lowercased().hasPrefix("otpauth://") || seed.contains("key=") { return uri(from: seed, issuer: issuer, account: account) }
        guard let secret = base32(seed) else { return nil }
        let parts = (settings ?? "").split(separator: ";").map { $0.trimming(.whitespaces) }
        let period = parts.first.flatMap { Int($0) }
        let steam = parts.count > 1 && parts[1] == "S"
        let digits = parts.count > 1 ? Int(parts[1]) : nil
        return build(secret: secret, issuer: issuer, account: account, period: period, digits: digits, algorithm: nil, steam: steam)
    }

    /// KeePass 2.47+ `TimeOtp-*` attributes (secret as base32, hex, base64 or UTF-8; length, period, algorithm).
    public static func uri(keePassTimeOtp attributes: [String: String], issuer: String?, account: String?) -> String? {
        var secret: String?
        if let b32 = attributes["TimeOtp-Secret-Base32"] { secret = base32(b32) }
        else if let hex = attributes["TimeOtp-Secret-Hex"] { secret = hexBytes(hex).map(encodeBase32) }
        else if let b64 = attributes["TimeOtp-Secret-Base64"], let d = Data(base64Encoded: b64) { secret = encodeBase32(Array(d)) }
        else if let raw = attributes["TimeOtp-Secret"] { secret = encodeBase32(Array(raw.utf8)) }
        guard let secret, !secret.isEmpty else { return nil }
        let algorithm = attributes["TimeOtp-Algorithm"].map { $0.replacingAll("HMAC-", with: "").replacingAll("-", with: "") }
        return build(secret: secret, issuer: issuer, account: account, period: attributes["TimeOtp-Period"].flatMap { Int($0) },
                     digits: attributes["TimeOtp-Length"].flatMap { Int($0) }, algorithm: algorithm, steam: false)
    }

    /// The secret of an `otpauth://` URI (for KeePassXC's CSV `TOTP` column, which holds the URI itself).
    public static func isURI(_ s: String) -> Bool { s.lowercased().hasPrefix("otpauth://") }

    /// Whether a secret text starts with `otpauth://` (ASCII case ignored), read in place.
    public static func isURI(_ s: SecretText) -> Bool {
        let prefix = Array("otpauth://".utf8)
        return s.withUTF8 { b in
            b.count >= prefix.count && prefix.indices.allSatisfy { (b[$0] >= 0x41 && b[$0] <= 0x5A ? b[$0] | 0x20 : b[$0]) == prefix[$0] }
        }
    }

    static func build(secret: String, issuer: String?, account: String?, period: Int?, digits: Int?, algorithm: String?, steam: Bool) -> String {
        let allowed = ScalarSet.asciiAlphanumerics.union(ScalarSet(charactersIn: "-._~@"))
        func enc(_ s: String) -> String { s.percentEncoded(allowing: allowed) }
        let issuer = issuer.flatMap { $0.isEmpty ? nil : $0 }
        let account = account.flatMap { $0.isEmpty ? nil : $0 }
        let label = [issuer, account].compactMap { $0 }.map(enc).joined(separator: ":")
        var query = ["secret=\(secret)"]
        query.append("period=\(period ?? 30)")
        query.append("digits=\(steam ? 5 : digits ?? 6)")
        if let algorithm, !algorithm.isEmpty, algorithm.uppercased() != "SHA1" { query.append("algorithm=\(algorithm.uppercased())") }
        if let issuer { query.append("issuer=\(enc(issuer))") }
        if steam { query.append("encoder=steam") }
        return "otpauth://totp/\(label)?" + query.joined(separator: "&")
    }

    /// A base32 secret normalised (upper case, no spaces, hyphens or padding), nil if it is not base32.
    static func base32(_ s: String) -> String? {
        let cleaned = s.uppercased().filter { $0 != " " && $0 != "-" && $0 != "=" }
        guard !cleaned.isEmpty, cleaned.allSatisfy({ ("A"..."Z").contains($0) || ("2"..."7").contains($0) }) else { return nil }
        return cleaned
    }

    static func encodeBase32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var out = "", buffer = 0, bits = 0
        for b in bytes {
            buffer = (buffer << 8) | Int(b); bits += 8
            while bits >= 5 { out.append(alphabet[(buffer >> (bits - 5)) & 31]); bits -= 5 }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }

    static func hexBytes(_ s: String) -> [UInt8]? {
        let h = Array(s.filter { !$0.isWhitespace }.utf8)
        guard h.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < h.count {
            guard let b = UInt8(String(decoding: h[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(b); i += 2
        }
        return out
    }
}
