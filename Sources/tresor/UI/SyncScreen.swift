// Sync from `tresor ui`: progress while it runs, then the merge report with each conflict one key from its entry.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Tresor
import TresorTerminal

/// Runs `Vault.sync` on another thread (the screen keeps drawing), then lists what happened. Enter on a
/// resolution opens its entry at the field concerned, where `h` shows the value that lost.
final class SyncScreen: Screen {
    private enum State {
        case running(since: Date)
        case done(SyncOutcome)
        case failed(String)
    }

    private let remote: String
    private var state: State
    private let lock = ThreadLock()
    private var result: Result<SyncOutcome, Error>?
    private var selected = 0
    private var deviceLabel = ""

    var title: String { "Sync with \(remote)" }
    var showsSecrets: Bool { false }

    private init(remote: String) {
        self.remote = remote
        state = .running(since: Date())
    }

    /// Checks that the remote exists, then starts syncing.
    static func start(_ app: App) {
        do {
            let remotes = try app.model.vault.remotes()
            guard remotes.contains(where: { $0.name == app.remote }) else {
                app.dialog = MessageDialog(title: "Sync", lines: remotes.isEmpty
                    ? ["The vault has no remote to sync with.", "Add one first: tresor remote add origin URL"]
                    : ["No remote \"\(app.remote)\"; the vault has " + remotes.map(\.name).joined(separator: ", ") + ".",
                       "Start with: tresor ui --remote NAME"])
                return
            }
        } catch { app.fail(error); return }
        let screen = SyncScreen(remote: app.remote)
        screen.deviceLabel = "device " + app.model.vault.deviceID.prefix(8)
        app.push(screen)
        let vault = app.model.vault, remote = app.remote
        DispatchQueue.global(qos: .userInitiated).async {
            let r = Result { try vault.sync(remote: remote, credentials: .standard()) }
            screen.lock.lock(); screen.result = r; screen.lock.unlock()
        }
    }

    func tick(_ app: App) {
        guard case .running = state else { return }
        lock.lock(); let r = result; lock.unlock()
        guard let r else { return }
        switch r {
        case .success(let outcome): state = .done(outcome)
        case .failure(let error): state = .failed(App.describe(error))
        }
        app.model.afterSync()
    }

    private var resolutions: [MergeResolution] {
        if case .done(let o) = state { return o.resolutions }
        return []
    }

    // MARK: Drawing

    func draw(_ t: Terminal, in area: Area, app: App) {
        var r = area.top + 1
        switch state {
        case .running(let since):
            t.put("\(Draw.spinner(since)) Syncing with \(remote): fetching, merging field by field, checking, pushing…", row: r, column: 2)
            t.put(String(printf: "%.1f s", Date().timeIntervalSince(since)), row: r + 1, column: 4, style: .hint)
        case .failed(let message):
            t.put("Sync with \(remote) failed; the vault is as it was before.", row: r, column: 2, style: .error)
            for (i, line) in message.split(separator: "\n").enumerated() { t.put(String(line), row: r + 2 + i, column: 4) }
        case .done(let o):
            for line in summary(o) { t.put(line, row: r, column: 2); r += 1 }
            r += 1
            guard !o.resolutions.isEmpty else {
                t.put("No conflicts: nothing had to be decided.", row: r, column: 2, style: .hint)
                return
            }
            t.put("Decided by the merge (Enter opens the entry; there h shows the value that lost):", row: r, column: 2, style: .title)
            r += 1
            let width = area.columns - 6
            let blocks = o.resolutions.map { TextWidth.wrap($0.description.replacingAll(deviceLabel, with: "this device"), width: width) }
            // Scroll so the selected block is on screen.
            var first = 0
            while first < selected, blocks[first...selected].reduce(0, { $0 + $1.count }) > area.bottom - r { first += 1 }
            for i in first..<blocks.count {
                let sel = i == selected
                for (n, line) in blocks[i].enumerated() where r < area.bottom {
                    if sel { t.fill(row: r, highlight: true) }
                    t.put((n == 0 ? "• " : "  ") + line, row: r, column: 2, width: area.columns - 3, highlight: sel)
                    r += 1
                }
            }
        }
    }

    private func summary(_ o: SyncOutcome) -> [String] {
        var lines: [String] = []
        if !o.pulled && !o.pushed { lines.append("Already up to date with \(remote).") }
        if o.fastForwarded { lines.append("Pulled from \(remote) (fast-forward).") }
        if o.pulled && !o.fastForwarded {
            let n = o.mergedEntries.count
            lines.append("Merged \(remote): \(n) entr\(n == 1 ? "y" : "ies") changed" +
                         (n == 0 ? "." : ": " + o.mergedEntries.prefix(8).map { String($0.dropLast(5)) }.joined(separator: ", ") + (n > 8 ? ", …" : "")))
        }
        if o.pushed { lines.append(o.initializedRemote ? "Pushed the vault to the empty remote \(remote)." : "Pushed to \(remote).") }
        if o.passphraseChanged { lines.append("The passphrase was changed on another replica: unlock with the new one from now on.") }
        if let ref = o.recoveryRef, o.pulled, !o.fastForwarded { lines.append("The state before this merge is kept at \(ref).") }
        return lines
    }

    // MARK: Keys

    func footer(_ app: App) -> [KeyHint] {
        switch state {
        case .running: return [KeyHint("…", "syncing")]
        case .failed: return [KeyHint("Esc", "back")]
        case .done: return resolutions.isEmpty ? [KeyHint("Esc", "back")]
            : [KeyHint("↑↓", "move"), KeyHint("Enter", "open entry"), KeyHint("Esc", "back")]
        }
    }

    func handle(_ key: Key, app: App) -> Bool {
        if case .running = state { return true }   // nothing to do but wait (Ctrl-C still quits)
        switch key {
        case .up, .character("k"), .wheelUp: selected = max(0, selected - 1)
        case .down, .character("j"), .wheelDown: selected = min(max(0, resolutions.count - 1), selected + 1)
        case .enter, .right, .character("l"):
            guard resolutions.indices.contains(selected) else { return true }
            let res = resolutions[selected]
            guard let path = try? Vault.parsePath(res.path), app.model.vault.contains(path) else {
                app.say("\(res.path) is no longer in the vault.")
                return true
            }
            DetailScreen.open(path, field: res.field, app: app)
        case .escape, .character("q"), .left, .character("h"): app.pop()
        default: return false
        }
        return true
    }
}
