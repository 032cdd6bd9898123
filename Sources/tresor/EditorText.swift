// The text form of an entry shown in $EDITOR, and its parser.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
        if name != name.trimming(.whitespaces) { return "it starts or ends with a space" }
        if ["url", "tag"].contains(name) { return "\"\(name)\" lines mean the standard \(name)s field" }
        return nil
    }

    /// The view of `e`, built in zeroing memory: values are copied from their buffers, never into a `String`.
    /// - Throws: `CLIError` for a custom field name the view cannot give back.
    static func render(_ e: Entry) throws -> SecretBytes {
        for name in e.customFieldNames {
            if let why = problem(with: name) {
                throw CLIError("the field \"\(name)\" of \"\(e.path)\" cannot be edited in the editor view: \(why)\nhint: use 'tresor edit \(e.path) --set NAME=VALUE' or '--unset NAME'")
            }
        }
        var out = SecretByteBuilder()
        out.append(header.replacingAll("%@", with: e.path.string))
        func add(_ name: String, _ value: SecretText) {
            let block = value.withUTF8 { b in
                b.contains(0x0A) || (b.count == 1 && b[0] == UInt8(ascii: "|")) || b.first == 0x20 || b.last == 0x20
            }
            if block {
                out.append("\(name): |\n  ")
                out.append(value, indentingLinesBy: "  ")
            } else {
                out.append("\(name): ")
                out.append(value)
            }
            out.append(0x0A)
        }
        func add(_ name: String, _ value: String) { add(name, SecretText(value)) }
        for name in ["password", "username"] { if let v = e.secret(name) { add(name, v) } }
        for u in e.list("urls") { add("url", u) }
        for t in e.list("tags") { add("tag", t) }
        for n in e.customFieldNames { add(n, e.secret(n) ?? "") }
        if let p = e.secret("policy") { add("policy", p) }
        if let n = e.secret("notes") { add("notes", n) }
        return out.finish()
    }

    struct ParseError: Error { let line: Int; let message: String }

    /// The lines of a view: split at LF; ranges into the caller's bytes. A CR before the LF is dropped only when
    /// the editor saved the whole file with CRLF line ends (every LF has a CR before it): the view is written with
    /// LF alone, so otherwise a CR is part of a value (notes imported with Windows line ends) and is kept.
    static func lines(_ text: UnsafeRawBufferPointer) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        let crlf = text.indices.contains { text[$0] == 0x0A } && text.indices.allSatisfy { text[$0] != 0x0A || ($0 > 0 && text[$0 - 1] == 0x0D) }
        for i in 0...text.count where i == text.count || text[i] == 0x0A {
            var end = i
            if crlf, i < text.count, end > start, text[end - 1] == 0x0D { end -= 1 }
            out.append(start..<end)
            start = i + 1
        }
        return out
    }

    /// The number of the line that starts field `name`, or 0.
    static func line(of name: String, in text: UnsafeRawBufferPointer) -> Int {
        let prefix = Array((name + ":").utf8)
        return (lines(text).firstIndex { r in r.count >= prefix.count && prefix.indices.allSatisfy { text[r.lowerBound + $0] == prefix[$0] } }).map { $0 + 1 } ?? 0
    }

    /// The complete field state described by the view `text`. Names, URLs and tags become Strings; every other
    /// value goes from the view's bytes into a zeroing buffer without a `String`.
    static func parse(_ text: UnsafeRawBufferPointer) throws -> [String: FieldValue] {
        var result: [String: FieldValue] = [:]
        var urls: [String] = [], tags: [String] = []
        let lines = lines(text)
        func string(_ r: Range<Int>) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: text[r]), as: UTF8.self) }
        func startsWith(_ r: Range<Int>, _ prefix: [UInt8]) -> Bool {
            r.count >= prefix.count && prefix.indices.allSatisfy { text[r.lowerBound + $0] == prefix[$0] }
        }
        var i = 0
        while i < lines.count {
            let line = lines[i]
            let number = i + 1
            i += 1
            if startsWith(line, [UInt8(ascii: "#")]) { continue }
            guard let colon = line.first(where: { text[$0] == UInt8(ascii: ":") }) else {
                // No name: blank (white space only) or an error. Such a line holds no value.
                if string(line).trimming(.whitespaces).isEmpty { continue }
                throw ParseError(line: number, message: "expected \"name: value\"")
            }
            var name = string(line.lowerBound..<colon)
            var valueStart = colon + 1
            if valueStart < line.upperBound, text[valueStart] == 0x20 { valueStart += 1 }
            var value = SecretByteBuilder(capacity: 64)
            value.append(UnsafeRawBufferPointer(rebasing: text[valueStart..<line.upperBound]))
            if line.upperBound - valueStart == 1, text[valueStart] == UInt8(ascii: "|") {
                var block: [Range<Int>] = []
                while i < lines.count, startsWith(lines[i], [0x20, 0x20]) || lines[i].isEmpty {
                    block.append(lines[i].isEmpty ? lines[i] : lines[i].lowerBound + 2..<lines[i].upperBound)
                    i += 1
                }
                while block.last?.isEmpty == true { block.removeLast() }
                value = SecretByteBuilder(capacity: 64)
                for (k, r) in block.enumerated() {
                    if k > 0 { value.append(0x0A) }
                    value.append(UnsafeRawBufferPointer(rebasing: text[r]))
                }
            }
            let bytes = value.finish()
            guard let secret = SecretText(validating: bytes) else { throw ParseError(line: number, message: "the value is not UTF-8 text") }
            switch name {
            // List items are not secret: Strings, as the entry keeps them.
            case "url", "urls": urls.append(secret.makeString()); continue
            case "tag", "tags": tags.append(secret.makeString()); continue
            default: break
            }
            name = name.trimming(.whitespaces)
            do { try Entry.validateFieldName(name) } catch let e as CoreError { throw ParseError(line: number, message: e.message) }
            guard result[name] == nil else { throw ParseError(line: number, message: "field \"\(name)\" appears twice") }
            result[name] = .text(secret)
        }
        if !urls.isEmpty { result["urls"] = .list(urls) }
        if !tags.isEmpty { result["tags"] = .list(tags) }
        return result
    }
}
