// KeePass and KeePassXC databases and XML exports: groups become folders, entry history becomes field history.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// Reads KeePass 2 / KeePassXC data (README "Import: KeePass").
public enum KeePass {
    /// Reads a `.kdbx` database (KDBX 3.1 or 4.x) opened with `password` and/or the key file at `keyFile`.
    /// - Throws: `.cannotRead`, `.wrongKey`, `.malformed`, `.unsupported`.
    public static func readDatabase(_ path: String, password: SecretBytes?, keyFile: String?) throws -> InterchangeDocument {
        let bytes = try readFile(path, limit: 256 << 20)
        let keyBytes = try keyFile.map { try readFile($0, limit: 1 << 20) }
        let contents = try KDBXFile.open(bytes, file: path, password: password, keyFile: keyBytes)
        let root = try XMLElement.parse(contents.xml, file: path)
        return try document(root, stream: contents.protectedStream, file: path)
    }

    /// Reads an unencrypted KeePass XML export (KeePass 2 "KeePass XML (2.x)", `keepassxc-cli export`).
    public static func readXML(_ path: String) throws -> InterchangeDocument {
        let bytes = SecretBytes(copying: try readFile(path, limit: 256 << 20))
        return try document(try XMLElement.parse(bytes, file: path), stream: nil, file: path)
    }

    /// The bytes of a source file named by the user: a regular file, a link to one, or a pipe
    /// (`<(gpg -d backup.json.gpg)`); `-` is standard input. At most `limit` bytes.
    static func readFile(_ path: String, limit: Int) throws -> [UInt8] {
        if path != "-" {
            let found: stat?
            do { found = try FileSystem.status(path, followingLinks: true) }
            catch { throw InterchangeError.cannotRead(path: path, .errno(error.errno)) }
            guard let st = found else { throw InterchangeError.cannotRead(path: path, .errno(ENOENT)) }
            guard st.st_mode & S_IFMT != S_IFDIR else { throw InterchangeError.cannotRead(path: path, .isDirectory) }
        }
        let fd: Int32
        do { fd = path == "-" ? STDIN_FILENO : try FileSystem.open(path, O_RDONLY | O_CLOEXEC) }
        catch { throw InterchangeError.cannotRead(path: path, .errno(error.errno)) }
        defer { if path != "-" { FileSystem.close(fd) } }
        // Read in chunks up to one byte past the limit, into a buffer that is wiped whenever it grows.
        var data = [UInt8](repeating: 0, count: min(limit + 1, 1 << 20))
        var count = 0
        while count <= limit {
            if count == data.count {
                var bigger = [UInt8](repeating: 0, count: min(limit + 1, data.count * 2))
                data.withUnsafeBytes { old in bigger.withUnsafeMutableBytes { $0.copyMemory(from: old) } }
                Sodium.wipe(&data)
                data = bigger
            }
            let read = data.withUnsafeMutableBytes { b in
                Result { () throws(FileSystem.Failure) in try FileSystem.readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[count...]), path: path) }
            }
            let n: Int
            switch read {
            case .success(let got): n = got
            case .failure(let e): Sodium.wipe(&data); throw InterchangeError.cannotRead(path: path, .errno(e.errno))
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { Sodium.wipe(&data); throw InterchangeError.malformed(path: path, .tooLarge(limit: limit)) }
        let bytes = Array(data[..<count])
        Sodium.wipe(&data)
        return bytes
    }

    /// The entries of a KeePass XML document. Protected values are decrypted with `stream` in document
    /// order (KeePass's rule), before anything else is read.
    static func document(_ root: XMLElement, stream: StreamCipher?, file: String) throws -> InterchangeDocument {
        guard root.name == "KeePassFile", let top = root.child("Root")?.child("Group") else {
            throw InterchangeError.malformed(path: file, .notKeePassXML)
        }
        try root.walk { e in
            guard e.attributes["Protected"]?.lowercased() == "true" else { return }
            guard let stream else { throw InterchangeError.malformed(path: file, .protectedValueWithoutKey) }
            guard let raw = Data(base64Encoded: e.text.filter { !$0.isWhitespace }) else {
                throw InterchangeError.malformed(path: file, .protectedValueNotBase64)
            }
            var bytes = [UInt8](raw)
            e.secret = try stream.apply(bytes)
            Sodium.wipe(&bytes)
        }
        let meta = root.child("Meta")
        let recycleBin = meta?.value("RecycleBinEnabled")?.lowercased() == "true" ? meta?.value("RecycleBinUUID") : nil
        var doc = InterchangeDocument()
        func walk(_ group: XMLElement, folder: [String], deleted: Bool) {
            for e in group.children("Entry") {
                var item = entry(e, folder: folder)
                if deleted { doc.skipped.append((item.sourceName, .deleted)); continue }
                item.omitted = e.children("Binary").compactMap { $0.value("Key") }.map { "attachment \"\($0)\"" }
                doc.entries.append(item)
            }
            for g in group.children("Group") {
                let isBin = recycleBin != nil && g.value("UUID") == recycleBin && recycleBin != "AAAAAAAAAAAAAAAAAAAAAA=="
                walk(g, folder: folder + [g.value("Name") ?? ""], deleted: deleted || isBin)
            }
        }
        walk(top, folder: [], deleted: false)
        return doc
    }

    /// One version of an entry: its attributes, tags and modification time.
    struct Version {
        var strings: [String: SecretBytes] = [:]
        var order: [String] = []
        var tags: [String] = []
        var modified: Timestamp?
        var created: Timestamp?
    }

    static func version(_ e: XMLElement) -> Version {
        var v = Version()
        for s in e.children("String") {
            guard let key = s.value("Key"), let valueElement = s.child("Value") else { continue }
            v.strings[key] = valueElement.secret ?? SecretBytes(utf8: valueElement.text)
            v.order.append(key)
        }
        v.tags = (e.value("Tags") ?? "").split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimming(.whitespaces) }.filter { !$0.isEmpty }
        v.modified = e.child("Times")?.value("LastModificationTime").flatMap(time)
        v.created = e.child("Times")?.value("CreationTime").flatMap(time)
        return v
    }

    static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]
    static func isOTPKey(_ k: String) -> Bool { k == "otp" || k == "TOTP Seed" || k == "TOTP Settings" || k.hasPrefix("TimeOtp-") }

    /// A version's values under Tresor's field names (`urls` and `tags` joined by newlines).
    static func fields(_ v: Version, title: String) -> [(String, SecretBytes)] {
        func text(_ k: String) -> String? { v.strings[k]?.utf8String().flatMap { $0.isEmpty ? nil : $0 } }
        var out: [(String, SecretBytes)] = []
        if let p = v.strings["Password"], p.count > 0 { out.append(("password", p)) }
        if let u = text("UserName") { out.append(("username", SecretBytes(utf8: u))) }
        let urls = ([text("URL")] + v.order.filter { $0.hasPrefix("KP2A_URL") }.map(text)).compactMap { $0 }
        if !urls.isEmpty { out.append(("urls", SecretBytes(utf8: urls.joined(separator: "\n")))) }
        if let n = v.strings["Notes"], n.count > 0 { out.append(("notes", n)) }
        if !v.tags.isEmpty { out.append(("tags", SecretBytes(utf8: v.tags.joined(separator: "\n")))) }
        if let otp = otpURI(v, title: title) { out.append((OTPAuth.fieldName, SecretBytes(utf8: otp))) }
        for k in v.order where !standardKeys.contains(k) && !isOTPKey(k) && !k.hasPrefix("KP2A_URL") {
            if let value = v.strings[k], value.count > 0 { out.append((k, value)) }
        }
        return out
    }

    static func otpURI(_ v: Version, title: String) -> String? {
        let user = v.strings["UserName"]?.utf8String()
        if let otp = v.strings["otp"]?.utf8String(), !otp.isEmpty {
            return OTPAuth.uri(from: otp, issuer: title, account: user)
        }
        if let seed = v.strings["TOTP Seed"]?.utf8String(), !seed.isEmpty {
            return OTPAuth.uri(keePassSeed: seed, settings: v.strings["TOTP Settings"]?.utf8String(), issuer: title, account: user)
        }
        let timeOtp = v.order.filter { $0.hasPrefix("TimeOtp-") }.reduce(into: [String: String]()) { $0[$1] = v.strings[$1]?.utf8String() }
        return timeOtp.isEmpty ? nil : OTPAuth.uri(keePassTimeOtp: timeOtp, issuer: title, account: user)
    }

    /// The neutral entry for a KeePass `<Entry>`: the current values, and each earlier value of each field
    /// from the `<History>` versions (oldest first), replaced at the next version's modification time.
    static func entry(_ e: XMLElement, folder: [String]) -> InterchangeEntry {
        let current = version(e)
        let title = current.strings["Title"]?.utf8String() ?? ""
        var item = InterchangeEntry(folder: folder, title: title)
        let now = fields(current, title: title)
        for (name, value) in now {
            switch name {
            case "password": item.password = value
            case "username": item.username = value.utf8String()
            case "urls": item.urls = (value.utf8String() ?? "").split(separator: "\n").map(String.init)
            case "notes": item.notes = value
            case "tags": item.tags = current.tags
            case OTPAuth.fieldName: item.otp = value
            default: item.fields.append(InterchangeField(name: name, value: value))
            }
        }
        item.created = current.created
        item.modified = current.modified
        let versions = (e.child("History")?.children("Entry") ?? []).map(version)
            .sorted { ($0.modified ?? Timestamp(milliseconds: 0)) < ($1.modified ?? Timestamp(milliseconds: 0)) } + [current]
        guard versions.count > 1 else { return item }
        let maps = versions.map { v in Dictionary(fields(v, title: v.strings["Title"]?.utf8String() ?? title), uniquingKeysWith: { a, _ in a }) }
        let names = Set(maps.flatMap(\.keys))
        for name in names.sorted() {
            var since = versions[0].modified
            for k in 0..<(maps.count - 1) {
                let a = maps[k][name], b = maps[k + 1][name]
                let same = (a == nil && b == nil) || (a != nil && b != nil && a!.constantTimeEquals(b!))
                if same { continue }
                if let a {
                    let replaced = versions[k + 1].modified ?? versions[k].modified ?? Timestamp(milliseconds: 0)
                    item.history.append(InterchangeHistoryItem(field: name, value: a, modified: since, replaced: replaced,
                                                               reason: b == nil ? "delete" : "edit"))
                }
                since = versions[k + 1].modified
            }
        }
        return item
    }

    /// KDBX 4 times are base64 of little-endian seconds since 0001-01-01; KDBX 3.1 and XML use ISO 8601.
    static func time(_ s: String) -> Timestamp? {
        let t = s.trimming(.whitespaces)
        if !t.contains("-"), let d = Data(base64Encoded: t), d.count == 8 {
            let secs = Int64(bitPattern: KDBXFile.le64([UInt8](d)))
            return Timestamp(milliseconds: (secs - 62_135_596_800) * 1000)
        }
        return ISOTime.parse(t)
    }
}

/// ISO 8601 times as the vendors write them: `2024-01-02T03:04:05Z`, with a fraction or an offset.
/// Parsed by hand: a date formatter per value cost about 1 ms (most of a 1000-entry KeePass import).
enum ISOTime {
    static func parse(_ s: String) -> Timestamp? {
        let b = Array(s.utf8)
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard i < b.count, (0x30...0x39).contains(b[i]) else { return nil }; v = v * 10 + Int(b[i] - 0x30) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13), let mi = num(14..<16),
              let se = num(17..<19), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61 else { return nil }
        var i = 19
        var millis = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var digits = 0
            while i < b.count, (0x30...0x39).contains(b[i]) {
                if digits < 3 { millis = millis * 10 + Int(b[i] - 0x30) }
                digits += 1; i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offset = 0
        if i < b.count, b[i] == 0x5A, i == b.count - 1 { offset = 0 }
        else if i + 6 == b.count, b[i] == 0x2B || b[i] == 0x2D, b[i + 3] == 0x3A, let oh = num(i + 1..<i + 3), let om = num(i + 4..<i + 6) {
            offset = (oh * 60 + om) * 60 * (b[i] == 0x2D ? -1 : 1)
        } else { return nil }
        var t = tm()
        t.tm_year = Int32(y - 1900); t.tm_mon = Int32(mo - 1); t.tm_mday = Int32(d)
        t.tm_hour = Int32(h); t.tm_min = Int32(mi); t.tm_sec = Int32(se)
        let secs = Int64(timegm(&t)) - Int64(offset)
        return Timestamp(milliseconds: secs * 1000 + Int64(millis))
    }
}
