// `tresor otp` and --otp-uri through the binary, checked against the real oathtool.
import Foundation
import XCTest

final class OtpCLITests: CLITestCase {
    /// oathtool's codes for the period before now, now and the next (a boundary may pass between the two runs).
    func oathtoolCodes(_ args: [String], period: Int) throws -> Set<String> {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oathtool") else { throw XCTSkip("oathtool is not installed (make test-deps installs it)") }
        let r = try run("/usr/bin/oathtool", (args.contains { $0.hasPrefix("--totp") } ? [] : ["--totp"]) + args + ["-w", "2", "-N", "now - \(period) seconds"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(r.code, 0, r.stderr)
        return Set(r.stdout.split(separator: "\n").map(String.init))
    }

    func testCodesMatchOathtoolForEachHashDigitsAndPeriod() throws {
        try sampleVault()
        let cases: [(String, [String], Int)] = [
            ("otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME", ["-b", "JBSWY3DPEHPK3PXP"], 30),
            ("otpauth://totp/x?secret=jbswy3dpehpk3pxp&algorithm=SHA256&digits=8", ["--totp=sha256", "-d", "8", "-b", "JBSWY3DPEHPK3PXP"], 30),
            ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&algorithm=SHA512&digits=7&period=60", ["--totp=sha512", "-d", "7", "-s", "60", "-b", "GEZDGNBVGY3TQOJQ"], 60),
        ]
        for (uri, args, period) in cases {
            try ok(["edit", "Email/gmail", "--otp-uri", "-"], stdin: uri + "\n")
            let code = try ok("otp", "Email/gmail").stdout.trimmingCharacters(in: .newlines)
            let expected = try oathtoolCodes(args, period: period)
            XCTAssertTrue(expected.contains(code), "\(uri): \(code) not in \(expected)")
        }
        let json = try ok("otp", "Email/gmail", "--json").stdout
        XCTAssertTrue(json.contains("\"digits\": 7") && json.contains("\"period\": 60") && json.contains("\"algorithm\": \"SHA512\""), json)
        let left = try XCTUnwrap(Int(json.components(separatedBy: "\"secondsLeft\": ")[1].prefix { $0.isNumber }))
        XCTAssertTrue((1...60).contains(left), json)
    }

    func testURIsAreCheckedWhereverTheyComeFrom() throws {
        try sampleVault()
        let bad = "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5"
        let add = try tresor(["add", "Web/x", "--password-stdin", "--otp-uri", bad], stdin: "pw\n")
        XCTAssertEqual(add.code, 2)
        XCTAssertTrue(add.stderr.contains("unknown algorithm \"MD5\""), add.stderr)
        XCTAssertEqual(try tresor("show", "Web/x").code, 4, "nothing was added")
        let set = try tresor("edit", "Email/gmail", "--set", "otp=otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=0")
        XCTAssertTrue(set.stderr.contains("period=0 is not a whole number"), set.stderr)
        let field = try tresor(["add", "Web/y", "--password-stdin", "--field", "otp=otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP"], stdin: "pw\n")
        XCTAssertTrue(field.stderr.contains("\"hotp\" codes are not supported"), field.stderr)
        let none = try tresor("otp", "Email/gmail")
        XCTAssertEqual(none.code, 4)
        XCTAssertTrue(none.stderr.contains("has no one-time code"), none.stderr)

        // In the editor view the otp: line is checked too; a fixed one is saved.
        let editor = dir + "/editor.sh"
        try write("#!/bin/sh\nprintf 'otp: otpauth://totp/x?secret=JBSWY3DP!!\\n' >> \"$1\"\n", to: editor)
        chmod(editor, 0o755)
        let edit = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": editor])
        XCTAssertEqual(edit.code, 2)
        XCTAssertTrue(edit.stderr.contains("otp: the secret is not base32: \"!\" is not a base32 character"), edit.stderr)
        try write("#!/bin/sh\nprintf 'otp: otpauth://totp/x?secret=JBSWY3DPEHPK3PXP\\n' >> \"$1\"\n", to: editor)
        XCTAssertEqual(try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": editor]).code, 0)
        XCTAssertEqual(try ok("otp", "Email/gmail").stdout.count, 7)
    }
}
