// Runs every command of README.md's five-minute tour, as written, in bash on a pseudo-terminal.
import Foundation
import XCTest

final class ReadmeTourTests: CLITestCase {
    /// The commands of the tour's code block: comments dropped, one command per line.
    static func tourCommands() throws -> [String] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let section = text.components(separatedBy: "## Five-minute tour").dropFirst().first,
              let block = section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first else {
            XCTFail("README.md has no tour"); return []
        }
        return block.split(separator: "\n").compactMap { line in
            let command = line.components(separatedBy: "  #").first!.trimmingCharacters(in: .whitespaces)
            return command.isEmpty || command.hasPrefix("#") ? nil : command
        }
    }

    /// The tour as a person would type it: the passphrase comes from a file, the one editor the tour
    /// opens is a script, the generated-password offer is answered at the terminal. Only `init` gets
    /// the test KDF.
    func testEveryTourCommandRuns() throws {
        let commands = try ReadmeTourTests.tourCommands()
        XCTAssertGreaterThan(commands.count, 15)
        let editor = dir + "/editor.sh"
        try write("#!/bin/sh\nprintf 'notes: written in the editor\\n' >> \"$1\"\n", to: editor)
        chmod(editor, 0o755)
        var script = "set -e\n"
        for (i, command) in commands.enumerated() {
            var c = command
            if c == "tresor init" { c = "tresor init --kdf minimum" }
            script += "\(c)\necho \"step \(i + 1) done\"\n"
        }
        script += "echo TOUR-FINISHED\n"
        try write(script, to: dir + "/tour.sh")
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        e["HOME"] = dir + "/home"
        e["TRESOR_VAULT"] = nil
        e["EDITOR"] = editor
        e["DISPLAY"] = nil
        e["TRESOR_CLIP_TIME"] = "1"   // the copy goes to the terminal (OSC 52); its keeper ends soon
        let t = try TerminalSession([dir + "/tour.sh"], env: e, executable: "/bin/bash")
        t.expect("[n]o password? ")
        t.type("a\n")
        // The tour reads $PW without echo, as a person types it.
        t.expect("Bank password: ")
        t.type("bank-secret-from-the-tour\n")
        t.expect("TOUR-FINISHED")
        XCTAssertFalse(t.screen.contains("bank-secret-from-the-tour"), t.screen)
        XCTAssertEqual(t.wait(timeout: 30), 0, t.screen)
        XCTAssertTrue(t.screen.contains("\u{1B}]52;c;"), "tresor clip copied through the terminal")

        env["TRESOR_VAULT"] = dir + "/home/.tresor"
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice.smith\n", "the tour's --set")
        XCTAssertEqual(try tresor("show", "Email/gmail", "--field", "notes").code, 4, "the tour's --unset removed the editor's notes")
        XCTAssertTrue(try ok("show", "Email/gmail", "--json").stdout.contains("written in the editor"), "the notes are in history")
        XCTAssertEqual(try ok("ls").stdout, "Bank/ing\nDev/github\nEmail/gmail\n")
        XCTAssertNotEqual(try ok("show", "Bank/ing", "--field", "password").stdout, "bank-secret-from-the-tour\n", "rotated")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "pin").stdout, "4711\n")
    }

    /// The tour's `--set username=… --unset notes` on an entry without notes: the username changes, the
    /// absent field is a note.
    func testUnsettingAnAbsentFieldIsANoteNotAFailure() throws {
        try sampleVault()
        let r = try ok("edit", "Email/gmail", "--set", "username=alice.smith", "--unset", "notes")
        XCTAssertTrue(r.stderr.contains("Note: Email/gmail has no field \"notes\"; nothing to unset."), r.stderr)
        XCTAssertTrue(r.stderr.contains("Edited Email/gmail: username"), r.stderr)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice.smith\n")
        let nothing = try ok("edit", "Email/gmail", "--unset", "notes")
        XCTAssertTrue(nothing.stderr.contains("No changes."), nothing.stderr)
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Edit Email/gmail: username\n")
    }
}
