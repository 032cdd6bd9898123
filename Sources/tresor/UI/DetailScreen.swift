// The entry screen of `tresor ui`: every field, the password masked until `r`, each field's history and the entry's git log.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// One entry, decrypted. Fields are rows to move between, edit in place (`e`) or remove (`x`); `E` opens
/// `$EDITOR` on the whole entry; `h` shows the earlier values of the selected field (where a merge puts
/// the value that lost), `l` the commits that touched the entry.
final class DetailScreen: Screen {
    /// A selectable row: a field, or one URL of `urls`.
    struct Row {
        let field: String
        let index: Int?
        let label: String
    }
    enum Panel { case none, history, log }

    var entry: Entry
    /// This replica's device id, to show its own writes as "this device".
    var deviceID = ""
    private(set) var rows: [Row] = []
    var selected = 0
    var revealed = false
    var panel = Panel.none
    var editor: LineEditor?
    private var log: [EntryChange]?
    private var scroll = 0

    var title: String { entry.path.string }
    var showsSecrets: Bool { true }

    init(entry: Entry) {
        self.entry = entry
        rebuildRows()
    }

    /// Reads and shows an entry, with the cursor on `field` when given.
    static func open(_ path: EntryPath, field: String? = nil, app: App) {
        do {
            let screen = DetailScreen(entry: try app.model.vault.read(path))
            screen.deviceID = app.model.vault.deviceID
            if let field, let i = screen.rows.firstIndex(where: { $0.field == field }) { screen.selected = i }
            app.push(screen)
            if let field, screen.entry.history.contains(where: { $0.field == field }) {
                app.say("h shows the earlier values of \"\(field)\", including any value a merge replaced.")
            }
        } catch {
            app.fail(error)
        }
    }

    func rebuildRows() {
        var r = [Row(field: "password", index: nil, label: "password"), Row(field: "username", index: nil, label: "username")]
        let urls = entry.list("urls")
        if urls.isEmpty { r.append(Row(field: "urls", index: 0, label: "url")) }
        for i in urls.indices { r.append(Row(field: "urls", index: i, label: "url")) }
        for name in entry.customFieldNames { r.append(Row(field: name, index: nil, label: name)) }
        if entry.fields["tags"] != nil { r.append(Row(field: "tags", index: nil, label: "tags")) }
        if entry.fields["policy"] != nil { r.append(Row(field: "policy", index: nil, label: "policy")) }
        r.append(Row(field: "notes", index: nil, label: "notes"))
        rows = r
        selected = min(selected, rows.count - 1)
    }

    func setRows(_ r: [Row]) { rows = r }

    /// The text of a row as stored (URLs one by one, tags joined by ", ").
    func value(of row: Row) -> String? { FieldText.text(entry, row.field, index: row.index) }

    /// Fields masked until `r`: the password and the one-time code's secret (its `otpauth://` URI).
    static let maskedFields: Set<String> = ["password", TOTP.fieldName]

    private func shown(_ text: String, field: String) -> String {
        DetailScreen.maskedFields.contains(field) && !revealed ? String(repeating: "•", count: 10) : text
    }

    // MARK: Drawing

    func draw(_ t: Terminal, in area: Area, app: App) {
        let labelWidth = min(16, max(10, rows.map { TextWidth.width($0.label) }.max() ?? 8) + 2)
        var lines: [(row: Int?, draw: (Int) -> Void)] = []
        for (i, row) in rows.enumerated() {
            let sel = i == selected
            let valueColumn = 2 + labelWidth
            let earlier = entry.history.filter { $0.field == row.field }.count
            let parts = (value(of: row) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (n, part) in parts.enumerated() {
                lines.append((n == 0 ? i : nil, { r in
                    if sel && n == 0 { t.fill(row: r, highlight: true) }
                    if n == 0 { t.put(row.label, row: r, column: 2, width: labelWidth - 1, style: .key, highlight: sel && n == 0) }
                    if n == 0, sel, let editor = self.editor {
                        let x = editor.draw(t, row: r, column: valueColumn, width: area.columns - valueColumn - 1)
                        app.cursor = (r, x)
                        return
                    }
                    if self.value(of: row) == nil {
                        t.put("—", row: r, column: valueColumn, style: .hint, highlight: sel)
                        return
                    }
                    let used = t.put(self.shown(part, field: row.field), row: r, column: valueColumn,
                                     width: area.columns - valueColumn - 1, highlight: sel && n == 0)
                    if n == 0, earlier > 0, valueColumn + used + 3 < area.columns {
                        t.put("· \(earlier) earlier", row: r, column: valueColumn + used + 2, style: .hint, highlight: sel)
                    }
                }))
            }
            if row.field == "password", let codes = app.services.oneTimeCodes {
                lines.append((nil, { r in self.drawCode(t, codes, row: r, column: valueColumn, labelWidth: labelWidth) }))
            }
        }
        lines.append((nil, { _ in }))
        lines.append((nil, { r in
            t.put("modified \(self.entry.modified)   created \(self.entry.created)", row: r, column: 2, style: .hint)
        }))
        for line in panelLines(t, area: area) { lines.append((nil, line)) }

        let first = lines.firstIndex { $0.row == selected } ?? 0
        if first < scroll { scroll = first }
        if first >= scroll + area.rows { scroll = first - area.rows + 1 }
        for (n, line) in lines.dropFirst(scroll).prefix(area.rows).enumerated() { line.draw(area.top + n) }
    }

    private func drawCode(_ t: Terminal, _ codes: OneTimeCodeSource, row: Int, column: Int, labelWidth: Int) {
        do {
            guard let code = try codes.currentCode(for: entry, at: Date()) else { return }
            t.put("one-time", row: row, column: 2, width: labelWidth - 1, style: .key)
            let used = t.put(code.code, row: row, column: column, style: .match)
            t.put("\(code.secondsLeft) s left", row: row, column: column + used + 2, style: .hint)
        } catch {
            t.put(App.describe(error), row: row, column: column, style: .error)
        }
    }

    private func panelLines(_ t: Terminal, area: Area) -> [(Int) -> Void] {
        func heading(_ text: String) -> (Int) -> Void {
            { r in t.put("── " + text + " " + String(repeating: "─", count: max(0, area.columns - TextWidth.width(text) - 6)), row: r, column: 1, style: .title) }
        }
        switch panel {
        case .none:
            let count = entry.history.count
            return [{ r in t.put(count == 0 ? "no earlier values" : "\(count) earlier value\(count == 1 ? "" : "s") in this entry's history",
                                 row: r, column: 2, style: .hint) }]
        case .history:
            guard rows.indices.contains(selected) else { return [] }
            let field = rows[selected].field
            let items = entry.history.filter { $0.field == field }.reversed()
            let me = deviceID
            var out = [heading("Earlier values of \(field), newest first: replaced · why · written on")]
            if items.isEmpty { out.append({ r in t.put("none", row: r, column: 2, style: .hint) }) }
            for h in items {
                let value = shown(FieldText.whole(h.value).replacingAll("\n", with: " ⏎ "), field: field)
                let device = h.origin == me ? "this device    " : "device \(h.origin.prefix(8))"
                let meta = "\(h.replaced)  \(String((h.reason + "      ").prefix(6)))  \(device)  "
                out.append({ r in
                    let used = t.put(meta, row: r, column: 2, style: .hint)
                    t.put(value, row: r, column: 2 + used, width: area.columns - used - 3)
                })
            }
            return out
        case .log:
            var out = [heading("Commits that touched this entry, newest first")]
            for c in log ?? [] {
                let when = LocalTime.minutes(c.commit.date)
                let fields = c.fields.isEmpty ? "" : ": " + c.fields.joined(separator: ", ")
                out.append({ r in
                    var used = t.put("\(when)  \(c.commit.id.prefix(8))  ", row: r, column: 2, style: .hint)
                    used += t.put(c.kind.rawValue + fields, row: r, column: 2 + used, width: area.columns - used - 3)
                    t.put("  " + c.commit.author.name, row: r, column: 2 + used, width: max(0, area.columns - used - 3), style: .hint)
                })
            }
            return out
        }
    }

    // MARK: Keys

    func footer(_ app: App) -> [KeyHint] {
        if editor != nil { return [KeyHint("Enter", "save"), KeyHint("Esc", "cancel"), KeyHint("←→", "move in the text")] }
        var keys = [KeyHint("↑↓", "field"), KeyHint("r", revealed ? "hide" : "reveal")]
        if app.services.copier != nil { keys.append(KeyHint("c", "copy")) }
        keys += [KeyHint("e", "edit field"), KeyHint("E", "$EDITOR"), KeyHint("h", "history"), KeyHint("l", "log"),
                 KeyHint("a", "add field"), KeyHint("x", "remove field"), KeyHint("d", "delete"), KeyHint("Esc", "back")]
        return keys
    }

    func handle(_ key: Key, app: App) -> Bool {
        if editor != nil { return handleEditing(key, app: app) }
        switch key {
        case .up, .character("k"), .wheelUp: selected = max(0, selected - 1)
        case .down, .character("j"), .wheelDown: selected = min(rows.count - 1, selected + 1)
        case .home, .character("g"): selected = 0
        case .end, .character("G"): selected = rows.count - 1
        case .pageUp: scroll = max(0, scroll - 5)
        case .pageDown: scroll += 5
        case .character("r"): revealed.toggle()
        case .character("h"): panel = panel == .history ? .none : .history
        case .character("l"): showLog(app)
        case .character("e"), .enter: startEditing(app)
        case .character("E"): editWholeEntry(app)
        case .character("a"): addField(app)
        case .character("x"): removeField(app)
        case .character("c"):
            if app.services.copier == nil { app.say("Copying to the clipboard is not available in this version."); return true }
            copy(app)
        case .character("d"): delete(app)
        case .escape, .character("q"), .left: app.pop()
        default: return false
        }
        return true
    }

    private func showLog(_ app: App) {
        if panel == .log { panel = .none; return }
        do {
            log = try app.model.vault.entryLog(entry.path, limit: 50)
            panel = .log
        } catch { app.fail(error) }
    }

    private func copy(_ app: App) {
        guard let copier = app.services.copier else { return }
        let row = rows[selected]
        guard let text = value(of: row) else { app.say("\"\(row.label)\" is empty."); return }
        do { app.say(try copier.copy(text, describing: row.label), .success) } catch { app.fail(error) }
    }

    private func delete(_ app: App) {
        let path = entry.path
        app.dialog = ConfirmDialog("Remove \(path)? (git history keeps it: 'tresor restore')") {
            do {
                try app.model.remove(path)
                app.pop()
                app.say("Removed \(path)", .success)
            } catch { app.fail(error) }
        }
    }
}
