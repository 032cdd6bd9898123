// PassphraseRules: what bytes are refused as a passphrase, and why.
@testable import TresorCore
import XCTest

final class PassphraseRulesTests: XCTestCase {
    func testEachRule() {
        let cases: [(String, [UInt8], Bool, PassphraseError?)] = [
            ("ascii", Array("correct horse".utf8), true, nil),
            ("nfc is applied later, not refused", Array("cafe\u{301}".utf8), true, nil),
            ("bom", [0xEF, 0xBB, 0xBF] + Array("x".utf8), false, .byteOrderMark),
            ("bom only", [0xEF, 0xBB, 0xBF], true, .byteOrderMark),
            ("nul", [0x61, 0x00, 0x62], false, .nul(offset: 1)),
            ("lone continuation", [0x61, 0x62, 0x80], false, .invalidUTF8(offset: 2, byte: 0x80)),
            ("truncated sequence", [0x61, 0xE2, 0x82], false, .invalidUTF8(offset: 1, byte: 0xE2)),
            ("overlong", [0xC0, 0xAF], false, .invalidUTF8(offset: 0, byte: 0xC0)),
            ("surrogate", [0xED, 0xA0, 0x80], false, .invalidUTF8(offset: 0, byte: 0xED)),
            ("longest", [UInt8](repeating: 0x61, count: 1024), true, nil),
            ("too long", [UInt8](repeating: 0x61, count: 1025), false, .tooLong(maximum: 1024)),
            ("empty, new", [], true, .blank),
            ("empty, existing", [], false, nil),
            ("spaces, new", Array(" \t ".utf8), true, .blank),
            ("spaces, existing", Array(" \t ".utf8), false, nil),
            ("invisible, new", Array("\u{00A0}\u{200B}\u{FEFF}\u{3000}".utf8), true, .blank),
            ("one visible character", Array(" x ".utf8), true, nil),
        ]
        for (name, bytes, isNew, expected) in cases {
            XCTAssertEqual(PassphraseRules.problem(in: bytes, isNew: isNew), expected, name)
        }
    }

    func testAcceptedPassphrasesAreNFC() throws {
        let decomposed = try PassphraseRules.passphrase(Array("cafe\u{301}".utf8), isNew: true)
        let composed = try PassphraseRules.passphrase(Array("caf\u{E9}".utf8), isNew: true)
        XCTAssertTrue(decomposed.constantTimeEquals(composed))
        XCTAssertThrowsError(try PassphraseRules.passphrase([0xEF, 0xBB, 0xBF, 0x61], isNew: false))
    }
}
