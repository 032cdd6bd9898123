// The modal boxes of `tresor ui`: a yes/no question, the passphrase prompt, a message, a line of input.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// "Remove Email/gmail?" — `y` does it; `n`, Esc or Enter does not.
final class ConfirmDialog: Dialog {
    let question: String
    let yes: () -> Void
    init(_ question: String, yes: @escaping () -> Void) { self.question = question; self.yes = yes }

    func draw(_ t: Terminal, app: App) {
        let (inner, left) = Draw.centredBox(t, title: "Confirm", lines: [question, ""], extra: 1)
        var c = left
        c += t.put("y", row: inner.top + 2, column: c, style: .key)
        c += t.put(" yes   ", row: inner.top + 2, column: c)
        c += t.put("n", row: inner.top + 2, column: c, style: .key)
        t.put(" no (default)", row: inner.top + 2, column: c)
    }

    func handle(_ key: Key, app: App) {
        switch key {
        case .character("y"), .character("Y"): app.dialog = nil; yes()
        case .character("n"), .character("N"), .escape, .enter, .character("q"): app.dialog = nil
        default: break
        }
    }
}

/// The unlock prompt: nothing typed is drawn, not even a count. A wrong passphrase asks again.
final class PassphraseDialog: Dialog {
    private let input = SecretInput()
    private var error: String?
    private var working = false
    private let then: () -> Void

    init(then: @escaping () -> Void) { self.then = then }

    func draw(_ t: Terminal, app: App) {
        let lines = ["Passphrase for \(App.abbreviate(app.model.root, width: max(20, t.columns - 24)))",
                     working ? "Unlocking…" : "(what you type is not shown)",
                     error ?? ""]
        let (inner, left) = Draw.centredBox(t, title: "Unlock", lines: lines, extra: 1, minWidth: 44)
        if let error { t.put(error, row: inner.top + 2, column: left, style: .error) }
        var c = left
        c += t.put("Enter", row: inner.top + 3, column: c, style: .key)
        c += t.put(" unlock   ", row: inner.top + 3, column: c)
        c += t.put("Esc", row: inner.top + 3, column: c, style: .key)
        t.put(" cancel", row: inner.top + 3, column: c)
    }

    func handle(_ key: Key, app: App) {
        switch key {
        case .escape: input.wipe(); app.dialog = nil
        case .enter:
            guard !input.isEmpty, let passphrase = input.take() else { error = "type the passphrase, then Enter"; return }
            working = true
            error = nil
            app.redraw()
            defer { working = false }
            do {
                try app.model.unlock(passphrase: passphrase)
                app.dialog = nil
                app.noteActivity()
                then()
            } catch VaultError.wrongPassphrase {
                error = "wrong passphrase, try again"
            } catch {
                app.dialog = nil
                app.fail(error)
            }
        default: _ = input.handle(key)
        }
    }
}

/// A message in a box; any key closes it.
final class MessageDialog: Dialog {
    let title: String
    let lines: [String]
    init(title: String, lines: [String]) { self.title = title; self.lines = lines }

    func draw(_ t: Terminal, app: App) {
        let wrapped = lines.flatMap { TextWidth.wrap($0, width: max(10, t.columns - 8)) }
        let (inner, left) = Draw.centredBox(t, title: title, lines: wrapped + [""], extra: 1)
        t.put("any key closes", row: min(inner.bottom - 1, inner.top + wrapped.count + 1), column: left, style: .hint)
    }

    func handle(_ key: Key, app: App) { app.dialog = nil }
}

/// One line of input: Enter submits (the closure returns an error to show, or nil to close), Esc cancels.
final class InputDialog: Dialog {
    let title: String
    let prompt: String
    private var editor: LineEditor
    private var error: String?
    private let submit: (String) -> String?

    init(title: String, prompt: String, initial: String = "", submit: @escaping (String) -> String?) {
        self.title = title; self.prompt = prompt; editor = LineEditor(initial); self.submit = submit
    }

    func draw(_ t: Terminal, app: App) {
        let (inner, left) = Draw.centredBox(t, title: title, lines: [prompt, "", error ?? ""], extra: 1, minWidth: 50)
        let x = editor.draw(t, row: inner.top + 1, column: left, width: inner.columns - 2)
        if let error { t.put(error, row: inner.top + 2, column: left, style: .error) }
        t.put("Enter ok   Esc cancel", row: inner.top + 3, column: left, style: .hint)
        app.cursor = (inner.top + 1, x)
    }

    func handle(_ key: Key, app: App) {
        switch key {
        case .escape: app.dialog = nil
        case .enter:
            app.dialog = nil
            if let problem = submit(editor.text) { error = problem; app.dialog = self }
        default: _ = editor.handle(key)
        }
    }
}
