// The text of one pass or gopass secret: first line the password, then `key: value` lines, a gopass YAML body, notes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Reads and writes the contents of a pass secret (README "Import: pass and gopass").
enum PassText {
    /// Keys that name the user, highest priority first: the first present becomes `username`.
    static let usernameKeys = ["username", "login", "user", "email"]
    static let urlKeys: Set<String> = ["url", "urls", "website"]
    static let otpKeys: Set<String> = ["otp", "totp"]

    /// Fills `item` from decrypted `content`. With `yaml`, a line `---` starts gopass's YAML body.
    /// - Throws: `InterchangeError.malformed` for text that is not UTF-8.
    static func parse(_ content: SecretBytes, into item: inout InterchangeEntry, yaml: Bool, file: String) throws {
        guard let text = content.utf8String() else { throw InterchangeError.malformed(path: file, .notUTF8) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        if lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { return }
        if !lines[0].isEmpty { item.password = SecretBytes(utf8: lines[0]) }
        var body = Array(lines.dropFirst())
        var yamlLines: [String] = []
        if yaml, let dash = body.firstIndex(of: "---") {
            yamlLines = Array(body[(dash + 1)...])
            body = Array(body[..<dash])
        }
        var parsed = Parsed()
        parseKeyValues(body, into: &parsed)
        if !yamlLines.isEmpty { parseYAML(yamlLines, into: &parsed) }
        parsed.finish(into: &item)
    }

    /// Values collected while reading, assigned to the entry at the end (username priority, notes order).
    struct Parsed {
        var usernames: [(key: String, value: String)] = []
        var urls: [String] = []
        var otp: String?
        var tags: [String] = []
        var notesKey: String?
        var notesFree: [String] = []
        var policy: String?
        var fields: [(String, String)] = []

        mutating func assign(_ key: String, _ value: String) {
            let k = key.lowercased()
            if PassText.usernameKeys.contains(k) { usernames.append((key, value)) }
            else if PassText.urlKeys.contains(k) { urls += value.split(separator: "\n").map(String.init) }
            else if PassText.otpKeys.contains(k), otp == nil, !value.isEmpty { otp = value }
            else if k == "tag" { tags.append(value) }
            else if k == "tags" { tags += value.split(whereSeparator: { $0 == "," || $0 == "\n" }).map { $0.trimming(.whitespaces) } }
            else if k == "notes" || k == "comment" || k == "comments", notesKey == nil { notesKey = value }
            else if k == "policy", policy == nil { policy = value }
            else { fields.append((key, value)) }
        }

        func finish(into item: inout InterchangeEntry) {
            var rest = usernames
            if let best = PassText.usernameKeys.lazy.compactMap({ k in usernames.firstIndex { $0.key.lowercased() == k } }).first {
                item.username = usernames[best].value
                rest.remove(at: best)
            }
            item.urls = urls
            if let otp {
                if let uri = OTPAuth.uri(from: otp, issuer: item.title, account: item.username) { item.otp = SecretBytes(utf8: uri) }
                else { item.addField("otp", otp) }
            }
            item.tags = tags.filter { !$0.isEmpty }
            item.policy = policy
            var notes = [notesKey].compactMap { $0 } + (notesFree.isEmpty ? [] : [notesFree.joined(separator: "\n")])
            notes = notes.filter { !$0.isEmpty }
            if !notes.isEmpty { item.notes = SecretBytes(utf8: notes.joined(separator: "\n")) }
            for (k, v) in rest + fields.map({ (key: $0.0, value: $0.1) }) { item.addField(k, v) }
        }
    }

    /// `key: value` with a key of 1–64 bytes that does not start with a space; nil for any other line.
    static func keyValue(_ line: String) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = String(line[..<colon])
        guard !key.isEmpty, key.utf8.count <= 64, key.first != " ", key.last != " ", !key.hasPrefix("#") else { return nil }
        let after = line[line.index(after: colon)...]
        if after.isEmpty { return (key, "") }
        guard after.first == " " else { return nil }
        return (key, String(after.dropFirst()))
    }

    /// pass lines: `otpauth://` lines, `key: value` (and Tresor's `key: |` blocks indented by two spaces), notes.
    static func parseKeyValues(_ lines: [String], into p: inout Parsed) {
        var i = 0
        while i < lines.count {
            let line = lines[i]
            i += 1
            if line.lowercased().hasPrefix("otpauth://"), p.otp == nil { p.otp = line; continue }
            guard let (key, value) = keyValue(line) else { p.notesFree.append(line); continue }
            if value == "|" {
                var block: [String] = []
                while i < lines.count, lines[i].hasPrefix("  ") || (lines[i].isEmpty && i + 1 < lines.count && lines[i + 1].hasPrefix("  ")) {
                    block.append(lines[i].isEmpty ? "" : String(lines[i].dropFirst(2)))
                    i += 1
                }
                p.assign(key, block.joined(separator: "\n"))
            } else {
                p.assign(key, value)
            }
        }
    }

    /// The YAML gopass writes after `---`: `key: value` (plain or quoted), `key: |` / `>` blocks,
    /// `key:` with `- item` lists, and nested mappings flattened as `parent.key`.
    static func parseYAML(_ lines: [String], into p: inout Parsed) {
        func indent(_ s: String) -> Int { s.prefix { $0 == " " }.count }
        var i = 0
        var parents: [(indent: Int, key: String)] = []
        while i < lines.count {
            let line = lines[i]
            i += 1
            let trimmed = line.trimming(.whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let ind = indent(line)
            while let last = parents.last, last.indent >= ind { parents.removeLast() }
            guard let (rawKey, rawValue) = keyValue(trimmed) else { p.notesFree.append(line); continue }
            let key = (parents.map(\.key) + [unquote(rawKey)]).joined(separator: ".")
            let value = rawValue.trimming(.whitespaces)
            if value.hasPrefix("|") || value.hasPrefix(">") {
                var block: [String] = []
                while i < lines.count, lines[i].trimming(.whitespaces).isEmpty || indent(lines[i]) > ind { block.append(lines[i]); i += 1 }
                while block.last?.trimming(.whitespaces).isEmpty == true { block.removeLast() }
                let common = block.filter { !$0.trimming(.whitespaces).isEmpty }.map(indent).min() ?? 0
                let stripped = block.map { $0.count >= common ? String($0.dropFirst(common)) : "" }
                p.assign(key, value.hasPrefix(">") ? stripped.joined(separator: " ") : stripped.joined(separator: "\n"))
            } else if value.isEmpty {
                var items: [String] = []
                while i < lines.count, lines[i].trimming(.whitespaces).hasPrefix("- ") || lines[i].trimming(.whitespaces) == "-" {
                    items.append(unquote(String(lines[i].trimming(.whitespaces).dropFirst(1)).trimming(.whitespaces)))
                    i += 1
                }
                if !items.isEmpty {
                    if PassText.urlKeys.contains(key.lowercased()) || ["tags", "tag"].contains(key.lowercased()) { for it in items { p.assign(key, it) } }
                    else { p.assign(key, items.joined(separator: "\n")) }
                } else if i < lines.count, indent(lines[i]) > ind {
                    parents.append((ind, unquote(rawKey)))
                } else {
                    p.assign(key, "")
                }
            } else {
                p.assign(key, unquote(value))
            }
        }
    }

    /// A YAML scalar without its quotes: `"…"` with backslash escapes, `'…'` with `''`.
    static func unquote(_ s: String) -> String {
        if s.count >= 2, s.hasPrefix("'"), s.hasSuffix("'") { return String(s.dropFirst().dropLast()).replacingAll("''", with: "'") }
        if s.count >= 2, s.hasPrefix("\""), s.hasSuffix("\"") {
            var out = "", escaped = false
            for c in s.dropFirst().dropLast() {
                if escaped {
                    switch c { case "n": out.append("\n"); case "t": out.append("\t"); default: out.append(c) }
                    escaped = false
                } else if c == "\\" { escaped = true } else { out.append(c) }
            }
            return out
        }
        if let hash = s.firstRange(of: " #") { return String(s[..<hash.lowerBound]).trimming(.whitespaces) }
        return s
    }

    /// The pass text of an entry: the password, `username:`, `url:` lines, the `otpauth://` URI on its own
    /// line (as pass-otp reads it), `tag:` lines, custom fields, `policy:`, then `notes: |`. Multi-line
    /// values are `name: |` blocks indented by two spaces. - Throws: `.unrepresentable` for a password with
    /// a line break.
    static func format(_ item: InterchangeEntry, path: String) throws -> SecretBytes {
        var lines: [String] = []
        let password = try item.password.map { try EntryConversion.text($0, field: "password") } ?? ""
        guard !password.contains("\n") else { throw InterchangeError.unrepresentable(path: path, .passwordLineBreak) }
        lines.append(password)
        func add(_ key: String, _ value: String) {
            if value.contains("\n") || value == "|" {
                lines.append("\(key): |")
                lines += value.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            } else {
                lines.append("\(key): \(value)")
            }
        }
        if let u = item.username { add("username", u) }
        for u in item.urls { add("url", u) }
        if let otp = item.otp { lines.append(try EntryConversion.text(otp, field: "otp")) }
        for t in item.tags { add("tag", t) }
        for f in item.fields { add(f.name, try EntryConversion.text(f.value, field: f.name)) }
        if let p = item.policy { add("policy", p) }
        if let n = item.notes {
            let t = try EntryConversion.text(n, field: "notes")
            lines.append("notes: |")
            lines += t.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        return SecretBytes(utf8: lines.joined(separator: "\n") + "\n")
    }
}
