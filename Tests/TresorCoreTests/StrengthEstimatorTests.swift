// The strength estimator: each pattern and its formula, the weaknesses it reports, and its data files.
import XCTest
@testable import TresorCore
import TestSupport

final class StrengthEstimatorTests: XCTestCase {
    func estimate(_ p: String, year: Int = 2017) throws -> StrengthEstimate { try StrengthEstimator.estimate(p, referenceYear: year) }

    func testKnownWeakPasswords() throws {
        let cases: [(String, ClosedRange<Int>, StrengthWeakness)] = [
            ("password", 0...0, .topTenPassword),
            ("P@ssw0rd", 0...1, .substitutions),
            ("qwerty123", 0...1, .commonPassword),
            ("aaaaaaaa", 0...0, .repeatedCharacters),
            ("1987", 0...0, .recentYear),
            ("dragon", 0...0, .topTenPassword),
            ("letmein", 0...0, .topHundredPassword),
            ("monkey1987", 0...2, .recentYear),
            ("12/05/1999", 0...1, .date),
            ("drowssap", 0...1, .reversedWord),
            ("Summer2024!", 0...2, .capitalizedWord),
            ("Tr0ub4dor&3", 0...3, .misspelledWord),
            ("jennifer2", 0...1, .commonName),
            ("zxcvbnm,./", 0...1, .straightRow),
            ("wsxcderfvbgt", 0...3, .keyboardPattern),
            ("abcabcabc", 0...1, .repeatedPattern),
            ("13579", 0...0, .sequence),
            ("HORSEBATTERY", 0...3, .uppercaseWord),
            ("troubadourmagnet", 0...3, .commonWord),
        ]
        for (password, scores, weakness) in cases {
            let e = try estimate(password)
            XCTAssertTrue(scores.contains(e.score), "\(password): score \(e.score), guesses 10^\(e.guessesLog10)")
            XCTAssertTrue(e.weaknesses.contains(weakness), "\(password): \(e.weaknesses)")
            XCTAssertEqual(e.guessesLog10, log10(e.guesses), accuracy: 1e-9)
        }
        // The two examples of issue 11: no longer scored as strong as before (3 and 4 of 4).
        XCTAssertLessThanOrEqual(try estimate("Summer2024!", year: StrengthEstimator.currentYear).score, 2)
        XCTAssertLessThan(try estimate("Tr0ub4dor&3").guessesLog10, 8.5)
    }

    /// No warning quotes any part of a password, whatever the password.
    func testWarningsNeverQuoteThePassword() throws {
        XCTAssertFalse(StrengthWeakness.allCases.contains { $0.description.contains("\"") })
        for password in ["hunter2", "Summer2024!", "qwerty", "aaaa", "19871205", "Tr0ub4dor&3", "abcdef", "drowssap"] {
            let e = try estimate(password)
            XCTAssertFalse(e.warnings.isEmpty, password)
            for warning in e.warnings {
                let lower = warning.lowercased()
                // No run of 4+ characters of the password (as typed or lower-cased) appears in a warning.
                let p = Array(password.lowercased())
                for i in 0..<max(0, p.count - 3) {
                    XCTAssertFalse(lower.contains(String(p[i..<(i + 4)])), "\(password): \(warning)")
                }
            }
        }
    }

    func testGuessesFollowZxcvbnFormulas() throws {
        // One whole-password match: its guesses, plus 1 (1! · g + 10000^0).
        XCTAssertEqual(try estimate("password").guesses, 2 + 1, accuracy: 1e-9)        // rank 2 in passwords
        XCTAssertEqual(try estimate("Password").guesses, 2 * 2 + 1, accuracy: 1e-9)    // capital first letter ×2
        XCTAssertEqual(try estimate("drowssap").guesses, 2 * 2 + 1, accuracy: 1e-9)    // reversed ×2
        XCTAssertEqual(try estimate("9876").guesses, 4 * 2 * 4 + 1, accuracy: 1e-9)    // obvious start 9, ×2 down, ×4 long
        XCTAssertEqual(try estimate("1987").guesses, 30 + 1, accuracy: 1e-9)           // |1987 − 2017| years
        XCTAssertEqual(try estimate("2016").guesses, 20 + 1, accuracy: 1e-9)           // at least 20 years
        XCTAssertEqual(try estimate("1987", year: 2026).guesses, 39 + 1, accuracy: 1e-9)
        // 2024 is a recent year only once the reference year's decade reaches it.
        XCTAssertEqual(try estimate("2024", year: 2026).guesses, 20 + 1, accuracy: 1e-9)
        XCTAssertGreaterThan(try estimate("2024", year: 2017).guesses, 1000)
        // Brute force: 10 guesses a character, as zxcvbn.
        XCTAssertEqual(try estimate("kT7#").guesses, 1e4 + 1, accuracy: 1e-6)
        XCTAssertEqual(StrengthEstimator.score(guesses: 1004), 0)
        XCTAssertEqual(StrengthEstimator.score(guesses: 1005), 1)
        XCTAssertEqual(StrengthEstimator.score(guesses: 1e8 + 5), 3)
        XCTAssertEqual(StrengthEstimator.score(guesses: 1e10 + 5), 4)
        XCTAssertEqual(StrengthGuesses.uppercaseVariations(Array("dRaGoN".unicodeScalars)[...]), 41)  // C(6,1)+C(6,2)+C(6,3)
        XCTAssertEqual(StrengthGuesses.nCk(10, 3), 120)
    }

    func testL33tSubstitutionsAreEnumeratedLikeZxcvbn() {
        // '1' may be i or l: both readings, with every other l33t character read once.
        let subs = StrengthMatcher.l33tSubstitutions(Array("p1n4".unicodeScalars))
        XCTAssertEqual(subs.map { $0.map { "\($0.l33t)\($0.letter)" }.sorted() }, [["1i", "4a"], ["1l", "4a"]])
        XCTAssertEqual(StrengthMatcher.l33tSubstitutions(Array("plain".unicodeScalars)).count, 0)
    }

    func testMorePatternsMeanFewerGuesses() throws {
        XCTAssertLessThan(try estimate("dragondragon").guesses, try estimate("dragonxkqvzw").guesses)
        XCTAssertLessThan(try estimate("abcdefgh").guesses, try estimate("agdbfhce").guesses)
        XCTAssertLessThan(try estimate("qwertyuiop").guesses, try estimate("qwxrtzuiop").guesses)
        XCTAssertLessThan(try estimate("troubador").guesses, try estimate("trxqbadwr").guesses)
    }

    func testStrongPasswordsScoreFour() throws {
        var rng = SystemRandomSource()
        for _ in 0..<10 {
            let password = try Generator.generate(.characters(PasswordPolicy(length: 20)), using: &rng).value
            let e = try estimate(password)
            XCTAssertEqual(e.score, 4, password)
            XCTAssertEqual(e.weaknesses, [], password)
            let passphrase = try Generator.generate(.words(PassphrasePolicy()), using: &rng).value
            XCTAssertEqual(try estimate(passphrase).score, 4, passphrase)
        }
    }

    func testEdgeCases() throws {
        XCTAssertEqual(try estimate(""), StrengthEstimate(score: 0, guesses: 1, guessesLog10: 0, weaknesses: [.empty]))
        XCTAssertEqual(try estimate("x").score, 0)
        XCTAssertTrue(try estimate("x").weaknesses.contains(.short))
        XCTAssertEqual(try estimate("ñ€日本").guesses, 1e4 + 1, accuracy: 1e-3)   // 4 scalars brute-forced
        let long = String(repeating: "xK9#mQ2$vL7!", count: 100)
        XCTAssertEqual(try estimate(long).score, 4)
        XCTAssertEqual(try estimate(String(repeating: "a", count: 500)).weaknesses.first, .repeatedCharacters)
        XCTAssertGreaterThanOrEqual(try estimate("Ünïcödé Wörds 😀 are fine").score, 0)
    }

    // MARK: one estimate alone

    /// `estimateOnce` reads only the words a password can match; the estimate must be the shared table's, to the
    /// last guess, whatever the password. Passwords are made of listed words (as typed, capitalised, reversed, in
    /// l33t, one letter dropped, added or swapped), keyboard walks, digits, years and other characters.
    func testAnEstimateAloneIsTheSharedTablesEstimate() throws {
        let lists = try StrengthDictionary.allCases.map { dictionary in
            try String(decoding: DataFiles.read(dictionary.fileName), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let pieces = ["qwerty", "asdfgh", "zxcvbn", "1qaz2wsx", "7410", "123456", "2019", "1987", "04/07/1999", "!!", "#",
                      "ñ", "日本", "😀", "aaaa", "abcdef", "zyxw", "@", "$", "4", "0", "1", "|", "3", "5", "7", " "]
        let l33t: [Character: Character] = ["a": "4", "e": "3", "i": "1", "l": "|", "o": "0", "s": "$", "t": "7", "g": "9"]
        var rng = SplitMix64(seed: 26)
        var different: [String] = []
        for _ in 0..<100 {
            var password = ""
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard Bool.random(using: &rng) else { password += pieces.randomElement(using: &rng)!; continue }
                let list = lists.randomElement(using: &rng)!
                var word = Array(list[min(list.count - 1, Int(pow(Double(list.count), Double.random(in: 0..<1, using: &rng))))])
                switch Int.random(in: 0..<7, using: &rng) {
                case 0: word = Array(String(word).capitalized)
                case 1: word.reverse()
                case 2: word = word.map { l33t[$0] ?? $0 }
                case 3 where word.count > 2: word.remove(at: Int.random(in: 0..<word.count, using: &rng))
                case 4: word.insert("abcxyz".randomElement(using: &rng)!, at: Int.random(in: 0...word.count, using: &rng))
                case 5 where word.count > 2: word.swapAt(0, 1)
                default: break
                }
                password += String(word)
            }
            let shared = try StrengthEstimator.estimate(SecretText(password), referenceYear: 2017)
            let alone = try StrengthEstimator.estimateOnce(SecretText(password), referenceYear: 2017)
            if shared != alone { different.append(password) }
        }
        XCTAssertEqual(different, [])
        for password in ["", "x", String(repeating: "p4ssw0rd", count: 20), "troubador", "jennifer2", "Tr0ub4dour&3"] {
            XCTAssertEqual(try StrengthEstimator.estimateOnce(SecretText(password), referenceYear: 2017),
                           try StrengthEstimator.estimate(SecretText(password), referenceYear: 2017), password)
        }
    }

    // MARK: data files

    func testMissingDataFileIsAClearError() throws {
        let dir = NSTemporaryDirectory() + "tresor-data-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/zxcvbn", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertThrowsError(try DataFiles.read("eff_large_wordlist.txt", searchPath: [dir + "/nowhere", dir])) { error in
            XCTAssertEqual(error as? GeneratorError, .dataFileMissing(name: "eff_large_wordlist.txt", searched: [dir + "/nowhere", dir]))
        }
        try "abacus\n".write(toFile: dir + "/eff_large_wordlist.txt", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DataFiles.read("eff_large_wordlist.txt", searchPath: [dir])) { error in
            XCTAssertEqual(error as? GeneratorError, .dataFileDamaged(path: dir + "/eff_large_wordlist.txt"))
        }
    }

    func testDataFilesAreFoundInEachPlaceOfTheSearchPath() throws {
        let dirs = DataFiles.searchPath(environment: ["TRESOR_DATA_DIR": "/opt/tresor-data"])
        XCTAssertTrue(dirs[0].hasSuffix("/Tresor_TresorData.resources"), "\(dirs)")
        XCTAssertEqual(dirs.filter { $0 == "/opt/tresor-data" }.count, 1)
        XCTAssertTrue(dirs.last!.hasSuffix("/share/tresor"))
        XCTAssertLessThan(dirs.firstIndex(of: "/opt/tresor-data")!, dirs.count - 1)
        // The first directory that has a file wins, and a valid copy anywhere is accepted.
        let bytes = try DataFiles.read("zxcvbn/male_names.txt")
        let dir = NSTemporaryDirectory() + "tresor-data-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/zxcvbn", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/zxcvbn/male_names.txt", contents: Data(bytes))
        XCTAssertEqual(try DataFiles.read("zxcvbn/male_names.txt", searchPath: [dir + "/missing", dir]), bytes)
        XCTAssertEqual(DataFiles.lines(bytes).first, "james")
        XCTAssertEqual(DataFiles.lines(bytes).count, 983)
    }
}
