// Entropy values checked against brute-force enumeration, and the exact big-integer arithmetic behind them.

import XCTest
@testable import TresorCore

final class GeneratorEntropyTests: XCTestCase {
    /// Counts, by listing every string, those of `length` over the classes that miss no class.
    private func enumerate(sizes: [Int], length: Int) -> Int {
        let n = sizes.reduce(0, +)
        let classOf = sizes.enumerated().flatMap { i, c in Array(repeating: i, count: c) }
        var count = 0
        var digits = [Int](repeating: 0, count: length)
        for _ in 0..<Int(pow(Double(n), Double(length))) {
            if Set(digits.map { classOf[$0] }).count == sizes.count { count += 1 }
            var i = 0
            while i < length { digits[i] += 1; if digits[i] < n { break }; digits[i] = 0; i += 1 }
        }
        return count
    }

    func testEveryClassCountsMatchEnumeration() {
        let cases: [([Int], Int)] = [
            ([1, 1], 2), ([2, 1], 3), ([2, 1, 1], 3), ([2, 1, 1], 4), ([3, 2], 3), ([1, 1, 1, 1], 4),
            ([1, 1, 1, 1], 5), ([3, 1, 2, 1], 5), ([2, 2, 2, 1, 1], 5), ([5], 3), ([4, 3], 1 + 3),
        ]
        for (sizes, length) in cases {
            let expected = enumerate(sizes: sizes, length: length)
            let sampler = EveryClassSampler(sizes: sizes, length: length)
            XCTAssertEqual(sampler.exactCount().description, String(expected), "\(sizes) L=\(length)")
            XCTAssertEqual(sampler.log2Count(), log2(Double(expected)), accuracy: 1e-9, "\(sizes) L=\(length)")
        }
    }

    func testPolicyEntropyMatchesEnumeration() throws {
        // Alphabet {a, b} ∪ {0} ∪ {!}, length 4, every class: 96 strings (counted by hand and by listing).
        let policy = PasswordPolicy(length: 4, classes: [.lower, .digits, .symbols], exclude: "cdefghijklmnopqrstuvwxyz123456789",
                                    everyClass: true, symbols: "!")
        XCTAssertEqual(enumerate(sizes: [2, 1, 1], length: 4), 96)
        XCTAssertEqual(try Generator.entropyBits(of: .characters(policy)), log2(96), accuracy: 1e-12)
        var plain = policy
        plain.everyClass = false
        XCTAssertEqual(try Generator.entropyBits(of: .characters(plain)), 4 * 2, accuracy: 1e-12)
        XCTAssertEqual(try Generator.entropyBits(of: .characters(PasswordPolicy(length: 3, classes: .digits))),
                       log2(1000), accuracy: 1e-12)
    }

    func testLongEveryClassEntropyIsFiniteAndMatchesTheExactCount() throws {
        for length in [4, 5, 8, 24, 100, 1024] {
            let sampler = EveryClassSampler(sizes: [26, 26, 10, 32], length: length)
            let exact = sampler.exactCount().log2Value
            XCTAssertEqual(sampler.log2Count(), exact, accuracy: 1e-9, "L=\(length)")
            XCTAssertLessThanOrEqual(exact, Double(length) * log2(94))
        }
        let full = try Generator.entropyBits(of: .characters(PasswordPolicy(length: 1024, everyClass: true)))
        XCTAssertEqual(full, 1024 * log2(94), accuracy: 1e-6)   // missing a class is then astronomically unlikely
        // Length = class count: exactly k!·Π c_i strings; the log-domain bracket is tiny here, so the exact path runs.
        let tight = EveryClassSampler(sizes: [1, 1, 1, 1, 186], length: 5)
        XCTAssertEqual(tight.log2Count(), log2(120 * 186), accuracy: 1e-9)
        XCTAssertEqual(tight.exactCount().description, "22320")
    }

    func testPassphraseEntropy() throws {
        XCTAssertEqual(try Generator.entropyBits(of: .words(PassphrasePolicy())), 6 * log2(7776), accuracy: 1e-12)
        XCTAssertEqual(try Generator.entropyBits(of: .words(PassphrasePolicy(words: 5, capitalize: true))),
                       5 * log2(7776), accuracy: 1e-12)
        XCTAssertEqual(try Generator.entropyBits(of: .words(PassphrasePolicy(words: 4, withNumber: true))),
                       4 * log2(7776) + log2(40), accuracy: 1e-12)
    }

    func testBigUIntArithmetic() {
        let a = BigUInt.power(7, 100)          // 7^100 has 85 digits
        XCTAssertEqual(a.description.count, 85)
        XCTAssertEqual(a.description.prefix(10), "3234476509")
        XCTAssertEqual(a.dividedExactly(by: 7), BigUInt.power(7, 99))
        XCTAssertEqual(BigUInt.power(2, 64) - BigUInt(1), BigUInt(UInt32.max) * BigUInt(UInt32.max) + BigUInt(UInt32.max) * BigUInt(2))
        XCTAssertEqual((BigUInt.power(10, 30) + BigUInt(5)).description, "1" + String(repeating: "0", count: 29) + "5")
        XCTAssertEqual(BigUInt.power(2, 200).log2Value, 200, accuracy: 1e-12)
        XCTAssertEqual(BigUInt.power(0, 0), BigUInt(1))
        XCTAssertTrue(BigUInt.power(3, 50) < BigUInt.power(3, 51))
        var rng = XorShiftSource(seed: 7)
        let bound = BigUInt.power(3, 77)
        for _ in 0..<200 { XCTAssertTrue(BigUInt.random(below: bound, using: &rng) < bound) }
    }
}
