// One key press, mouse event or resize, decoded from ncurses' wide-character input.
import CNcurses

/// What the user did: a key, the mouse wheel or a click, or the terminal changing size.
package enum Key: Equatable, Sendable {
    /// A printable character (letters, digits, punctuation, space, any script).
    case character(Character)
    /// Ctrl with a letter, given as the lowercase letter (`control("s")` is Ctrl-S).
    case control(Character)
    case enter, escape, tab, backTab, backspace, delete
    case up, down, left, right, pageUp, pageDown, home, end
    case function(Int)
    case wheelUp, wheelDown
    /// A click of the first button at a screen position.
    case click(row: Int, column: Int)
    case resize

    /// Decodes the result of `wget_wch`: `isKeyCode` when ncurses returned `KEY_CODE_YES`.
    static func decode(_ value: UInt32, isKeyCode: Bool) -> Key? {
        if isKeyCode { return decodeKeyCode(Int32(bitPattern: value)) }
        switch value {
        case 10, 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 0: return nil
        case 1...26: return .control(Character(Unicode.Scalar(value + 96)!))
        case 28...31: return nil
        default:
            guard let scalar = Unicode.Scalar(value), !(0x80...0x9F).contains(value) else { return nil }
            return .character(Character(scalar))
        }
    }

    private static func decodeKeyCode(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_NPAGE: return .pageDown
        case KEY_PPAGE: return .pageUp
        case KEY_HOME, KEY_A1: return .home
        case KEY_END, KEY_C1: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_RESIZE: return .resize
        case KEY_MOUSE: return mouse()
        case KEY_F0 + 1...KEY_F0 + 24: return .function(Int(code - KEY_F0))
        default: return nil
        }
    }

    private static func mouse() -> Key? {
        var event = MEVENT()
        guard getmouse(&event) == OK else { return nil }
        if tresor_mouse_is_wheel_up(event.bstate) != 0 { return .wheelUp }
        if tresor_mouse_is_wheel_down(event.bstate) != 0 { return .wheelDown }
        if tresor_mouse_is_click(event.bstate) != 0 { return .click(row: Int(event.y), column: Int(event.x)) }
        return nil
    }
}
