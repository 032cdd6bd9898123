// The full-screen terminal: ncurses started on the alternate screen, drawing, key input, and handing the terminal to another program.
import CNcurses
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One ncurses screen on the process's terminal. Everything drawn goes to a buffer and reaches the terminal
/// on `refresh()`, where ncurses sends only what changed. While it exists the terminal shows the alternate
/// screen (where the terminfo entry has one), so nothing drawn stays in the scrollback.
/// Not thread-safe: use it from one thread.
package final class Terminal {
    private var screen: OpaquePointer?
    private let window: UnsafeMutablePointer<WINDOW>
    private let palette: Palette
    private var stopped = false

    /// Whether styles are drawn in colour (false with `NO_COLOR` or on a monochrome terminal).
    package var usesColor: Bool { palette.usesColor }

    /// Starts ncurses on standard input and output: raw keys (Ctrl-C and Ctrl-Z arrive as keys), no echo,
    /// keypad and mouse decoding, invisible cursor.
    /// - Throws: `TerminalError.notATerminal` when stdin or stdout is not a terminal,
    ///   `.unknownTerminal` when `$TERM` has no terminfo entry.
    package init(colors: ColorMode) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        setlocale(LC_ALL, "")
        // Entry names are UTF-8 whatever the environment says; a C locale would show them as bytes.
        if tresor_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        guard !term.isEmpty, let s = newterm(nil, stdout, stdin) else { throw TerminalError.unknownTerminal(term) }
        screen = s
        set_term(s)
        window = tresor_stdscr()
        raw()
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)
        mousemask(tresor_mouse_mask_wanted(), nil)
        mouseinterval(0)
        var colour = false
        if colors == .automatic, has_colors() {
            start_color()
            use_default_colors()
            colour = true
        }
        palette = Palette(colors: colour)
    }

    deinit { stop() }

    /// Blanks the screen and gives the terminal back (leaves the alternate screen). Idempotent.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        werase(window)
        wrefresh(window)
        endwin()
        if let screen { delscreen(screen) }
        screen = nil
    }

    // MARK: Geometry and drawing

    /// Rows and columns of the terminal now (after a `.resize` key they are the new size).
    package var rows: Int { Int(tresor_getmaxy(window)) }
    package var columns: Int { Int(tresor_getmaxx(window)) }

    /// Clears the drawing buffer (the terminal changes on `refresh`).
    package func erase() { werase(window) }

    /// Draws `text` at a position, cut to `width` columns (default: to the right edge) with "…" when it
    /// does not fit, and padded with spaces to `width` when `pad` is set. Control characters are shown as "?".
    /// `highlight` adds reverse video (the selection). Returns the columns used.
    @discardableResult
    package func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: Style = .normal,
                    highlight: Bool = false, pad: Bool = false) -> Int {
        guard row >= 0, row < rows, column >= 0, column < columns else { return 0 }
        let room = min(width ?? (columns - column), columns - column)
        guard room > 0 else { return 0 }
        var (fitted, used) = TextWidth.fit(TextWidth.sanitized(text), width: room)
        if pad && used < room { fitted += String(repeating: " ", count: room - used); used = room }
        var attr = palette.attribute(style)
        if highlight { attr |= tresor_a_reverse() }
        wattr_set(window, attr, palette.pair(style), nil)
        let scalars = fitted.unicodeScalars.map(\.value)
        scalars.withUnsafeBufferPointer { buf in
            _ = tresor_mvwaddnwstr(window, Int32(row), Int32(column), buf.baseAddress, Int32(buf.count))
        }
        wattr_set(window, tresor_a_normal(), 0, nil)
        return used
    }

    /// Paints `width` columns of a row in a style (a bar, the selection background).
    package func fill(row: Int, column: Int = 0, width: Int? = nil, style: Style = .normal, highlight: Bool = false) {
        let w = width ?? (columns - column)
        guard w > 0 else { return }
        put(String(repeating: " ", count: w), row: row, column: column, width: w, style: style, highlight: highlight)
    }

    /// Shows the text cursor at a position (while editing text), or hides it with nil.
    package func showCursor(row: Int?, column: Int?) {
        if let row, let column {
            wmove(window, Int32(row), Int32(column))
            curs_set(1)
        } else {
            curs_set(0)
        }
    }

    /// Sends the changes since the last refresh to the terminal.
    package func refresh() { wrefresh(window) }

    /// Clears the terminal itself, not only the buffer: the next refresh repaints every cell, so nothing
    /// drawn before (a revealed password) survives in any cell the new frame leaves blank.
    package func wipe() {
        werase(window)
        clearok(window, true)
        wrefresh(window)
    }

    // MARK: Input

    /// Waits for the next key, at most `milliseconds` (nil: until one comes). Returns nil on timeout or
    /// for input it does not know.
    package func readKey(timeout milliseconds: Int?) -> Key? {
        wtimeout(window, Int32(milliseconds ?? -1))
        var value: UInt32 = 0
        let rc = tresor_get_wch(window, &value)
        guard rc != ERR else { return nil }
        return Key.decode(value, isKeyCode: rc == KEY_CODE_YES)
    }

    // MARK: Handing the terminal over

    /// Gives the terminal back in the state it was in before ncurses started (cooked mode, normal
    /// screen), runs `body` (an editor), then takes it back and repaints everything.
    package func suspend<T>(_ body: () throws -> T) rethrows -> T {
        def_prog_mode()
        endwin()
        defer {
            reset_prog_mode()
            clearok(window, true)
            wrefresh(window)
        }
        return try body()
    }
}
