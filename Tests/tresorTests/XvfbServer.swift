// A private X server (Xvfb) for clipboard tests: started on a free display, stopped when released.
import Foundation
import XCTest

/// Xvfb on the first free display it finds itself (`-displayfd`), no TCP; killed in `deinit`.
final class XvfbServer {
    let display: String
    private let pid: pid_t

    /// `screen`: WIDTHxHEIGHTxDEPTH. - Throws: `XCTSkip` without Xvfb, an error if it does not come up within 10 s.
    init(screen: String = "640x480x24") throws {
        let xvfb = "/usr/bin/Xvfb"
        guard FileManager.default.isExecutableFile(atPath: xvfb) else { throw XCTSkip("Xvfb is not installed (make test-deps installs it)") }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw XCTSkip("no pipe") }
        let started = SpawnHelper.start(xvfb, ["-displayfd", "3", "-nolisten", "tcp", "-screen", "0", screen], extra: [(fds[1], 3)])
        close(fds[1])
        defer { close(fds[0]) }
        guard let pid = started else { throw XCTSkip("cannot start Xvfb") }
        self.pid = pid
        var text = ""
        var pfd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        let deadline = Date().addingTimeInterval(10)
        while !text.hasSuffix("\n"), Date() < deadline {
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            text += String(decoding: buffer[..<n], as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(pid, SIGKILL)
            throw NSError(domain: "Xvfb", code: 1, userInfo: [NSLocalizedDescriptionKey: "Xvfb did not report a display"])
        }
        display = ":\(number)"
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
