// A full-screen program in a detached tmux session of its own server: keys typed in, screen text read back.
import Foundation
import XCTest

/// One tmux server (socket in the test's temp dir) running one command in a 100×30 pane. The pane stays
/// after the command ends and shows "[exit N]", so a test can read the exit status and the scrollback.
final class TmuxPane {
    static let tmux = "/usr/bin/tmux"
    private let socket: String

    /// Starts `command` with exactly `environment` (nothing inherited). - Throws: `XCTSkip` without tmux.
    init(_ command: [String], environment: [String: String], directory: String, width: Int = 100, height: Int = 30) throws {
        guard FileManager.default.isExecutableFile(atPath: TmuxPane.tmux) else { throw XCTSkip("tmux is not installed (make test-deps)") }
        // A socket per pane: a server being killed may still hold the path of the one before.
        socket = directory + "/tmux-" + UUID().uuidString.prefix(8) + ".sock"
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let line = (["env", "-i"] + assignments + command).map(TmuxPane.quote).joined(separator: " ")
            + "; echo \"[exit $?]\"; sleep 600"
        try run(["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", line])
    }

    deinit { _ = try? run(["kill-server"]) }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs a tmux command and returns what it printed. Started with `posix_spawn`, output through a file:
    /// the first command starts the tmux server, which inherits whatever the client had, so neither a pipe's
    /// end nor Foundation's `Process` (which then waits for the server too) would ever see it finish.
    @discardableResult
    private func run(_ args: [String]) throws -> String {
        let outFile = socket + ".out-" + UUID().uuidString
        defer { unlink(outFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([TmuxPane.tmux, "-S", socket] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [String]([ "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, TmuxPane.tmux, &actions, nil, argv, envp) == 0 else { throw POSIXError(.ENOEXEC) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
    }

    /// Keys by tmux name: "Enter", "Escape", "Tab", "BTab", "Up", "Down", "NPage", "PPage", "Home", "End",
    /// "BSpace", "Space", "C-s", or single characters.
    func press(_ keys: String...) { _ = try? run(["send-keys"] + keys) }

    /// Text typed literally.
    func type(_ text: String) { _ = try? run(["send-keys", "-l", text]) }

    /// The visible screen as text, one line per row.
    var screen: String { (try? run(["capture-pane", "-p"])) ?? "" }

    /// The visible screen with attributes and colours as escape sequences.
    var screenWithAttributes: String { (try? run(["capture-pane", "-p", "-e"])) ?? "" }

    /// Everything the pane holds: scrollback and screen.
    var history: String { (try? run(["capture-pane", "-p", "-S", "-", "-E", "-"])) ?? "" }

    /// The pane's terminal device (`/dev/pts/N`), for a program elsewhere to draw on (pinentry's `GPG_TTY`).
    var tty: String { ((try? run(["display-message", "-p", "#{pane_tty}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }

    func resize(width: Int, height: Int) { _ = try? run(["resize-window", "-x", "\(width)", "-y", "\(height)"]) }

    /// Waits until the screen satisfies `condition` (10 s at most) and returns it; fails the test otherwise.
    @discardableResult
    func wait(_ what: String, file: StaticString = #filePath, line: UInt = #line, until condition: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(10)
        var text = screen
        while !condition(text), Date() < deadline {
            usleep(30_000)
            text = screen
        }
        XCTAssertTrue(condition(text), "waited for \(what); screen:\n\(text)", file: file, line: line)
        return text
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    func wait(for text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        wait("\"\(text)\"", file: file, line: line) { $0.contains(text) }
    }

    /// Waits until `text` is gone from the screen.
    @discardableResult
    func wait(without text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        wait("\"\(text)\" to go", file: file, line: line) { !$0.contains(text) }
    }

    /// The screen line containing `text`.
    func line(containing text: String) -> String? {
        screen.split(separator: "\n", omittingEmptySubsequences: false).first { $0.contains(text) }.map(String.init)
    }
}
