// The first screen of `tresor ui`: the entry tree with collapsible folders and hints, and the filter.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// Browsing needs no passphrase: names come from the files. `/` filters by name at once (fuzzy);
/// while the vault is unlocked the filter also finds entries whose decrypted fields contain the text.
final class ListScreen: Screen {
    enum Item {
        case folder(path: String, name: String, depth: Int, expanded: Bool, count: Int)
        /// An entry: in the tree (`label` is its name) or a filter result (`label` is its path, `positions`
        /// the matched scalars, `field` the field that matched when the name did not).
        case entry(path: EntryPath, label: String, depth: Int, positions: [Int], field: String?)
    }

    private var tree = EntryTree(paths: [])
    private var seenVersion = -1
    private(set) var items: [Item] = []
    private var dirty = true
    private(set) var selected = 0
    private var top = 0
    private var pageRows = 10
    private var listTop = 2

    private var query = LineEditor()
    private var filtering = false
    private var editingFilter = false
    private var folded: [(path: EntryPath, key: [UInt32])]?
    private var previous: (query: [UInt32], matches: [Int])?
    private var nameMatches = 0, fieldMatches = 0

    var title: String { "" }
    var showsSecrets: Bool { false }

    // MARK: Rows

    /// Brings `items` up to date with the model and the filter, keeping the selected row where it can.
    func refresh(_ app: App) {
        if app.model.version != seenVersion {
            tree = EntryTree(paths: app.model.paths, collapsed: tree.collapsed)
            seenVersion = app.model.version
            folded = nil
            previous = nil
            dirty = true
        }
        guard dirty else { return }
        dirty = false
        let keep = selectedKey
        items = filtering && !query.isEmpty ? filtered(app) : tree.rows().map { row in
            switch row.kind {
            case .folder(let path, let expanded, let count):
                return .folder(path: path, name: row.name, depth: row.depth, expanded: expanded, count: count)
            case .entry(let p): return .entry(path: p, label: row.name, depth: row.depth, positions: [], field: nil)
            }
        }
        if let keep, let i = items.firstIndex(where: { ListScreen.key($0) == keep }) { selected = i }
        selected = max(0, min(selected, items.count - 1))
    }

    private var selectedKey: String? { items.indices.contains(selected) ? ListScreen.key(items[selected]) : nil }

    private static func key(_ item: Item) -> String {
        switch item {
        case .folder(let path, _, _, _, _): return "folder:" + path
        case .entry(let p, _, _, _, _): return "entry:" + p.string
        }
    }

    /// Name matches by score, then entries whose decrypted fields contain the text.
    private func filtered(_ app: App) -> [Item] {
        if folded == nil { folded = app.model.paths.map { ($0, Fuzzy.foldNormalized($0.string)) } }
        let all = folded!
        let q = Fuzzy.fold(query.text)
        let candidates: [Int]
        if let previous, q.starts(with: previous.query) { candidates = previous.matches } else { candidates = Array(all.indices) }
        var scored: [(Int, Fuzzy.Match)] = []
        for i in candidates { if let m = Fuzzy.match(q, in: all[i].key) { scored.append((i, m)) } }
        previous = (q, scored.map(\.0))
        // Equal scores: the shorter name (the closer match) first, then the list's order.
        scored.sort { a, b in
            if a.1.score != b.1.score { return a.1.score > b.1.score }
            if all[a.0].key.count != all[b.0].key.count { return all[a.0].key.count < all[b.0].key.count }
            return a.0 < b.0
        }
        var out: [Item] = scored.map { .entry(path: all[$0.0].path, label: all[$0.0].path.string, depth: 0, positions: $0.1.positions, field: nil) }
        nameMatches = out.count
        fieldMatches = 0
        if let index = app.model.index {
            let needle = Array(query.text.nfc.lowercased().utf8)
            let named = Set(scored.map(\.0))
            for (i, item) in all.enumerated() where !named.contains(i) {
                if let field = index.matchingField(item.path, needle: needle) {
                    out.append(.entry(path: item.path, label: item.path.string, depth: 0, positions: [], field: field))
                }
            }
            fieldMatches = out.count - nameMatches
        }
        return out
    }

    // MARK: Drawing

    func draw(_ t: Terminal, in area: Area, app: App) {
        refresh(app)
        var row = area.top
        if filtering {
            t.put("/", row: row, column: 1, style: .key)
            var count: String
            if query.isEmpty {
                count = app.model.index != nil ? "type to filter names and fields" : "type to filter names"
            } else {
                count = "\(nameMatches) of \(app.model.paths.count) by name"
                if app.model.index != nil { count += " + \(fieldMatches) by field" }
                else if !app.model.isUnlocked { count += " (locked: names only)" }
                else { count += " (decrypting fields…)" }
            }
            let cw = TextWidth.width(count)
            let x = query.draw(t, row: row, column: 3, width: max(4, area.columns - cw - 6), style: editingFilter ? .input : .normal)
            if editingFilter { app.cursor = (row, x) }
            t.put(count, row: row, column: area.columns - cw - 1, style: .hint)
            row += 1
        }
        listTop = row
        pageRows = max(1, area.bottom - row)
        if selected < top { top = selected }
        if selected >= top + pageRows { top = selected - pageRows + 1 }
        top = max(0, min(top, max(0, items.count - pageRows)))
        if items.isEmpty {
            let text = app.model.paths.isEmpty ? "The vault has no entries yet. n adds one."
                : "No entry matches \"\(query.text)\"." + (app.model.isUnlocked ? "" : " u unlocks the vault to search the fields too.")
            t.put(text, row: row + 1, column: 2, style: .hint)
            return
        }
        let hintColumn = max(24, area.columns * 11 / 20)
        for i in top..<min(items.count, top + pageRows) {
            drawItem(t, items[i], row: row + i - top, hintColumn: hintColumn, columns: area.columns, selected: i == selected, app: app)
        }
    }

    private func drawItem(_ t: Terminal, _ item: Item, row: Int, hintColumn: Int, columns: Int, selected sel: Bool, app: App) {
        if sel { t.fill(row: row, highlight: true) }
        switch item {
        case .folder(_, let name, let depth, let expanded, let count):
            let x = 1 + depth * 2
            var c = x + t.put((expanded ? "▾ " : "▸ ") + name + "/", row: row, column: x, width: max(0, hintColumn - x - 1), style: .folder, highlight: sel)
            c = max(c + 1, hintColumn)
            t.put("\(count) entr\(count == 1 ? "y" : "ies")", row: row, column: c, style: .hint, highlight: sel)
        case .entry(let path, let label, let depth, let positions, let field):
            let x = 1 + depth * 2 + (filtering && !query.isEmpty ? 0 : 2)
            drawMarked(t, label, positions: positions, row: row, column: x, width: max(0, hintColumn - x - 1), selected: sel)
            let hint = field.map { "matches in \($0)" } ?? app.model.index?.hint(for: path) ?? ""
            if !hint.isEmpty { t.put(hint, row: row, column: hintColumn, width: columns - hintColumn - 1, style: .hint, highlight: sel) }
        }
    }

    /// Draws `text` with the characters at scalar offsets `positions` in the match style.
    private func drawMarked(_ t: Terminal, _ text: String, positions: [Int], row: Int, column: Int, width: Int, selected: Bool) {
        guard !positions.isEmpty else { t.put(text, row: row, column: column, width: width, highlight: selected); return }
        let marked = Set(positions)
        var runs: [(String, Bool)] = []
        var offset = 0
        for ch in text {
            let n = ch.unicodeScalars.count
            let hit = (offset..<offset + n).contains(where: marked.contains)
            offset += n
            if let last = runs.last, last.1 == hit { runs[runs.count - 1].0.append(ch) } else { runs.append((String(ch), hit)) }
        }
        if TextWidth.width(text) > width {
            t.put(text, row: row, column: column, width: width, highlight: selected)
            return
        }
        var c = column
        for (s, hit) in runs { c += t.put(s, row: row, column: c, style: hit ? .match : .normal, highlight: selected) }
    }

    // MARK: Keys

    func footer(_ app: App) -> [KeyHint] {
        if editingFilter {
            return [KeyHint("type", "to filter"), KeyHint("↑↓", "move"), KeyHint("Enter", "open"), KeyHint("Tab", "browse results"), KeyHint("Esc", "clear filter")]
        }
        var keys = [KeyHint("↑↓ jk", "move"), KeyHint("Enter", "open"), KeyHint("←→", "fold"), KeyHint("/", "filter"),
                    KeyHint("n", "new"), KeyHint("s", "sync"), KeyHint("d", "delete")]
        keys.append(app.model.isUnlocked ? KeyHint("L", "lock") : KeyHint("u", "unlock"))
        keys.insert(KeyHint("q", "quit"), at: 4)
        if filtering { keys.insert(KeyHint("Esc", "clear filter"), at: 4) }
        return keys
    }

    func handle(_ key: Key, app: App) -> Bool {
        refresh(app)
        if editingFilter { return handleFilter(key, app: app) }
        switch key {
        case .up, .character("k"), .control("p"): move(-1)
        case .down, .character("j"), .control("n"): move(1)
        case .pageUp, .control("b"): move(-pageRows)
        case .pageDown, .control("f"): move(pageRows)
        case .home, .character("g"): selected = 0
        case .end, .character("G"): selected = max(0, items.count - 1)
        case .wheelUp: move(-3)
        case .wheelDown: move(3)
        case .click(let row, _): click(row, app: app)
        case .left, .character("h"): left()
        case .right, .character("l"): right(app)
        case .enter: activate(app)
        case .character(" "): if case .folder(let p, _, _, _, _)? = current { tree.toggle(p); dirty = true }
        case .character("+"): tree.expandAll(); dirty = true
        case .character("-"): tree.collapseAll(); dirty = true
        case .character("/"): filtering = true; editingFilter = true
        case .escape: if filtering { closeFilter() }
        case .character("n"): app.requireUnlocked { app.push(NewEntryScreen(app: app)) }
        case .character("s"): app.requireUnlocked { SyncScreen.start(app) }
        case .character("d"), .delete: delete(app)
        case .character("u"): if !app.model.isUnlocked { app.requireUnlocked { app.say("Unlocked.", .success) } }
        case .character("L"): if app.model.isUnlocked { app.lock(because: "Locked.") }
        case .character("q"): app.quit()
        default: return false
        }
        return true
    }

    private func handleFilter(_ key: Key, app: App) -> Bool {
        switch key {
        case .escape: closeFilter()
        case .enter: editingFilter = false; activate(app)
        case .tab: editingFilter = false
        case .up, .control("p"): move(-1)
        case .down, .control("n"): move(1)
        case .pageUp: move(-pageRows)
        case .pageDown: move(pageRows)
        case .wheelUp: move(-3)
        case .wheelDown: move(3)
        case .click(let row, _): click(row, app: app)
        case .backspace where query.isEmpty: closeFilter()
        default:
            guard query.handle(key) else { return false }
            dirty = true
            selected = 0
        }
        return true
    }

    private func closeFilter() {
        filtering = false
        editingFilter = false
        query.set("")
        previous = nil
        dirty = true
    }

    private var current: Item? { items.indices.contains(selected) ? items[selected] : nil }

    private func move(_ by: Int) { selected = max(0, min(items.count - 1, selected + by)) }

    private func click(_ row: Int, app: App) {
        let i = top + row - listTop
        guard row >= listTop, items.indices.contains(i) else { return }
        if i == selected { activate(app) } else { selected = i }
    }

    private func left() {
        switch current {
        case .folder(let p, _, _, let expanded, _)? where expanded: tree.setExpanded(p, false); dirty = true
        case .folder(let p, _, _, _, _)?: selectFolder(parent(of: p))
        case .entry(let path, _, _, _, _)?: if !filtering || query.isEmpty { selectFolder(path.folder) }
        case nil: break
        }
    }

    private func right(_ app: App) {
        switch current {
        case .folder(let p, _, _, let expanded, _)?: if !expanded { tree.setExpanded(p, true); dirty = true } else { move(1) }
        case .entry?: activate(app)
        case nil: break
        }
    }

    private func parent(of folder: String) -> String {
        folder.split(separator: "/").dropLast().joined(separator: "/")
    }

    private func selectFolder(_ folder: String) {
        guard !folder.isEmpty, let i = items.firstIndex(where: { ListScreen.key($0) == "folder:" + folder }) else { return }
        selected = i
    }

    private func activate(_ app: App) {
        switch current {
        case .folder(let p, _, _, _, _)?: tree.toggle(p); dirty = true
        case .entry(let path, _, _, _, let field)?: app.requireUnlocked { DetailScreen.open(path, field: field, app: app) }
        case nil: break
        }
    }

    private func delete(_ app: App) {
        guard case .entry(let path, _, _, _, _)? = current else { app.say("Select an entry to delete."); return }
        // Every change is authenticated with the vault key: a locked vault asks for the passphrase first.
        app.dialog = ConfirmDialog("Remove \(path)? (git history keeps it: 'tresor restore')") {
            app.requireUnlocked {
                do { try app.model.remove(path); app.say("Removed \(path)", .success) } catch { app.fail(error) }
            }
        }
    }

    /// Puts the cursor on an entry (after adding it).
    func select(_ path: EntryPath, app: App) {
        refresh(app)
        if let i = items.firstIndex(where: { ListScreen.key($0) == "entry:" + path.string }) { selected = i }
    }
}
