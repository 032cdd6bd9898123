// Changing an entry from its screen: one field in place, the whole entry in $EDITOR, adding and removing fields.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

extension DetailScreen {
    func startEditing(_ app: App) {
        let row = rows[selected]
        let text = value(of: row) ?? ""
        if text.contains("\n") { app.say("\"\(row.label)\" has several lines: E edits the whole entry in $EDITOR."); return }
        editor = LineEditor(text)
    }

    func handleEditing(_ key: Key, app: App) -> Bool {
        switch key {
        case .escape: editor = nil; rebuildRows()
        case .enter:
            guard let text = editor?.text else { return true }
            editor = nil
            save(rows[selected], text: text, app: app)
        default: _ = editor?.handle(key)
        }
        return true
    }

    /// Applies the change to the entry as it is now on disk and commits it.
    private func save(_ row: Row, text: String, app: App) {
        do {
            if row.field == "policy", !text.isEmpty { _ = try GeneratorPolicy(parsing: text) }
            let original = try app.model.vault.read(entry.path)
            let value = FieldText.value(text, for: row.field, index: row.index, in: original)
            guard let saved = try app.model.edit(original, changes: [row.field: value]) else {
                rebuildRows()
                app.say("No changes.")
                return
            }
            entry = saved.entry
            rebuildRows()
            if row.field == "password", !text.isEmpty, let weak = DetailScreen.weakness(text) {
                app.say("Saved password: " + weak, .warning)
            } else {
                app.say("Saved \(row.label).", .success)
            }
        } catch { app.fail(error) }
    }

    /// Why a password typed by a person is weak, or nil (the CLI's `warnIfWeak` wording).
    static func weakness(_ password: String) -> String? {
        guard let e = try? StrengthEstimator.estimate(password), e.score < 3 else { return nil }
        let why = e.warnings.isEmpty ? "" : ": " + e.warnings.joined(separator: "; ")
        return String(printf: "weak password (score %d/4, about 10^%.0f guesses)", e.score, e.guessesLog10) + why
    }

    /// `$VISUAL`/`$EDITOR` on the whole entry through the same code as `tresor edit`, with the terminal
    /// handed over (ncurses ends its mode) and taken back afterwards.
    func editWholeEntry(_ app: App) {
        let shown = entry
        do {
            let editCommand = try Edit.parse(["--", shown.path.string])
            guard let edited = try app.suspend({ try editCommand.runEditor(shown) }) else { app.say("No changes."); return }
            if case .text(let p)? = edited["policy"] { _ = try GeneratorPolicy(parsing: p.makeString()) }
            // The editor may have been open a while: the edit is stamped now and merged with anything
            // another command changed meanwhile.
            var changes: [String: FieldValue?] = [:]
            for name in Set(shown.fields.keys).union(edited.keys) { changes[name] = .some(edited[name]) }
            guard let saved = try app.model.edit(shown, changes: changes) else { app.say("No changes."); return }
            entry = saved.entry
            rebuildRows()
            app.say("Edited \(saved.entry.path): \(saved.changed.joined(separator: ", "))", .success)
        } catch { app.fail(error) }
    }

    func addField(_ app: App) {
        app.dialog = InputDialog(title: "Add a field", prompt: "Name of the new field (then type its value):") { [self] name in
            let name = name.trimming(.whitespaces)
            do { try Entry.validateFieldName(name) } catch { return App.describe(error) }
            if let why = EditorText.problem(with: name) { return "\"\(name)\" cannot be used here: \(why)" }
            if entry.fields[name] != nil || Entry.listFields.contains(name) { return "\"\(name)\" exists: select it and press e" }
            if let i = rows.firstIndex(where: { $0.field == name }) {
                selected = i
            } else {
                let at = rows.firstIndex { $0.field == "tags" || $0.field == "policy" || $0.field == "notes" } ?? rows.count
                var r = rows
                r.insert(Row(field: name, index: nil, label: name), at: at)
                setRows(r)
                selected = at
            }
            editor = LineEditor()
            return nil
        }
    }

    func removeField(_ app: App) {
        let row = rows[selected]
        guard value(of: row) != nil else { app.say("\"\(row.label)\" is already empty."); return }
        app.dialog = ConfirmDialog("Remove \(row.label) from \(entry.path)? (the value stays in its history)") { [self] in
            save(row, text: "", app: app)
        }
    }
}
