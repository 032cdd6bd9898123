// TOTP: RFC 6238 appendix B for all three hashes, and otpauth:// URIs as apps write them (and as they must not).
@testable import TresorCore
import XCTest

final class TOTPTests: XCTestCase {
    /// RFC 6238 appendix B: the seeds are ASCII digits repeated to the hash's length; 8 digits, period 30.
    static let times: [Int64] = [59, 1_111_111_109, 1_111_111_111, 1_234_567_890, 2_000_000_000, 20_000_000_000]
    static let vectors: [(HashFunction, String, [String])] = [
        (.sha1, "12345678901234567890", ["94287082", "07081804", "14050471", "89005924", "69279037", "65353130"]),
        (.sha256, "12345678901234567890123456789012", ["46119246", "68084774", "67062674", "91819424", "90698825", "77737706"]),
        (.sha512, "1234567890123456789012345678901234567890123456789012345678901234",
         ["90693936", "25091201", "99943326", "93441116", "38618901", "47863826"]),
    ]

    func testRFC6238AppendixB() {
        for (hash, seed, codes) in TOTPTests.vectors {
            let totp = TOTP(secret: SecretBytes(utf8: seed), algorithm: hash, digits: 8, period: 30)
            for (time, code) in zip(TOTPTests.times, codes) {
                XCTAssertEqual(totp.code(at: time), code, "\(hash) at \(time)")
            }
        }
    }

    /// The same vectors through URIs: the seed in base32, the parameters spelled in different cases.
    func testRFCVectorsThroughURIs() throws {
        let uris = [
            "otpauth://totp/ACME:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=8",
            "OTPAUTH://TOTP/x?SECRET=gezdgnbvgy3tqojqgezdgnbvgy3tqojqgezdgnbvgy3tqojqgeza&Algorithm=sha256&Digits=8",
            "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA%3D&algorithm=SHA512&digits=8",
        ]
        for (uri, vector) in zip(uris, TOTPTests.vectors) {
            let totp = try TOTP(uri: uri)
            XCTAssertEqual(totp.algorithm, vector.0)
            XCTAssertEqual(totp.code(at: 1_111_111_109), vector.2[1], uri)
        }
        let labelled = try TOTP(uri: "otpauth://totp/ACME%20Co:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co&period=60&digits=7")
        XCTAssertEqual(labelled.issuer, "ACME Co")
        XCTAssertEqual(labelled.account, "alice@example.com")
        XCTAssertEqual(labelled.period, 60)
        XCTAssertEqual(labelled.digits, 7)
        XCTAssertEqual(labelled.code(at: 0).count, 7)
        XCTAssertEqual(labelled.secondsLeft(at: 59), 1)
        XCTAssertEqual(labelled.secondsLeft(at: 60), 60)
    }

    func testBase32WithAndWithoutPaddingAndInLowerCase() throws {
        for (text, bytes) in [("MZXW6===", "foo"), ("MZXW6", "foo"), ("mzxw6", "foo"), ("MZXW6YQ=", "foob"),
                              ("MZXW6YTB", "fooba"), ("MZXW 6YTB OI", "foobar"), ("mzxw6ytboi======", "foobar")] {
            XCTAssertEqual(try Base32.decode(text).utf8String(), bytes, text)
        }
    }

    func testBadURIsAreRefusedWithWhatIsWrong() {
        let cases: [(String, OTPError)] = [
            ("https://example.com/?secret=JBSWY3DPEHPK3PXP", .notAnOTPAuthURI),
            ("not a uri at all", .notAnOTPAuthURI),
            ("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1", .unsupportedType("hotp")),
            ("otpauth://totp/x?issuer=A", .missingSecret),
            ("otpauth://totp/x?secret=", .badSecret(.empty)),
            ("otpauth://totp/x?secret=JBSWY3DP1", .badSecret(.notBase32("1"))),
            ("otpauth://totp/x?secret=JBS=WY3DP", .badSecret(.paddingInTheMiddle)),
            ("otpauth://totp/x?secret=JBSWY3DPE", .badSecret(.length(9))),
            ("otpauth://totp/x?secret=MZXW6==", .badSecret(.wrongPadding)),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5", .badAlgorithm("MD5")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=5", .badDigits("5")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=9", .badDigits("9")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=six", .badDigits("six")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=0", .badPeriod("0")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=-30", .badPeriod("-30")),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=1.5", .badPeriod("1.5")),
        ]
        for (uri, expected) in cases {
            XCTAssertThrowsError(try TOTP(uri: uri), uri) { XCTAssertEqual($0 as? OTPError, expected, uri) }
        }
        XCTAssertNoThrow(try TOTP(uri: "otpauth://totp/x?secret=JBSWY3D"), "7 characters: 4 whole bytes")
    }
}
