// Generator options, errors, exact outputs for scripted randomness and exact entropy values.

import XCTest
@testable import TresorCore

/// Returns scripted values in order and records every bound it was asked for.
struct ScriptedSource: RandomSource {
    var values: [UInt32]
    var bounds: [UInt32] = []
    init(_ values: [UInt32]) { self.values = values }
    mutating func uniform(_ upperBound: UInt32) -> UInt32 {
        bounds.append(upperBound)
        guard !values.isEmpty else { XCTFail("script exhausted"); return 0 }
        let v = values.removeFirst()
        XCTAssertLessThan(v, upperBound, "scripted value out of range")
        return v
    }
}

/// xorshift64* with rejection sampling: deterministic and unbiased, for reproducible tests only.
struct XorShiftSource: RandomSource {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func uniform(_ upperBound: UInt32) -> UInt32 {
        let bound = UInt64(upperBound)
        let limit = UInt64.max - UInt64.max % bound   // reject the incomplete top block
        while true {
            let x = next()
            if x < limit { return UInt32(x % bound) }
        }
    }
}

final class GeneratorTests: XCTestCase {
    private func generate(_ policy: PasswordPolicy, _ script: [UInt32]) throws -> String {
        var rng = ScriptedSource(script)
        let value = try Generator.generate(.characters(policy), using: &rng).value
        XCTAssertTrue(rng.values.isEmpty, "unused script values")
        return value
    }

    func testDefaultsAreTwentyFourCharactersFromAllClasses() throws {
        let policy = PasswordPolicy()
        XCTAssertEqual(policy.length, 24)
        XCTAssertEqual(policy.classes, .all)
        XCTAssertEqual(try policy.resolve().alphabet.count, 26 + 26 + 10 + 32)
        XCTAssertEqual(CharacterSets.defaultSymbols.count, 32)
        XCTAssertTrue(CharacterSets.defaultSymbols.allSatisfy { $0.isASCII && $0.isPunctuation || $0.isSymbol })
        var rng = SystemRandomSource()
        let secret = try Generator.generate(.characters(policy), using: &rng)
        XCTAssertEqual(secret.value.count, 24)
        XCTAssertEqual(secret.entropyBits, 24 * log2(94), accuracy: 1e-9)
    }

    func testScriptedOutputsPickAlphabetIndices() throws {
        XCTAssertEqual(try generate(PasswordPolicy(length: 5, classes: .digits), [3, 1, 4, 1, 5]), "31415")
        XCTAssertEqual(try generate(PasswordPolicy(length: 3, classes: [.lower, .upper]), [0, 26, 51]), "aAZ")
        // Alphabet order: lower, upper, digits, symbols.
        XCTAssertEqual(try generate(PasswordPolicy(length: 4), [25, 51, 61, 93]), "zZ9~")
        XCTAssertEqual(try generate(PasswordPolicy(length: 2, classes: .digits, excludeSimilar: true), [0, 7]), "29")
        XCTAssertEqual(try generate(PasswordPolicy(length: 3, classes: [], include: "xyz"), [2, 1, 0]), "zyx")
        XCTAssertEqual(try generate(PasswordPolicy(length: 3, classes: .symbols, symbols: "!#%"), [0, 1, 2]), "!#%")
        XCTAssertEqual(try generate(PasswordPolicy(length: 2, classes: .digits, exclude: "0123"), [0, 5]), "49")
        XCTAssertEqual(try generate(PasswordPolicy(length: 2, classes: .digits, include: "§"), [10, 0]), "§0")
    }

    func testScriptedEveryClassRejectsStringsMissingAClass() throws {
        // Classes {0} and {!, #}: 4 of the 9 strings qualify, so plain draws with rejection are used.
        let policy = PasswordPolicy(length: 2, classes: [.digits, .symbols], exclude: "123456789",
                                    everyClass: true, symbols: "!#")
        var rng = ScriptedSource([1, 2, 2, 0])   // "!#" lacks a digit and is rejected, then "#0"
        XCTAssertEqual(try Generator.generate(.characters(policy), using: &rng).value, "#0")
        XCTAssertEqual(rng.bounds, [3, 3, 3, 3])
    }

    func testScriptedExactSamplerFollowsTheCountedClassChoice() {
        // Sizes 1 and 2 at length 2: the allowed strings are d s1, d s2, s1 d, s2 d.
        let sampler = EveryClassSampler(sizes: [1, 2], length: 2)
        var rng = ScriptedSource([3, 1, 0, 0])   // class draw 3 of 4 → second class, char 1; then the digit
        XCTAssertTrue(sampler.sampleExact(using: &rng).elementsEqual([(1, 1), (0, 0)], by: ==))
        XCTAssertEqual(rng.bounds, [4, 2, 1, 1])
        var first = ScriptedSource([0, 0, 0, 0])   // digit first: then the class draw over 2 strings must give a symbol
        XCTAssertTrue(sampler.sampleExact(using: &first).elementsEqual([(0, 0), (1, 0)], by: ==))
        XCTAssertEqual(first.bounds, [4, 1, 2, 2])
        // Length = class count with a large class: acceptance is tiny, so `sample` goes exact at once.
        let tight = EveryClassSampler(sizes: [1, 1, 1, 1, 186], length: 5)
        XCTAssertLessThan(tight.acceptance, 1e-6)
        var seeded = XorShiftSource(seed: 3)
        for _ in 0..<50 { XCTAssertEqual(Set(tight.sample(using: &seeded).map(\.classIndex)).count, 5) }
    }

    func testExactSamplerGivesTheSameResultWithEitherNumberType() {
        for (sizes, length) in [([1, 2], 2), ([3, 1, 1, 2, 1], 5), ([26, 26, 10, 32], 6), ([1, 1, 1, 1, 90], 8)] {
            let sampler = EveryClassSampler(sizes: sizes, length: length)
            XCTAssertTrue(sampler.fitsUInt64)
            var a = XorShiftSource(seed: 11), b = XorShiftSource(seed: 11)
            for _ in 0..<100 {
                let x = sampler.sampleExact(UInt64.self, using: &a), y = sampler.sampleExact(BigUInt.self, using: &b)
                XCTAssertTrue(x.elementsEqual(y, by: ==), "\(sizes) L=\(length)")
            }
        }
        XCTAssertFalse(EveryClassSampler(sizes: [26, 26, 10, 32], length: 10).fitsUInt64)
        let long = EveryClassSampler(sizes: [26, 26, 10, 32], length: 1024)
        var rng = XorShiftSource(seed: 5)
        let big = long.sampleExact(using: &rng)
        XCTAssertEqual(big.count, 1024)
        XCTAssertEqual(Set(big.map(\.classIndex)).count, 4)
    }

    func testScriptedPassphrases() throws {
        var rng = ScriptedSource([0, 7775, 1])
        let plain = try Generator.generate(.words(PassphrasePolicy(words: 3)), using: &rng)
        XCTAssertEqual(plain.value, "abacus-zoom-abdomen")
        XCTAssertEqual(plain.entropyBits, 3 * log2(7776), accuracy: 1e-9)
        var rng2 = ScriptedSource([0, 1, 2, 1, 7])
        let fancy = try Generator.generate(
            .words(PassphrasePolicy(words: 3, separator: " ", capitalize: true, withNumber: true)), using: &rng2)
        XCTAssertEqual(fancy.value, "Abacus Abdomen7 Abdominal")
        XCTAssertEqual(rng2.bounds, [7776, 7776, 7776, 3, 10])
        XCTAssertEqual(fancy.entropyBits, 3 * log2(7776) + log2(30), accuracy: 1e-9)
        var rng3 = ScriptedSource([1, 2])
        XCTAssertEqual(try Generator.generate(.words(PassphrasePolicy(words: 2, separator: "")), using: &rng3).value,
                       "abdomenabdominal")
    }

    func testWordList() throws {
        let words = try EFFWordList.words()
        XCTAssertEqual(words.count, EFFWordList.count)
        XCTAssertEqual(Set(words).count, 7776)
        XCTAssertEqual(words.first, "abacus")
        XCTAssertEqual(words.last, "zoom")
        XCTAssertTrue(words.allSatisfy { $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "-") } })
        XCTAssertEqual(words.filter { $0.contains("-") }, ["drop-down", "felt-tip", "t-shirt", "yo-yo"])
    }

    func testSeededGenerationIsReproducibleAndObeysThePolicy() throws {
        let policy = PasswordPolicy(length: 12, excludeSimilar: true, include: "é", exclude: "abc", everyClass: true)
        let allowed = Set(try policy.resolve().alphabet)
        var a = XorShiftSource(seed: 42), b = XorShiftSource(seed: 42)
        for _ in 0..<100 {
            let x = try Generator.generate(.characters(policy), using: &a).value
            XCTAssertEqual(x, try Generator.generate(.characters(policy), using: &b).value)
            XCTAssertEqual(x.unicodeScalars.count, 12)
            XCTAssertTrue(x.unicodeScalars.allSatisfy(allowed.contains))
            XCTAssertFalse(x.contains { "abc01IOl|".contains($0) })
            XCTAssertTrue(x.contains { $0.isLowercase && $0.isASCII })
            XCTAssertTrue(x.contains { $0.isUppercase })
            XCTAssertTrue(x.contains { $0.isNumber })
            XCTAssertTrue(x.contains { CharacterSets.defaultSymbols.contains($0) })
            XCTAssertTrue(x.contains("é"))
        }
    }

    func testResolvedAlphabetRules() throws {
        let similar = try PasswordPolicy(excludeSimilar: true).resolve()
        XCTAssertEqual(similar.alphabet.count, 94 - 6)
        // Include characters already in a chosen class add nothing and form no class of their own.
        let dup = try PasswordPolicy(classes: .lower, include: "abc").resolve()
        XCTAssertEqual(dup.classes.map(\.name), ["lower"])
        let extra = try PasswordPolicy(classes: .lower, include: "a1_1").resolve()
        XCTAssertEqual(extra.classes.map(\.name), ["lower", "include"])
        XCTAssertEqual(extra.classes[1].chars, ["1", "_"])
        // Exclusions win over include; custom symbols are deduplicated.
        XCTAssertEqual(try PasswordPolicy(classes: [], include: "ab", exclude: "b").resolve().alphabet, ["a"])
        XCTAssertEqual(try PasswordPolicy(classes: .symbols, symbols: "!!##").resolve().alphabet, ["!", "#"])
        XCTAssertEqual(try PasswordPolicy(classes: .symbols, excludeSimilar: true, symbols: "|-").resolve().alphabet, ["-"])
    }

    func testImpossiblePoliciesFailClearly() {
        func error(_ policy: GeneratorPolicy) -> GeneratorError? {
            var rng = SystemRandomSource()
            do { _ = try Generator.generate(policy, using: &rng); return nil } catch { return error as? GeneratorError }
        }
        XCTAssertEqual(error(.characters(PasswordPolicy(length: 0))), .lengthOutOfRange(0))
        XCTAssertEqual(error(.characters(PasswordPolicy(length: 1025))), .lengthOutOfRange(1025))
        XCTAssertEqual(error(.characters(PasswordPolicy(classes: []))), .emptyCharacterSet)
        XCTAssertEqual(error(.characters(PasswordPolicy(classes: .digits, exclude: "0123456789"))), .emptyCharacterSet)
        XCTAssertEqual(error(.characters(PasswordPolicy(length: 3, everyClass: true))),
                       .lengthBelowClassCount(length: 3, classes: 4))
        XCTAssertEqual(error(.characters(PasswordPolicy(length: 4, include: "é", everyClass: true))),
                       .lengthBelowClassCount(length: 4, classes: 5))
        XCTAssertEqual(error(.characters(PasswordPolicy(classes: [.lower, .digits], exclude: "0123456789", everyClass: true))),
                       .emptyClass("digits"))
        XCTAssertEqual(error(.characters(PasswordPolicy(classes: .lower, include: "#", exclude: "#", everyClass: true))),
                       .emptyClass("include"))
        XCTAssertNil(error(.characters(PasswordPolicy(classes: [.lower, .digits], exclude: "0123456789"))))
        XCTAssertEqual(error(.characters(PasswordPolicy(symbols: "ab!"))),
                       .badCharacters(field: .symbols, characters: "ab"))
        if case .badCharacters(field: .include, _)? = error(.characters(PasswordPolicy(include: "a b"))) {} else {
            XCTFail("a space in include must be refused")
        }
        if case .badCharacters(field: .include, _)? = error(.characters(PasswordPolicy(include: "e\u{301}"))) {} else {
            XCTFail("a combining mark in include must be refused")
        }
        XCTAssertEqual(error(.words(PassphrasePolicy(words: 0))), .wordCountOutOfRange(0))
        XCTAssertEqual(error(.words(PassphrasePolicy(words: 65))), .wordCountOutOfRange(65))
        if case .badCharacters(field: .separator, _)? = error(.words(PassphrasePolicy(separator: "x"))) {} else {
            XCTFail("a letter separator must be refused")
        }
        if case .badCharacters(field: .separator, _)? = error(.words(PassphrasePolicy(separator: "1"))) {} else {
            XCTFail("a digit separator must be refused")
        }
        XCTAssertNil(error(.words(PassphrasePolicy(separator: " "))))
    }
}
