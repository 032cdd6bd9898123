// Readers for CSV exports: KeePassXC, 1Password, Chrome and Firefox (README "Import: formats").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// The CSV exports Tresor reads, each by its documented columns.
public enum CSVFormats {
    /// KeePassXC's CSV export: `Group, Title, Username, Password, URL, Notes, TOTP, Icon, Last Modified,
    /// Created` (a `Tags` column too, when present). The first group name is the database's root group.
    public static func readKeePassXC(_ path: String) throws -> InterchangeDocument {
        let t = try CSVTable.read(path)
        try t.require(["Group", "Title", "Password"])
        let c = (group: t.column("Group"), title: t.column("Title"), user: t.column("Username"), password: t.column("Password"),
                 url: t.column("URL"), notes: t.column("Notes"), totp: t.column("TOTP"), modified: t.column("Last Modified"),
                 created: t.column("Created"), tags: t.column("Tags"))
        var doc = InterchangeDocument()
        for row in t.rows {
            let group = (CSVTable.cell(row, c.group) ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            var item = InterchangeEntry(folder: Array(group.dropFirst()), title: CSVTable.cell(row, c.title) ?? "")
            if group.count > 1, group[1] == "Recycle Bin" { doc.skipped.append((item.sourceName, .deleted)); continue }
            fill(&item, row: row, username: c.user, password: c.password, urls: [c.url], notes: c.notes, totp: c.totp)
            item.tags = (CSVTable.cell(row, c.tags) ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimming(.whitespaces) }
            item.modified = CSVTable.cell(row, c.modified).flatMap(ISOTime.parse)
            item.created = CSVTable.cell(row, c.created).flatMap(ISOTime.parse)
            doc.entries.append(item)
        }
        return doc
    }

    /// 1Password's CSV export (1Password 8: `Title, Url, Username, Password, OTPAuth, Favorite, Archived,
    /// Tags, Notes`; 1Password 7's column names too). Columns it does not know become custom fields.
    public static func readOnePassword(_ path: String) throws -> InterchangeDocument {
        let t = try CSVTable.read(path)
        try t.require(["Title"])
        let c = (title: t.column("Title"), url: t.column("Url", "URL", "Website", "Login URL"), user: t.column("Username", "Login Username"),
                 password: t.column("Password", "Login Password"), otp: t.column("OTPAuth", "One-time password", "OTP"),
                 tags: t.column("Tags"), notes: t.column("Notes", "notesPlain"), archived: t.column("Archived"), favorite: t.column("Favorite"))
        let known = Set([c.title, c.url, c.user, c.password, c.otp, c.tags, c.notes, c.archived, c.favorite].compactMap { $0 })
        var doc = InterchangeDocument()
        for row in t.rows {
            var item = InterchangeEntry(title: CSVTable.cell(row, c.title) ?? "")
            fill(&item, row: row, username: c.user, password: c.password, urls: [c.url], notes: c.notes, totp: c.otp)
            item.tags = (CSVTable.cell(row, c.tags) ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimming(.whitespaces) }
            if CSVTable.cell(row, c.archived)?.lowercased() == "true" { item.tags.append("archived") }
            if CSVTable.cell(row, c.favorite)?.lowercased() == "true" { item.tags.append("favorite") }
            for (i, name) in t.header.enumerated() where !known.contains(i) { item.addField(name, CSVTable.cell(row, i)) }
            doc.entries.append(item)
        }
        return doc
    }

    /// Chrome's "Export passwords": `name, url, username, password` (and `note` in newer versions).
    public static func readChrome(_ path: String) throws -> InterchangeDocument {
        let t = try CSVTable.read(path)
        try t.require(["name", "url", "username", "password"])
        let c = (name: t.column("name"), url: t.column("url"), user: t.column("username"), password: t.column("password"), note: t.column("note"))
        var doc = InterchangeDocument()
        for row in t.rows {
            let url = CSVTable.cell(row, c.url)
            var item = InterchangeEntry(title: CSVTable.cell(row, c.name) ?? url.flatMap(host) ?? "")
            fill(&item, row: row, username: c.user, password: c.password, urls: [c.url], notes: c.note, totp: nil)
            doc.entries.append(item)
        }
        return doc
    }

    /// Firefox's "Export Logins": `url, username, password, httpRealm, formActionOrigin, guid, timeCreated,
    /// timeLastUsed, timePasswordChanged` (times in milliseconds). The title is the site's host name.
    public static func readFirefox(_ path: String) throws -> InterchangeDocument {
        let t = try CSVTable.read(path)
        try t.require(["url", "username", "password"])
        let c = (url: t.column("url"), user: t.column("username"), password: t.column("password"), realm: t.column("httpRealm"),
                 action: t.column("formActionOrigin"), created: t.column("timeCreated"), changed: t.column("timePasswordChanged"))
        var doc = InterchangeDocument()
        for row in t.rows {
            let url = CSVTable.cell(row, c.url) ?? ""
            var item = InterchangeEntry(title: host(url) ?? url)
            fill(&item, row: row, username: c.user, password: c.password, urls: [c.url], notes: nil, totp: nil)
            item.addField("httpRealm", CSVTable.cell(row, c.realm))
            if let action = CSVTable.cell(row, c.action), action != url { item.addField("formActionOrigin", action) }
            item.created = CSVTable.cell(row, c.created).flatMap { Int64($0) }.map { Timestamp(milliseconds: $0) }
            item.modified = CSVTable.cell(row, c.changed).flatMap { Int64($0) }.map { Timestamp(milliseconds: $0) }
            doc.entries.append(item)
        }
        return doc
    }

    static func fill(_ item: inout InterchangeEntry, row: [String], username: Int?, password: Int?, urls: [Int?], notes: Int?, totp: Int?) {
        item.username = CSVTable.cell(row, username)
        item.password = CSVTable.cell(row, password).map { SecretBytes(utf8: $0) }
        item.urls = urls.compactMap { CSVTable.cell(row, $0) }
        item.notes = CSVTable.cell(row, notes).map { SecretBytes(utf8: $0) }
        if let otp = CSVTable.cell(row, totp) {
            if let uri = OTPAuth.uri(from: otp, issuer: item.title, account: item.username) { item.otp = SecretBytes(utf8: uri) }
            else { item.addField("otp", otp) }
        }
    }

    /// The host of a URL (`https://accounts.example.com/login` → `accounts.example.com`).
    static func host(_ url: String) -> String? {
        URLComponents(string: url)?.host.flatMap { $0.isEmpty ? nil : $0 }
    }
}
