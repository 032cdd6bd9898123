// Bitwarden's unencrypted JSON export: logins, secure notes, cards, identities, custom fields, TOTP, folders.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Reads Bitwarden's "File format: .json" export (README "Import: Bitwarden").
public enum Bitwarden {
    /// - Throws: `.cannotRead`, `.malformed`, `.unsupported` (an encrypted export).
    public static func read(_ path: String) throws -> InterchangeDocument {
        let root = try JSONFile.read(path)
        guard let top = root.objectValue else { throw InterchangeError.malformed(path: path, .notAnObject) }
        if case .bool(true)? = top["encrypted"] { throw InterchangeError.unsupported(path: path, feature: .encryptedBitwardenExport) }
        guard let items = top["items"]?.arrayValue else { throw InterchangeError.malformed(path: path, .missingMember("items")) }
        var folders: [String: String] = [:]
        for f in top["folders"]?.arrayValue ?? [] {
            if let id = f.objectValue?["id"]?.stringValue, let name = f.objectValue?["name"]?.stringValue { folders[id] = name }
        }
        var collections: [String: String] = [:]
        for c in top["collections"]?.arrayValue ?? [] {
            if let id = c.objectValue?["id"]?.stringValue, let name = c.objectValue?["name"]?.stringValue { collections[id] = name }
        }
        var doc = InterchangeDocument()
        for raw in items {
            guard let o = raw.objectValue else { throw InterchangeError.malformed(path: path, .badItem(index: nil)) }
            func s(_ k: String, _ obj: [String: JSONValue]? = nil) -> String? { (obj ?? o)[k]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
            let folderName = s("folderId").flatMap { folders[$0] }
                ?? o["collectionIds"]?.arrayValue?.first?.stringValue.flatMap { collections[$0] }
            var item = InterchangeEntry(folder: folderName.map { $0.split(separator: "/").map(String.init) } ?? [], title: s("name") ?? "")
            if s("deletedDate") != nil { doc.skipped.append((item.sourceName, .deleted)); continue }
            item.notes = s("notes").map { SecretBytes(utf8: $0) }
            item.created = s("creationDate").flatMap(ISOTime.parse)
            item.modified = s("revisionDate").flatMap(ISOTime.parse)
            if case .bool(true)? = o["favorite"] { item.tags.append("favorite") }
            let type = o["type"]?.uint64Value ?? 0
            switch type {
            case 1:
                let login = o["login"]?.objectValue ?? [:]
                item.username = s("username", login)
                item.password = s("password", login).map { SecretBytes(utf8: $0) }
                item.urls = (login["uris"]?.arrayValue ?? []).compactMap { $0.objectValue?["uri"]?.stringValue }.filter { !$0.isEmpty }
                if let totp = s("totp", login) {
                    if let uri = OTPAuth.uri(from: totp, issuer: item.title, account: item.username) { item.otp = SecretBytes(utf8: uri) }
                    else { item.addField("totp", totp) }
                }
                if !(login["fido2Credentials"]?.arrayValue ?? []).isEmpty { item.omitted.append("passkey") }
            case 2: break
            case 3:
                let card = o["card"]?.objectValue ?? [:]
                for k in ["cardholderName", "brand", "number", "expMonth", "expYear", "code"] { item.addField(k, s(k, card)) }
            case 4:
                let id = o["identity"]?.objectValue ?? [:]
                for k in ["title", "firstName", "middleName", "lastName", "address1", "address2", "address3", "city", "state",
                          "postalCode", "country", "company", "email", "phone", "ssn", "username", "passportNumber", "licenseNumber"] {
                    item.addField(k, s(k, id))
                }
            case 5:
                let key = o["sshKey"]?.objectValue ?? [:]
                for k in ["privateKey", "publicKey", "keyFingerprint"] { item.addField(k, s(k, key)) }
            default:
                doc.skipped.append((item.sourceName, .unsupported(.bitwardenItemType(Int(clamping: type))))); continue
            }
            for f in o["fields"]?.arrayValue ?? [] {
                guard let fo = f.objectValue else { continue }
                let name = fo["name"]?.stringValue ?? ""
                if fo["type"]?.uint64Value == 3 { item.omitted.append("linked field \"\(name)\""); continue }
                item.addField(name.isEmpty ? "field" : name, fo["value"]?.stringValue)
            }
            for h in o["passwordHistory"]?.arrayValue ?? [] {
                guard let ho = h.objectValue, let pw = ho["password"]?.stringValue,
                      let when = ho["lastUsedDate"]?.stringValue.flatMap(ISOTime.parse) else { continue }
                item.history.append(InterchangeHistoryItem(field: "password", value: SecretBytes(utf8: pw), modified: nil, replaced: when))
            }
            doc.entries.append(item)
        }
        return doc
    }
}

/// A JSON file read whole with Tresor's strict parser.
enum JSONFile {
    static func read(_ path: String) throws -> JSONValue {
        var bytes = try KeePass.readFile(path, limit: 256 << 20)
        defer { Sodium.wipe(&bytes) }
        return try parse(bytes, file: path)
    }

    static func parse(_ input: [UInt8], file: String) throws -> JSONValue {
        var bytes = input
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        defer { Sodium.wipe(&bytes) }
        do { return try JSONValue.parse(bytes) } catch let e as JSONParseError {
            throw InterchangeError.malformed(path: file, .notJSON(e))
        }
    }
}
