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
    /// The secret is not base32 (the problem says how).
    case badSecret(SecretProblem)
    /// `algorithm=` other than SHA1, SHA256 or SHA512.
    case badAlgorithm(String)
    /// `digits=` other than 6, 7 or 8.
    case badDigits(String)
    /// `period=` that is not a whole number of seconds from 1 to 86,400.
    case badPeriod(String)

    /// Why a secret is not base32 (RFC 4648 §6).
    public enum SecretProblem: Equatable, Sendable {
        /// `=` padding before the end.
        case paddingInTheMiddle
        /// A character that is not base32.
        case notBase32(Unicode.Scalar)
        /// No characters at all.
        case empty
        /// A number of characters no encoder writes (a final group of 1, 3 or 6).
        case length(Int)
        /// Padding that does not fill the last group of 8.
        case wrongPadding
    }
}
