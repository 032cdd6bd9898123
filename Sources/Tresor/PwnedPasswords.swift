// Offline look-ups in Have I Been Pwned's "Pwned Passwords" SHA-1 data, by binary search over the file.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// What is wrong with a Pwned Passwords file or folder (`VaultError.pwnedPasswords`).
public enum PwnedPasswordsProblem: Equatable, Sendable {
    /// Nothing at the path.
    case missing
    /// The file or a range file cannot be opened or read.
    case unreadable
    /// A line at this byte offset is not `40 hex digits:count` (or `35 hex digits:count` in a range file).
    case malformed(offset: UInt64)
    /// The lines hold NTLM hashes (32 hex digits), not SHA-1.
    case notSHA1
    /// The folder lacks range files, so absence from it proves nothing.
    case incompleteFolder
}

/// An offline copy of Have I Been Pwned's Pwned Passwords (SHA-1 version), in one of its two shapes:
/// - one text file of `HASH:COUNT` lines ordered by hash (40 upper-case hex digits, CRLF or LF), as the
///   downloader writes it (about 40 GB): searched by binary search with small reads, never loaded;
/// - a folder of range files named by the first 5 hex digits (`ABCDE.txt` or `ABCDE`), each of
///   `SUFFIX:COUNT` lines with the other 35 digits: only the one range file is read.
/// No network is used. Look-ups take the SHA-1 in locked memory and print nothing.
package final class PwnedPasswords {
    /// The ordered file (an open descriptor) or the range folder.
    enum Shape { case file(Int32, size: UInt64), folder(String) }

    /// The file or folder given.
    package let path: String
    let shape: Shape
    /// Bytes read so far: a search reads a few kilobytes, whatever the size of the file.
    package private(set) var bytesRead: UInt64 = 0
    /// The longest line accepted (40 digits, a count of up to 20 digits, CR LF).
    static let maxLine = 64
    /// Below this span the search reads the span and scans it.
    static let scanWindow: UInt64 = 4096

    /// Opens a Pwned Passwords file or range folder. - Throws: `VaultError.pwnedPasswords`.
    package init(path: String) throws {
        self.path = path
        let found: stat?
        do { found = try FileSystem.status(path, followingLinks: true) } catch { throw VaultError.pwnedPasswords(path: path, .unreadable) }
        guard let st = found else { throw VaultError.pwnedPasswords(path: path, .missing) }
        if st.st_mode & S_IFMT == S_IFDIR {
            shape = .folder(path)
        } else {
            let fd: Int32
            do { fd = try FileSystem.open(path, O_RDONLY | O_CLOEXEC) } catch { throw VaultError.pwnedPasswords(path: path, .unreadable) }
            let opened: stat
            do { opened = try FileSystem.status(of: fd, path: path) } catch {
                FileSystem.close(fd)
                throw VaultError.pwnedPasswords(path: path, .unreadable)
            }
            shape = .file(fd, size: UInt64(max(0, opened.st_size)))
        }
    }

    deinit { if case .file(let fd, _) = shape { FileSystem.close(fd) } }

    /// How many times the password whose SHA-1 is `digest` (20 bytes) was seen, 0 if never.
    /// - Throws: `VaultError.pwnedPasswords` for an unreadable or malformed file or folder.
    package func count(sha1 digest: SecretBytes) throws -> UInt64 {
        precondition(digest.count == 20)
        switch shape {
        case .file(let handle, let size): return try searchFile(handle, size: size, digest)
        case .folder(let dir): return try searchFolder(dir, digest)
        }
    }

    /// How many times `password` was seen (its SHA-1 is computed from its UTF-8 bytes in locked memory).
    package func count(password: SecretBytes) throws -> UInt64 {
        try count(sha1: LibCrypto.digest(.sha1, of: password))
    }

    // MARK: the ordered file

    /// Up to `count` bytes at `offset` (fewer only at the end of the file).
    private func read(_ fd: Int32, at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let read = bytes.withUnsafeMutableBytes { b in
                Result { () throws(FileSystem.Failure) in
                    try FileSystem.readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[got...]), at: offset + UInt64(got), path: path)
                }
            }
            guard case .success(let n) = read else { throw VaultError.pwnedPasswords(path: path, .unreadable) }
            if n == 0 { break }
            got += n
        }
        bytesRead += UInt64(got)
        return Array(bytes[..<got])
    }

    /// Binary search on byte offsets. Invariant: the line holding `digest`, if any, starts in [lo, hi];
    /// `lo` is always the start of a line.
    private func searchFile(_ handle: Int32, size: UInt64, _ digest: SecretBytes) throws -> UInt64 {
        var lo: UInt64 = 0, hi = size
        while hi - lo > PwnedPasswords.scanWindow {
            let mid = lo + (hi - lo) / 2
            let chunk = try read(handle, at: mid, count: 2 * PwnedPasswords.maxLine + 1)
            // Lines are at most maxLine long, so the next line start is near and the whole next line is read.
            guard let newline = chunk.firstIndex(of: 10), newline < PwnedPasswords.maxLine else {
                throw VaultError.pwnedPasswords(path: path, .malformed(offset: mid))
            }
            let start = mid + UInt64(newline) + 1
            guard start < hi else { hi = mid; continue }
            let line = Array(chunk[(newline + 1)...])
            switch try compare(line, digest, prefixLength: 0, offset: start) {
            case .orderedAscending: lo = start
            case .orderedSame, .orderedDescending: hi = start
            }
        }
        // Scan the lines starting in [lo, hi].
        let chunk = try read(handle, at: lo, count: Int(hi - lo) + PwnedPasswords.maxLine)
        var i = 0
        while i < chunk.count, lo + UInt64(i) <= hi {
            let line = Array(chunk[i..<min(chunk.count, i + PwnedPasswords.maxLine)])
            if line.allSatisfy({ $0 == 10 || $0 == 13 }) { break }  // trailing blank line
            switch try compare(line, digest, prefixLength: 0, offset: lo + UInt64(i)) {
            case .orderedAscending: break
            case .orderedSame: return try lineCount(line, hashLength: 40, offset: lo + UInt64(i))
            case .orderedDescending: return 0
            }
            guard let newline = line.firstIndex(of: 10) else { break }
            i += newline + 1
        }
        return 0
    }

    // MARK: the range folder

    private func searchFolder(_ dir: String, _ digest: SecretBytes) throws -> UInt64 {
        // The range: the first 5 of the 40 hex digits.
        let prefix = digest.withBytes { d in Hex.upper([d[0], d[1]]) + String(d[2] >> 4, radix: 16, uppercase: true) }
        let candidates = [prefix + ".txt", prefix, prefix.lowercased() + ".txt", prefix.lowercased()]
        guard let name = candidates.first(where: { FileManager.default.fileExists(atPath: dir + "/" + $0) }) else {
            throw VaultError.pwnedPasswords(path: dir, .incompleteFolder)
        }
        let file = dir + "/" + name
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(file, limit: 16 << 20) } catch { throw VaultError.pwnedPasswords(path: file, .unreadable) }
        bytesRead += UInt64(bytes.count)
        var offset = 0
        while offset < bytes.count {
            let end = bytes[offset...].firstIndex(of: 10) ?? bytes.count
            let line = Array(bytes[offset..<end])
            if !line.isEmpty && line != [13] {
                if try compare(line, digest, prefixLength: 5, offset: UInt64(offset)) == .orderedSame {
                    return try lineCount(line, hashLength: 35, offset: UInt64(offset))
                }
            }
            offset = end + 1
        }
        return 0
    }

    // MARK: lines

    /// Compares the hash at the start of `line` (the digest's hex digits after the first `prefixLength`)
    /// with `digest`, nibble by nibble, without forming the digest's hex text.
    private func compare(_ line: [UInt8], _ digest: SecretBytes, prefixLength: Int, offset: UInt64) throws -> ComparisonResult {
        let length = 40 - prefixLength
        guard line.count > length, line[length] == UInt8(ascii: ":") else {
            if line.count > 32, line[32] == UInt8(ascii: ":") { throw VaultError.pwnedPasswords(path: path, .notSHA1) }
            throw VaultError.pwnedPasswords(path: path, .malformed(offset: offset))
        }
        return try digest.withBytes { d -> ComparisonResult in
            for k in 0..<length {
                guard let nibble = Hex.digit(line[k]) else { throw VaultError.pwnedPasswords(path: path, .malformed(offset: offset)) }
                let index = k + prefixLength
                let byte = d[index / 2]
                let expected = index % 2 == 0 ? byte >> 4 : byte & 15
                if nibble != expected { return nibble < expected ? .orderedAscending : .orderedDescending }
            }
            return .orderedSame
        }
    }

    private func lineCount(_ line: [UInt8], hashLength: Int, offset: UInt64) throws -> UInt64 {
        var count: UInt64 = 0, digits = 0
        for b in line.dropFirst(hashLength + 1) {
            if b == 10 || b == 13 { break }
            guard b >= 48, b <= 57, digits < 19 else { throw VaultError.pwnedPasswords(path: path, .malformed(offset: offset)) }
            count = count * 10 + UInt64(b - 48)
            digits += 1
        }
        guard digits > 0 else { throw VaultError.pwnedPasswords(path: path, .malformed(offset: offset)) }
        return count
    }
}
