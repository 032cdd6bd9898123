// Policy strings: parsing, canonical form, round trips and the errors for bad parts.

import XCTest
@testable import TresorCore

final class GeneratorPolicyTests: XCTestCase {
    func testParsesTheDocumentedExamples() throws {
        XCTAssertEqual(try GeneratorPolicy(parsing: "length=16,classes=lower+upper+digits,symbols=!#%"),
                       .characters(PasswordPolicy(length: 16, classes: [.lower, .upper, .digits], symbols: "!#%")))
        XCTAssertEqual(try GeneratorPolicy(parsing: "words=5,separator=.,capitalize"),
                       .words(PassphrasePolicy(words: 5, separator: ".", capitalize: true)))
        XCTAssertEqual(try GeneratorPolicy(parsing: "length=20, every-class, exclude-similar"),
                       .characters(PasswordPolicy(length: 20, excludeSimilar: true, everyClass: true)))
        XCTAssertEqual(try GeneratorPolicy(parsing: "classes=all"), .characters(PasswordPolicy()))
        XCTAssertEqual(try GeneratorPolicy(parsing: "length=8,classes=none,include=ab\\,c"),
                       .characters(PasswordPolicy(length: 8, classes: [], include: "ab,c")))
        XCTAssertEqual(try GeneratorPolicy(parsing: "number"), .words(PassphrasePolicy(withNumber: true)))
        XCTAssertEqual(try GeneratorPolicy(parsing: "words=4,separator= "), .words(PassphrasePolicy(words: 4, separator: " ")))
        XCTAssertEqual(try GeneratorPolicy(parsing: "words=4,separator="), .words(PassphrasePolicy(words: 4, separator: "")))
        XCTAssertEqual(try GeneratorPolicy(parsing: "include==+\\\\"), .characters(PasswordPolicy(include: "=+\\")))
    }

    func testCanonicalForms() {
        XCTAssertEqual(GeneratorPolicy.characters(PasswordPolicy()).policyString, "length=24,classes=lower+upper+digits+symbols")
        XCTAssertEqual(GeneratorPolicy.words(PassphrasePolicy()).policyString, "words=6,separator=-")
        XCTAssertEqual(GeneratorPolicy.characters(PasswordPolicy(
            length: 12, classes: [.digits, .lower], excludeSimilar: true, include: "_,", exclude: "\\", everyClass: true,
            symbols: "")).policyString,
            "length=12,classes=lower+digits,symbols=,include=_\\,,exclude=\\\\,exclude-similar,every-class")
        XCTAssertEqual(GeneratorPolicy.words(PassphrasePolicy(words: 3, separator: ",", capitalize: true, withNumber: true)).policyString,
                       "words=3,separator=\\,,capitalize,number")
    }

    func testRoundTrips() throws {
        let policies: [GeneratorPolicy] = [
            .characters(PasswordPolicy()),
            .characters(PasswordPolicy(length: 1, classes: .digits)),
            .characters(PasswordPolicy(length: 1024, classes: [.upper, .symbols], symbols: ",\\=+ÿ")),
            .characters(PasswordPolicy(length: 7, classes: [], include: "a,b\\c=d")),
            .characters(PasswordPolicy(length: 30, excludeSimilar: true, include: "§", exclude: ", \\x", everyClass: true)),
            .characters(PasswordPolicy(classes: .symbols, symbols: "")  ).withInclude("x"),
            .words(PassphrasePolicy()),
            .words(PassphrasePolicy(words: 1, separator: "", capitalize: true)),
            .words(PassphrasePolicy(words: 64, separator: "\\,.", withNumber: true)),
            .words(PassphrasePolicy(words: 2, separator: "  ", capitalize: true, withNumber: true)),
        ]
        for policy in policies {
            XCTAssertEqual(try GeneratorPolicy(parsing: policy.policyString), policy, policy.policyString)
        }
        // Seeded random policies: every field, every awkward character.
        var rng = XorShiftSource(seed: 99)
        let pool = Array("abcXYZ019!,\\=+ -§é")
        func text(_ n: Int) -> String { String((0..<rng.index(n + 1)).map { _ in pool[rng.index(pool.count)] }) }
        var checked = 0
        for _ in 0..<500 {
            let policy = GeneratorPolicy.characters(PasswordPolicy(
                length: 1 + rng.index(40), classes: CharacterClasses(rawValue: UInt8(rng.index(16))),
                excludeSimilar: rng.index(2) == 1, include: text(4), exclude: text(4), everyClass: rng.index(2) == 1,
                symbols: rng.index(2) == 1 ? nil : String(text(4).filter { !$0.isLetter && !$0.isNumber && $0 != " " })))
            guard (try? Generator.entropyBits(of: policy)) != nil else { continue }   // only valid policies must round-trip
            XCTAssertEqual(try GeneratorPolicy(parsing: policy.policyString), policy, policy.policyString)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
    }

    func testParseErrorsNameTheBadPart() {
        let cases: [(String, GeneratorError)] = [
            ("", .badPolicy(part: "", problem: .empty)),
            ("lenght=5", .badPolicy(part: "lenght=5", problem: .unknownKey("lenght", known: ["length", "classes", "symbols", "include", "exclude", "exclude-similar", "every-class", "words", "separator", "capitalize", "number"]))),
            ("length=abc", .badPolicy(part: "length=abc", problem: .notAWholeNumber)),
            ("length= 5", .badPolicy(part: "length= 5", problem: .notAWholeNumber)),
            ("length", .badPolicy(part: "length", problem: .valueMissing("length"))),
            ("length=5,length=6", .badPolicy(part: "length=6", problem: .repeatedKey("length"))),
            ("length=5,", .badPolicy(part: "", problem: .emptyPart)),
            ("=5", .badPolicy(part: "=5", problem: .missingKey)),
            ("every-class=yes", .badPolicy(part: "every-class=yes", problem: .flagWithValue("every-class"))),
            ("classes=lower+greek", .badPolicy(part: "classes=lower+greek", problem: .unknownClass("greek"))),
            ("classes=", .badPolicy(part: "classes=", problem: .unknownClass(""))),
            ("length=8,words=3", .badPolicy(part: "words=3", problem: .mixedKinds(first: "length=8"))),
            ("include=ab\\", .badPolicy(part: "include=ab\\", problem: .trailingEscape)),
            ("inc\\lude=a", .badPolicy(part: "inc\\", problem: .escapeOutsideValue)),
            ("length=0", .lengthOutOfRange(0)),
            ("length=99999", .lengthOutOfRange(99999)),
            ("words=0", .wordCountOutOfRange(0)),
            ("classes=none", .emptyCharacterSet),
            ("length=2,every-class", .lengthBelowClassCount(length: 2, classes: 4)),
            ("classes=digits,exclude=0123456789,include=a,every-class", .emptyClass("digits")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try GeneratorPolicy(parsing: text), text) { error in
                XCTAssertEqual(error as? GeneratorError, expected, text)
            }
        }
    }
}

private extension GeneratorPolicy {
    func withInclude(_ include: String) -> GeneratorPolicy {
        guard case .characters(var p) = self else { return self }
        p.include = include
        return .characters(p)
    }
}
