// Chi-square tests that the system source and the generator give uniformly distributed output.

import XCTest
@testable import TresorCore

/// Per-check false-alarm probability. This file makes 74 chi-square checks (64 positions + 1 overall
/// + 9 others), so a correct generator fails a run with probability below 74 · 1e-8 < 1e-6.
private let alpha = 1e-8

/// The upper standard-normal quantile z with P(Z > z) = p, by bisection on erfc.
private func normalUpperQuantile(_ p: Double) -> Double {
    var lo = 0.0, hi = 40.0
    for _ in 0..<200 {
        let mid = (lo + hi) / 2
        if 0.5 * erfc(mid / 2.squareRoot()) > p { lo = mid } else { hi = mid }
    }
    return (lo + hi) / 2
}

/// The chi-square critical value for `df` degrees of freedom at upper tail `p`, by the
/// Wilson–Hilferty approximation χ² ≈ k·(1 − 2/(9k) + z·√(2/(9k)))³. For p = 1e-8 it slightly
/// overestimates the exact quantile (df 93: 191.37 against 190.83; true tail 8.7e-9), so the
/// threshold errs on the side of not failing a correct generator.
func chiSquareCritical(df: Int, p: Double) -> Double {
    let k = Double(df), z = normalUpperQuantile(p)
    let c = 2 / (9 * k)
    return k * pow(1 - c + z * c.squareRoot(), 3)
}

/// Pearson's statistic for observed counts against equal expected counts.
func chiSquare(_ counts: [Int]) -> Double {
    let total = Double(counts.reduce(0, +)), expected = total / Double(counts.count)
    return counts.reduce(0) { $0 + pow(Double($1) - expected, 2) / expected }
}

final class GeneratorStatisticsTests: XCTestCase {
    func testCriticalValues() {
        XCTAssertEqual(normalUpperQuantile(1e-8), 5.612001, accuracy: 1e-5)
        XCTAssertEqual(chiSquareCritical(df: 93, p: alpha), 191.37, accuracy: 0.01)
        XCTAssertEqual(chiSquareCritical(df: 7775, p: alpha), 8495.31, accuracy: 0.01)
        XCTAssertEqual(chiSquareCritical(df: 10, p: 0.05), 18.307, accuracy: 0.05)   // textbook table value
    }

    /// 15,625 passwords of 64 characters = 10^6 characters from the system source; one test per
    /// position (15,625 draws over 94 characters, 166 expected per cell) and one over all of them.
    func testCharactersAreUniformPerPositionAndOverall() throws {
        let policy = PasswordPolicy(length: 64)
        let alphabet = try policy.resolve().alphabet
        var index = [Int](repeating: -1, count: 128)
        for (i, scalar) in alphabet.enumerated() { index[Int(scalar.value)] = i }
        var perPosition = [[Int]](repeating: [Int](repeating: 0, count: alphabet.count), count: 64)
        var rng = SystemRandomSource()
        for _ in 0..<15_625 {
            let value = try Generator.generate(.characters(policy), using: &rng).value
            for (position, byte) in value.utf8.enumerated() { perPosition[position][index[Int(byte)]] += 1 }
        }
        let critical = chiSquareCritical(df: alphabet.count - 1, p: alpha)
        var overall = [Int](repeating: 0, count: alphabet.count)
        for (position, counts) in perPosition.enumerated() {
            XCTAssertLessThan(chiSquare(counts), critical, "position \(position)")
            for i in counts.indices { overall[i] += counts[i] }
        }
        XCTAssertEqual(overall.reduce(0, +), 1_000_000)
        XCTAssertLessThan(chiSquare(overall), critical, "all positions")
    }

    /// Every-class over {a, b} ∪ {0} ∪ {!} at length 4: all 96 allowed strings must be equally likely,
    /// and nothing else may appear (plain sampling would give "aaaa" and others that miss a class).
    func testEveryClassIsUniformOverAllAllowedStrings() throws {
        let policy = PasswordPolicy(length: 4, classes: [.lower, .digits, .symbols], exclude: "cdefghijklmnopqrstuvwxyz123456789",
                                    everyClass: true, symbols: "!")
        var counts: [String: Int] = [:]
        var rng = SystemRandomSource()
        let samples = 96 * 150
        for _ in 0..<samples { counts[try Generator.generate(.characters(policy), using: &rng).value, default: 0] += 1 }
        XCTAssertEqual(counts.count, 96)
        for key in counts.keys {
            XCTAssertTrue(key.contains { $0 == "a" || $0 == "b" } && key.contains("0") && key.contains("!"), key)
        }
        XCTAssertLessThan(chiSquare(Array(counts.values)), chiSquareCritical(df: 95, p: alpha))
        XCTAssertGreaterThan(EveryClassSampler(sizes: [2, 1, 1], length: 4).acceptance, 1.0 / 16)   // the rejection path ran
    }

    /// The exact sampler alone over the same 96 strings (`generate` uses rejection sampling there).
    func testExactSamplerIsUniformOverAllAllowedStrings() {
        let sampler = EveryClassSampler(sizes: [2, 1, 1], length: 4)
        var counts: [[Int]: Int] = [:]
        var rng = SystemRandomSource()
        for _ in 0..<(96 * 100) {
            let s = sampler.sampleExact(using: &rng)
            XCTAssertEqual(Set(s.map(\.classIndex)).count, 3)
            counts[s.map { $0.classIndex * 2 + $0.charIndex }, default: 0] += 1
        }
        XCTAssertEqual(counts.count, 96)
        XCTAssertLessThan(chiSquare(Array(counts.values)), chiSquareCritical(df: 95, p: alpha))
    }

    /// Five classes of unequal sizes, where acceptance is 2.2% so `generate` takes the exact path.
    func testEveryClassIsUniformWithUnequalClasses() throws {
        // Classes {x, y, z}, {A}, {7}, {!, #}, include {§}: length 5 gives 5!·3·1·1·2·1 = 720 strings.
        let policy = PasswordPolicy(length: 5, include: "§", exclude: "abcdefghijklmnopqrstuvwBCDEFGHIJKLMNOPQRSTUVWXYZ012345689",
                                    everyClass: true, symbols: "!#")
        XCTAssertEqual(try Generator.entropyBits(of: .characters(policy)), log2(720), accuracy: 1e-9)
        XCTAssertLessThan(EveryClassSampler(sizes: [3, 1, 1, 2, 1], length: 5).acceptance, 1.0 / 16)
        var counts: [String: Int] = [:]
        var rng = SystemRandomSource()
        // 30 draws per string: with 10, one of the 720 never came up in about one run of 30 (720 · e^-10).
        for _ in 0..<(720 * 30) { counts[try Generator.generate(.characters(policy), using: &rng).value, default: 0] += 1 }
        XCTAssertEqual(counts.count, 720)
        XCTAssertLessThan(chiSquare(Array(counts.values)), chiSquareCritical(df: 719, p: alpha))
    }

    /// Passphrase words: 10,000 passphrases of 8 words, about 10.3 draws per word of the list.
    func testPassphraseWordsAreUniform() throws {
        let policy = PassphrasePolicy(words: 8, separator: " ", withNumber: true)
        let index = Dictionary(uniqueKeysWithValues: (try EFFWordList.words()).enumerated().map { ($1, $0) })
        var words = [Int](repeating: 0, count: 7776), digits = [Int](repeating: 0, count: 10), slots = [Int](repeating: 0, count: 8)
        var rng = SystemRandomSource()
        for _ in 0..<10_000 {
            let parts = try Generator.generate(.words(policy), using: &rng).value.split(separator: " ")
            XCTAssertEqual(parts.count, 8)
            for (slot, part) in parts.enumerated() {
                if let digit = part.last?.wholeNumberValue { digits[digit] += 1; slots[slot] += 1 }
                words[index[String(part.filter { !$0.isNumber })]!] += 1
            }
        }
        XCTAssertEqual(digits.reduce(0, +), 10_000)
        XCTAssertLessThan(chiSquare(words), chiSquareCritical(df: 7775, p: alpha))
        XCTAssertLessThan(chiSquare(digits), chiSquareCritical(df: 9, p: alpha))
        XCTAssertLessThan(chiSquare(slots), chiSquareCritical(df: 7, p: alpha))
    }

    /// The tests above must be able to fail: a generator that never picks one character is caught.
    func testChiSquareDetectsABiasedSource() throws {
        struct Biased: RandomSource {   // index 0 comes out as 1: a classic off-by-one bias
            var inner = SystemRandomSource()
            mutating func uniform(_ upperBound: UInt32) -> UInt32 { max(inner.uniform(upperBound), 1) }
        }
        var rng = Biased()
        var counts = [Int](repeating: 0, count: 94)
        let policy = GeneratorPolicy.characters(PasswordPolicy(length: 100))
        let alphabet = try PasswordPolicy(length: 100).resolve().alphabet
        for _ in 0..<100 {
            for scalar in try Generator.generate(policy, using: &rng).value.unicodeScalars {
                counts[alphabet.firstIndex(of: scalar)!] += 1
            }
        }
        XCTAssertGreaterThan(chiSquare(counts), chiSquareCritical(df: 93, p: alpha))
    }
}
