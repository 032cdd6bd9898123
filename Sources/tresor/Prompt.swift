// Reading from a person at the terminal: passphrases without echo, confirmations and lines, on the controlling terminal.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// Where a question goes and its answer comes from. Like gpg, ssh and sudo, tresor asks on the controlling
/// terminal (`/dev/tty`) whatever standard input and output are, so `printf … | tresor add X --password-stdin`
/// still asks for the passphrase. Without one (cron, a service, a process of its own session) it falls back to
/// standard input when that is a terminal.
enum Prompt {
    /// A terminal to ask on: its descriptor, and whether prompts are written to it (the controlling terminal)
    /// rather than to stderr (standard input as a fallback).
    struct Channel {
        let fd: Int32
        let writesPrompt: Bool
    }

    /// `/dev/tty`, opened once: nil when this process has no controlling terminal.
    nonisolated(unsafe) private static var controllingTerminal: Int32? = {
        try? FileSystem.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)  // (ENXIO: no controlling terminal)
    }()

    /// The terminal to ask on: the controlling terminal while this process is in its foreground process group (a
    /// background job asking there would be stopped by SIGTTIN, and a test runner's children are background
    /// jobs of its terminal), else standard input when it is a terminal, else none.
    static var channel: Channel? {
        if neverAsk { return nil }
        if let fd = controllingTerminal, tcgetpgrp(fd) == getpgrp() { return Channel(fd: fd, writesPrompt: true) }
        if isatty(STDIN_FILENO) == 1 { return Channel(fd: STDIN_FILENO, writesPrompt: false) }
        return nil
    }

    /// Set by commands git runs (textconv, the merge driver, hooks): they never ask anyone, at a terminal or through
    /// pinentry, whatever identity or passphrase would need it.
    nonisolated(unsafe) static var neverAsk = false

    /// True when a person can answer at a terminal (see `channel`).
    static var interactive: Bool { channel != nil }

    /// True when standard input itself is a terminal (`--password-stdin` then asks there instead of reading a pipe).
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads a line from the terminal with echo off; the result is in a zeroing buffer, checked as UTF-8
    /// without passing through a `String`.
    /// - Throws: `CLIError` without a terminal, or if the line is not UTF-8 text.
    static func secret(_ prompt: String) throws -> SecretBytes {
        try secretText(prompt).bytes
    }

    /// `secret(_:)` as text (a password typed for an entry). - Throws: as `secret(_:)`.
    static func secretText(_ prompt: String) throws -> SecretText {
        var bytes = try secretLine(prompt)
        defer { SecretBytes.wipe(&bytes) }
        guard let text = SecretText(copying: bytes) else { throw CLIError("what was typed is not UTF-8 text") }
        return text
    }

    /// All of standard input, read with read(2) straight into zeroing memory (no `Data` or `String` on the
    /// way). - Throws: `CLIError` if reading fails.
    static func secretStandardInput() throws -> SecretBytes {
        var out = SecretByteBuilder(capacity: 4096)
        do { while try out.append(readingFrom: STDIN_FILENO, path: "standard input") > 0 {} }
        catch { throw CLIError("cannot read standard input: \(String(cString: strerror(error.errno)))") }
        return out.finish()
    }

    /// The message when there is no terminal to ask at.
    static let noTerminal = "no terminal to ask for the passphrase\n" + noTerminalHint
    static let noTerminalHint = "hint: use --passphrase-file FILE or TRESOR_PASSPHRASE_FILE, --identity FILE for a member's device, or run 'tresor unlock' once at a terminal (then every command uses the agent)"

    /// The bytes of one line typed with echo off (without the line end); the caller wipes them. At
    /// most `limit` bytes are kept; a longer line is read to its end and comes back `limit + 1` long,
    /// so the caller can tell it was too long. `on`: a channel to use instead of `channel` (standard input
    /// for `--password-stdin` at a terminal).
    static func secretLine(_ prompt: String, limit: Int = 64 * 1024, on given: Channel? = nil) throws -> [UInt8] {
        guard let ask = given ?? channel else { throw CLIError(noTerminal, code: ExitStatus.auth) }
        // A missing libsodium, or a missing libgit2 that git's start on another thread is opening, ends the program
        // before echo goes off.
        Vault.openLibraries(git: .ifPreparing)
        // Echo goes off before the prompt appears, so nothing typed after seeing it is ever shown.
        var old = termios()
        let fd = ask.fd
        let hadTerm = tcgetattr(fd, &old) == 0
        if hadTerm {
            var quiet = old
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(fd, TCSANOW, &quiet)
        }
        defer { if hadTerm { var o = old; tcsetattr(fd, TCSANOW, &o) } }
        show(prompt, on: ask)
        var bytes: [UInt8] = []
        // Room for the longest accepted line, so appending never reallocates and leaves an unwiped copy.
        bytes.reserveCapacity(limit + 2)
        while true {
            var c: UInt8 = 0
            // The terminal's raw I/O, a byte at a time with echo off: read(2) itself, so nothing is read past the line.
            let n = read(fd, &c, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || c == 0x0A { break }
            if bytes.count <= limit { bytes.append(c) }
            c = 0
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// A plain line typed at the terminal (echoed), nil at end of input or without a terminal.
    static func line(_ prompt: String) -> String? {
        guard let ask = channel else { return nil }
        show(prompt, on: ask)
        var bytes: [UInt8] = []
        while true {
            var c: UInt8 = 0
            let n = read(ask.fd, &c, 1)  // the terminal's raw I/O, as in `secretLine`
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if c == 0x0A { break }
            bytes.append(c)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Yes/no question; `defaultYes` decides an empty answer.
    static func confirm(_ question: String, defaultYes: Bool = false) -> Bool {
        guard let a = line(question + (defaultYes ? " [Y/n] " : " [y/N] "))?.lowercased() else { return false }
        return a.isEmpty ? defaultYes : a.hasPrefix("y")
    }

    /// Writes a prompt where the answer is typed: on the controlling terminal itself (so `2>/dev/null` does not
    /// hide it), else on stderr.
    private static func show(_ prompt: String, on ask: Channel) {
        let bytes = Array(prompt.utf8)
        if ask.writesPrompt {
            _ = bytes.withUnsafeBytes { write(ask.fd, $0.baseAddress, $0.count) }  // the terminal's raw I/O: a prompt lost is no harm
        } else {
            StandardStream.write(2, bytes)
        }
    }
}
