// Reading from a person at the terminal: passphrases without echo, confirmations and lines.
import Foundation
import TresorCore

enum Prompt {
    /// True when a person can answer: stdin is a terminal and /dev/tty opens.
    static var interactive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads a line from the terminal with echo off; the result is in a zeroing buffer.
    static func secret(_ prompt: String) throws -> SecretBytes {
        guard interactive else {
            throw CLIError("no terminal to ask for the passphrase\nhint: use --passphrase-file FILE or TRESOR_PASSPHRASE_FILE, or 'tresor unlock'", code: ExitStatus.auth)
        }
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
        // The prompt only once echo is off: a reply typed as soon as it appears is never shown.
        FileHandle.standardError.write(Data(prompt.utf8))
        var bytes: [UInt8] = []
        defer { Sodium.wipe(&bytes) }
        while true {
            var c: UInt8 = 0
            let n = read(fd, &c, 1)
            if n <= 0 || c == 0x0A { break }
            if c != 0x0D { bytes.append(c) }
        }
        guard let secret = SecretBytes.passphrase(bytes) else { throw CLIError("the passphrase is not UTF-8 text", code: ExitStatus.auth) }
        return secret
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
