// An installed binary without its resource bundle: data files from $TRESOR_DATA_DIR or ../share/tresor, else a clear error.
import Foundation
import XCTest

final class DataFilesCLITests: CLITestCase {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/TresorData/Resources").path

    /// The binary copied alone into `<dir>/prefix/bin`, as `make install` or a user would.
    func installedBinary() throws -> String {
        try FileManager.default.createDirectory(atPath: dir + "/prefix/bin", withIntermediateDirectories: true)
        let copy = dir + "/prefix/bin/tresor"
        try FileManager.default.copyItem(atPath: CLITestCase.binary, toPath: copy)
        return copy
    }

    func testCopiedBinaryFindsItsDataOrSaysWhatIsMissing() throws {
        let exe = try installedBinary()
        // No bundle, no share/tresor, no TRESOR_DATA_DIR: a clear error, not a crash.
        let words = try run(exe, ["generate", "--words", "4"], stdin: nil, extraEnv: ["TRESOR_DATA_DIR": nil])
        XCTAssertEqual(words.code, 2, words.stderr)
        XCTAssertTrue(words.stderr.contains("tresor: error: data file \"eff_large_wordlist.txt\" not found in"), words.stderr)
        XCTAssertTrue(words.stderr.contains("\(dir)/prefix/share/tresor") && words.stderr.contains("hint: "), words.stderr)
        let check = try run(exe, ["generate", "--check"], stdin: "dragon\n", extraEnv: ["TRESOR_DATA_DIR": nil])
        XCTAssertEqual(check.code, 2)
        XCTAssertTrue(check.stderr.contains("data file \"zxcvbn/"), check.stderr)
        // Character passwords need no data file.
        XCTAssertEqual(try run(exe, ["generate", "--length", "12"], stdin: nil, extraEnv: [:]).code, 0)
        // Adding an entry still works; the strength check says it could not run.
        _ = try run(exe, ["init", "--kdf", "minimum"], stdin: nil, extraEnv: [:])
        let add = try run(exe, ["add", "Web/x", "--password-stdin"], stdin: "dragon\n", extraEnv: ["TRESOR_DATA_DIR": nil])
        XCTAssertEqual(add.code, 0, add.stderr)
        XCTAssertTrue(add.stderr.contains("warning: cannot check the password's strength: data file"), add.stderr)

        // $TRESOR_DATA_DIR.
        let viaEnv = try run(exe, ["generate", "--check"], stdin: "dragon\n", extraEnv: ["TRESOR_DATA_DIR": DataFilesCLITests.resources])
        XCTAssertEqual(viaEnv.code, 0, viaEnv.stderr)
        XCTAssertTrue(viaEnv.stdout.hasPrefix("score 0/4"), viaEnv.stdout)
        // <bin>/../share/tresor.
        try FileManager.default.copyItem(atPath: DataFilesCLITests.resources, toPath: dir + "/prefix/share/tresor")
        let installed = try run(exe, ["generate", "--words", "4"], stdin: nil, extraEnv: ["TRESOR_DATA_DIR": nil])
        XCTAssertEqual(installed.code, 0, installed.stderr)
        XCTAssertEqual(installed.stdout.split(separator: "-").count, 4)
        // A damaged copy is refused by name.
        try write("abacus\n", to: dir + "/prefix/share/tresor/eff_large_wordlist.txt")
        let damaged = try run(exe, ["generate", "--words", "4"], stdin: nil, extraEnv: ["TRESOR_DATA_DIR": nil])
        XCTAssertEqual(damaged.code, 2)
        XCTAssertTrue(damaged.stderr.contains("data file \"\(dir)/prefix/share/tresor/eff_large_wordlist.txt\" is damaged"), damaged.stderr)
    }
}
