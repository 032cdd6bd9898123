// Asking for a passphrase through pinentry (the Assuan protocol) when there is no terminal: git hooks, helpers, GUIs.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// A conversation with a pinentry program (pinentry-curses, pinentry-tty, pinentry-gnome3, …) over its standard input
/// and output: `OPTION`, `SETTITLE`, `SETDESC`, `SETPROMPT`, `SETERROR`, `GETPIN`, `BYE`. Texts are sent
/// percent-escaped; the passphrase comes back in `D` lines, percent-escaped, and is decoded straight into zeroing
/// memory.
enum Pinentry {
    /// The pinentry to use: `$TRESOR_PINENTRY` (a program, with arguments separated by spaces; empty or `none`: never
    /// use one), else `pinentry` on `$PATH` (Debian's alternative: pinentry-curses, pinentry-gnome3, …). nil: none.
    static var program: [String]? {
        if Prompt.neverAsk { return nil }
        let env = ProcessEnvironment.values
        if let chosen = env["TRESOR_PINENTRY"] {
            let words = chosen.split(separator: " ").map(String.init)
            guard let first = words.first, first != "none" else { return nil }
            guard let path = first.contains("/") ? first : Clipboard.find(first) else { return nil }
            return [path] + words.dropFirst()
        }
        return Clipboard.find("pinentry").map { [$0] }
    }

    /// Why pinentry gave no passphrase.
    struct Failure: Error {
        let message: String
        let cancelled: Bool
    }

    /// Asks for one passphrase. `description` is the dialog's text (which vault), `error` a line shown above it
    /// on a second try. - Throws: `Failure` (cancelled, or the program could not ask), `CLIError` when it cannot
    /// be started.
    static func ask(description: String, prompt: String, error: String? = nil) throws -> SecretBytes {
        guard let program else { throw Failure(message: "no pinentry program", cancelled: false) }
        // A missing libsodium, or a missing libgit2 that git's start on another thread is opening, ends the program
        // before the dialog opens.
        Vault.openLibraries(git: .ifPreparing)
        let toChild = try Spawn.privatePipe(), fromChild = try Spawn.privatePipe()
        let null = Spawn.devNull()
        let pid: pid_t
        do { pid = try Spawn.start(program[0], Array(program.dropFirst()), stdin: toChild.read, stdout: fromChild.write, stderr: null) }
        catch { for fd in [toChild.read, toChild.write, fromChild.read, fromChild.write, null] { FileSystem.close(fd) }; throw error }
        FileSystem.close(toChild.read); FileSystem.close(fromChild.write); if null >= 0 { FileSystem.close(null) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer {
            FileSystem.close(toChild.write); FileSystem.close(fromChild.read)
            _ = Spawn.wait(pid)
            signal(SIGPIPE, previous)
        }
        var reader = LineReader(fd: fromChild.read)
        // (A write that fails, pinentry gone, shows as the end of its answers, read next.)
        func send(_ line: String) {
            _ = Array((line + "\n").utf8).withUnsafeBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(toChild.write, b, path: program[0]) } }
        }
        /// Sends a command and reads to its `OK` or `ERR`; returns the `ERR` line's text, nil for OK.
        func command(_ line: String) throws -> String? {
            send(line)
            return try reader.untilDone(data: nil)
        }
        guard let greeting = try reader.line(), greeting.hasPrefix("OK") else {
            throw Failure(message: "\(program[0]) does not speak the pinentry protocol", cancelled: false)
        }
        let env = ProcessEnvironment.values
        // Where a terminal pinentry draws: GPG_TTY, as for gpg-agent. Options a flavour does not know are ignored.
        if let tty = env["GPG_TTY"], !tty.isEmpty { _ = try command("OPTION ttyname=" + escaped(tty)) }
        if let term = env["TERM"], !term.isEmpty { _ = try command("OPTION ttytype=" + escaped(term)) }
        if let ctype = env["LC_ALL"] ?? env["LC_CTYPE"] ?? env["LANG"], !ctype.isEmpty { _ = try command("OPTION lc-ctype=" + escaped(ctype)) }
        _ = try command("SETTITLE Tresor")
        _ = try command("SETDESC " + escaped(description))
        _ = try command("SETPROMPT " + escaped(prompt))
        if let error { _ = try command("SETERROR " + escaped(error)) }
        send("GETPIN")
        var pin = SecretByteBuilder(capacity: 256)
        if let failure = try reader.untilDone(data: &pin) {
            // "ERR <code> <text>": the low 16 bits of the code are GPG_ERR_CANCELED (99) when the person cancelled.
            let parts = failure.split(separator: " ", maxSplits: 1)
            let code = parts.first.flatMap { UInt32($0) } ?? 0
            var text = parts.count > 1 ? String(parts[1]) : failure
            // "… <Pinentry>": the error's source, not news to a person.
            if text.hasSuffix(">"), let open = text.lastIndex(of: "<") { text = String(text[..<open]).trimming(.whitespaces) }
            send("BYE")
            throw Failure(message: Output.escaped(text), cancelled: code & 0xFFFF == 99)
        }
        send("BYE")
        return pin.finish()
    }

    /// Percent-escapes `%`, CR, LF and other control characters, as Assuan lines require; at most 900 bytes.
    static func escaped(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == 0x25 || byte < 0x20 || byte == 0x7F { out += Array(String(printf: "%%%02X", byte).utf8) } else { out.append(byte) }
        }
        return String(decoding: out.prefix(900), as: UTF8.self)
    }

    /// Reads pinentry's lines from a pipe. Lines that carry data (`D …`) are decoded into the caller's zeroing
    /// buffer and never become a `String`; a line is at most 1000 bytes (Assuan's limit), longer ones are an error.
    struct LineReader {
        let fd: Int32
        private var buffer = SecretByteBuilder(capacity: 1024)

        init(fd: Int32) { self.fd = fd }

        /// One line without its LF, in zeroing memory; nil at end of input.
        mutating func rawLine() throws -> SecretBytes? {
            buffer = SecretByteBuilder(capacity: 1024)
            while true {
                var byte: UInt8 = 0
                // (A read error ends the answer as its end does.)
                let n = (try? withUnsafeMutableBytes(of: &byte) { b in try FileSystem.readSome(fd, into: b, path: "pinentry") }) ?? 0
                if n == 0 { return buffer.count == 0 ? nil : buffer.finish() }
                if byte == 0x0A { return buffer.finish() }
                guard buffer.count < 1000 else { throw Failure(message: "pinentry sent a line longer than the protocol allows", cancelled: false) }
                buffer.append(byte)
                byte = 0
            }
        }

        /// One line that is not data, as text.
        mutating func line() throws -> String? {
            try rawLine().map { $0.withBytes { String(decoding: $0, as: UTF8.self) } }
        }

        /// Reads to `OK` (returns nil) or `ERR` (returns the rest of its line), decoding `D` lines into `data`;
        /// status (`S`) and comment (`#`) lines are skipped. - Throws: `Failure` when the program ends first.
        mutating func untilDone(data: UnsafeMutablePointer<SecretByteBuilder>?) throws -> String? {
            while let raw = try rawLine() {
                let done: String?? = raw.withBytes { b -> String?? in
                    if b.count >= 2, b[0] == 0x44, b[1] == 0x20 {   // "D "
                        if let data { Pinentry.decode(UnsafeRawBufferPointer(rebasing: b[2...]), into: &data.pointee) }
                        return .none
                    }
                    let text = String(decoding: b, as: UTF8.self)
                    if text == "OK" || text.hasPrefix("OK ") { return .some(nil) }
                    if text.hasPrefix("ERR") { return .some(String(text.dropFirst(3)).trimming(.whitespaces)) }
                    return .none
                }
                if let done { return done }
            }
            throw Failure(message: "the pinentry program ended without an answer", cancelled: false)
        }
    }

    /// Appends percent-decoded `bytes` to `out`.
    static func decode(_ bytes: UnsafeRawBufferPointer, into out: inout SecretByteBuilder) {
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
    }
}
