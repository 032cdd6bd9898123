// `tresor edit` with real terminal editors (vi, nano) typed into through tmux, and the decrypted view's fate when tresor is killed.
import Foundation
import XCTest

final class EditorTerminalTests: CLITestCase {
    /// An interactive bash in tmux where `tresor` is on the PATH and the vault is the test's.
    func shell(editor: String) throws -> TmuxSession {
        var e = env
        e["PATH"] = (CLITestCase.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        e["EDITOR"] = editor
        return try TmuxSession(directory: dir, env: e)
    }

    func requireProgram(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw XCTSkip("\(path) is not installed (make test-deps installs it)") }
    }

    /// Views of this test's vault entries left in /dev/shm: none may stay after tresor is gone.
    func views() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []).filter { $0.hasPrefix("tresor-edit-") }
    }

    func testViGetsTheTerminalCtrlCReachesItAndTheEditIsSaved() throws {
        try requireProgram("/usr/bin/vi")
        try sampleVault()
        let sh = try shell(editor: "vi")
        sh.run("stty -g > before")
        sh.run("tresor edit Email/gmail")
        XCTAssertTrue(sh.waitFor("username: alice@gmail.com"), sh.screen)
        // Ctrl-C goes to vi, which says how to quit; tresor is not interrupted.
        sh.keys("C-c")
        XCTAssertTrue(sh.waitFor("to exit Vim"), sh.screen)
        XCTAssertFalse(sh.screen.contains("tresor: "), sh.screen)
        // Ctrl-Z stops the job (vi and tresor together) and the shell takes the terminal back; fg
        // brings both back, still editing.
        sh.keys("Escape")
        usleep(300_000)
        sh.keys("C-z")
        XCTAssertTrue(sh.waitFor("Stopped"), sh.screen)
        sh.run("fg; echo EXIT=$?; stty -g > after")
        XCTAssertTrue(sh.waitFor("password: hunter2-gmail"), sh.screen)
        sh.keys(":%s/alice@gmail.com/alice.vi/", literal: true)
        sh.keys("Enter")
        sh.keys("Goapi-key: typed in vi", literal: true)
        sh.keys("Escape")
        sh.keys(":wq", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("Edited Email/gmail: api-key, username"), sh.screen)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice.vi\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "api-key").stdout, "typed in vi\n")
        XCTAssertEqual(try String(contentsOfFile: dir + "/before", encoding: .utf8), try String(contentsOfFile: dir + "/after", encoding: .utf8))
    }

    func testQuittingViWithoutSavingChangesNothing() throws {
        try requireProgram("/usr/bin/vi")
        try sampleVault()
        let sh = try shell(editor: "vi")
        sh.run("tresor edit Email/gmail; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("username: alice@gmail.com"), sh.screen)
        sh.keys("dd", literal: true)
        sh.keys(":q!", literal: true)
        sh.keys("Enter")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertTrue(sh.screen.contains("No changes."), sh.screen)
    }

    /// vi killed while the terminal is in raw mode: tresor changes nothing, removes the view and puts
    /// the terminal's settings back.
    func testAKilledEditorLeavesTheTerminalAsItWas() throws {
        try requireProgram("/usr/bin/vi")
        try sampleVault()
        let wrapper = dir + "/vi-wrapper"
        try write("#!/bin/sh\necho $$ > \(dir)/editor.pid\nexec vi \"$@\"\n", to: wrapper)
        chmod(wrapper, 0o755)
        let sh = try shell(editor: wrapper)
        sh.run("stty -g > before; tresor edit Email/gmail 2> stderr; echo $? > code; stty -g > after")
        XCTAssertTrue(sh.waitFor("username: alice@gmail.com"), sh.screen)
        let pid = try XCTUnwrap(Int32(try String(contentsOfFile: dir + "/editor.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: dir + "/after", encoding: .utf8))?.isEmpty != false, Date() < deadline { usleep(20_000) }
        XCTAssertEqual(try String(contentsOfFile: dir + "/code", encoding: .utf8), "2\n")
        XCTAssertTrue(try String(contentsOfFile: dir + "/stderr", encoding: .utf8).contains("exited with status 137; nothing was changed"))
        XCTAssertEqual(try String(contentsOfFile: dir + "/before", encoding: .utf8), try String(contentsOfFile: dir + "/after", encoding: .utf8))
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice@gmail.com\n")
    }

    func testNanoEditsThroughTheTerminal() throws {
        try requireProgram("/usr/bin/nano")
        try sampleVault()
        let sh = try shell(editor: "nano")
        sh.run("tresor edit Social/github; echo EXIT=$?")
        XCTAssertTrue(sh.waitFor("^X Exit"), sh.screen)
        XCTAssertTrue(sh.screen.contains("password: gh-secret"), sh.screen)
        sh.keys("C-c")   // nano shows the cursor position: the key reached nano, not tresor
        XCTAssertTrue(sh.waitFor("[ line"), sh.screen)
        sh.keys("M-/")   // end of the text
        sh.keys("recovery: typed in nano", literal: true)
        sh.keys("C-o")
        sh.keys("Enter")
        sh.keys("C-x")
        XCTAssertTrue(sh.waitFor("EXIT=0"), sh.screen)
        XCTAssertEqual(try ok("show", "Social/github", "--field", "recovery").stdout, "typed in nano\n")
        XCTAssertEqual(try ok("show", "Social/github", "--field", "pin").stdout, "4711\n")
    }

    // MARK: The view never outlives tresor

    /// Starts `tresor edit` (in a process group of its own) with an editor that records the view's
    /// path and its own pid, then waits; returns tresor's process and the view directory.
    func startEditThatWaits() throws -> (Process, String, Int32) {
        let editor = dir + "/waiting-editor"
        try write("#!/bin/sh\necho $$ > \(dir)/editor.pid\necho \"$1\" > \(dir)/view.tmp\nmv \(dir)/view.tmp \(dir)/view\nexec sleep 60\n", to: editor)
        chmod(editor, 0o755)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLITestCase.binary)
        p.arguments = ["edit", "Email/gmail"]
        var e = env
        e["EDITOR"] = editor
        p.environment = e
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: dir + "/view"), Date() < deadline { usleep(20_000) }
        let view = try String(contentsOfFile: dir + "/view", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let editorPid = Int32(try String(contentsOfFile: dir + "/editor.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertTrue(try String(contentsOfFile: view, encoding: .utf8).contains("hunter2-gmail"))
        return (p, (view as NSString).deletingLastPathComponent, editorPid)
    }

    func assertRemoved(_ dir: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: dir), Date() < deadline { usleep(20_000) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir), "the decrypted view \(dir) outlived tresor", file: file, line: line)
    }

    /// A guardian process still running for `view`, if any.
    func guardian(of view: String) -> Int32? {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), let cmd = try? String(contentsOfFile: "/proc/\(name)/cmdline", encoding: .utf8) else { continue }
            if cmd.contains("view-guardian") && cmd.contains(view) { return pid }
        }
        return nil
    }

    func testSigkillOfTresorDuringEditRemovesTheView() throws {
        try sampleVault()
        let (p, view, editor) = try startEditThatWaits()
        defer { kill(editor, SIGKILL) }
        XCTAssertNotNil(guardian(of: view), "a guardian watches the view")
        kill(p.processIdentifier, SIGKILL)
        assertRemoved(view)
        usleep(100_000)
        XCTAssertNil(guardian(of: view), "the guardian ends once the view is gone")
        kill(editor, SIGKILL)
        p.waitUntilExit()
    }

    func testKillingTresorsWholeProcessGroupRemovesTheView() throws {
        try sampleVault()
        let (p, view, editor) = try startEditThatWaits()
        defer { kill(editor, SIGKILL) }
        // Foundation starts the child in a process group of its own, whose id is the child's pid.
        XCTAssertEqual(getpgid(editor), p.processIdentifier, "the editor runs in tresor's process group")
        kill(-p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        assertRemoved(view)
    }

    func testAFinishedEditLeavesNoGuardian() throws {
        try sampleVault()
        let (p, view, editor) = try startEditThatWaits()
        kill(editor, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: view))
        XCTAssertNil(guardian(of: view))
    }

    /// Views whose owner is gone (killed before a guardian existed, power loss) are removed by the next
    /// tresor command of any kind; a live owner's view stays, and a reused pid does not pass for its owner.
    func testAnyCommandRemovesViewsWhoseOwnerIsGone() throws {
        let boot = String(try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).filter(\.isHexDigit).prefix(8))
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let me = getpid()
        let myStart = try String(contentsOfFile: "/proc/\(me)/stat", encoding: .utf8).split(separator: ")").last!.split(separator: " ")[19]
        let tag = String(UUID().uuidString.prefix(6))
        let names = [
            "dead": "tresor-edit-\(boot)-\(finished.processIdentifier)-12345-d\(tag)",
            "otherBoot": "tresor-edit-00000000-\(me)-\(myStart)-b\(tag)",
            "reusedPid": "tresor-edit-\(boot)-\(me)-1-r\(tag)",
            "alive": "tresor-edit-\(boot)-\(me)-\(myStart)-a\(tag)",
        ]
        for (_, name) in names {
            try FileManager.default.createDirectory(atPath: "/dev/shm/" + name, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try write("password: left behind\n", to: "/dev/shm/\(name)/entry.txt")
        }
        defer { for (_, name) in names { try? FileManager.default.removeItem(atPath: "/dev/shm/" + name) } }
        try ok("generate", "--length", "8")
        for key in ["dead", "otherBoot", "reusedPid"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/shm/" + names[key]!), "\(key) view not removed")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/shm/\(names["alive"]!)/entry.txt"), "a running owner's view was removed")
    }
}
