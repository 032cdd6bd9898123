// What every screen of `tresor ui` provides, and the drawing helpers they share (bars, boxes, key lists).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// The rows a screen may draw on: between the title bar and the message line.
struct Area {
    var top: Int
    var rows: Int
    var columns: Int
    var bottom: Int { top + rows }
}

/// A key and what it does, for the footer and the help.
struct KeyHint {
    let key: String
    let label: String
    init(_ key: String, _ label: String) { self.key = key; self.label = label }
}

/// One full screen: the list, an entry, the new-entry form, a sync report.
protocol Screen: AnyObject {
    /// Shown in the title bar after the vault.
    var title: String { get }
    /// Whether the screen shows decrypted data (it is closed when the vault locks).
    var showsSecrets: Bool { get }
    /// The keys for the footer, most important first.
    func footer(_ app: App) -> [KeyHint]
    func draw(_ t: Terminal, in area: Area, app: App)
    /// Handles a key; false lets the app try its global keys.
    func handle(_ key: Key, app: App) -> Bool
    /// Called several times a second (countdowns, background work).
    func tick(_ app: App)
}

extension Screen {
    func tick(_ app: App) {}
}

/// A modal box over the current screen: a question, a passphrase prompt, a message.
protocol Dialog: AnyObject {
    func draw(_ t: Terminal, app: App)
    func handle(_ key: Key, app: App)
}

enum Draw {
    /// Keys as "key label" pairs on one row: as many as fit, and always the last one (the help key).
    static func keys(_ t: Terminal, _ hints: [KeyHint], row: Int) {
        func need(_ h: KeyHint) -> Int { TextWidth.width(h.key) + 1 + TextWidth.width(h.label) + 2 }
        guard let last = hints.last else { return }
        var shown: [KeyHint] = []
        var column = 1 + need(last)
        for h in hints.dropLast() {
            guard column + need(h) <= t.columns else { break }
            shown.append(h)
            column += need(h)
        }
        column = 1
        for h in shown + [last] {
            column += t.put(h.key, row: row, column: column, style: .key)
            column += 1
            column += t.put(h.label, row: row, column: column)
            column += 2
        }
    }

    /// A framed box with a title; returns the inner area.
    @discardableResult
    static func box(_ t: Terminal, top: Int, left: Int, height: Int, width: Int, title: String) -> Area {
        let inner = max(0, width - 2)
        t.put("┌" + String(repeating: "─", count: inner) + "┐", row: top, column: left)
        for r in top + 1..<top + height - 1 {
            t.put("│", row: r, column: left)
            t.fill(row: r, column: left + 1, width: inner)
            t.put("│", row: r, column: left + width - 1)
        }
        t.put("└" + String(repeating: "─", count: inner) + "┘", row: top + height - 1, column: left)
        if !title.isEmpty { t.put(" " + title + " ", row: top, column: left + 2, width: max(0, inner - 2), style: .title) }
        return Area(top: top + 1, rows: height - 2, columns: inner)
    }

    /// A box of `lines.count + extra` rows centred on the screen; returns its inner area and left column.
    static func centredBox(_ t: Terminal, title: String, lines: [String], extra: Int = 0, minWidth: Int = 30) -> (Area, Int) {
        let widest = ([title] + lines).map { TextWidth.width($0) }.max() ?? 0
        let width = min(t.columns - 2, max(minWidth, widest + 4))
        let height = min(t.rows - 2, lines.count + extra + 2)
        let top = max(0, (t.rows - height) / 2)
        let left = max(0, (t.columns - width) / 2)
        let inner = box(t, top: top, left: left, height: height, width: width, title: title)
        for (i, line) in lines.enumerated() where i < inner.rows {
            t.put(line, row: inner.top + i, column: left + 2, width: width - 4)
        }
        return (inner, left + 2)
    }

    /// A slider: `[━━━━●────]` for `value` in `range`, `width` columns wide.
    static func slider(_ t: Terminal, value: Int, range: ClosedRange<Int>, row: Int, column: Int, width: Int, active: Bool) -> Int {
        let inner = max(3, width - 2)
        let span = max(1, range.upperBound - range.lowerBound)
        let filled = (value - range.lowerBound) * (inner - 1) / span
        var used = t.put("[", row: row, column: column)
        used += t.put(String(repeating: "━", count: filled), row: row, column: column + used, style: .bar)
        used += t.put("●", row: row, column: column + used, style: active ? .match : .bar)
        used += t.put(String(repeating: "─", count: inner - filled - 1), row: row, column: column + used, style: .hint)
        used += t.put("]", row: row, column: column + used)
        return used
    }

    /// A spinner frame for work in progress.
    static func spinner(_ started: Date) -> String {
        let frames = ["|", "/", "-", "\\"]
        return frames[Int(Date().timeIntervalSince(started) * 8) % frames.count]
    }
}
