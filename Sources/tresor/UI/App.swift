// The main loop of `tresor ui`: a stack of screens, modal dialogs, messages, and locking after the timeout.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// Runs the screens until the user quits. Draws a whole frame after every key and a few times a second
/// (ncurses sends only the cells that changed).
final class App {
    let terminal: Terminal
    let model: VaultModel
    let services: UIServices
    /// The remote `s` syncs with.
    let remote: String
    /// Seconds without a key press after which the vault locks.
    let idleTimeout: TimeInterval

    private(set) var screens: [Screen] = []
    var dialog: Dialog?
    /// Where the text cursor goes after this frame (set while drawing by whoever edits text).
    var cursor: (row: Int, column: Int)?
    private var message: (text: String, style: Style)?
    private var running = true
    private var lastKey = Date()
    private var lastSessionCheck = Date()

    init(terminal: Terminal, model: VaultModel, services: UIServices, remote: String, idleTimeout: TimeInterval) {
        self.terminal = terminal
        self.model = model
        self.services = services
        self.remote = remote
        self.idleTimeout = idleTimeout
        screens = [ListScreen()]
        if !model.problems.isEmpty {
            say("\(model.problems.count) file\(model.problems.count == 1 ? " is" : "s are") not listed (not entries): 'tresor ls' names them.", .warning)
        }
    }

    func run() {
        while running {
            redraw()
            let key = terminal.readKey(timeout: 200)
            if let key {
                noteActivity()
                message = nil
                handle(key)
            }
            _ = model.poll()
            screens.last?.tick(self)
            checkLock()
        }
    }

    // MARK: Drawing

    /// Draws the whole frame now (also called before slow work, so "Unlocking…" shows).
    func redraw() {
        let t = terminal
        t.erase()
        cursor = nil
        guard t.rows >= 8, t.columns >= 30 else {
            t.put("Terminal too small", row: 0, column: 0)
            t.refresh()
            return
        }
        drawTitle(t)
        let area = Area(top: 1, rows: t.rows - 3, columns: t.columns)
        screens.last?.draw(t, in: area, app: self)
        if let message { t.put(message.text, row: t.rows - 2, column: 1, width: t.columns - 2, style: message.style) }
        t.fill(row: t.rows - 1)
        if let top = screens.last { Draw.keys(t, top.footer(self) + [KeyHint("?", "keys")], row: t.rows - 1) }
        dialog?.draw(t, app: self)
        t.showCursor(row: cursor?.row, column: cursor?.column)
        t.refresh()
    }

    private func drawTitle(_ t: Terminal) {
        t.fill(row: 0, style: .title, highlight: !t.usesColor)
        let state: String
        if !model.isUnlocked { state = "locked" }
        else if model.indexingSince != nil { state = "unlocked · decrypting…" }
        else { state = "unlocked" }
        let left = " Tresor" + (screens.last.map { $0.title.isEmpty ? "" : "  ›  " + $0.title } ?? "")
        let counts = " · \(model.paths.count) entr\(model.paths.count == 1 ? "y" : "ies") · \(state) "
        let room = t.columns - TextWidth.width(left) - TextWidth.width(counts) - 3
        let right = " " + App.abbreviate(model.root, width: room) + counts
        let rw = TextWidth.width(right)
        t.put(left, row: 0, column: 0, width: max(0, t.columns - rw - 1), style: .title, highlight: !t.usesColor)
        t.put(right, row: 0, column: max(0, t.columns - rw), style: .title, highlight: !t.usesColor)
    }

    /// A path in at most `width` columns: the home directory as "~", then leading folders left out.
    static func abbreviate(_ path: String, width: Int) -> String {
        var p = path
        if let home = ProcessEnvironment.value("HOME"), home.count > 1, p.hasPrefix(home + "/") { p = "~" + p.dropFirst(home.count) }
        guard TextWidth.width(p) > width else { return p }
        var parts = p.split(separator: "/").map(String.init)
        while parts.count > 1, TextWidth.width("…/" + parts.joined(separator: "/")) > width { parts.removeFirst() }
        let short = "…/" + parts.joined(separator: "/")
        return TextWidth.width(short) <= width ? short : ""
    }

    // MARK: Keys

    private func handle(_ key: Key) {
        if key == .resize { return }
        if let dialog { dialog.handle(key, app: self); return }
        switch key {
        case .control("c"): quit(); return
        case .control("l"): terminal.wipe(); model.reload(); return
        default: break
        }
        if let top = screens.last, top.handle(key, app: self) { return }
        if key == .character("?") { showHelp() }
    }

    private func showHelp() {
        guard let top = screens.last else { return }
        let width = (top.footer(self).map { TextWidth.width($0.key) } + [TextWidth.width("Ctrl-L")]).max() ?? 6
        let lines = top.footer(self).map { TextWidth.padded($0.key, width: width) + "  " + $0.label }
            + ["", TextWidth.padded("Ctrl-L", width: width) + "  redraw and list again", TextWidth.padded("Ctrl-C", width: width) + "  quit"]
        dialog = MessageDialog(title: "Keys", lines: lines)
    }

    // MARK: Screens and messages

    func push(_ screen: Screen) { screens.append(screen) }
    func pop() { if screens.count > 1 { screens.removeLast() } }
    func quit() { running = false }

    /// A one-line message above the footer until the next key.
    func say(_ text: String, _ style: Style = .normal) { message = (text, style) }

    /// Shows an error as the CLI words it: one line as a message, more (hints) in a box.
    func fail(_ error: Error) {
        let lines = App.describe(error).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.count == 1 { say(lines[0], .error) } else { dialog = MessageDialog(title: "Error", lines: lines) }
    }

    /// The CLI's wording of an error (as in `TresorCommand.main`).
    static func describe(_ error: Error) -> String {
        switch error {
        case let e as VaultError: return e.message
        case let e as CoreError: return e.message
        case let e as GitError: return e.message
        case let e as GeneratorError: return e.message
        case let e as CLIError: return e.message
        case let e as ValidationError: return e.message
        default: return "\(error)"
        }
    }

    /// Runs `action` now if the vault is unlocked, else after the passphrase prompt succeeds.
    func requireUnlocked(_ action: @escaping () -> Void) {
        if model.isUnlocked { action(); return }
        dialog = PassphraseDialog(then: action)
    }

    /// Hands the terminal to another program (the editor) and takes it back.
    func suspend<T>(_ body: () throws -> T) rethrows -> T {
        defer { noteActivity() }
        return try terminal.suspend(body)
    }

    // MARK: Locking

    func noteActivity() { lastKey = Date() }

    private func checkLock() {
        guard model.isUnlocked else { return }
        if Date().timeIntervalSince(lastKey) >= idleTimeout {
            lock(because: "Locked after \(App.minutes(idleTimeout)) without a key press.")
        } else if model.keySource != nil, model.keySource != .passphrase, Date().timeIntervalSince(lastSessionCheck) >= 2 {
            lastSessionCheck = Date()
            if !model.sessionStillOpen() { lock(because: model.keySource == .agent ? "The agent dropped the keys (tresor lock, or a timeout); the vault is locked."
                                                  : "The session ended (expired or locked); the vault is locked.") }
        }
    }

    /// Drops the key and every screen that showed decrypted data, and clears the terminal itself.
    func lock(because reason: String) {
        dialog = nil
        screens.removeAll { $0.showsSecrets }
        if screens.isEmpty { screens = [ListScreen()] }
        do { try model.lock() } catch { running = false }
        terminal.wipe()
        say(reason + " u unlocks.", .warning)
    }

    static func minutes(_ seconds: TimeInterval) -> String {
        if seconds < 60 { return String(printf: "%.0f s", seconds) }
        let m = seconds / 60
        return m == m.rounded() ? "\(Int(m)) min" : String(printf: "%.1f min", m)
    }
}
