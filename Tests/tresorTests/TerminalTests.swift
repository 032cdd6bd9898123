// The interactive paths through a real pseudo-terminal: passphrases without echo, the generated-password offer.
import Foundation
import XCTest

/// A tresor process whose stdin, stdout and stderr are a pseudo-terminal this test types into.
final class TerminalSession {
    let process = Process()
    private let master: Int32
    private(set) var screen = ""

    /// Starts `executable` (tresor unless given) with `args` on a new pseudo-terminal.
    init(_ args: [String], env: [String: String], executable: String = CLITestCase.binary) throws {
        var m: Int32 = 0, s: Int32 = 0
        guard openpty(&m, &s, nil, nil, nil) == 0 else { throw XCTSkip("no pseudo-terminal available") }
        master = m
        let slave = FileHandle(fileDescriptor: s, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        process.environment = env
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        try slave.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Reads until `text` has appeared on the screen `occurrence` times (10 s at most).
    func expect(_ text: String, occurrence: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(10)
        func seen() -> Bool { screen.components(separatedBy: text).count > occurrence }
        while !seen(), Date() < deadline {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(master, &buffer, buffer.count)
            // EIO while no one has the terminal open (the program ended); something may open it again.
            if n <= 0 { usleep(50_000); continue }
            screen += String(decoding: buffer[..<n], as: UTF8.self)
        }
        XCTAssertTrue(seen(), "waited for \"\(text)\" (\(occurrence)), screen:\n\(screen)", file: file, line: line)
    }

    func type(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) } }

    /// Waits for the process to exit and returns its status, keeping what it printed.
    func wait(timeout: TimeInterval = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, 50) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = read(master, &buffer, buffer.count)
                if n > 0 { screen += String(decoding: buffer[..<n], as: UTF8.self) }
            }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

final class TerminalTests: CLITestCase {
    var interactiveEnv: [String: String] {
        var e = env
        e["TRESOR_PASSPHRASE_FILE"] = nil
        return e
    }

    func testInitAsksTwiceWithoutEchoThenAddOffersAGeneratedPassword() throws {
        let initSession = try TerminalSession(["init", "--kdf", "minimum"], env: interactiveEnv)
        initSession.expect("New passphrase for \(vaultDir): ")
        initSession.type("typed secret phrase\n")
        initSession.expect("Repeat new passphrase: ")
        initSession.type("typed secret phrase\n")
        XCTAssertEqual(initSession.wait(), 0, initSession.screen)
        XCTAssertFalse(initSession.screen.contains("typed secret phrase"), "the passphrase is never echoed")

        let add = try TerminalSession(["add", "Web/site", "--length", "12"], env: interactiveEnv)
        add.expect("Passphrase for \(vaultDir): ")
        add.type("typed secret phrase\n")
        add.expect("[a]ccept, [r]egenerate, [t]ype your own, [n]o password? ")
        let first = add.screen.components(separatedBy: "Generated password (").last!
        add.type("r\n")
        add.expect("[r]egenerate, [t]ype your own, [n]o password? ", file: #filePath, line: #line)
        add.type("a\n")
        XCTAssertEqual(add.wait(), 0, add.screen)
        let offered = String(add.screen.components(separatedBy: "bits): ").last!.prefix { !$0.isNewline })
        XCTAssertEqual(offered.count, 12, add.screen)
        XCTAssertFalse(first.contains(offered), "regenerate offers a new password")
        try write("typed secret phrase\n", to: passphraseFile)
        XCTAssertEqual(try ok("show", "Web/site", "--field", "password").stdout, offered + "\n")
    }

    func testTypingYourOwnWeakPasswordWarnsAndSaves() throws {
        try write("typed secret phrase\n", to: passphraseFile)
        try initVault()
        let add = try TerminalSession(["add", "Web/own"], env: interactiveEnv)
        add.expect("Passphrase for \(vaultDir): ")
        add.type("typed secret phrase\n")
        add.expect("[n]o password? ")
        add.type("t\n")
        add.expect("Password: ")
        add.type("dragon\n")
        add.expect("Repeat password: ")
        add.type("dragon\n")
        XCTAssertEqual(add.wait(), 0, add.screen)
        XCTAssertTrue(add.screen.contains("weak password") && add.screen.contains("one of the 10 most common passwords"), add.screen)
        XCTAssertFalse(add.screen.contains("dragon"), "the warning must not quote the password: \(add.screen)")
        XCTAssertEqual(try ok("show", "Web/own", "--field", "password").stdout, "dragon\n")
    }
}
