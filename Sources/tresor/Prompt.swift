// Reading from a person at the terminal: passphrases without echo, confirmations and lines.
import Foundation
import Tresor

enum Prompt {
    /// True when a person can answer: stdin is a terminal and /dev/tty opens.
    static var interactive: Bool { isatty(STDIN_FILENO) == 1 }

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
        while true {
            let n = out.append(readingFrom: STDIN_FILENO)
            if n < 0 { if errno == EINTR { continue }; throw CLIError("cannot read standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
        }
        return out.finish()
    }

    /// The bytes of one line typed with echo off (without the line end); the caller wipes them. At
    /// most `limit` bytes are kept; a longer line is read to its end and comes back `limit + 1` long,
    /// so the caller can tell it was too long.
    static func secretLine(_ prompt: String, limit: Int = 64 * 1024) throws -> [UInt8] {
        guard interactive else {
            throw CLIError("no terminal to ask for the passphrase\nhint: use --passphrase-file FILE or TRESOR_PASSPHRASE_FILE, or 'tresor unlock'", code: ExitStatus.auth)
        }
        // Echo goes off before the prompt appears, so nothing typed after seeing it is ever shown.
        var old = termios()
        let fd = STDIN_FILENO
        let hadTerm = tcgetattr(fd, &old) == 0
        if hadTerm {
            var quiet = old
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(fd, TCSANOW, &quiet)
        }
        defer { if hadTerm { var o = old; tcsetattr(fd, TCSANOW, &o) } }
        FileHandle.standardError.write(Data(prompt.utf8))
        var bytes: [UInt8] = []
        // Room for the longest accepted line, so appending never reallocates and leaves an unwiped copy.
        bytes.reserveCapacity(limit + 2)
        while true {
            var c: UInt8 = 0
            let n = read(fd, &c, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || c == 0x0A { break }
            if bytes.count <= limit { bytes.append(c) }
            c = 0
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// A plain line typed at the terminal (echoed), nil at end of input.
    static func line(_ prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        return readLine(strippingNewline: true)
    }

    /// Yes/no question; `defaultYes` decides an empty answer.
    static func confirm(_ question: String, defaultYes: Bool = false) -> Bool {
        guard let a = line(question + (defaultYes ? " [Y/n] " : " [y/N] "))?.lowercased() else { return false }
        return a.isEmpty ? defaultYes : a.hasPrefix("y")
    }
}
