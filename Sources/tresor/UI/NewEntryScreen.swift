// The new-entry screen of `tresor ui`: path, username, URL, note, and a password generated live as the options change.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// A form of rows. Text rows take typing; sliders move with ←/→ (PgUp/PgDn by 10, Home/End to the ends);
/// switches toggle with Space. Any option change generates a new password, `g` draws another, and the
/// password row can be edited by hand before saving with Ctrl-S.
final class NewEntryScreen: Screen {
    enum Row: Equatable {
        case path, username, url, note, mode, length, lower, upper, digits, symbols, onlyUpper, similar
        case words, separator, capitalize, number, password, save

        var isText: Bool { [.path, .username, .url, .note, .separator, .password].contains(self) }
    }

    private var form = GeneratorForm()
    private var texts: [Row: LineEditor] = [.path: LineEditor(), .username: LineEditor(), .url: LineEditor(), .note: LineEditor(),
                                            .separator: LineEditor("-"), .password: LineEditor()]
    private var focus = Row.path
    private var generated: GeneratedSecret?
    /// The password was typed or changed by hand after it was generated.
    private var byHand = false
    private var problem: String?
    /// The first line shown when the form is taller than the screen.
    private var scroll = 0

    var title: String { "New entry" }
    var showsSecrets: Bool { true }

    init(app: App, folder: String = "") {
        if !folder.isEmpty { texts[.path] = LineEditor(folder + "/") }
        regenerate()
    }

    /// What each screen line shows: a row, a blank, the rest of a long password, its strength.
    private enum Line: Equatable { case row(Row), blank, passwordTail(Int), strength }

    private func layout(width: Int) -> [Line] {
        var lines: [Line] = [.row(.path), .row(.username), .row(.url), .row(.note), .blank, .row(.mode)]
        let options: [Row] = form.passphraseMode ? [.words, .separator, .capitalize, .number]
            : [.length, .lower, .upper, .digits, .symbols, .onlyUpper, .similar]
        lines += options.map { .row($0) } + [.blank, .row(.password)]
        // A long password shown whole on the lines below when it is not being edited.
        let pw = TextWidth.width(texts[.password]!.text)
        if focus != .password, width > 0, pw > width { lines += (1...((pw - 1) / width)).map { .passwordTail($0) } }
        return lines + [.strength, .blank, .row(.save)]
    }

    private var selectable: [Row] {
        layout(width: 0).compactMap { if case .row(let r) = $0 { return r } else { return nil } }
    }

    private func regenerate() {
        if form.passphraseMode { form.words.separator = texts[.separator]!.text }
        do {
            let g = try form.generate()
            generated = g
            texts[.password]!.set(g.value)
            byHand = false
            problem = nil
        } catch {
            generated = nil
            problem = App.describe(error)
        }
    }

    // MARK: Drawing

    private func label(_ row: Row) -> String {
        switch row {
        case .path: return "Path"
        case .username: return "Username"
        case .url: return "URL"
        case .note: return "Note"
        case .mode: return "Kind"
        case .length: return "Length"
        case .lower: return "Lowercase a–z"
        case .upper: return "Uppercase A–Z"
        case .digits: return "Digits 0–9"
        case .symbols: return "Symbols !#%&…"
        case .onlyUpper: return "Only uppercase"
        case .similar: return "Exclude look-alikes"
        case .words: return "Words"
        case .separator: return "Separator"
        case .capitalize: return "Capitalize words"
        case .number: return "Add a digit"
        case .password: return "Password"
        case .save: return ""
        }
    }

    private func switchState(_ row: Row) -> Bool? {
        switch row {
        case .lower: return form.characters.classes.contains(.lower)
        case .upper: return form.characters.classes.contains(.upper)
        case .digits: return form.characters.classes.contains(.digits)
        case .symbols: return form.characters.classes.contains(.symbols)
        case .onlyUpper: return form.onlyUppercase
        case .similar: return form.characters.excludeSimilar
        case .capitalize: return form.words.capitalize
        case .number: return form.words.withNumber
        default: return nil
        }
    }

    private func placeholder(_ row: Row) -> String {
        switch row {
        case .path: return "folder/name, e.g. Email/gmail"
        case .username, .url, .note: return "optional"
        default: return ""
        }
    }

    func draw(_ t: Terminal, in area: Area, app: App) {
        let labelWidth = 22, valueColumn = 2 + labelWidth
        let width = max(10, area.columns - valueColumn - 2)
        let password = Array(texts[.password]!.text)
        // On a short screen the blank lines go first; if it is still too short, the form scrolls so the row being
        // edited is on screen, with the strength line under the password.
        var lines = layout(width: width)
        if lines.count > area.rows { lines.removeAll { $0 == .blank } }
        let focused = lines.firstIndex(of: .row(focus)) ?? 0
        let last = focus == .password ? (lines.firstIndex(of: .strength) ?? focused) : focused
        if focused < scroll { scroll = focused }
        if last >= scroll + area.rows { scroll = last - area.rows + 1 }
        scroll = max(0, min(scroll, lines.count - area.rows))
        for (n, line) in lines.dropFirst(scroll).prefix(area.rows).enumerated() {
            let r = area.top + n
            switch line {
            case .blank: continue
            case .strength: drawStrength(t, row: r, column: valueColumn); continue
            case .passwordTail(let k):
                t.put(String(password.dropFirst(k * width).prefix(width)), row: r, column: valueColumn)
                continue
            case .row(let row): drawRow(row, t, r: r, labelWidth: labelWidth, width: width, password: password, app: app)
            }
        }
    }

    private func drawRow(_ row: Row, _ t: Terminal, r: Int, labelWidth: Int, width: Int, password: [Character], app: App) {
        let valueColumn = 2 + labelWidth
        let focused = row == focus
        if row == .save {
            t.put("[ Save ]", row: r, column: 2, style: .key, highlight: focused)
            t.put("Ctrl-S saves from anywhere · Esc cancels", row: r, column: 13, style: .hint)
            return
        }
        t.put(label(row), row: r, column: 2, width: labelWidth - 1, style: focused ? .key : .normal, highlight: focused)
        if row == .password && !focused {
            t.put(String(password.prefix(width)), row: r, column: valueColumn)
        } else if row.isText {
            let editor = texts[row]!
            let x = editor.draw(t, row: r, column: valueColumn, width: row == .password ? width : min(width, 60), style: focused ? .input : .normal)
            if editor.isEmpty { t.put(placeholder(row), row: r, column: valueColumn + (focused ? 1 : 0), style: .hint) }
            if focused { app.cursor = (r, x) }
        } else if let on = switchState(row) {
            t.put(on ? "[x]" : "[ ]", row: r, column: valueColumn, style: on ? .success : .normal, highlight: focused)
            if row == .similar { t.put("leaves out 0 1 I O l |", row: r, column: valueColumn + 5, style: .hint) }
        } else if row == .mode {
            let c = valueColumn + t.put(form.passphraseMode ? "( ) characters" : "(•) characters", row: r, column: valueColumn, highlight: focused && !form.passphraseMode)
            t.put(form.passphraseMode ? "(•) passphrase" : "( ) passphrase", row: r, column: c + 2, highlight: focused && form.passphraseMode)
        } else if row == .length || row == .words {
            let range = row == .length ? GeneratorForm.lengths : GeneratorForm.wordCounts
            let value = row == .length ? form.characters.length : form.words.words
            // Narrow screens get a shorter slider, so the value beside it still shows.
            let sliderWidth = max(10, min(34, t.columns - valueColumn - 18))
            let used = Draw.slider(t, value: value, range: range, row: r, column: valueColumn, width: sliderWidth, active: focused)
            t.put("\(value)   (\(range.lowerBound)–\(range.upperBound), ←→)", row: r, column: valueColumn + used + 1)
        }
    }

    private func drawStrength(_ t: Terminal, row: Int, column: Int) {
        if let problem { t.put(problem, row: row, column: column, style: .error); return }
        let password = texts[.password]!.text
        guard !password.isEmpty else { t.put("no password (the entry is saved without one)", row: row, column: column, style: .hint); return }
        guard let estimate = try? StrengthEstimator.estimate(password) else { return }
        var c = column
        if byHand || generated == nil {
            c += t.put("typed by hand · ", row: row, column: c, style: .hint)
        } else if let g = generated {
            c += t.put(String(printf: "%.1f bits of entropy · ", g.entropyBits), row: row, column: c)
        }
        let style: Style = estimate.score >= 3 ? .success : estimate.score == 2 ? .warning : .error
        c += t.put("strength \(estimate.score)/4 \(GeneratorForm.strengthName(estimate.score))", row: row, column: c, style: style)
        if byHand, let w = estimate.warnings.first { t.put(" · " + w, row: row, column: c, style: .hint) }
    }

    // MARK: Keys

    func footer(_ app: App) -> [KeyHint] {
        var keys = [KeyHint("↑↓ Tab", "move")]
        if focus.isText { keys.append(KeyHint("type", "to edit")) }
        if focus == .length || focus == .words { keys.append(KeyHint("←→", "slide")) }
        if switchState(focus) != nil || focus == .mode { keys.append(KeyHint("Space", "switch")) }
        keys += [KeyHint(focus.isText ? "Ctrl-G" : "g", "new password"), KeyHint("Ctrl-S", "save"), KeyHint("Esc", "cancel")]
        return keys
    }

    func handle(_ key: Key, app: App) -> Bool {
        switch key {
        case .control("s"): save(app); return true
        case .control("g"): regenerate(); return true
        case .escape: cancel(app); return true
        case .tab, .down: moveFocus(1); return true
        case .backTab, .up: moveFocus(-1); return true
        default: break
        }
        if focus.isText {
            if key == .enter { moveFocus(1); return true }
            guard texts[focus]!.handle(key) else { return false }
            if focus == .password { byHand = true }
            if focus == .separator { regenerate() }
            return true
        }
        switch key {
        case .character("j"): moveFocus(1)
        case .character("k"): moveFocus(-1)
        case .character("g"): regenerate()
        case .character("q"): cancel(app)
        case .enter where focus == .save: save(app)
        case .left, .character("h"): slide(-1)
        case .right, .character("l"): slide(1)
        case .pageDown: slide(-10)
        case .pageUp: slide(10)
        case .home: slide(-1000)
        case .end: slide(1000)
        case .character(" "), .enter: flip()
        default: return false
        }
        return true
    }

    private func moveFocus(_ by: Int) {
        let rows = selectable
        let i = rows.firstIndex(of: focus) ?? 0
        focus = rows[(i + by + rows.count) % rows.count]
    }

    private func slide(_ by: Int) {
        switch focus {
        case .length: form.changeLength(by: by)
        case .words: form.changeWords(by: by)
        case .mode: form.passphraseMode = by > 0
        default: return
        }
        regenerate()
    }

    private func flip() {
        switch focus {
        case .mode: form.passphraseMode.toggle()
        case .lower: form.toggle(.lower)
        case .upper: form.toggle(.upper)
        case .digits: form.toggle(.digits)
        case .symbols: form.toggle(.symbols)
        case .onlyUpper: form.setOnlyUppercase(!form.onlyUppercase)
        case .similar: form.characters.excludeSimilar.toggle()
        case .capitalize: form.words.capitalize.toggle()
        case .number: form.words.withNumber.toggle()
        default: return
        }
        regenerate()
    }

    private func cancel(_ app: App) {
        let typed = [Row.path, .username, .url, .note].contains { !(texts[$0]!.isEmpty) }
        guard typed else { app.pop(); return }
        app.dialog = ConfirmDialog("Discard the new entry?") { app.pop() }
    }

    private func save(_ app: App) {
        let text = { (r: Row) in self.texts[r]!.text.trimming(.whitespaces) }
        guard !text(.path).isEmpty else { focus = .path; app.say("Type the entry's path first, e.g. Email/gmail.", .error); return }
        do {
            let path = try Vault.parsePath(text(.path))
            try app.model.vault.checkNew(path, force: false)
            var fields: [String: FieldValue] = [:]
            let password = texts[.password]!.text
            var values: [(String, String, Int?)] = [("password", password, nil), ("username", text(.username), nil),
                                                    ("urls", text(.url), 0), ("notes", texts[.note]!.text, nil)]
            if !byHand, generated != nil { values.append(("policy", form.policy.policyString, nil)) }
            for (field, value, index) in values where !value.isEmpty {
                fields[field] = FieldText.value(value, for: field, index: index, in: nil)
            }
            try app.model.add(try app.model.vault.makeEntry(path, fields: fields))
            app.pop()
            (app.screens.last as? ListScreen)?.select(path, app: app)
            let weak = byHand && !password.isEmpty ? DetailScreen.weakness(password) : nil
            app.say("Added \(path)" + (weak.map { " · " + $0 } ?? ""), weak == nil ? .success : .warning)
        } catch {
            focus = .path
            app.fail(error)
        }
    }
}
