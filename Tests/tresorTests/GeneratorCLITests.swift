// The generator through the binary: options, JSON, impossible policies, strength checks, policies per entry, rotate.
import Foundation
import XCTest

final class GeneratorCLITests: CLITestCase {
    func json(_ s: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(s.utf8)) }

    func testGenerateDefaultsAndJSON() throws {
        let plain = try ok("generate").stdout
        XCTAssertEqual(plain.count, 25, "24 characters and a newline")
        let one = try XCTUnwrap(try json(try ok("generate", "--json").stdout) as? [String: Any])
        XCTAssertEqual((one["password"] as? String)?.count, 24)
        // 24 characters from 94 printable ASCII characters: 24·log2(94) bits.
        XCTAssertEqual(try XCTUnwrap(one["entropyBits"] as? Double), 24 * log2(94), accuracy: 0.01)
        let many = try XCTUnwrap(try json(try ok("generate", "--count", "3", "--json").stdout) as? [[String: Any]])
        XCTAssertEqual(many.count, 3)
        XCTAssertEqual(Set(many.map { $0["password"] as! String }).count, 3)
        XCTAssertEqual(try ok("generate", "--count", "5").stdout.split(separator: "\n").count, 5)
    }

    func testCharacterOptions() throws {
        let upper = try ok("generate", "--classes", "upper", "--length", "100").stdout.dropLast()
        XCTAssertEqual(upper.count, 100)
        XCTAssertTrue(upper.allSatisfy { $0.isASCII && $0.isUppercase }, String(upper))
        let similar = try ok("generate", "--exclude-similar", "--length", "1000").stdout
        XCTAssertFalse(similar.contains { "0O1lI|".contains($0) }, similar)
        let custom = try ok("generate", "--classes", "digits", "--exclude", "0123", "--include", "xy", "--length", "500").stdout.dropLast()
        XCTAssertTrue(custom.allSatisfy { "456789xy".contains($0) }, String(custom))
        for _ in 0..<20 {
            let every = try ok("generate", "--every-class", "--length", "4", "--classes", "lower,digits,symbols,upper").stdout.dropLast()
            XCTAssertTrue(every.contains { $0.isLowercase } && every.contains { $0.isUppercase } && every.contains { $0.isNumber } &&
                          every.contains { $0.isPunctuation || $0.isSymbol }, String(every))
        }
        let maxLen = try ok("generate", "--length", "1024").stdout
        XCTAssertEqual(maxLen.count, 1025)
    }

    func testPassphrases() throws {
        let words = try ok("generate", "--words", "5", "--separator", ".").stdout.dropLast()
        XCTAssertEqual(words.split(separator: ".").count, 5)
        let cap = try ok("generate", "--words", "3", "--capitalize", "--with-number").stdout.dropLast()
        let parts = cap.split(separator: "-")
        XCTAssertEqual(parts.count, 3)
        XCTAssertTrue(parts.allSatisfy { $0.first!.isUppercase })
        XCTAssertEqual(cap.filter(\.isNumber).count, 1)
        let j = try XCTUnwrap(try json(try ok("generate", "--words", "6", "--json").stdout) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(j["entropyBits"] as? Double), 6 * log2(7776), accuracy: 0.01)
    }

    func testImpossiblePoliciesFailClearly() throws {
        let cases: [([String], String)] = [
            (["--every-class", "--length", "3"], "every-class needs 4 characters"),
            (["--classes", "lower", "--exclude", "abcdefghijklmnopqrstuvwxyz"], "no characters to choose from"),
            (["--policy", "length=ten"], "bad policy"),
            (["--policy", "nonsense"], "bad policy"),
        ]
        for (args, message) in cases {
            let r = try tresor(["generate"] + args)
            XCTAssertEqual(r.code, 2, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertEqual(try tresor("generate", "--classes", "pink").code, 64)
        // Numbers out of range are usage errors naming their option.
        for (args, message) in [(["--length", "0"], "--length: password length 0 is out of range (1 to 1024)"),
                                (["--length", "1025"], "--length: password length 1025 is out of range (1 to 1024)"),
                                (["--words", "0"], "--words: word count 0 is out of range (1 to 64)")] {
            let r = try tresor(["generate"] + args)
            XCTAssertEqual(r.code, 64, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.hasPrefix("tresor: error: " + message + "\nUsage: tresor generate"), r.stderr)
        }
        XCTAssertEqual(try tresor("generate", "--words", "3", "--length", "5").code, 64)
    }

    func testStrengthCheck() throws {
        let weak = try XCTUnwrap(try json(try ok(["generate", "--check", "--json"], stdin: "password1\n").stdout) as? [String: Any])
        XCTAssertEqual(weak["score"] as? Int, 0)
        XCTAssertFalse((weak["warnings"] as? [String] ?? []).isEmpty)
        let strong = try ok("generate", "--length", "20").stdout
        let s = try XCTUnwrap(try json(try ok(["generate", "--check", "--json"], stdin: strong).stdout) as? [String: Any])
        XCTAssertEqual(s["score"] as? Int, 4)
        let text = try ok(["generate", "--check"], stdin: "qwerty1987\n").stdout
        XCTAssertTrue(text.hasPrefix("score ") && text.contains("- contains a recent year"), text)
        XCTAssertFalse(text.contains("qwerty") || text.contains("1987"), text)
        let kinds = try XCTUnwrap(try json(try ok(["generate", "--check", "--json"], stdin: "Tr0ub4dor&3\n").stdout) as? [String: Any])
        XCTAssertEqual(kinds["weaknesses"] as? [String], ["misspelled-word", "capitalized-word", "substitutions", "short"])
        XCTAssertLessThanOrEqual(try XCTUnwrap(kinds["score"] as? Int), 3)
    }

    func testAddWarnsAboutAWeakTypedPasswordButSavesIt() throws {
        try initVault()
        let r = try ok(["add", "Web/weak", "--password-stdin"], stdin: "hunter2\n")
        XCTAssertTrue(r.stderr.contains("warning: weak password (score 1/4") && r.stderr.contains("a very common password"), r.stderr)
        // The warning says what kind of weakness, never any part of the password.
        XCTAssertFalse(r.stderr.lowercased().contains("hunt") || r.stderr.contains("\""), r.stderr)
        XCTAssertEqual(try ok("show", "Web/weak", "--field", "password").stdout, "hunter2\n")
        let words = try ok(["add", "Web/season", "--password-stdin"], stdin: "Summer2024!\n")
        XCTAssertTrue(words.stderr.contains("warning: weak password (score 2/4"), words.stderr)
        XCTAssertFalse(words.stderr.lowercased().contains("summer") || words.stderr.contains("2024"), words.stderr)
        let strong = try ok(["add", "Web/strong", "--password-stdin"], stdin: "vN3#qL9$zT1!wX7&\n")
        XCTAssertFalse(strong.stderr.contains("weak"), strong.stderr)
    }

    func testAddWithPolicyThenRotateKeepsHistory() throws {
        try initVault()
        try ok("add", "Bank/ing", "--generate", "--policy", "length=16,classes=lower+upper+digits")
        let first = try ok("show", "Bank/ing", "--field", "password").stdout.dropLast()
        XCTAssertEqual(first.count, 16)
        XCTAssertTrue(first.allSatisfy { $0.isLetter || $0.isNumber })
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "policy").stdout, "length=16,classes=lower+upper+digits\n")
        try ok("rotate", "Bank/ing")
        let second = try ok("show", "Bank/ing", "--field", "password").stdout.dropLast()
        XCTAssertEqual(second.count, 16)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Rotate password of Bank/ing\n")
        let entry = try XCTUnwrap(try json(try ok("show", "Bank/ing", "--json").stdout) as? [String: Any])
        let history = try XCTUnwrap(entry["history"] as? [[String: String]])
        XCTAssertTrue(history.contains { $0["field"] == "password" && $0["value"] == String(first) })
        // Rotating with options changes and stores the policy.
        try ok("rotate", "Bank/ing", "--words", "4")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "password").stdout.split(separator: "-").count, 4)
        XCTAssertTrue(try ok("show", "Bank/ing", "--field", "policy").stdout.hasPrefix("words=4"))
        // A policy that no longer parses is reported, not guessed around.
        try ok("edit", "Bank/ing", "--set", "policy=length=12")
        XCTAssertEqual(try tresor("edit", "Bank/ing", "--set", "policy=bogus").code, 2)
    }

    func testAddGenerateWithLengthAndEditGenerate() throws {
        try initVault()
        try ok("add", "Web/site", "--generate", "--length", "40", "--username", "me")
        XCTAssertEqual(try ok("show", "Web/site", "--field", "password").stdout.count, 41)
        try ok("edit", "Web/site", "--generate", "--classes", "digits", "--length", "8")
        let pin = try ok("show", "Web/site", "--field", "password").stdout.dropLast()
        XCTAssertTrue(pin.count == 8 && pin.allSatisfy(\.isNumber), String(pin))
    }
}
