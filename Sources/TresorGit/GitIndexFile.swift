// git's index file edited for the few paths a change touched, instead of libgit2 reading and writing every entry.
#if canImport(Glibc)
import Glibc
#endif

/// git's index ("DIRC", versions 2 and 3) as a change edits it: the entries of its paths replaced, added or removed,
/// every other entry kept byte for byte, a racily clean one (modified in or after the moment the index was written)
/// made to look changed ("smudged": size 0) unless its file still holds its blob, as git and libgit2 do when they
/// write; the optional caches git may rebuild (`TREE`, `UNTR`, `FSMN`, `EOIE`, `IEOT`) are left out. An index with
/// anything else (another version, entries in conflict, links or submodules, resolve-undo records, a split index or
/// any other extension), or a change that puts a file where the index has a folder or the other way round, is not
/// edited: `parse` or `edited` returns nil and libgit2 does the work. libgit2 reading and writing all 10,000 entries was a
/// third of an `add` at 10,000 entries, and grew with the vault.
struct GitIndexFile {
    /// Where one entry lies in `bytes`, and its path.
    private struct Entry {
        var start: Int
        var end: Int
        var name: Range<Int>
    }

    private let bytes: [UInt8]
    private let version: UInt32
    private let entries: [Entry]
    /// When the index file was last modified: an entry modified in or after it is racily clean.
    private let written: timespec

    private static let header = 12, fixed = 62, checksum = 20
    private static let droppedCaches: Set<[UInt8]> = Set(["TREE", "UNTR", "FSMN", "EOIE", "IEOT"].map { Array($0.utf8) })

    /// The index in `bytes` (last modified at `written`), or nil when it is not one this type edits (see above), or its
    /// checksum is wrong (libgit2 then says so).
    static func parse(_ bytes: [UInt8], written: timespec) -> GitIndexFile? {
        guard bytes.count >= header + checksum, bytes.starts(with: Array("DIRC".utf8)) else { return nil }
        let version = bigEndian(bytes, 4), count = Int(bigEndian(bytes, 8))
        guard version == 2 || version == 3 else { return nil }
        let body = bytes.count - checksum
        guard let digest = try? PackFileWriter.sha1(bytes[..<body]), digest.elementsEqual(bytes[body...]) else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(min(count, body / fixed))
        var at = header
        for _ in 0..<count {
            guard at + fixed <= body else { return nil }
            let flags = Int(bigEndian16(bytes, at + 60))
            guard flags & 0x3000 == 0 else { return nil }  // (a stage: a conflict)
            let extended = flags & 0x4000 != 0
            guard !extended || version == 3 else { return nil }
            // (Regular files only: a link's or a submodule's racy check is not a file's.)
            let mode = bigEndian(bytes, at + 24)
            guard mode == 0o100644 || mode == 0o100755 else { return nil }
            let nameStart = at + fixed + (extended ? 2 : 0)
            guard nameStart <= body, let nameEnd = bytes[nameStart..<body].firstIndex(of: 0) else { return nil }
            let end = at + ((fixed + (extended ? 2 : 0) + nameEnd - nameStart + 8) & ~7)
            guard end <= body else { return nil }
            entries.append(Entry(start: at, end: end, name: nameStart..<nameEnd))
            at = end
        }
        while at < body {
            guard at + 8 <= body else { return nil }
            let size = Int(bigEndian(bytes, at + 4))
            guard droppedCaches.contains(Array(bytes[at..<at + 4])), at + 8 + size <= body else { return nil }
            at += 8 + size
        }
        for (a, b) in zip(entries, entries.dropFirst()) where !precedes(bytes[a.name], bytes[b.name]) { return nil }
        return GitIndexFile(bytes: bytes, version: version, entries: entries, written: written)
    }

    /// The index with each path of `changes` given its entry (`entry(path:blob:stat:)`), or removed (nil); `unchanged`
    /// answers for a racily clean entry of another path (its path, its blob id) whether its file still holds that blob.
    /// nil when a file put would be where the index has a folder, or on the way to a file it has.
    func edited(_ changes: [String: [UInt8]?], unchanged: (String, String) -> Bool) throws -> [UInt8]? {
        let sorted = changes.map { (Array($0.key.utf8), $0.value) }.sorted { Self.precedes($0.0[...], $1.0[...]) }
        for (name, entry) in sorted where entry != nil && collides(name) { return nil }
        var out = Array(bytes[..<Self.header])
        out.reserveCapacity(bytes.count + sorted.reduce(0) { $0 + ($1.1?.count ?? 0) })
        var count = 0, next = 0
        func insertChanges(before name: ArraySlice<UInt8>?) {
            while next < sorted.count, name.map({ Self.precedes(sorted[next].0[...], $0) }) ?? true {
                if let entry = sorted[next].1 { out += entry; count += 1 }
                next += 1
            }
        }
        for entry in entries {
            let name = bytes[entry.name]
            insertChanges(before: name)
            if next < sorted.count, sorted[next].0.elementsEqual(name) {
                if let replacement = sorted[next].1 { out += replacement; count += 1 }
                next += 1
                continue
            }
            let kept = out.count
            out += bytes[entry.start..<entry.end]
            count += 1
            if isRacy(entry), Self.bigEndian(bytes, entry.start + 36) != 0,
               !unchanged(String(decoding: name, as: UTF8.self), GitRepository.hex(bytes[(entry.start + 40)..<(entry.start + 60)])) {
                out.replaceSubrange((kept + 36)..<(kept + 40), with: [0, 0, 0, 0])
            }
        }
        insertChanges(before: nil)
        out.replaceSubrange(8..<12, with: Self.bigEndian(UInt32(count)))
        out += try PackFileWriter.sha1(out[...])
        return out
    }

    /// The entry git records for a regular file (mode 100644, stage 0) at `path` holding `blob`, from its `lstat` data
    /// as libgit2 records it (times, device as `st_rdev`, inode, owner, size truncated to 32 bits).
    static func entry(path: String, blob: [UInt8], stat st: stat) -> [UInt8] {
        var out: [UInt8] = []
        let name = Array(path.utf8)
        for field in [st.st_ctim.tv_sec, st.st_ctim.tv_nsec, st.st_mtim.tv_sec, st.st_mtim.tv_nsec] {
            out += bigEndian(UInt32(truncatingIfNeeded: field))
        }
        for field in [UInt64(st.st_rdev), UInt64(st.st_ino), 0o100644, UInt64(st.st_uid), UInt64(st.st_gid), UInt64(st.st_size)] {
            out += bigEndian(UInt32(truncatingIfNeeded: field))
        }
        out += blob
        let flags = UInt16(min(name.count, 0xfff))
        out += [UInt8(flags >> 8), UInt8(flags & 0xff)]
        out += name
        out += repeatElement(0, count: ((fixed + name.count + 8) & ~7) - fixed - name.count)
        return out
    }

    /// Whether the index has a file at a folder on the way to `name`, or files under `name` as a folder.
    private func collides(_ name: [UInt8]) -> Bool {
        for (i, byte) in name.enumerated() where byte == 0x2F && contains(name[..<i]) { return true }
        let folder = name + [0x2F]
        let at = firstNotBefore(folder[...])
        return at < entries.count && bytes[entries[at].name].starts(with: folder)
    }

    /// Whether an entry is named `name`.
    private func contains(_ name: ArraySlice<UInt8>) -> Bool {
        let at = firstNotBefore(name)
        return at < entries.count && bytes[entries[at].name].elementsEqual(name)
    }

    /// The first entry whose name does not sort before `name` (binary search).
    private func firstNotBefore(_ name: ArraySlice<UInt8>) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(bytes[entries[mid].name], name) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// libgit2's rule: modified in or after the second and nanosecond the index was written.
    private func isRacy(_ entry: Entry) -> Bool {
        let seconds = Int32(bitPattern: Self.bigEndian(bytes, entry.start + 8)), nanoseconds = Self.bigEndian(bytes, entry.start + 12)
        let indexSeconds = Int32(truncatingIfNeeded: written.tv_sec)
        return indexSeconds < seconds || (indexSeconds == seconds && UInt32(truncatingIfNeeded: written.tv_nsec) <= nanoseconds)
    }

    /// git's order of index entries of stage 0: by the bytes of their paths.
    private static func precedes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        let common = min(a.count, b.count)
        let order = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common) } }
        return order < 0 || (order == 0 && a.count < b.count)
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    private static func bigEndian16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }
}
