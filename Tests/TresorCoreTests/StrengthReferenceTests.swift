// The strength estimator against the real zxcvbn package's results on the shared list in Spec/strength/.
import Foundation
import XCTest
@testable import TresorCore

/// `Spec/strength/reference.jsonl` is written by `Spec/strength/zxcvbn_reference.py`, which runs the
/// PyPI `zxcvbn` package on `Spec/strength/passwords.txt`; `make test` re-runs it with `--check` so the
/// committed numbers always are the package's own.
final class StrengthReferenceTests: XCTestCase {
    struct Reference {
        let password: String
        let guessesLog10: Double
        let score: Int
        let referenceYear: Int
    }

    static let specDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Spec/strength")

    func references() throws -> [Reference] {
        let text = try String(contentsOf: Self.specDirectory.appendingPathComponent("reference.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return Reference(password: try XCTUnwrap(o["password"] as? String), guessesLog10: try XCTUnwrap(o["guesses_log10"] as? Double),
                             score: try XCTUnwrap(o["score"] as? Int), referenceYear: try XCTUnwrap(o["reference_year"] as? Int))
        }
    }

    /// The list is the shared one, whole: every password of passwords.txt has its reference line.
    func testReferenceCoversTheSharedList() throws {
        let list = try String(contentsOf: Self.specDirectory.appendingPathComponent("passwords.txt"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertGreaterThanOrEqual(list.count, 1000)
        XCTAssertEqual(try references().map(\.password), list)
    }

    /// With zxcvbn's reference year: guesses within a factor of 10 for at least 90%, score within one for all.
    func testAgreesWithZxcvbn() throws {
        let refs = try references()
        var withinTenfold = 0, sameScore = 0, exact = 0
        var worst: [(String, Double, Double)] = []
        for (i, r) in refs.enumerated() {
            let e = try StrengthEstimator.estimate(r.password, referenceYear: r.referenceYear)
            // A password held in zeroing memory gets the same estimate as its String.
            let held = try StrengthEstimator.estimate(SecretText(r.password), referenceYear: r.referenceYear)
            XCTAssertEqual(held.guessesLog10, e.guessesLog10, r.password)
            XCTAssertEqual(held.weaknesses, e.weaknesses, r.password)
            // And so does the estimate of one password alone, which reads only the words it can match (every
            // 32nd password: it reads the lists each time).
            if i % 32 == 0 {
                XCTAssertEqual(try StrengthEstimator.estimateOnce(SecretText(r.password), referenceYear: r.referenceYear), held, r.password)
            }
            let difference = abs(e.guessesLog10 - r.guessesLog10)
            if difference <= 1 { withinTenfold += 1 }
            if difference < 1e-4 { exact += 1 }
            if e.score == r.score { sameScore += 1 }
            XCTAssertLessThanOrEqual(abs(e.score - r.score), 1, "\(r.password): score \(e.score) vs zxcvbn \(r.score)")
            if difference > 1e-4 { worst.append((r.password, e.guessesLog10, r.guessesLog10)) }
        }
        let share = Double(withinTenfold) / Double(refs.count)
        XCTAssertGreaterThanOrEqual(share, 0.9)
        print("zxcvbn agreement: \(refs.count) passwords, \(withinTenfold) within 10x, \(exact) equal, \(sameScore) same score")
        for (p, ours, theirs) in worst.sorted(by: { abs($0.1 - $0.2) > abs($1.1 - $1.2) }).prefix(15) {
            print(String(format: "  differs: %@ ours 10^%.2f zxcvbn 10^%.2f", p, ours, theirs))
        }
    }
}
