// 1Password's 1PUX export (a zip holding export.data): vaults become folders, sections become custom fields.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Reads a `.1pux` file (README "Import: 1Password").
public enum OnePassword {
    /// Login-like categories whose `details.password` is the item's password.
    static let categoryNames: [String: String] = [
        "001": "Login", "002": "Credit Card", "003": "Secure Note", "004": "Identity", "005": "Password", "006": "Document",
        "100": "Software License", "101": "Bank Account", "102": "Database", "103": "Driver License", "104": "Outdoor License",
        "105": "Membership", "106": "Passport", "107": "Reward Program", "108": "Social Security Number", "109": "Wireless Router",
        "110": "Server", "111": "Email Account", "112": "API Credential", "113": "Medical Record", "114": "SSH Key", "115": "Crypto Wallet",
    ]

    /// - Throws: `.cannotRead`, `.malformed` (not a zip, no `export.data`, not the documented JSON).
    public static func read1PUX(_ path: String) throws -> InterchangeDocument {
        // The archive is read from memory, so a pipe works too.
        var raw = try KeePass.readFile(path, limit: 256 << 20)
        defer { Sodium.wipe(&raw) }
        let archive: ZipArchive
        do { archive = try ZipArchive(raw) } catch {
            throw InterchangeError.malformed(path: path, .notZip)
        }
        guard let entry = archive["export.data"] else { throw InterchangeError.malformed(path: path, .missingArchiveMember("export.data")) }
        let data: SecretBytes
        do { data = try archive.extract(entry, limit: 256 << 20) } catch ZipArchive.Failure.tooLarge {
            throw InterchangeError.malformed(path: path, .archiveMemberTooLarge("export.data", limit: 256 << 20))
        } catch ZipArchive.Failure.damaged(let why) {
            throw InterchangeError.malformed(path: path, .unpack("export.data", why))
        }
        var bytes = data.withBytes { [UInt8]($0) }
        defer { Sodium.wipe(&bytes) }
        return try document(try JSONFile.parse(bytes, file: path), file: path)
    }

    static func document(_ root: JSONValue, file: String) throws -> InterchangeDocument {
        guard let accounts = root.objectValue?["accounts"]?.arrayValue else { throw InterchangeError.malformed(path: file, .missingMember("accounts")) }
        var doc = InterchangeDocument()
        for account in accounts {
            for vault in account.objectValue?["vaults"]?.arrayValue ?? [] {
                let vaultName = vault.objectValue?["attrs"]?.objectValue?["name"]?.stringValue ?? "vault"
                for raw in vault.objectValue?["items"]?.arrayValue ?? [] {
                    guard let o = raw.objectValue else { continue }
                    let item = try entry(o, folder: [vaultName])
                    switch o["state"]?.stringValue {
                    case "trashed"?, "deleted"?: doc.skipped.append((item.sourceName, .deleted))
                    default: doc.entries.append(item)
                    }
                }
            }
        }
        return doc
    }

    static func entry(_ o: [String: JSONValue], folder: [String]) throws -> InterchangeEntry {
        let overview = o["overview"]?.objectValue ?? [:]
        let details = o["details"]?.objectValue ?? [:]
        var item = InterchangeEntry(folder: folder, title: overview["title"]?.stringValue ?? "")
        if o["state"]?.stringValue == "archived" { item.tags.append("archived") }
        item.tags += (overview["tags"]?.arrayValue ?? []).compactMap(\.stringValue)
        var urls = (overview["urls"]?.arrayValue ?? []).compactMap { $0.objectValue?["url"]?.stringValue }
        if let u = overview["url"]?.stringValue, !u.isEmpty, !urls.contains(u) { urls.insert(u, at: 0) }
        item.urls = urls.filter { !$0.isEmpty }
        item.created = o["createdAt"]?.uint64Value.map { Timestamp(milliseconds: Int64($0) * 1000) }
        item.modified = o["updatedAt"]?.uint64Value.map { Timestamp(milliseconds: Int64($0) * 1000) }
        if let n = details["notesPlain"]?.stringValue, !n.isEmpty { item.notes = SecretBytes(utf8: n) }
        if let p = details["password"]?.stringValue, !p.isEmpty { item.password = SecretBytes(utf8: p) }
        if let category = o["categoryUuid"]?.stringValue, category != "001", category != "005", category != "003" {
            item.addField("category", categoryNames[category] ?? category)
        }
        for f in details["loginFields"]?.arrayValue ?? [] {
            guard let fo = f.objectValue, let value = fo["value"]?.stringValue, !value.isEmpty else { continue }
            switch fo["designation"]?.stringValue {
            case "username"?: item.username = value
            case "password"?: item.password = SecretBytes(utf8: value)
            default: item.addField(fo["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? fo["id"]?.stringValue ?? "field", value)
            }
        }
        for section in details["sections"]?.arrayValue ?? [] {
            let sectionTitle = section.objectValue?["title"]?.stringValue ?? ""
            for f in section.objectValue?["fields"]?.arrayValue ?? [] {
                guard let fo = f.objectValue, let value = fo["value"]?.objectValue, let (kind, v) = value.first else { continue }
                let title = fo["title"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? fo["id"]?.stringValue ?? "field"
                if kind == "totp", let text = v.stringValue, !text.isEmpty, item.otp == nil,
                   let uri = OTPAuth.uri(from: text, issuer: item.title, account: item.username) {
                    item.otp = SecretBytes(utf8: uri); continue
                }
                let name = sectionTitle.isEmpty ? title : sectionTitle + " " + title
                item.addField(name, text(kind: kind, v))
            }
        }
        if item.username == nil, let u = overview["subtitle"]?.stringValue, !u.isEmpty, o["categoryUuid"]?.stringValue == "001" { item.username = u }
        for h in details["passwordHistory"]?.arrayValue ?? [] {
            guard let ho = h.objectValue, let v = ho["value"]?.stringValue, let t = ho["time"]?.uint64Value else { continue }
            item.history.append(InterchangeHistoryItem(field: "password", value: SecretBytes(utf8: v), modified: nil, replaced: Timestamp(milliseconds: Int64(t) * 1000)))
        }
        if details["documentAttributes"] != nil { item.omitted.append("document file") }
        return item
    }

    /// A section field's value as text: strings as they are, dates as ISO dates, addresses and
    /// other objects as `key: value` lines.
    static func text(kind: String, _ v: JSONValue) -> String? {
        switch v {
        case .string(let s): return s
        case .number(let n):
            if kind == "date", let secs = Int64(n) { return String(Timestamp(milliseconds: secs * 1000).description.prefix(10)) }
            if kind == "monthYear", n.count == 6 { return String(n.prefix(4)) + "-" + String(n.suffix(2)) }
            return n
        case .bool(let b): return b ? "true" : "false"
        case .object(let o):
            if kind == "email", let e = o["email_address"]?.stringValue { return e }
            return o.keys.sorted().compactMap { k in o[k]?.stringValue.flatMap { $0.isEmpty ? nil : "\(k): \($0)" } }.joined(separator: "\n")
        default: return nil
        }
    }
}
