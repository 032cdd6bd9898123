// Editors leave nothing behind: real vim and nano, configured by the person to keep backups, swap, undo and history
// files in their home, edit an entry through tmux; afterwards no file under HOME, TMPDIR or the vault holds a value of it.
import Foundation
import XCTest

final class EditorTraceTests: CLITestCase {
    var home: String { dir + "/home" }
    var tmp: String { dir + "/tmp" }

    func shell(editor: String) throws -> TmuxSession {
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        e["EDITOR"] = editor
        e["TMPDIR"] = tmp
        return try TmuxSession(directory: dir, env: e)
    }

    func requireProgram(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw XCTSkip("\(path) is not installed (make test-deps installs it)") }
    }

    /// The files under HOME, TMPDIR, the vault and `also` that hold any of `values` (the real grep, as text).
    func filesHolding(_ values: [String], also: [String] = []) throws -> [String] {
        let places = [home, tmp, vaultDir] + also.filter { FileManager.default.fileExists(atPath: $0) }
        let r = try run("/usr/bin/grep", ["-r", "-l", "-a", "-F"] + values.flatMap { ["-e", $0] } + places, stdin: nil, extraEnv: [:])
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func testVimConfiguredToKeepEverythingLeavesNothingBehind() throws {
        try requireProgram("/usr/bin/vim")
        try sampleVault()
        for sub in ["backup", "undo", "swap"] { try FileManager.default.createDirectory(atPath: home + "/vim/" + sub, withIntermediateDirectories: true) }
        // A vimrc that keeps every kind of copy, in the home folder.
        try write("""
            set nocompatible
            set backup writebackup backupdir=~/vim/backup// undofile undodir=~/vim/undo// swapfile directory=~/vim/swap//
            set viminfo='100,<500,s100,h,:100,/100 viminfofile=~/.viminfo history=100
            """, to: home + "/.vimrc")
        let sh = try shell(editor: "vim")
        sh.run("tresor edit Email/gmail; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("password: hunter2-gmail"), sh.screen)
        // A substitution (its pattern and replacement go to the history), a deleted line (a register), a save.
        sh.keys(":%s/hunter2-gmail/vim-new-Secret-9/", literal: true)
        sh.keys("Enter")
        sh.keys(":g/^username/d", literal: true)
        sh.keys("Enter")
        sh.keys(":wq", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("Edited Email/gmail: password, username"), sh.screen)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "vim-new-Secret-9\n")
        XCTAssertEqual(try filesHolding(["hunter2-gmail", "vim-new-Secret-9", "alice@gmail.com"]), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/.viminfo"), "vim wrote a viminfo file")
        for sub in ["backup", "undo", "swap"] {
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home + "/vim/" + sub), [], "vim wrote into ~/vim/\(sub)")
        }
    }

    func testNanoConfiguredToKeepEverythingLeavesNothingBehind() throws {
        try requireProgram("/usr/bin/nano")
        try sampleVault()
        try FileManager.default.createDirectory(atPath: home + "/nano-backup", withIntermediateDirectories: true)
        try write("""
            set backup
            set backupdir "\(home)/nano-backup"
            set historylog
            set positionlog
            set locking
            """, to: home + "/.nanorc")
        // Run as root, nano ignores HOME and keeps its history under root's home from the password file (Debian's
        // /etc/nanorc turns the search history on): that folder is checked as well, and must not change.
        let nanoHome = getuid() == 0 ? (getpwuid(0).map { String(cString: $0.pointee.pw_dir) } ?? "/root") : home
        let history = nanoHome + "/.local/share/nano"
        func historyFiles() -> [String: Data] {
            var files: [String: Data] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: history)) ?? [] { files[name] = FileManager.default.contents(atPath: history + "/" + name) }
            return files
        }
        let before = historyFiles()
        let sh = try shell(editor: "nano")
        sh.run("tresor edit Social/github; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("^X Exit"), sh.screen)
        XCTAssertTrue(sh.screen.contains("password: gh-secret"), sh.screen)
        // Search and replace (both strings go to nano's search history), then save and quit.
        sh.keys("C-\\")
        XCTAssertTrue(sh.waitFor("Replace"), sh.screen)
        sh.keys("gh-secret", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("Replace with"), sh.screen)
        sh.keys("nano-new-Secret-7", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("Replace this instance?"), sh.screen)
        sh.keys("a", literal: true)
        sh.keys("C-o")
        sh.keys("Enter")
        sh.keys("C-x")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertEqual(try ok("show", "Social/github", "--field", "password").stdout, "nano-new-Secret-7\n")
        XCTAssertEqual(try filesHolding(["gh-secret", "nano-new-Secret-7", "2FA codes in the safe"], also: [history]), [])
        XCTAssertEqual(historyFiles(), before, "nano wrote its history")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home + "/nano-backup"), [])
    }

    func testAnEditorTresorDoesNotKnowGetsAWarning() throws {
        try sampleVault()
        let editor = dir + "/my-editor"
        try write("#!/bin/sh\nexit 0\n", to: editor)
        chmod(editor, 0o755)
        let r = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": editor])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("tresor does not know the editor \"my-editor\""), r.stderr)
        // VS Code is known, and what it keeps is named.
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/bin/code", withDestinationPath: editor)
        let code = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": "code --wait", "PATH": dir + "/bin:/usr/bin:/bin"])
        XCTAssertTrue(code.stderr.contains("\"code\" keeps copies of the files it saves"), code.stderr)
        // vim and nano need no warning.
        let vim = try tresor(["edit", "Email/gmail"], extraEnv: ["EDITOR": "vim -es -c 'wq'"])
        XCTAssertFalse(vim.stderr.contains("warning"), vim.stderr)
    }
}
