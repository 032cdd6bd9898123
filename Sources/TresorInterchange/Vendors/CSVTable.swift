// A CSV file with a header row, read by CSVText, and columns looked up by their names.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// The rows of a CSV export, with columns found by name (case-insensitive, first of several spellings).
struct CSVTable {
    let header: [String]
    let rows: [[String]]
    let file: String

    /// Reads `path` (UTF-8, an optional byte-order mark, a header row). - Throws: `.cannotRead`, `.malformed`.
    static func read(_ path: String) throws -> CSVTable {
        var bytes = try KeePass.readFile(path, limit: 256 << 20)
        defer { Sodium.wipe(&bytes) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw InterchangeError.malformed(path: path, .notUTF8) }
        return try parse(text, file: path)
    }

    static func parse(_ text: String, file: String) throws -> CSVTable {
        var rows = CSVText.rows(text)
        guard !rows.isEmpty else { throw InterchangeError.malformed(path: file, .noHeaderRow) }
        let header = rows.removeFirst()
        return CSVTable(header: header.map { $0.trimming(.whitespaces) }, rows: rows, file: file)
    }

    /// The index of the first column named like one of `names`, ignoring case.
    func column(_ names: String...) -> Int? {
        for n in names { if let i = header.firstIndex(where: { $0.lowercased() == n.lowercased() }) { return i } }
        return nil
    }

    /// Requires the columns; `.malformed` names the first missing one.
    func require(_ names: [String]) throws {
        for n in names where column(n) == nil {
            throw InterchangeError.malformed(path: file, .missingColumn(n, columns: header))
        }
    }

    /// The cell of `row` in `column`, nil when absent or empty.
    static func cell(_ row: [String], _ column: Int?) -> String? {
        guard let column, column < row.count, !row[column].isEmpty else { return nil }
        return row[column]
    }
}
