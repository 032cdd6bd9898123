// Editing one line of text in place (fields, the filter, dialogs), and typing a passphrase that is never shown.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor
import TresorTerminal

/// A line of text with a cursor: insert, delete, move; Ctrl-A/E/U/K/W as in a shell.
struct LineEditor {
    private(set) var characters: [Character]
    private(set) var cursor: Int

    init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }

    mutating func set(_ text: String) { characters = Array(text); cursor = characters.count }

    /// Applies an editing key; false for keys it does not use (Enter, Esc, arrows up and down…).
    mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            // A combining mark joins the character before it, as the terminal shows it.
            if cursor > 0, c.unicodeScalars.allSatisfy({ [.nonspacingMark, .enclosingMark, .spacingMark].contains($0.properties.generalCategory) }) {
                characters[cursor - 1] = Character(String(characters[cursor - 1]) + String(c))
            } else {
                characters.insert(c, at: cursor)
                cursor += 1
            }
        case .backspace: if cursor > 0 { characters.remove(at: cursor - 1); cursor -= 1 }
        case .delete, .control("d"): if cursor < characters.count { characters.remove(at: cursor) }
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .control("u"): characters.removeSubrange(0..<cursor); cursor = 0
        case .control("k"): characters.removeSubrange(cursor...)
        case .control("w"):
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default: return false
        }
        return true
    }

    /// Draws the text in `width` columns, scrolled so the cursor shows; returns the cursor's column.
    func draw(_ t: Terminal, row: Int, column: Int, width: Int, style: Style = .input) -> Int {
        guard width > 1 else { return column }
        var start = 0
        func span(_ from: Int, _ to: Int) -> Int { characters[from..<to].reduce(0) { $0 + TextWidth.width(String($1)) } }
        while span(start, cursor) > width - 1 { start += 1 }
        var end = start
        while end < characters.count, span(start, end + 1) <= width { end += 1 }
        t.fill(row: row, column: column, width: width, style: style)
        t.put(String(characters[start..<end]), row: row, column: column, width: width, style: style)
        return column + span(start, cursor)
    }
}

/// A passphrase being typed: UTF-8 bytes only, zeroed when taken or dropped, never drawn.
final class SecretInput {
    private var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    /// Applies a key; false for keys it does not use.
    func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c): bytes.append(contentsOf: Array(String(c).utf8))
        case .backspace:
            // Remove one whole UTF-8 character: continuation bytes, then its first byte.
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if !bytes.isEmpty { bytes.removeLast() }
        case .control("u"): wipe()
        default: return false
        }
        return true
    }

    /// The passphrase, leaving nothing behind here.
    func take() -> SecretBytes? {
        defer { wipe() }
        return SecretBytes.passphrase(bytes)
    }

    func wipe() { SecretBytes.wipe(&bytes); bytes = [] }

    deinit { wipe() }
}
