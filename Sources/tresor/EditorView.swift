// The decrypted view `tresor edit` gives the editor: a private directory in memory, a guardian that removes it if tresor dies, and a sweep of views whose owner is gone.
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

/// A view directory is `tresor-edit-<boot>-<pid>-<start>-XXXXXX` in /dev/shm (else `$XDG_RUNTIME_DIR`),
/// mode 0700: `boot` is the first 8 characters of the kernel's boot id, `pid` and `start` identify the
/// tresor process that owns it (its start time in clock ticks since boot, so a reused pid is told apart).
/// The owner is written into the name by `mkdtemp` itself, so no moment exists at which a view has no owner.
final class EditorView {
    static let prefix = "tresor-edit-"
    /// The directory and the file the editor opens.
    let directory: String
    let file: String
    private var guardian: pid_t = 0
    private var guardianPipe: Int32 = -1

    /// Makes the directory and starts its guardian; nothing secret is in it yet.
    /// - Throws: `CLIError` when there is no private place in memory.
    init() throws {
        let env = ProcessEnvironment.values
        var bases = ["/dev/shm"]
        if let r = env["XDG_RUNTIME_DIR"], !r.isEmpty { bases.append(r) }
        let me = ProcessIdentity.current
        var made: String?
        for base in bases where FileSystem.kind(base) == .directory {
            // (A base where no directory can be made is passed over for the next one; with none left, the error below.)
            made = try? FileSystem.makeTemporaryDirectory(base + "/" + EditorView.prefix + "\(me.boot)-\(me.pid)-\(me.start)-XXXXXX")
            if made != nil { break }
        }
        guard let made else {
            throw CLIError("no private place for the decrypted view: /dev/shm and $XDG_RUNTIME_DIR are unavailable\nhint: use 'tresor edit PATH --set NAME=VALUE'")
        }
        directory = made
        file = made + "/entry.txt"
        do { try startGuardian() } catch { EditorView.wipe(directory); throw error }
    }

    /// The guardian is `tresor view-guardian DIR` in a session of its own, reading a pipe whose only
    /// writer is this process: when tresor ends in any way (SIGKILL, its process group killed, the
    /// terminal gone) the pipe closes and the guardian wipes the directory.
    private func startGuardian() throws {
        let (readEnd, writeEnd) = try Spawn.privatePipe()
        let null = Spawn.devNull()
        defer { FileSystem.close(readEnd); if null >= 0 { FileSystem.close(null) } }
        do {
            guardian = try Spawn.start(Spawn.selfExecutable, [ViewGuardian.commandName, directory], detached: true,
                                       stdin: readEnd, stdout: null, stderr: null)
        } catch { FileSystem.close(writeEnd); throw error }
        guardianPipe = writeEnd
    }

    /// Wipes and removes the view, then lets the guardian go.
    func remove() {
        EditorView.wipe(directory)
        if guardianPipe >= 0 { FileSystem.close(guardianPipe); guardianPipe = -1 }
        if guardian > 0 { _ = Spawn.wait(guardian); guardian = 0 }
    }

    deinit { remove() }

    /// Overwrites every regular file in `dir` and its folders with zeros (never following links), then removes the
    /// directory and anything an editor left in it (swap and backup files, micro's config folder, hold the text too).
    static func wipe(_ dir: String) {
        zero(dir, depth: 0)
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// (Best effort, file by file: one that cannot be zeroed is still removed by `wipe`, and the others are zeroed.)
    private static func zero(_ dir: String, depth: Int) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            let path = dir + "/" + name
            guard let st = try? FileSystem.status(path) else { continue }
            if st.st_mode & S_IFMT == S_IFDIR, depth < 8 { zero(path, depth: depth + 1); continue }
            guard st.st_mode & S_IFMT == S_IFREG, st.st_size > 0,
                  let fd = try? FileSystem.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) else { continue }
            let zeros = [UInt8](repeating: 0, count: Int(st.st_size))
            _ = zeros.withUnsafeBytes { b in Result { () throws(FileSystem.Failure) in
                try FileSystem.writeAll(fd, b, path: path)
                try FileSystem.sync(fd, path: path)
            } }
            FileSystem.close(fd)
        }
    }

    /// Removes this user's views whose owner is no longer running: its pid is gone, has another start
    /// time (reused), or the machine has booted since (power loss on a persistent `$XDG_RUNTIME_DIR`).
    /// Views named by older versions (no owner in the name) are removed after an hour. Every tresor
    /// command calls this first.
    static func sweepOrphans() {
        var bases = ["/dev/shm"]
        if let r = ProcessEnvironment.value("XDG_RUNTIME_DIR"), !r.isEmpty, r != "/dev/shm" { bases.append(r) }
        for base in bases {
            // (Names only, and this process's identity only when a view is there: every command starts with this.)
            for (name, _) in FileSystem.entries(base) where name.hasPrefix(prefix) {
                let dir = base + "/" + name
                // (A view that cannot be looked at is left for the next sweep.)
                guard let st = try? FileSystem.status(dir), st.st_uid == getuid(), st.st_mode & S_IFMT == S_IFDIR else { continue }
                let parts = name.dropFirst(prefix.count).split(separator: "-")
                if parts.count == 4, let pid = Int32(parts[1]), let start = UInt64(parts[2]) {
                    let alive = parts[0] == ProcessIdentity.current.boot && ProcessIdentity.startTime(of: pid) == start
                    if !alive { wipe(dir) }
                } else if time(nil) - st.st_mtim.tv_sec > 3600 {
                    wipe(dir)
                }
            }
        }
    }
}

/// Who a process is across pid reuse: the boot, the pid and the start time.
struct ProcessIdentity {
    let boot: String
    let pid: Int32
    let start: UInt64

    static let current = ProcessIdentity(boot: bootID, pid: getpid(), start: startTime(of: getpid()) ?? 0)

    /// The first 8 characters of this boot's id (`/proc/sys/kernel/random/boot_id`).
    static let bootID: String = {
        let s = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let hex = s.filter { $0.isHexDigit }
        return hex.isEmpty ? "00000000" : String(hex.prefix(8))
    }()

    /// Field 22 of `/proc/PID/stat` (start time in clock ticks after boot), nil if no such process.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = s.lastIndex(of: ")") else { return nil }
        // After the command name, which may hold spaces and ")": field 3 (state) is the first.
        let fields = s[s.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}

/// `tresor view-guardian DIR` (hidden): waits until standard input closes, then wipes DIR. Started by
/// `tresor edit` in a session of its own; see `EditorView`.
struct ViewGuardian: ParsableCommand {
    static let commandName = "view-guardian"
    static let configuration = CommandConfiguration(
        commandName: commandName, abstract: "Remove an editor view when its tresor ends (internal).", shouldDisplay: false)

    @Argument(help: "The view directory.") var directory: String

    func run() throws {
        let name = PathName.last(directory)
        guard name.hasPrefix(EditorView.prefix), directory.hasPrefix("/") else { throw CLIError("\"\(directory)\" is not an editor view") }
        for s in [SIGINT, SIGQUIT, SIGHUP, SIGTSTP] { signal(s, SIG_IGN) }
        // Nothing is ever written to the pipe: it ends (or fails) when tresor does.
        var byte: UInt8 = 0
        while let n = try? withUnsafeMutableBytes(of: &byte, { b in try FileSystem.readSome(STDIN_FILENO, into: b, path: "standard input") }), n > 0 {}
        guard let st = try? FileSystem.status(directory), st.st_uid == getuid(), st.st_mode & S_IFMT == S_IFDIR else { return }
        EditorView.wipe(directory)
    }
}
