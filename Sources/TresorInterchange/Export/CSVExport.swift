// The CSV export in KeePassXC's column order, written by CSVText.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// CSV in the columns KeePassXC exports and imports: `Group, Title, Username, Password, URL, Notes, TOTP,
/// Icon, Last Modified, Created`. The group is `Root/` and the entry's folder; the first URL only.
public enum CSVExport {
    /// KeePassXC's CSV columns, in its order.
    public static let header = ["Group", "Title", "Username", "Password", "URL", "Notes", "TOTP", "Icon", "Last Modified", "Created"]

    /// The CSV text of `entries` in a zeroing buffer, every field quoted, rows ended by line feeds.
    public static func export(_ entries: [Entry]) throws -> SecretBytes {
        var csv = SecretByteBuilder(capacity: 4096)
        CSVText.appendRow(header, to: &csv, first: true)
        for e in entries {
            let folder = e.path.folder
            let row = [folder.isEmpty ? "Root" : "Root/" + folder, e.path.name, e.text("username") ?? "", e.text("password") ?? "",
                       e.list("urls").first ?? "", e.text("notes") ?? "",
                       e.text(OTPAuth.fieldName).flatMap { OTPAuth.isURI($0) ? $0 : nil } ?? "", "0",
                       iso(e.modified), iso(e.created)]
            CSVText.appendRow(row, to: &csv, first: false)
        }
        csv.append(0x0A)
        return csv.finish()
    }

    /// `2026-11-23T22:56:47Z`, as KeePassXC writes times.
    static func iso(_ t: Timestamp) -> String {
        let s = t.description
        return String(s.prefix(19)) + "Z"
    }
}

/// Plaintext export files: created new (never over an existing file), mode 0600, complete or absent.
public enum ExportFile {
    /// Writes `bytes` to a temporary 0600 file beside `path`, syncs it, then links it to `path`, which
    /// fails if anything is there: no existing file is ever replaced, and no half-written file appears.
    /// - Throws: `.outputExists`, `.cannotWrite`.
    public static func writeNew(_ bytes: SecretBytes, to path: String) throws {
        guard FileSystem.kind(path) == .missing else { throw InterchangeError.outputExists(path: path) }
        let dir = PathName.deletingLast(path).isEmpty ? "." : PathName.deletingLast(path)
        let tmp = dir + "/." + PathName.last(path) + ".tmp-" + Hex.lower(Sodium.randomBytes(6))
        func cannotWrite(_ code: Int32) -> InterchangeError { .cannotWrite(path: path, .errno(code)) }
        let fd: Int32
        do { fd = try FileSystem.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600) } catch { throw cannotWrite(error.errno) }
        defer { _ = try? FileSystem.removeIfPresent(tmp) }  // (the link below made `path` the file: the name goes either way)
        let written = bytes.withBytes { b in
            Result { () throws(FileSystem.Failure) in
                try FileSystem.writeAll(fd, b, path: tmp)
                try FileSystem.sync(fd, path: tmp)
            }
        }
        FileSystem.close(fd)
        if case .failure(let e) = written { throw cannotWrite(e.errno) }
        do { try FileSystem.link(tmp, to: path) } catch {
            let e = error.errno
            if e == EEXIST { throw InterchangeError.outputExists(path: path) }
            guard e == EPERM || e == EOPNOTSUPP else { throw InterchangeError.cannotWrite(path: path, .errno(e)) }
            // A file system without hard links (FAT, some network mounts): create the name exclusively
            // and write into it; on failure it is removed.
            try writeExclusively(bytes, to: path)
            return
        }
        FileSystem.syncDirectory(dir)
    }

    static func writeExclusively(_ bytes: SecretBytes, to path: String) throws {
        let written = bytes.withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.createNew(path, mode: 0o600, bytes: b) } }
        if case .failure(let e) = written {
            if e.call == .open, e.errno == EEXIST { throw InterchangeError.outputExists(path: path) }
            throw InterchangeError.cannotWrite(path: path, .errno(e.errno))
        }
    }
}
