// Usage errors as a table: the message names the command or option, the next line is that command's usage.
import Foundation
import XCTest

final class UsageErrorTests: CLITestCase {
    /// Each case: arguments, the exact first lines of stderr, and the usage line that must follow.
    let cases: [(args: [String], message: [String], usage: String)] = [
        (["shwo", "Email/gmail"], ["tresor: error: unknown command \"shwo\"", "hint: did you mean 'show'?"], "Usage: tresor <subcommand>"),
        (["sohw"], ["tresor: error: unknown command \"sohw\"", "hint: did you mean 'show'?"], "Usage: tresor <subcommand>"),
        (["Email/gmail"], ["tresor: error: unknown command \"Email/gmail\"", "hint: to print an entry: tresor show Email/gmail"], "Usage: tresor <subcommand>"),
        (["gen", "--length", "3"], ["tresor: error: unknown command \"gen\"", "hint: did you mean 'generate'?"], "Usage: tresor <subcommand>"),
        (["remote", "ad", "origin", "/tmp/x"], ["tresor: error: unknown command \"ad\"", "hint: did you mean 'add'?"], "Usage: tresor remote <subcommand>"),
        (["generate", "--classes", "foo"],
         ["tresor: error: --classes: unknown character class \"foo\" (use lower, upper, digits, symbols)"], "Usage: tresor generate "),
        (["generate", "--count", "0"], ["tresor: error: --count must be between 1 and 10000"], "Usage: tresor generate "),
        (["show", "Email/gmail", "--fiel", "password"], ["tresor: error: Unknown option '--fiel'. Did you mean '--field'?"], "Usage: tresor show "),
        (["add", "X/y", "--field", "password=x", "--password-stdin"],
         ["tresor: error: --field: \"password\" is a standard field: use --password-stdin or --generate"], "Usage: tresor add "),
        (["add", "X/y", "--field", "novalue", "--password-stdin"], ["tresor: error: --field: \"novalue\" is not NAME=VALUE"], "Usage: tresor add "),
        (["add", "X/y", "--password-stdin", "--length", "9"],
         ["tresor: error: --password-stdin: generator options (--length, --words, …) need --generate instead"], "Usage: tresor add "),
        (["edit", "Email/gmail", "--set", "pin=1", "--set", "pin=2"], ["tresor: error: --set: field \"pin\" is set twice"], "Usage: tresor edit "),
        (["edit", "Email/gmail", "--set", "username=x", "--unset", "username"],
         ["tresor: error: --unset: field \"username\" is also given to --set"], "Usage: tresor edit "),
        (["export", "xml"], ["tresor: error: <format>: unknown format \"xml\"; use one of: json, csv, pass"], "Usage: tresor export "),
        (["clip", "Email/gmail", "--clear-after=-1"], ["tresor: error: --clear-after must be between 0 and 86400 seconds"], "Usage: tresor clip "),
        (["audit", "--max-age=-1"], ["tresor: error: --max-age must be 0 or more days"], "Usage: tresor audit "),
        (["add", "X/none"], ["tresor: error: no password for \"X/none\": standard input is not a terminal to ask at",
                             "hint: use --password-stdin, --generate or --no-password"], "Usage: tresor add "),
    ]

    func testUsageErrorsNameTheOptionAndShowTheCommandsUsage() throws {
        try sampleVault()
        for c in cases {
            let r = try tresor(c.args, stdin: "")
            let name = c.args.joined(separator: " ")
            XCTAssertEqual(r.code, 64, name)
            XCTAssertEqual(r.stdout, "", name)
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(Array(lines.prefix(c.message.count)), c.message, "\(name):\n\(r.stderr)")
            let usage = lines.dropFirst(c.message.count).first ?? ""
            XCTAssertTrue(usage.hasPrefix(c.usage), "\(name): expected \(c.usage)…, got:\n\(r.stderr)")
            XCTAssertFalse(c.usage != "Usage: tresor <subcommand>" && usage.hasPrefix("Usage: tresor <subcommand>"),
                           "\(name) shows the top-level usage:\n\(r.stderr)")
        }
        try ok("show", "Email/gmail")   // nothing above changed the vault
        XCTAssertEqual(try tresor("show", "X/y").code, 4)
    }

    /// A word far from every command gets the list of commands; hidden internal commands are never suggested.
    func testUnknownCommandWithoutACloseName() throws {
        let r = try tresor("xyzzy")
        XCTAssertEqual(r.code, 64)
        XCTAssertTrue(r.stderr.hasPrefix("tresor: error: unknown command \"xyzzy\"\nhint: the commands are init, unlock, lock, add, show, ls,"), r.stderr)
        XCTAssertFalse(r.stderr.contains("clipboard-keeper") || r.stderr.contains("merge-driver") || r.stderr.contains("textconv"), r.stderr)
        let near = try tresor("clipboard-keepr")
        XCTAssertFalse(near.stderr.contains("clipboard-keeper"), near.stderr)
        // Real commands, help and options are untouched.
        XCTAssertEqual(try tresor("help", "show").code, 0)
        XCTAssertEqual(try tresor("--version").code, 0)
    }

    /// A local remote that is missing or is not a repository says so, with no network hint.
    func testMissingLocalRemote() throws {
        try sampleVault()
        try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
        try write("x", to: dir + "/file")
        let table: [(args: [String], message: String)] = [
            (["clone", dir + "/nonexistent", dir + "/c1"], "tresor: error: the remote \"\(dir)/nonexistent\" does not exist: no such file or directory"),
            (["clone", "file://" + dir + "/nonexistent", dir + "/c2"], "tresor: error: the remote \"\(dir)/nonexistent\" does not exist: no such file or directory"),
            (["clone", dir + "/plain", dir + "/c3"], "tresor: error: the remote \"\(dir)/plain\" is not a git repository"),
            (["clone", dir + "/file", dir + "/c4"], "tresor: error: the remote \"\(dir)/file\" is not a git repository"),
        ]
        for c in table {
            let r = try tresor(c.args)
            XCTAssertEqual(r.code, 2, c.args.joined(separator: " "))
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), c.message, r.stderr)
            XCTAssertFalse(r.stderr.contains("network") || r.stderr.contains("unsupported URL"), r.stderr)
            XCTAssertTrue(r.stderr.contains("\nhint: "), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: c.args[2]), "a failed clone leaves nothing")
        }
        try ok("remote", "add", "origin", dir + "/gone")
        let sync = try tresor("sync")
        XCTAssertEqual(sync.code, 2)
        XCTAssertTrue(sync.stderr.hasPrefix("tresor: error: the remote \"\(dir)/gone\" does not exist: no such file or directory\nhint: "), sync.stderr)
        XCTAssertFalse(sync.stderr.contains("network"), sync.stderr)
    }
}
