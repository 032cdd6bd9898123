// Display width of text in terminal columns (wide and combining characters), and fitting text to a width.
import CNcurses

/// Column arithmetic for terminal text. Widths come from the C library's `wcwidth`, so the locale
/// must be set (`Terminal.start` does it); CJK characters take two columns, combining marks none.
package enum TextWidth {
    /// Columns one scalar takes: 0 for combining marks and other zero-width characters, 2 for wide ones.
    /// Control characters count 0 here; `sanitized` replaces them before display.
    package static func columns(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value < 0x7F { return scalar.value >= 0x20 ? 1 : 0 }
        return max(0, Int(tresor_wcwidth(scalar.value)))
    }

    /// Columns the text takes.
    package static func width(_ text: String) -> Int {
        var total = 0
        for s in text.unicodeScalars { total += columns(s) }
        return total
    }

    /// The text with characters a terminal would act on replaced: tabs by a space, other control
    /// characters (C0, DEL, C1) by "?", so names from elsewhere can never move the cursor or change modes.
    package static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsReplacement) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if s == "\t" { out.append(" ") } else if needsReplacement(s) { out.append("?") } else { out.append(s) }
        }
        return String(out)
    }

    private static func needsReplacement(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.properties.generalCategory == .lineSeparator
            || s.properties.generalCategory == .paragraphSeparator
    }

    /// The longest prefix of `text` that fits in `width` columns, ending in "…" when cut, and its width.
    /// Combining marks stay with the character they follow.
    package static func fit(_ text: String, width: Int) -> (text: String, width: Int) {
        guard width > 0 else { return ("", 0) }
        let total = self.width(text)
        if total <= width { return (text, total) }
        var out = String.UnicodeScalarView()
        var used = 0
        for s in text.unicodeScalars {
            let w = columns(s)
            if used + w > width - 1 { break }
            out.append(s)
            used += w
        }
        out.append("…")
        return (String(out), used + 1)
    }

    /// `text` fitted to `width` and padded with spaces to exactly `width` columns.
    package static func padded(_ text: String, width: Int) -> String {
        let (t, w) = fit(text, width: width)
        return w < width ? t + String(repeating: " ", count: width - w) : t
    }

    /// Splits text into lines of at most `width` columns, breaking at spaces where it can.
    package static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = "", used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
                var w = self.width(word), word = word
                if used > 0 && used + 1 + w > width { lines.append(line); line = ""; used = 0 }
                while w > width {   // a word longer than a line is cut
                    let (head, hw) = cut(word, width: width)
                    lines.append(head)
                    word = String(word.unicodeScalars.dropFirst(head.unicodeScalars.count))
                    w -= hw
                }
                if used > 0 { line += " "; used += 1 }
                line += word
                used += w
            }
            lines.append(line)
        }
        return lines
    }

    private static func cut(_ text: String, width: Int) -> (String, Int) {
        var out = String.UnicodeScalarView(), used = 0
        for s in text.unicodeScalars {
            let w = columns(s)
            if used + w > width { break }
            out.append(s)
            used += w
        }
        return (String(out), used)
    }
}
