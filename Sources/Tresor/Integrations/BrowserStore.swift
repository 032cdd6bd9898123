// The vault as the browserpass extension sees it: a "password store" of HOST/ENTRY.gpg files in pass's text format.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// How entries are shown to the browserpass extension (README "Browser autofill").
///
/// The extension decides which logins belong to a page by the *file name* it is given, not by the contents: it
/// walks the name's folders from the end and takes the first that looks like a domain. So each entry is listed once
/// per host of its http(s) URLs, under that host: `example.org/Email/alice.gpg` for the entry `Email/alice` with the
/// URL `https://example.org/login` (`HOST:PORT/…` for a URL with a port other than the default). In the entry part
/// every `.` is shown as `․` (U+2024, one dot leader) and `%` as `%25` (a literal U+2024 as `%E2%80%A4`), so that no
/// folder or name of the entry's own path can be taken for a domain: only the URL's host decides where an entry is
/// offered. Entries without an http(s) URL are listed under `(no url)/`: they show up when searching in the popup,
/// never on a page. Entries without a password, or whose password or user name spans several lines, are not listed.
///
/// The contents are pass's format, which the extension parses: the password on the first line, then `login: USER`,
/// `url: URL` (the entry's URL on that host) and `otp: otpauth://…` when the entry has them. Nothing else of the
/// entry is given out.
package enum BrowserStore {
    /// The folder of entries without an http(s) URL.
    package static let noURLFolder = "(no url)"
    static let dotLeader: Unicode.Scalar = "\u{2024}"

    /// The hosts (with a non-default port) of the entry's http(s) URLs, each once, in the entry's order.
    package static func hosts(of entry: Entry) -> [String] {
        var seen: [String] = []
        for url in entry.list("urls").compactMap(SiteURL.init) where ["http", "https"].contains(url.scheme) && !seen.contains(url.hostAndPort) {
            seen.append(url.hostAndPort)
        }
        return seen
    }

    /// Whether the entry is served: it has a password, and neither it nor the user name spans several lines.
    package static func isServed(_ entry: Entry) -> Bool {
        guard let password = entry.secret("password"), !password.isEmpty, oneLine(password) else { return false }
        return entry.secret("username").map(oneLine) ?? true
    }

    static func oneLine(_ t: SecretText) -> Bool { t.withUTF8 { !$0.contains(0x0A) && !$0.contains(0x0D) } }

    /// The file names the entry is listed under (empty when it is not served).
    package static func files(for entry: Entry) -> [String] {
        guard isServed(entry) else { return [] }
        let name = encode(entry.path) + ".gpg"
        let hosts = hosts(of: entry)
        return hosts.isEmpty ? [noURLFolder + "/" + name] : hosts.map { $0 + "/" + name }
    }

    /// The folders of `files` (each prefix that ends before a `/`), sorted, each once: the extension's `tree`.
    package static func directories(of files: [String]) -> [String] {
        var out = Set<String>()
        for f in files {
            var prefix = ""
            for part in EntryPath.split(f).dropLast() {
                prefix += (prefix.isEmpty ? "" : "/") + part
                out.insert(prefix)
            }
        }
        return out.sorted()
    }

    /// The entry path shown with `.` as U+2024 and `%`, U+2024 percent-encoded.
    static func encode(_ path: EntryPath) -> String {
        var out = String.UnicodeScalarView()
        for s in path.string.unicodeScalars {
            switch s {
            case ".": out.append(dotLeader)
            case "%": out.append(contentsOf: "%25".unicodeScalars)
            case dotLeader: out.append(contentsOf: "%E2%80%A4".unicodeScalars)
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// The host (nil under `(no url)`) and entry path of a file name the extension sends back.
    /// - Throws: `IntegrationError.browserFile`.
    package static func parse(file: String) throws -> (host: String?, path: EntryPath) {
        func fail(_ p: IntegrationError.BrowserFileProblem) -> IntegrationError { .browserFile(file: file, problem: p) }
        guard file.hasSuffix(".gpg") else { throw fail(.fileExtension) }
        let stem = file.dropLast(4)
        guard let slash = stem.firstIndex(of: "/"), slash != stem.startIndex else { throw fail(.noHost) }
        let host = String(stem[..<slash])
        var bytes: [UInt8] = []
        for s in stem[stem.index(after: slash)...].unicodeScalars {
            if s == dotLeader { bytes.append(0x2E) } else { bytes.append(contentsOf: String(s).utf8) }
        }
        guard let decoded = SecretReference.percentDecode(bytes), let text = String(validating: decoded, as: UTF8.self) else {
            throw fail(.path(nil))
        }
        do { return (host == noURLFolder ? nil : host.lowercased(), try EntryPath(text)) } catch CoreError.invalidPath(_, let rule) {
            throw fail(.path(rule))
        }
    }

    /// The text the extension parses, for the entry as listed under `host` (nil: `(no url)`).
    package static func contents(of entry: Entry, host: String?) -> SecretBytes {
        var out = SecretByteBuilder()
        if let p = entry.secret("password") { p.withUTF8 { out.append($0) } }
        out.append(0x0A)
        if let u = entry.secret("username"), !u.isEmpty {
            out.append("login: ")
            u.withUTF8 { out.append($0) }
            out.append(0x0A)
        }
        let urls = entry.list("urls")
        if let host, let url = urls.first(where: { SiteURL($0)?.hostAndPort == host }) {
            out.append("url: " + url.filter { $0 != "\n" && $0 != "\r" } + "\n")
        }
        if let otp = entry.secret(TOTP.fieldName), oneLine(otp) {
            out.append("otp: ")
            otp.withUTF8 { out.append($0) }
            out.append(0x0A)
        }
        return out.finish()
    }

    /// What a `save` sends, taken apart: the first line is the password; `login:`/`username:`/`user:`, `url:` (and the
    /// extension's other names for it), `otp:`/`totp:` (or a bare otpauth:// line) are fields; other lines are notes.
    package struct SavedText {
        package var password: SecretText?
        package var username: SecretText?
        package var urls: [String] = []
        package var otp: SecretText?
        package var other: [String] = []
    }

    package static func parse(contents: SecretText) -> SavedText {
        var saved = SavedText()
        contents.withUTF8 { all in
            var lines: [UnsafeRawBufferPointer] = []
            var start = 0
            for i in 0...all.count where i == all.count || all[i] == 0x0A {
                var end = i
                if end > start, all[end - 1] == 0x0D { end -= 1 }
                lines.append(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = i + 1
            }
            if let first = lines.first, first.count > 0 { saved.password = SecretText(copying: first) }
            for line in lines.dropFirst() where line.count > 0 {
                let text = String(decoding: line, as: UTF8.self)
                if text.lowercased().hasPrefix("otpauth://") { saved.otp = SecretText(copying: line); continue }
                guard let colon = line.firstIndex(of: 0x3A) else { saved.other.append(text); continue }
                let key = String(decoding: line[..<colon], as: UTF8.self).trimming(.whitespaces).lowercased()
                var v = colon + 1
                while v < line.count, line[v] == 0x20 || line[v] == 0x09 { v += 1 }
                var e = line.count
                while e > v, line[e - 1] == 0x20 || line[e - 1] == 0x09 { e -= 1 }
                let value = UnsafeRawBufferPointer(rebasing: line[v..<e])
                switch key {
                case "login", "username", "user": saved.username = SecretText(copying: value)
                case "url", "uri", "website", "site", "link", "launch": if value.count > 0 { saved.urls.append(String(decoding: value, as: UTF8.self)) }
                case "otp", "totp": saved.otp = SecretText(copying: value)
                default: saved.other.append(text)
                }
            }
        }
        return saved
    }
}

extension Vault {
    /// Every file name the extension is shown (sorted), from the local search cache (only entries changed since
    /// the last search or listing are decrypted again). Entries that cannot be read are left out.
    /// - Throws: `VaultError.vaultLocked`.
    package func browserFiles() throws -> [String] {
        var files: [String] = []
        for candidate in try searchCandidates(lowercasedNeedle: "").candidates {
            guard case .success(let entry)? = candidate.entry else { continue }
            files.append(contentsOf: BrowserStore.files(for: entry))
        }
        return files.sorted()
    }

    /// The entry a file name names, checked to be listed under that name.
    /// - Throws: `IntegrationError.browserFile`, and the errors of `read`.
    package func browserEntry(file: String) throws -> (entry: Entry, host: String?) {
        let (host, path) = try BrowserStore.parse(file: file)
        let entry = try read(try existingPath(path.string))
        guard BrowserStore.isServed(entry) else { throw IntegrationError.browserFile(file: file, problem: .notServed(path: path.string)) }
        let hosts = BrowserStore.hosts(of: entry)
        guard host.map(hosts.contains) ?? hosts.isEmpty else {
            throw IntegrationError.browserFile(file: file, problem: .notUnderHost(path: path.string))
        }
        return (entry, host)
    }

    /// Saves what the extension's `save` sends for `file`: a new entry (the password, user name, URLs, one-time code
    /// and the other lines as notes; the URL `https://HOST` when the text names none), or the fields the text has
    /// changed in the entry listed under that name (other lines not yet in its notes are added to them). One commit.
    /// - Throws: `IntegrationError.browserFile`, and the errors of `add` and `edit`.
    @discardableResult
    package func saveFromBrowser(file: String, contents: SecretText) throws -> EntryPath {
        let (host, path) = try BrowserStore.parse(file: file)
        let saved = BrowserStore.parse(contents: contents)
        var changes: [String: FieldValue?] = [:]
        if let p = saved.password { changes["password"] = .text(p) }
        if let u = saved.username { changes["username"] = .text(u) }
        if let o = saved.otp {
            // A bare secret (which browserpass also takes) becomes the URI `tresor otp` reads; either must parse.
            let uri = o.makeString().lowercased().hasPrefix("otpauth://") ? o : SecretText("otpauth://totp/tresor?secret=" + o.makeString())
            do { _ = try TOTP(uri: uri.makeString()) } catch let e as OTPError {
                throw IntegrationError.browserFile(file: file, problem: .otp(e))
            }
            changes[TOTP.fieldName] = .text(uri)
        }
        if contains(path) {
            let (entry, _) = try browserEntry(file: file)
            var urls = entry.list("urls")
            for u in saved.urls where !urls.contains(u) { urls.append(u) }
            if urls != entry.list("urls") { changes["urls"] = .list(urls) }
            let notes = entry.text("notes") ?? ""
            let newLines = saved.other.filter { !notes.contains($0) }
            if !newLines.isEmpty { changes["notes"] = .text(SecretText((notes.isEmpty ? "" : notes + "\n") + newLines.joined(separator: "\n"))) }
            _ = try edit(entry, changes: changes)
        } else {
            var fields = changes.compactMapValues { $0 }
            let urls = saved.urls.isEmpty ? host.map { ["https://" + $0] } ?? [] : saved.urls
            if !urls.isEmpty { fields["urls"] = .list(urls) }
            if !saved.other.isEmpty { fields["notes"] = .text(SecretText(saved.other.joined(separator: "\n"))) }
            try add(path, fields: fields)
        }
        return path
    }
}
