// What text means on screen (selection, folder, hint, warning…), drawn in colour, or with attributes alone.
import CNcurses

/// The roles text plays. Each has a colour form and a monochrome form, so every screen reads the same
/// with `NO_COLOR` set or on a terminal without colours.
package enum Style: Int, CaseIterable, Sendable {
    case normal
    /// The top bar.
    case title
    /// The line under the cursor.
    case selected
    case folder
    /// Secondary text: hints, times, devices.
    case hint
    /// The characters a filter matched.
    case match
    /// Key names in the footer and in help.
    case key
    case warning
    case error
    case success
    /// The value of a field being edited.
    case input
    /// The filled part of a slider or strength bar.
    case bar
}

/// Whether to use colour: `.automatic` uses it when the terminal has colours and `NO_COLOR` is unset or empty
/// (https://no-color.org), `.monochrome` never.
package enum ColorMode: Sendable {
    case automatic, monochrome

    /// `.monochrome` when `NO_COLOR` is set to a non-empty value, else `.automatic`.
    package static func from(environment: [String: String]) -> ColorMode {
        if let v = environment["NO_COLOR"], !v.isEmpty { return .monochrome }
        return .automatic
    }
}

/// The ncurses attributes and colour pair of every style, fixed when the terminal starts.
struct Palette {
    private var attributes: [attr_t]
    private var pairs: [Int16]
    let usesColor: Bool

    init(colors: Bool) {
        usesColor = colors
        attributes = Array(repeating: tresor_a_normal(), count: Style.allCases.count)
        pairs = Array(repeating: 0, count: Style.allCases.count)
        let bold = tresor_a_bold(), reverse = tresor_a_reverse(), underline = tresor_a_underline(), dim = tresor_a_dim()
        func set(_ s: Style, _ a: attr_t) { attributes[s.rawValue] = a }
        if colors {
            // Foregrounds on the terminal's own background (-1), so light and dark themes both work.
            let fg: [(Style, Int16)] = [(.title, Int16(COLOR_CYAN)), (.folder, Int16(COLOR_BLUE)), (.hint, Int16(COLOR_CYAN)),
                                        (.match, Int16(COLOR_YELLOW)), (.key, Int16(COLOR_GREEN)), (.warning, Int16(COLOR_YELLOW)),
                                        (.error, Int16(COLOR_RED)), (.success, Int16(COLOR_GREEN)), (.input, Int16(COLOR_MAGENTA)),
                                        (.bar, Int16(COLOR_GREEN))]
            for (i, (style, color)) in fg.enumerated() {
                let pair = Int16(i + 1)
                init_pair(pair, color, -1)
                pairs[style.rawValue] = pair
            }
            set(.title, bold); set(.selected, reverse); set(.folder, bold); set(.match, bold | underline)
            set(.key, bold); set(.error, bold); set(.bar, bold)
        } else {
            set(.title, bold | underline); set(.selected, reverse); set(.folder, bold); set(.hint, dim)
            set(.match, underline); set(.key, bold); set(.warning, bold); set(.error, bold | underline)
            set(.success, bold); set(.input, underline); set(.bar, reverse)
        }
    }

    func attribute(_ s: Style) -> attr_t { attributes[s.rawValue] }
    func pair(_ s: Style) -> Int16 { pairs[s.rawValue] }
}
