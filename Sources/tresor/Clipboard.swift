// The clipboard: X11 (xclip, xsel), Wayland (wl-copy) or OSC 52, and a detached keeper that clears it later if it still holds the secret.
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

/// Where a copied secret goes, and how it is read back and cleared.
enum ClipboardBackend: String, CaseIterable {
    case wayland = "wl-copy", xclip, xsel, tmux, osc52

    /// The program that copies (nil for OSC 52, which tresor writes to the terminal itself).
    var copyCommand: [String]? {
        switch self {
        case .wayland: return ["wl-copy"]
        case .xclip: return ["xclip", "-selection", "clipboard", "-in"]
        case .xsel: return ["xsel", "--clipboard", "--input"]
        // tmux's paste buffer "tresor" (prefix ] pastes it); -w also hands it to the terminal's clipboard the way
        // tmux's set-clipboard allows (OSC 52 written by a program in a pane is dropped by tmux's default).
        case .tmux: return ["tmux", "load-buffer", "-w", "-b", "tresor", "-"]
        case .osc52: return nil
        }
    }

    var readCommand: [String]? {
        switch self {
        case .wayland: return ["wl-paste", "--no-newline"]
        case .xclip: return ["xclip", "-selection", "clipboard", "-out"]
        case .xsel: return ["xsel", "--clipboard", "--output"]
        case .tmux: return ["tmux", "show-buffer", "-b", "tresor"]
        case .osc52: return nil
        }
    }

    /// The commands that clear it, run in order (each with empty input).
    var clearCommands: [[String]] {
        switch self {
        case .wayland: return [["wl-copy", "--clear"]]
        case .xclip: return [["xclip", "-selection", "clipboard", "-in"]]   // empty input: an empty clipboard
        case .xsel: return [["xsel", "--clipboard", "--clear"]]
        // tmux takes no empty buffer: the terminal's clipboard gets a space, then the buffer goes.
        case .tmux: return [["tmux", "set-buffer", "-w", "-b", "tresor", " "], ["tmux", "delete-buffer", "-b", "tresor"]]
        case .osc52: return []
        }
    }

    /// The backend for this session: `$TRESOR_CLIPBOARD` if set; else Wayland's wl-copy when
    /// `$WAYLAND_DISPLAY` is set, X11's xclip or xsel when `$DISPLAY` is, tmux's buffer inside tmux (`$TMUX`),
    /// and OSC 52 on a terminal (which reaches the clipboard of the terminal emulator, also over ssh). nil when
    /// none applies.
    static func detect() throws -> ClipboardBackend? {
        let env = ProcessEnvironment.values
        if let forced = env["TRESOR_CLIPBOARD"], !forced.isEmpty {
            let name = forced == "wayland" ? "wl-copy" : forced
            guard let b = ClipboardBackend(rawValue: name) else {
                throw CLIError("TRESOR_CLIPBOARD=\(displayable(forced)) is not a clipboard tresor knows\nhint: use wl-copy, xclip, xsel, tmux or osc52")
            }
            return b
        }
        if env["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true, Clipboard.find("wl-copy") != nil { return .wayland }
        if env["DISPLAY"].map({ !$0.isEmpty }) == true {
            if Clipboard.find("xclip") != nil { return .xclip }
            if Clipboard.find("xsel") != nil { return .xsel }
        }
        if env["TMUX"].map({ !$0.isEmpty }) == true, Clipboard.find("tmux") != nil { return .tmux }
        return Clipboard.terminal() != nil ? .osc52 : nil
    }
}

enum Clipboard {
    /// The clearing delay: `--clear-after`, else `$TRESOR_CLIP_TIME`, else 45 seconds; 0 never clears.
    static func clearDelay(_ option: Double?) throws -> Double {
        if let option {
            guard option >= 0, option <= 86_400 else { throw ValidationError("--clear-after must be between 0 and 86400 seconds") }
            return option
        }
        if let env = ProcessEnvironment.value("TRESOR_CLIP_TIME"), !env.isEmpty {
            guard let v = Double(env), v >= 0, v <= 86_400 else { throw CLIError("TRESOR_CLIP_TIME=\(displayable(env)) is not a number of seconds from 0 to 86400") }
            return v
        }
        return 45
    }

    /// `name` on `$PATH`, if it is there.
    static func find(_ name: String) -> String? {
        let path = ProcessEnvironment.value("PATH") ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The controlling terminal's device path, if tresor has one.
    static func terminal() -> String? {
        for fd in [STDERR_FILENO, STDOUT_FILENO, STDIN_FILENO] where isatty(fd) == 1 {
            if let name = ttyname(fd) { return String(cString: name) }
        }
        return nil
    }

    /// Copies `secret` (exactly its bytes: no newline is added) and leaves a keeper that clears the
    /// clipboard after `delay` seconds if it still holds the secret. Returns the backend's name.
    /// - Throws: `CLIError` when there is no clipboard or copying failed.
    static func copy(_ secret: SecretBytes, clearAfter delay: Double) throws -> String {
        guard let backend = try ClipboardBackend.detect() else {
            throw CLIError("no clipboard: neither $WAYLAND_DISPLAY nor $DISPLAY is set and there is no terminal for OSC 52\nhint: install wl-clipboard or xclip, or print the value with 'tresor show PATH --field NAME'")
        }
        var tty: String?
        if backend == .osc52 {
            guard let t = terminal() else { throw CLIError("no terminal to send the clipboard sequence (OSC 52) to") }
            try writeOSC52(secret, to: t)
            tty = t
        } else if let program = backend.copyCommand?.first, find(program) == nil {
            throw CLIError("the clipboard program \"\(program)\" is not installed\nhint: install \(backend == .wayland ? "wl-clipboard" : program)")
        }
        try startKeeper(backend, secret: backend == .osc52 ? nil : secret, delay: delay, tty: tty)
        return backend.rawValue
    }

    /// `ESC ] 52 ; c ; BASE64 BEL` (xterm's "manipulate selection data"); an empty payload clears.
    static func writeOSC52(_ secret: SecretBytes?, to tty: String) throws {
        func fail(_ code: Int32) -> CLIError { CLIError("cannot write to the terminal \"\(tty)\": \(String(cString: strerror(code)))") }
        let fd: Int32
        do { fd = try FileSystem.open(tty, O_WRONLY | O_NOCTTY | O_CLOEXEC) } catch { throw fail(error.errno) }
        defer { FileSystem.close(fd) }
        var sequence = Array("\u{1B}]52;c;".utf8)
        if let secret { sequence += secret.withBytes { Array(Data($0).base64EncodedData()) } }
        sequence.append(0x07)
        defer { SecretBytes.wipe(&sequence) }
        let written = sequence.withUnsafeBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(fd, b, path: tty) } }
        if case .failure(let e) = written { throw fail(e.errno) }
    }

    /// Starts `tresor clipboard-keeper` in a session of its own (so closing the terminal does not end
    /// it), hands it the secret through a pipe, and waits for its word that the copy succeeded.
    private static func startKeeper(_ backend: ClipboardBackend, secret: SecretBytes?, delay: Double, tty: String?) throws {
        let input = try Spawn.privatePipe()
        let status = try Spawn.privatePipe()
        let null = Spawn.devNull()
        let pid: pid_t
        do {
            pid = try Spawn.start(Spawn.selfExecutable, [ClipboardKeeper.commandName, backend.rawValue, String(delay)] + (tty.map { [$0] } ?? []),
                                  detached: true, stdin: input.read, stdout: status.write, stderr: null)
        } catch {
            for fd in [input.read, input.write, status.read, status.write, null] { FileSystem.close(fd) }
            throw error
        }
        FileSystem.close(input.read); FileSystem.close(status.write); if null >= 0 { FileSystem.close(null) }
        // The keeper reads everything before answering, so this write cannot block on a full pipe for long.
        let handed = secret?.withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(input.write, b, path: "the clipboard keeper") } }
        FileSystem.close(input.write)
        if case .failure(let e)? = handed {
            // A keeper that has only part of the secret must not copy it.
            FileSystem.close(status.read)
            kill(pid, SIGTERM)
            _ = Spawn.wait(pid)
            throw CLIError("cannot hand the secret to the clipboard keeper: \(String(cString: strerror(e.errno)))")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        // (A read error ends the answer as its end does: anything but "ok" is a failure below.)
        while let n = try? buffer.withUnsafeMutableBytes({ b in try FileSystem.readSome(status.read, into: b, path: "the clipboard keeper") }), n > 0 {
            answer += buffer[..<n]
        }
        FileSystem.close(status.read)
        let text = String(decoding: answer, as: UTF8.self).trimming(.whitespacesAndNewlines)
        if text != "ok" {
            _ = Spawn.wait(pid)
            throw CLIError(text.isEmpty ? "copying to the clipboard failed" : text)
        }
    }
}
