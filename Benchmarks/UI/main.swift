// tresor-ui-bench: how fast `tresor ui` draws at 10,000 entries, timed from outside through a pseudo-terminal.
import Foundation
import Tresor
import TresorCore

// Usage: tresor-ui-bench PATH-TO-TRESOR [ENTRIES]
// A frame is timed from the moment a key is written to the pseudo-terminal to the last byte of the
// screen update it causes (output quiet for `quiet` afterwards), so it includes reading the key,
// filtering, drawing and ncurses' output: what a person waits for.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else { FileHandle.standardError.write(Data("usage: tresor-ui-bench TRESOR [ENTRIES]\n".utf8)); exit(64) }
let binary = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let quiet = 0.12

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }
func median(_ v: [Double]) -> Double { let s = v.sorted(); return s[s.count / 2] }

// 1. A vault of `count` entries (files written directly: this measures reading, not writing).
let pass = SecretBytes(utf8: "benchmark passphrase")
let root = NSTemporaryDirectory() + "tresor-ui-bench-" + UUID().uuidString
defer { try? FileManager.default.removeItem(atPath: root) }
let vault = try Vault.create(at: root + "/vault", passphrase: pass, level: .minimum)
let cipher = try EntryCipher(vaultKey: try vault.currentVaultKey())
let folders = ["Email", "Bank", "Social", "Work/Servers", "Work/Accounts", "Shopping", "日本", "Café", "Games", "Travel"]
for i in 0..<count {
    let change = Change(time: Timestamp.now(), origin: "bench", dot: Dot(replica: "0123456789abcdef", counter: UInt64(i + 1)))
    let name = i % 97 == 0 ? "パス-\(i)" : i % 89 == 0 ? "re\u{301}sume\u{301}-\(i)" : "site-\(i)"
    var e = Entry(path: try EntryPath("\(folders[i % folders.count])/group-\(i % 37)/\(name)"), change: change)
    try e.set("password", .text("p4ssw0rd-\(i)-Correct-Horse"), change: change)
    try e.set("username", .text("user\(i)@example.com"), change: change)
    try e.set("urls", .list(["https://login.site-\(i).example.com/"]), change: change)
    let file = root + "/vault/" + e.path.filePath
    try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(try cipher.seal(e)).write(to: URL(fileURLWithPath: file))
}
let passFile = root + "/passphrase"
try "benchmark passphrase\n".write(toFile: passFile, atomically: true, encoding: .utf8)
let listTime = (0..<5).map { _ -> Double in let t = now(); _ = vault.list(); return now() - t }

/// `tresor ui` on a pseudo-terminal of 100×30.
final class UIProcess {
    let master: Int32
    let pid: pid_t
    let started: Double

    init(unlocked: Bool) throws {
        var m: Int32 = 0, s: Int32 = 0
        var size = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&m, &s, nil, nil, &size) == 0 else { throw POSIXError(.ENOTTY) }
        master = m
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [Int32(0), 1, 2] { posix_spawn_file_actions_adddup2(&actions, s, fd) }
        posix_spawn_file_actions_addclose(&actions, m)
        var env = ["TERM=xterm-256color", "LANG=C.UTF-8", "HOME=\(root)", "TRESOR_VAULT=\(root)/vault", "PATH=/usr/bin:/bin"]
        if unlocked { env.append("TRESOR_PASSPHRASE_FILE=\(passFile)") }
        let argv: [UnsafeMutablePointer<CChar>?] = [String]([binary, "ui"]).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var p: pid_t = 0
        started = now()
        guard posix_spawn(&p, binary, &actions, nil, argv, envp) == 0 else { throw POSIXError(.ENOEXEC) }
        pid = p
        close(s)
    }

    /// Reads until `text` has appeared (if given) and then nothing comes for `quiet` seconds.
    /// Returns the time of the last byte and everything read.
    @discardableResult
    func settle(after start: Double, waitingFor text: String? = nil, timeout: Double = 30) -> (last: Double, output: String) {
        var output = Data(), last = start, seen = text == nil
        let deadline = start + timeout
        while now() < deadline {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let wait = seen ? (output.isEmpty ? 2.0 : quiet) : 0.05
            guard poll(&fds, 1, Int32(wait * 1000)) > 0 else {
                if seen { break } else { continue }
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }
            last = now()
            output.append(contentsOf: buffer[..<n])
            if !seen, let text, String(decoding: output, as: UTF8.self).contains(text) { seen = true }
        }
        return (last, String(decoding: output, as: UTF8.self))
    }

    /// Writes a key and returns how long until the screen stopped changing.
    func key(_ bytes: String) -> Double {
        let t = now()
        _ = bytes.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        return settle(after: t).last - t
    }

    func resize(columns: UInt16, rows: UInt16) -> Double {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        let t = now()
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        kill(pid, SIGWINCH)
        return settle(after: t).last - t
    }

    func quit() {
        _ = key("q")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }
}

var rows: [(String, String)] = []
func row(_ what: String, _ value: String) {
    rows.append((what, value))
    FileHandle.standardError.write(Data("  \(what): \(value)\n".utf8))
}
func stats(_ v: [Double]) -> String { "median \(ms(median(v))), max \(ms(v.max()!)) (\(v.count) frames)" }

row("Vault.list() of \(count) names, in process", "median \(ms(median(listTime)))")

// Process start alone, for reference: `tresor --version`.
let starts = (0..<5).map { _ -> Double in
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [String]([binary, "--version"]).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let t = now()
    posix_spawn(&pid, binary, &actions, nil, argv, environ)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return now() - t
}
row("process start (tresor --version), for reference", "median \(ms(median(starts)))")

// 2. Opening: process start, listing, ncurses start and the first full frame (locked: names only).
var opens: [Double] = []
for _ in 0..<5 {
    let ui = try UIProcess(unlocked: false)
    opens.append(ui.settle(after: ui.started, waitingFor: "quit").last - ui.started)
    ui.quit()
}
row("open the list, locked (start to first full frame)", stats(opens))

// 3. Filter keystrokes by name, locked, and navigation.
let queries = ["site-4242", "grp12", "パス", "emailsite9", "zzzz"]
var filterTimes: [Double] = [], navigation: [Double] = []
do {
    let ui = try UIProcess(unlocked: false)
    ui.settle(after: ui.started, waitingFor: "quit")
    for q in queries {
        _ = ui.key("/")
        for ch in q { filterTimes.append(ui.key(String(ch))) }
        for _ in q { filterTimes.append(ui.key("\u{7F}")) }   // backspace, one by one, back to the whole list
        _ = ui.key("\u{1B}")
    }
    for k in ["\u{1B}[6~", "\u{1B}[6~", "j", "j", "G", "g", "\u{1B}[5~", "-", "+"] { navigation.append(ui.key(k)) }
    row("resize 100×30 → 80×24 and back", "\(ms(ui.resize(columns: 80, rows: 24))), \(ms(ui.resize(columns: 100, rows: 30)))")
    ui.quit()
}
row("filter keystroke by name, locked (typing and deleting)", stats(filterTimes))
row("move / fold keystroke (PgDn, j, G, g, PgUp, collapse all, expand all)", stats(navigation))

// 4. Unlocked: the index of hints and fields, then filter keystrokes over names and decrypted fields.
do {
    let ui = try UIProcess(unlocked: true)
    let first = ui.settle(after: ui.started, waitingFor: "quit").last - ui.started
    // Hints appear for all entries at once, when the background decryption is done.
    let indexed = ui.settle(after: ui.started, waitingFor: "@example.com", timeout: 60).last - ui.started
    row("open the list, unlocked from a passphrase file (first frame)", ms(first))
    row("  hints shown for every entry (background decryption of \(count))", ms(indexed))
    var unlockedFilter: [Double] = []
    for q in queries {
        _ = ui.key("/")
        for ch in q { unlockedFilter.append(ui.key(String(ch))) }
        for _ in q { unlockedFilter.append(ui.key("\u{7F}")) }
        _ = ui.key("\u{1B}")
    }
    row("filter keystroke by name and decrypted fields, unlocked", stats(unlockedFilter))
    var opening: [Double] = [], back: [Double] = []
    for k in ["j", "j", "j", "j", "j"] {
        _ = ui.key(k)
        opening.append(ui.key("\r"))
        back.append(ui.key("\u{1B}OD"))   // ← in keypad mode (xterm: kcub1)
    }
    row("open an entry (Enter: decrypt and draw the entry screen)", stats(opening))
    row("back to the list (←: the whole list drawn again)", stats(back))
    ui.quit()
}

print("| measurement (\(count) entries, 100×30 pseudo-terminal) | time |")
print("|---|---|")
for (w, v) in rows { print("| \(w) | \(v) |") }
