// `tresor clip`: copy a field to the clipboard and clear it later; and the hidden keeper that does the clearing.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// Options of every command that copies: `--clear-after`.
struct ClipOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Clear the clipboard after this many seconds if it still holds the value; 0 never clears (default: $TRESOR_CLIP_TIME, else 45).",
                               valueName: "seconds"))
    var clearAfter: Double?

    /// Copies field `field` of entry `path` (its `value`) and says so on stderr ("Copied the password of
    /// Email/gmail …"), or with `json` as `{"path", "field", "clipboard", "clearAfter"}` on stdout.
    func copy(_ value: SecretBytes, field: String, of path: EntryPath, json: Bool) throws {
        let delay = try Clipboard.clearDelay(clearAfter)
        let backend = try Clipboard.copy(value, clearAfter: delay)
        let when = delay == 0 ? "it will not be cleared" : "it will be cleared in \(Clip.format(delay)) second\(delay == 1 ? "" : "s")"
        let what = field == TOTP.fieldName ? "the one-time code of \(path)" : "the \(displayable(field)) of \(path)"
        Output.report(json: json, "Copied \(what) to the clipboard (\(backend)); \(when).",
                      .object(["path": .string(path.string), "field": .string(field), "clipboard": .string(backend),
                               "clearAfter": .number(Clip.format(delay))]))
    }
}

struct Clip: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clip", 
        abstract: "Copy an entry's password (or another field) to the clipboard, and clear it later.",
        discussion: "X11 (xclip, else xsel), Wayland (wl-copy), tmux's buffer inside tmux, or OSC 52 for a terminal (also over ssh); $TRESOR_CLIPBOARD chooses. The value is copied without a newline; after --clear-after seconds the clipboard is cleared if it still holds it.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Option(help: ArgumentHelp("The field to copy (default: password).", valueName: "name")) var field: String = "password"
    @OptionGroup var clip: ClipOptions
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        let vault = try options.open(unlock: true)
        let entry = try vault.read(try vault.existingPath(path))
        try Clip.copyField(field, of: entry, with: clip, json: json)
    }

    /// Copies one field's value (a list's values one per line).
    static func copyField(_ field: String, of entry: Entry, with clip: ClipOptions, json: Bool) throws {
        guard let f = entry.fields[field] else {
            throw CLIError("entry \"\(entry.path)\" has no field \"\(displayable(field))\"" +
                           (entry.fields.isEmpty ? "" : "\nhint: it has " + entry.fields.keys.sorted().joined(separator: ", ")), code: ExitStatus.notFound)
        }
        try clip.copy(f.value.secretText.bytes, field: field, of: entry.path, json: json)
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// `tresor clipboard-keeper BACKEND SECONDS [TTY]` (hidden), started by `Clipboard.copy` in a session of
/// its own: reads the secret from standard input (kept only in memory), copies it, answers "ok" on
/// standard output, then after SECONDS clears the clipboard if it still holds the secret. For OSC 52
/// it cannot read the clipboard back, and sends the clearing sequence to TTY if that terminal is still there.
struct ClipboardKeeper: ParsableCommand {
    static let commandName = "clipboard-keeper"
    static let configuration = CommandConfiguration(
        commandName: commandName, abstract: "Copy to the clipboard and clear it later (internal).", shouldDisplay: false)

    @Argument var backend: String
    @Argument var seconds: Double
    @Argument var tty: String?

    func run() throws {
        for s in [SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGPIPE] { signal(s, SIG_IGN) }
        guard let backend = ClipboardBackend(rawValue: backend) else { answer("unknown clipboard \(displayable(backend))"); return }
        if backend == .osc52 {
            answer("ok")
            guard seconds > 0, let tty else { return }
            sleepFor(seconds)
            try? Clipboard.writeOSC52(nil, to: tty)
            return
        }
        let secret: SecretBytes
        do { secret = try readSecret() } catch { answer("cannot read the secret to copy: \(String(cString: strerror(error.errno)))"); return }
        guard let copy = backend.copyCommand, let program = Clipboard.find(copy[0]) else { answer("\(backend.rawValue) is not installed"); return }
        let status = ClipboardKeeper.run(program, Array(copy.dropFirst()), input: secret).status
        guard status == 0 else { answer("\(copy[0]) failed (exit status \(status)); nothing was copied"); return }
        answer("ok")
        guard seconds > 0 else { return }
        sleepFor(seconds)
        guard let read = backend.readCommand, let reader = Clipboard.find(read[0]) else { return }
        let current = ClipboardKeeper.run(reader, Array(read.dropFirst()), input: nil, capture: secret.count + 1)
        guard current.status == 0, let held = current.output, held.constantTimeEquals(secret) else { return }
        for clear in backend.clearCommands {
            guard let clearer = Clipboard.find(clear[0]) else { continue }
            _ = ClipboardKeeper.run(clearer, Array(clear.dropFirst()), input: SecretBytes(count: 0))
        }
    }

    /// Tells the waiting tresor how the copy went, then lets go of its pipe.
    private func answer(_ text: String) {
        StandardStream.write(STDOUT_FILENO, text + "\n")
        // (Best effort: without /dev/null the pipe stays open until the keeper ends, and tresor waits that long.)
        guard let null = try? FileSystem.open("/dev/null", O_WRONLY | O_CLOEXEC) else { return }
        try? FileSystem.duplicate(null, onto: STDOUT_FILENO)
        FileSystem.close(null)
    }

    private func sleepFor(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// All of standard input (at most 1 MiB) in locked memory. - Throws: `FileSystem.Failure` when reading fails.
    private func readSecret() throws(FileSystem.Failure) -> SecretBytes {
        var out = SecretByteBuilder(capacity: 4096)
        while out.count < 1 << 20, try out.append(readingFrom: STDIN_FILENO, path: "standard input") > 0 {}
        return out.finish()
    }

    /// Runs a clipboard program: `input` on its standard input (nil: /dev/null), its output captured up
    /// to `capture` bytes (nil: discarded). Its other descriptors are /dev/null, so a program that stays
    /// behind to serve the selection (xclip, xsel, wl-copy) holds none of tresor's pipes.
    static func run(_ path: String, _ args: [String], input: SecretBytes?, capture: Int? = nil) -> (status: Int32, output: SecretBytes?) {
        let null = Spawn.devNull()
        defer { if null >= 0 { FileSystem.close(null) } }
        guard let inPipe = try? Spawn.privatePipe(), let outPipe = try? Spawn.privatePipe() else { return (127, nil) }
        guard let pid = try? Spawn.start(path, args, stdin: input == nil ? null : inPipe.read,
                                         stdout: capture == nil ? null : outPipe.write, stderr: null) else {
            for fd in [inPipe.read, inPipe.write, outPipe.read, outPipe.write] { FileSystem.close(fd) }
            return (127, nil)
        }
        FileSystem.close(inPipe.read); FileSystem.close(outPipe.write)
        let given = input?.withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(inPipe.write, b, path: path) } }
        FileSystem.close(inPipe.write)
        if case .failure? = given {
            // A program that got only part of its input (it went away) did not do what was asked, whatever its status.
            FileSystem.close(outPipe.read)
            let status = Spawn.wait(pid)
            return (status == 0 ? 1 : status, nil)
        }
        var output: SecretBytes?
        if let capture {
            var bytes: [UInt8] = []
            defer { SecretBytes.wipe(&bytes) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            defer { SecretBytes.wipe(&buffer) }
            // (A read error ends the capture: what it holds then differs from the secret, and the clipboard is left as it is.)
            while let n = try? buffer.withUnsafeMutableBytes({ b in try FileSystem.readSome(outPipe.read, into: b, path: path) }), n > 0 {
                if bytes.count <= capture { bytes += buffer[..<min(n, capture + 1 - bytes.count)] }
            }
            output = SecretBytes(copying: bytes)
        }
        FileSystem.close(outPipe.read)
        return (Spawn.wait(pid), output)
    }
}
