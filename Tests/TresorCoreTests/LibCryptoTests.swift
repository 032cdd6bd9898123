// Known-answer tests for the libcrypto wrappers: RFC 2202 / RFC 4231 HMACs, NIST SP 800-38A AES-256-CBC.
@testable import TresorCore
import XCTest

final class LibCryptoTests: XCTestCase {
    func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
        return out
    }
    func hexString(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    func testHMACKnownAnswers() {
        // RFC 2202 test case 2 and RFC 4231 test case 2: key "Jefe".
        let key = SecretBytes(utf8: "Jefe"), msg = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(hexString(LibCrypto.hmac(.sha1, key: key, message: msg)), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        XCTAssertEqual(hexString(LibCrypto.hmac(.sha256, key: key, message: msg)),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hexString(LibCrypto.hmac(.sha512, key: key, message: msg)),
                       "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
    }

    func testAES256CBCRoundTripAndNISTVector() throws {
        // SP 800-38A F.2.5, first block; PKCS#7 adds one full padding block.
        let key = SecretBytes(copying: hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"))
        let iv = hex("000102030405060708090a0b0c0d0e0f")
        let plain = SecretBytes(copying: hex("6bc1bee22e409f96e93d7e117393172a"))
        let sealed = try LibCrypto.aes256CBCEncrypt(plain, key: key, iv: iv)
        XCTAssertEqual(hexString(Array(sealed.prefix(16))), "f58c4c04d6e5f1ba779eabfb5f7bfbd6")
        XCTAssertEqual(sealed.count, 32)
        let opened = try LibCrypto.aes256CBCDecrypt(sealed, key: key, iv: iv)
        XCTAssertTrue(opened.constantTimeEquals(plain))
        var broken = sealed
        broken[31] ^= 1
        XCTAssertThrowsError(try LibCrypto.aes256CBCDecrypt(broken, key: key, iv: iv))
    }

    func testAESECBRoundsMatchRepeatedSingleEncryptions() throws {
        // FIPS-197 C.3: AES-256 of 00112233… under key 000102…1f is 8ea2b7ca516745bfeafc49904b496089.
        let block = SecretBytes(copying: hex("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))
        try LibCrypto.aes256ECBRounds(block, key: hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"), rounds: 1)
        XCTAssertEqual(block.withBytes { hexString(Array($0)) },
                       "8ea2b7ca516745bfeafc49904b4960898ea2b7ca516745bfeafc49904b496089")
    }
}
