// A real interactive bash in a private tmux server, for full-screen programs: type keys, read the screen.
import Foundation
import XCTest

/// `bash -i` in a detached tmux session on its own socket, with only the given environment. The tmux
/// server is killed when the session is released.
final class TmuxSession {
    let socket: String
    private let tmux: String

    /// Starts the shell in `directory` (the socket lives there too). - Throws: `XCTSkip` without tmux.
    init(directory: String, env: [String: String], width: Int = 100, height: Int = 30) throws {
        guard let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("tmux is not installed (make test-deps installs it)")
        }
        self.tmux = tmux
        socket = directory + "/tmux.sock"
        var environment = env
        environment["TERM"] = "screen"
        environment["PS1"] = TmuxSession.prompt
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(TmuxSession.quote($0.value))" }.joined(separator: " ")
        _ = try command(["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-c", directory,
                         "env -i \(assignments) bash --norc --noprofile -i"])
        XCTAssertTrue(waitFor(TmuxSession.prompt), "the shell did not start")
    }

    /// The shell's prompt (capture-pane drops trailing spaces, so it has none).
    static let prompt = "tmux-test>"

    deinit { _ = try? command(["kill-server"]) }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `tmux -S socket args…` and returns what it printed (with nothing of ours inherited: the
    /// server `new-session` forks would otherwise hold descriptors Foundation waits on).
    @discardableResult
    private func command(_ args: [String]) throws -> String {
        SpawnHelper.run(tmux, ["-S", socket] + args).output
    }

    /// Types a line of text followed by Enter.
    func run(_ line: String) { keys(line, literal: true); keys("Enter") }

    /// Sends keys: `literal` text as typed, otherwise tmux key names ("Enter", "C-c", "Escape").
    func keys(_ keys: String..., literal: Bool = false) {
        _ = try? command(["send-keys", "-t", "0"] + (literal ? ["-l"] : []) + keys)
    }

    /// The visible screen and its scroll-back, as text.
    var screen: String { (try? command(["capture-pane", "-p", "-t", "0", "-S", "-200"])) ?? "" }

    /// Waits until `text` is on the screen (10 s at most); true if it appeared.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }
}
