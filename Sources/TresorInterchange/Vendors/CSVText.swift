// CSV text read and written as CSV.swift did (RFC 4180: `,` between fields, `"` around a field, `""` for a quote in
// one), by scalars; the package dropped that library with the full Foundation it links.
import TresorCore

/// CSV rows in and out.
enum CSVText {
    /// The rows of `text`. A line ends at LF, CR or CR LF outside quotes; an empty line is a row with one empty field,
    /// a final line end starts no row. A quote only opens a field that starts with it; inside, `""` is a quote, and a
    /// quote followed by anything but a comma, a line end, a quote or the end is kept and the character after it dropped
    /// (CSV.swift's reading of such malformed text).
    static func rows(_ text: String) -> [[String]] {
        var it = text.unicodeScalars.makeIterator()
        var back: Unicode.Scalar?
        func next() -> Unicode.Scalar? {
            if let b = back { back = nil; return b }
            return it.next()
        }
        /// One field after its first scalar was read (`quoted`) or put back; whether the row ends after it.
        func field(quoted: Bool) -> (String, Bool) {
            var value = String.UnicodeScalarView()
            while let c = next() {
                if quoted {
                    guard c == "\"" else { value.append(c); continue }
                    let after = next()
                    switch after {
                    case nil, "\n": return (String(value), true)
                    case "\r":
                        let lf = next()
                        if lf != "\n" { back = lf }
                        return (String(value), true)
                    case ",": return (String(value), false)
                    case "\"": value.append("\"")
                    default: value.append(c)
                    }
                } else {
                    switch c {
                    case "\n": return (String(value), true)
                    case "\r":
                        let lf = next()
                        if lf != "\n" { back = lf }
                        return (String(value), true)
                    case ",": return (String(value), false)
                    default: value.append(c)
                    }
                }
            }
            return (String(value), true)
        }
        var rows: [[String]] = []
        while var c = next() {
            var row: [String] = []
            while true {
                let (value, end): (String, Bool)
                if c == "\"" { (value, end) = field(quoted: true) } else { back = c; (value, end) = field(quoted: false) }
                row.append(value)
                if end { break }
                guard let following = next() else { row.append(""); break }
                c = following
            }
            rows.append(row)
        }
        return rows
    }

    /// Appends `fields` as one row, each field quoted and its quotes doubled, after a line feed unless it is the
    /// first row (KeePassXC's CSV export as CSV.swift wrote it).
    static func appendRow(_ fields: [String], to out: inout SecretByteBuilder, first: Bool) {
        if !first { out.append(0x0A) }
        for (i, value) in fields.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(0x22)
            for b in value.utf8 {
                if b == 0x22 { out.append(0x22) }
                out.append(b)
            }
            out.append(0x22)
        }
    }
}
