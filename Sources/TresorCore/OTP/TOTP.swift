// Time-based one-time codes (RFC 6238) from an otpauth:// URI, the form authenticator apps export.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A TOTP generator: `secret`, hash, number of digits and period, as an `otpauth://totp/…` URI states
/// them (the Key Uri Format of Google Authenticator, which other vaults export too). Tresor stores the
/// URI as the entry's custom text field `otp`.
public struct TOTP: Sendable {
    /// The field that holds an entry's `otpauth://` URI.
    public static let fieldName = "otp"

    public let secret: SecretBytes
    public let algorithm: HashFunction
    public let digits: Int
    public let period: Int
    /// `issuer` parameter or the label's part before `:`, if any.
    public let issuer: String?
    /// The label's account part, if any.
    public let account: String?

    public init(secret: SecretBytes, algorithm: HashFunction = .sha1, digits: Int = 6, period: Int = 30,
                issuer: String? = nil, account: String? = nil) {
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.issuer = issuer
        self.account = account
    }

    /// Parses `otpauth://totp/LABEL?secret=…&algorithm=…&digits=…&period=…&issuer=…`. Scheme, type,
    /// parameter names and algorithm names are case-insensitive; unknown parameters are ignored.
    /// - Throws: `OTPError` naming the first part that is wrong.
    public init(uri: String) throws {
        guard let components = URLComponents(string: uri.trimming(.whitespaces)),
              components.scheme?.lowercased() == "otpauth" else { throw OTPError.notAnOTPAuthURI }
        let type = (components.host ?? "").lowercased()
        guard type == "totp" else { throw OTPError.unsupportedType(components.host ?? "") }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name.lowercased()] = item.value ?? "" }

        guard let secretText = parameters["secret"] else { throw OTPError.missingSecret }
        let secret = try Base32.decode(secretText)

        var algorithm = HashFunction.sha1
        if let a = parameters["algorithm"] {
            guard let h = HashFunction(rawValue: a.uppercased().replacingAll("-", with: "")) else { throw OTPError.badAlgorithm(a) }
            algorithm = h
        }
        var digits = 6
        if let d = parameters["digits"] {
            guard let n = Int(d), (6...8).contains(n) else { throw OTPError.badDigits(d) }
            digits = n
        }
        var period = 30
        if let p = parameters["period"] {
            guard let n = Int(p), (1...86_400).contains(n) else { throw OTPError.badPeriod(p) }
            period = n
        }
        let label = String(components.path.drop { $0 == "/" })
        let parts = label.split(separator: ":", maxSplits: 1).map { $0.trimming(.whitespaces) }
        let account = parts.last.flatMap { $0.isEmpty ? nil : $0 }
        let issuer = parameters["issuer"] ?? (parts.count == 2 ? parts[0] : nil)
        self.init(secret: secret, algorithm: algorithm, digits: digits, period: period, issuer: issuer, account: account)
    }

    /// The code for the time step holding `time` (seconds since 1970), zero-padded to `digits`.
    /// RFC 6238 §4 over HOTP (RFC 4226 §5.3, dynamic truncation).
    public func code(at time: Int64) -> String {
        let counter = UInt64(max(time, 0) / Int64(period))
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let mac = LibCrypto.hmac(algorithm, key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// Seconds until the code for `time` is replaced (1…period).
    public func secondsLeft(at time: Int64) -> Int {
        period - Int(max(time, 0) % Int64(period))
    }
}
