// Why an otpauth:// URI was refused.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A one-time-code URI that cannot be used. Each case names the part that is wrong and what was found.
public enum OTPError: Error, Equatable, Sendable {
    /// Not an `otpauth://` URI at all.
    case notAnOTPAuthURI
    /// `otpauth://hotp/…` or another type; only `totp` is implemented.
    case unsupportedType(String)
    /// No `secret=` parameter.
    case missingSecret
    /// The secret is not base32 (the reason says how).
    case badSecret(String)
    /// `algorithm=` other than SHA1, SHA256 or SHA512.
    case badAlgorithm(String)
    /// `digits=` other than 6, 7 or 8.
    case badDigits(String)
    /// `period=` that is not a whole number of seconds from 1 to 86,400.
    case badPeriod(String)
}
