// One line of progress on stderr for commands that can take a while (clone, sync, grep, fsck, import, export).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// Draws `label: what` on one stderr line, only when stderr is a terminal and only once the command has run
/// `TRESOR_PROGRESS_DELAY` seconds (default 1), at most 10 times a second; `finish` erases it, so what the
/// command prints afterwards starts on a clean line. Safe to call from several threads.
final class ProgressLine: @unchecked Sendable {
    private(set) var label: String
    private let enabled: Bool
    private let delay: Double
    private let started: Double
    private var lastDraw = -Double.infinity
    private var shown = false
    private let lock = ThreadLock()

    init(_ label: String, environment: [String: String] = ProcessEnvironment.values) {
        self.label = label
        enabled = isatty(STDERR_FILENO) == 1
        delay = environment["TRESOR_PROGRESS_DELAY"].flatMap(Double.init).map { max(0, $0) } ?? 1
        started = ProgressLine.now()
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Shows `text` after the label, if the delay has passed and the last redraw is 0.1 s old.
    func update(_ text: String, label newLabel: String? = nil) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        if let newLabel { label = newLabel }
        let t = Self.now()
        guard t - started >= delay, t - lastDraw >= 0.1 else { return }
        lastDraw = t
        var line = "\(label): \(text)"
        let width = Self.terminalWidth()
        if line.count >= width { line = String(line.prefix(max(1, width - 1))) }
        StandardStream.write(2, "\r\u{1B}[K\(line)")
        shown = true
    }

    /// What the line says before the colon from now on (a later step of the same command).
    func relabel(_ newLabel: String) {
        lock.lock(); defer { lock.unlock() }
        label = newLabel
    }

    /// `done` of `total` (import's and export's counters).
    func show(_ done: Int, _ total: Int, label newLabel: String? = nil) {
        guard total > 0 else { return }
        update("\(done)/\(total)", label: newLabel)
    }

    /// A report from the library.
    func report(_ progress: VaultProgress) {
        switch progress {
        case .receiving(let objects, let total, let bytes):
            update("receiving objects \(objects)/\(total), \(Self.size(bytes))")
        case .sending(let objects, let total, let bytes):
            update("sending objects \(objects)/\(total), \(Self.size(bytes))")
        case .entries(let done, let total):
            update("\(done)/\(total) entries")
        case .files(let done, let total):
            update("\(done)/\(total) files", label: "Writing")
        }
    }

    /// Erases the line, if it was drawn.
    func finish() {
        lock.lock(); defer { lock.unlock() }
        if shown { StandardStream.write(2, "\r\u{1B}[K"); shown = false }
        lastDraw = -Double.infinity
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(printf: "%.1f KiB", Double(bytes) / 1024) }
        return String(printf: "%.1f MiB", Double(bytes) / 1024 / 1024)
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
