// The strength estimator against known weak and strong passwords, and each pattern it finds.

import XCTest
@testable import TresorCore

final class StrengthEstimatorTests: XCTestCase {
    func testKnownWeakPasswords() {
        let cases: [(String, ClosedRange<Int>, String)] = [
            ("password", 0...0, "contains the dictionary word \"password\""),
            ("P@ssw0rd", 0...1, "contains the dictionary word \"password\" (as \"P@ssw0rd\")"),
            ("qwerty123", 0...1, "contains the dictionary word \"qwerty123\""),
            ("aaaaaaaa", 0...0, "repeated characters \"aaaaaaaa\""),
            ("1987", 0...0, "looks like a year or date \"1987\""),
            ("abcd1234", 0...1, "contains the dictionary word \"abcd1234\""),
            ("dragon", 0...0, "contains the dictionary word \"dragon\""),
            ("letmein", 0...0, "contains the dictionary word \"letmein\""),
            ("monkey1987", 0...2, "looks like a year or date \"1987\""),
            ("12/05/1999", 0...1, "looks like a year or date \"12/05/1999\""),
            ("19871205", 0...1, "looks like a year or date \"19871205\""),
        ]
        for (password, scores, warning) in cases {
            let e = StrengthEstimator.estimate(password)
            XCTAssertTrue(scores.contains(e.score), "\(password): score \(e.score), guesses 10^\(e.guessesLog10)")
            XCTAssertTrue(e.warnings.contains(warning), "\(password): \(e.warnings)")
            XCTAssertEqual(e.guessesLog10, log10(e.guesses), accuracy: 1e-9)
        }
    }

    func testEachPatternIsFoundAndNamed() {
        let cases: [(String, String)] = [
            ("dr4g0n", "contains the dictionary word \"dragon\" (as \"dr4g0n\")"),
            ("DRAGON", "contains the dictionary word \"dragon\" (as \"DRAGON\")"),
            ("drowssap", "contains the dictionary word \"password\" reversed"),
            ("abcabcabc", "repeated pattern \"abcabcabc\""),
            ("3456", "sequence \"3456\""),
            ("9876", "sequence \"9876\""),
            ("aceg", "sequence \"aceg\""),
            ("poiuy", "keyboard run \"poiuy\""),
            ("1qaz", "keyboard run \"1qaz\""),
            ("!@#$%^", "keyboard run \"!@#$%^\""),
            ("5/5/2005", "looks like a year or date \"5/5/2005\""),
            ("2024-01-31", "looks like a year or date \"2024-01-31\""),
            ("zebra", "contains the dictionary word \"zebra\""),       // EFF list
        ]
        for (password, warning) in cases {
            XCTAssertTrue(StrengthEstimator.estimate(password).warnings.contains(warning),
                          "\(password): \(StrengthEstimator.estimate(password).warnings)")
        }
        XCTAssertEqual(StrengthEstimator.estimate(String(repeating: "a", count: 500)).warnings.first,
                       "repeated characters \"aaaaaaaaaaaaaaaaaaaaaaaa…\"")
    }

    func testStrongPasswordsScoreFour() throws {
        var rng = SystemRandomSource()
        for _ in 0..<20 {
            let password = try Generator.generate(.characters(PasswordPolicy(length: 20)), using: &rng).value
            let e = StrengthEstimator.estimate(password)
            XCTAssertEqual(e.score, 4, password)
            XCTAssertEqual(e.warnings, [], password)
            XCTAssertGreaterThan(e.guessesLog10, 25, password)
            let passphrase = try Generator.generate(.words(PassphrasePolicy()), using: &rng).value
            XCTAssertEqual(StrengthEstimator.estimate(passphrase).score, 4, passphrase)
            // Six EFF words cost about 7776^6 ≈ 10^23.3 guesses even to an attacker who knows the list.
            XCTAssertGreaterThan(StrengthEstimator.estimate(passphrase).guessesLog10, 23, passphrase)
        }
    }

    func testGuessesFollowTheFormulas() {
        // One whole-password match: the match's own guesses, no penalty (1! · g + 10000^0 = g + 1).
        XCTAssertEqual(StrengthEstimator.estimate("password").guesses, 2 + 1, accuracy: 1e-9)   // rank 2
        XCTAssertEqual(StrengthEstimator.estimate("Password").guesses, 2 * 2 + 1, accuracy: 1e-9)   // first letter upper
        XCTAssertEqual(StrengthEstimator.estimate("9876").guesses, 4 * 2 * 4 + 1, accuracy: 1e-9)   // obvious start 9: 4, x2 down, x4 long
        // Random characters: brute force by class, 26·26·10·33 guesses.
        XCTAssertEqual(StrengthEstimator.estimate("kT7#").guesses, 26 * 26 * 10 * 33 + 1, accuracy: 1e-6)
        XCTAssertEqual(StrengthEstimator.score(2.99), 0)
        XCTAssertEqual(StrengthEstimator.score(3), 1)
        XCTAssertEqual(StrengthEstimator.score(6), 2)
        XCTAssertEqual(StrengthEstimator.score(8), 3)
        XCTAssertEqual(StrengthEstimator.score(10), 4)
        XCTAssertEqual(StrengthMatchers.uppercaseVariations(Array("dRaGoN")), 41)   // C(6,1)+C(6,2)+C(6,3)
    }

    func testMorePatternsMeanFewerGuesses() {
        XCTAssertLessThan(StrengthEstimator.estimate("dragondragon").guesses, StrengthEstimator.estimate("dragonxkqvzw").guesses)
        XCTAssertLessThan(StrengthEstimator.estimate("abcdefgh").guesses, StrengthEstimator.estimate("agdbfhce").guesses)
        XCTAssertLessThan(StrengthEstimator.estimate("qwertyuiop").guesses, StrengthEstimator.estimate("qwxrtzuiop").guesses)
    }

    func testEdgeCases() {
        XCTAssertEqual(StrengthEstimator.estimate(""), StrengthEstimate(score: 0, guesses: 1, guessesLog10: 0, warnings: ["the password is empty"]))
        XCTAssertEqual(StrengthEstimator.estimate("x").score, 0)
        XCTAssertTrue(StrengthEstimator.estimate("x").warnings.contains("only 1 characters long"))
        XCTAssertEqual(StrengthEstimator.estimate("ñ€日本").guesses, 1e8 + 1, accuracy: 1e-3)   // 4 non-ASCII characters: 100^4
        let long = String(repeating: "xK9#mQ2$vL7!", count: 100)
        XCTAssertGreaterThanOrEqual(StrengthEstimator.estimate(long).score, 3)
    }
}
