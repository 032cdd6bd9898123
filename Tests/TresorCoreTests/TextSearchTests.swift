// Tests for the byte-level search that grep's payload filter uses, against Swift's own lowercased().contains.
import Foundation
import XCTest
@testable import TresorCore

final class TextSearchTests: XCTestCase {
    func testASCIISearchAgreesWithLowercasedContains() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ09 -_\"\\".utf8)
        for _ in 0..<3000 {
            let hay = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let needle = (0..<Int.random(in: 0...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let lowered = Array(String(decoding: needle, as: UTF8.self).lowercased().utf8)
            let expected = String(decoding: hay, as: UTF8.self).lowercased().contains(String(decoding: lowered, as: UTF8.self))
                || lowered.isEmpty
            let got = hay.withUnsafeBufferPointer { TextSearch.asciiContains($0, lowered) }
            XCTAssertEqual(got, expected, "\(String(decoding: hay, as: UTF8.self)) / \(String(decoding: lowered, as: UTF8.self))")
        }
    }

    func testMayContainIsFalseOnlyWhenTheSecretCannotMatch() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "A", "b", "Z", "z", " ", "\n", "é", "İ", "\u{212A}"]
        for _ in 0..<3000 {
            let hay = (0..<Int.random(in: 0...20, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            let needle = (0..<Int.random(in: 0...3, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined().lowercased()
            let contains = hay.lowercased().contains(needle) || needle.isEmpty
            let may = TextSearch.mayContain(SecretText(hay), lowercasedNeedle: needle)
            if contains { XCTAssertTrue(may, "\(hay) / \(needle)") }
            if hay.utf8.allSatisfy({ $0 < 0x80 }) && needle.utf8.allSatisfy({ $0 < 0x80 }) { XCTAssertEqual(may, contains, "\(hay) / \(needle)") }
        }
    }

    func testIsASCIIFindsAHighByteAnywhere() {
        for length in 0..<40 {
            let plain = [UInt8](repeating: 0x61, count: length)
            XCTAssertTrue(plain.withUnsafeBytes { TextSearch.isASCII($0) })
            for at in 0..<length {
                var high = plain
                high[at] = 0xC3
                XCTAssertFalse(high.withUnsafeBytes { TextSearch.isASCII($0) }, "length \(length), at \(at)")
            }
        }
    }
}
