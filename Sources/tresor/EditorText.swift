// The text form of an entry shown in $EDITOR, and its parser.
import Foundation
import Tresor

/// `name: value` lines; `url`/`tag` lines repeat; `name: |` starts a block of lines indented by two spaces.
enum EditorText {
    static let header = """
        # Editing %@. Save and quit to apply; quit without saving to cancel.
        # One "name: value" per line; "url:" and "tag:" lines may repeat.
        # "name: |" starts a multi-line value: the following lines, indented by two spaces.
        # Delete a line to remove that field. Lines starting with # are ignored.

        """

    /// Why a custom field name cannot appear in the view, or nil: the view must give back exactly
    /// the names it showed, or saving would silently rename or drop fields.
    static func problem(with name: String) -> String? {
        if Entry.standardFields.contains(name) { return nil }
        if name.contains(":") { return "it contains \":\"" }
        if name.hasPrefix("#") { return "it starts with \"#\"" }
        if name != name.trimmingCharacters(in: .whitespaces) { return "it starts or ends with a space" }
        if ["url", "tag"].contains(name) { return "\"\(name)\" lines mean the standard \(name)s field" }
        return nil
    }

    static func render(_ e: Entry) throws -> String {
        for name in e.customFieldNames {
            if let why = problem(with: name) {
                throw CLIError("the field \"\(name)\" of \"\(e.path)\" cannot be edited in the editor view: \(why)\nhint: use 'tresor edit \(e.path) --set NAME=VALUE' or '--unset NAME'")
            }
        }
        var out = String(format: header, e.path.string)
        func add(_ name: String, _ value: String) {
            if value.contains("\n") || value == "|" || value.hasPrefix(" ") || value.hasSuffix(" ") {
                out += "\(name): |\n" + value.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n"
            } else {
                out += "\(name): \(value)\n"
            }
        }
        for name in ["password", "username"] { if let v = e.text(name) { add(name, v) } }
        for u in e.list("urls") { add("url", u) }
        for t in e.list("tags") { add("tag", t) }
        for n in e.customFieldNames { add(n, e.text(n) ?? "") }
        if let p = e.text("policy") { add("policy", p) }
        if let n = e.text("notes") { add("notes", n) }
        return out
    }

    struct ParseError: Error { let line: Int; let message: String }

    /// The number of the line that starts field `name`, or 0.
    static func line(of name: String, in text: String) -> Int {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.firstIndex { $0.hasPrefix(name + ":") }).map { $0 + 1 } ?? 0
    }

    /// The complete field state described by the text.
    static func parse(_ text: String) throws -> [String: FieldValue] {
        var result: [String: FieldValue] = [:]
        var urls: [String] = [], tags: [String] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        var i = 0
        while i < lines.count {
            let line = lines[i]
            let number = i + 1
            i += 1
            if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else { throw ParseError(line: number, message: "expected \"name: value\"") }
            var name = String(line[..<colon])
            var value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
            if value == "|" {
                var block: [String] = []
                while i < lines.count, lines[i].hasPrefix("  ") || lines[i].isEmpty {
                    block.append(lines[i].isEmpty ? "" : String(lines[i].dropFirst(2)))
                    i += 1
                }
                while block.last == "" { block.removeLast() }
                value = block.joined(separator: "\n")
            }
            switch name {
            case "url", "urls": urls.append(value); continue
            case "tag", "tags": tags.append(value); continue
            default: break
            }
            name = name.trimmingCharacters(in: .whitespaces)
            do { try Entry.validateFieldName(name) } catch let e as CoreError { throw ParseError(line: number, message: e.errorDescription ?? "bad field name") }
            guard result[name] == nil else { throw ParseError(line: number, message: "field \"\(name)\" appears twice") }
            result[name] = .text(SecretText(value))
        }
        if !urls.isEmpty { result["urls"] = .list(urls) }
        if !tags.isEmpty { result["tags"] = .list(tags) }
        return result
    }
}
