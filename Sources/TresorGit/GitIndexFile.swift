// git's index file edited for the few paths a change touched, instead of libgit2 reading and writing every entry.
internal import CCrypto
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// git's index ("DIRC", versions 2 and 3) as a change edits it: the entries of its paths replaced, added or removed,
/// every other entry kept byte for byte, a racily clean one (modified in or after the moment the index was written)
/// made to look changed ("smudged": size 0) unless its file still holds its blob, as git and libgit2 do when they
/// write; the optional caches git may rebuild (`TREE`, `UNTR`, `FSMN`, `EOIE`, `IEOT`) are left out. An index with
/// anything else (another version, entries in conflict, links or submodules, resolve-undo records, a split index or
/// any other extension), a wrong checksum, or a change that puts a file where the index has a folder or the other way
/// round, is not edited: `map` or `write` returns nil and libgit2 does the work (and reports a bad checksum). libgit2
/// reading and writing all 10,000 entries was a third of an `add` at 10,000 entries, and grew with the vault.
///
/// The cost that is left grows with the index only where it must: the file is mapped, not copied; its entries are
/// found by their lengths alone; the new file is written from the runs of entries the change leaves alone, in place in
/// the mapping (`writev`), with the few new entries between them; and the old file's checksum is checked on the second
/// core while the new one's is computed, written and made durable, before the new file replaces it.
final class GitIndexFile {
    /// The file, mapped read-only. git and libgit2 replace an index by renaming a new file over it, under the lock
    /// file the caller holds, never by writing into it: the mapping keeps the bytes that were read.
    private let base: UnsafeRawBufferPointer
    private let version: UInt32
    /// Where each entry begins, in name order; the last entry ends at `entriesEnd`.
    private let starts: [UInt32]
    /// Where each entry's name ends (its terminating NUL).
    private let nameEnds: [UInt32]
    private let entriesEnd: Int
    /// When the index file was last modified: an entry modified in or after it is racily clean.
    private let written: timespec

    private static let header = 12, fixed = 62, checksum = 20
    /// Above this size the old checksum is checked on another thread: below it, starting one costs more than it saves.
    private static let parallelFrom = 1 << 20
    private static let droppedCaches: [[UInt8]] = ["TREE", "UNTR", "FSMN", "EOIE", "IEOT"].map { Array($0.utf8) }

    private init(base: UnsafeRawBufferPointer, version: UInt32, starts: [UInt32], nameEnds: [UInt32], entriesEnd: Int,
                 written: timespec) {
        self.base = base
        self.version = version
        self.starts = starts
        self.nameEnds = nameEnds
        self.entriesEnd = entriesEnd
        self.written = written
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base.baseAddress), base.count) }

    /// The index file at `path` (a regular file, not followed if a link), mapped, or nil when it cannot be read or is not
    /// one this type edits (see above; its checksum is checked by `write`).
    static func map(_ path: String) -> GitIndexFile? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size >= header + checksum, st.st_size <= Int32.max,
              let address = mmap(nil, Int(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), address != MAP_FAILED
        else { return nil }
        let base = UnsafeRawBufferPointer(start: address, count: Int(st.st_size))
        guard let parsed = parse(base, written: st.st_mtim) else {
            munmap(address, base.count)
            return nil
        }
        return parsed
    }

    /// The entries' places in `base`, when it is an index this type edits (its checksum aside).
    private static func parse(_ base: UnsafeRawBufferPointer, written: timespec) -> GitIndexFile? {
        guard base.starts(with: "DIRC".utf8) else { return nil }
        let version = bigEndian(base, 4), count = Int(bigEndian(base, 8))
        guard version == 2 || version == 3 else { return nil }
        let body = base.count - checksum
        var starts: [UInt32] = [], nameEnds: [UInt32] = []
        starts.reserveCapacity(min(count, body / fixed))
        nameEnds.reserveCapacity(min(count, body / fixed))
        var at = header
        for _ in 0..<count {
            guard at + fixed <= body else { return nil }
            let flags = Int(bigEndian16(base, at + 60))
            guard flags & 0x3000 == 0 else { return nil }  // (a stage: a conflict)
            let extended = flags & 0x4000 != 0
            guard !extended || version == 3 else { return nil }
            // (Regular files only: a link's or a submodule's racy check is not a file's.)
            let mode = bigEndian(base, at + 24)
            guard mode == 0o100644 || mode == 0o100755 else { return nil }
            let nameStart = at + fixed + (extended ? 2 : 0)
            let nameEnd: Int
            // The name's length is in the flags, up to 0xffe; its NUL must be there. A longer name is found by its NUL.
            if flags & 0xfff < 0xfff {
                nameEnd = nameStart + flags & 0xfff
                guard nameEnd < body, base[nameEnd] == 0 else { return nil }
            } else {
                guard nameStart < body, let nul = memchr(base.baseAddress! + nameStart, 0, body - nameStart) else { return nil }
                nameEnd = UnsafeRawPointer(nul) - base.baseAddress!
            }
            let end = at + ((fixed + (extended ? 2 : 0) + nameEnd - nameStart + 8) & ~7)
            guard end <= body else { return nil }
            // In git's order, each name after the one before: what the binary searches below rely on.
            if let previous = starts.last,
               !precedes(name(base, previous, nameEnds[nameEnds.count - 1]), name(base, UInt32(at), UInt32(nameEnd))) { return nil }
            starts.append(UInt32(at))
            nameEnds.append(UInt32(nameEnd))
            at = end
        }
        let entriesEnd = at
        while at < body {
            guard at + 8 <= body else { return nil }
            let size = Int(bigEndian(base, at + 4))
            let signature = UnsafeRawBufferPointer(rebasing: base[at..<at + 4])
            guard droppedCaches.contains(where: { $0.elementsEqual(signature) }), size <= body - at - 8 else { return nil }
            at += 8 + size
        }
        return GitIndexFile(base: base, version: version, starts: starts, nameEnds: nameEnds, entriesEnd: entriesEnd,
                            written: written)
    }

    /// Writes the index with each path of `changes` given its entry (`entry(path:blob:stat:)`), or removed (nil), to
    /// `fd` and makes it durable; `unchanged` answers for a racily clean entry of another path (its path, its blob id)
    /// whether its file still holds that blob. Returns false, with `fd` left to be discarded, when a file put would be
    /// where the index has a folder, or on the way to a file it has, or the index's checksum is wrong; true once the
    /// new file is durable. Throws (errno) when writing fails.
    func write(_ changes: [String: [UInt8]?], to fd: Int32, unchanged: (String, String) -> Bool) throws -> Bool {
        let sorted = changes.map { (Array($0.key.utf8), $0.value) }.sorted { Self.precedes($0.0, $1.0) }
        for (name, entry) in sorted where entry != nil && collides(name) { return false }
        guard base.count >= Self.parallelFrom else {
            guard checksumIsRight() else { return false }
            return try writeEdited(sorted, to: fd, unchanged: unchanged)
        }
        var right = false, written: Result<Bool, Error> = .success(false)
        // The old checksum on one thread, the new file on the other; the caller renames the new file only if both agree.
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 {
                right = checksumIsRight()
            } else {
                written = Result { try writeEdited(sorted, to: fd, unchanged: unchanged) }
            }
        }
        // (A wrong checksum first: libgit2 then reports it, whatever became of the new file.)
        guard right else { return false }
        return try written.get()
    }

    /// Whether the trailer is the SHA-1 of everything before it.
    private func checksumIsRight() -> Bool {
        let body = base.count - Self.checksum
        guard let digest = try? PackFileWriter.sha1([UnsafeRawBufferPointer(rebasing: base[..<body])]) else { return false }
        return digest.elementsEqual(base[body...])
    }

    /// The edited index as pieces (runs of the mapping, bytes of its own), hashed and written to `fd`, then `fsync`ed.
    private func writeEdited(_ sorted: [([UInt8], [UInt8]?)], to fd: Int32, unchanged: (String, String) -> Bool) throws -> Bool {
        var own: [UInt8] = Array(base[..<Self.header])
        // (from the mapping or from `own`, and where)
        var pieces: [(mapped: Bool, range: Range<Int>)] = []
        func add(mapped: Bool, _ range: Range<Int>) {
            guard !range.isEmpty else { return }
            if let last = pieces.last, last.mapped == mapped, last.range.upperBound == range.lowerBound {
                pieces[pieces.count - 1].range = last.range.lowerBound..<range.upperBound
            } else {
                pieces.append((mapped, range))
            }
        }
        func addOwn(_ bytes: some Collection<UInt8>) {
            own += bytes
            add(mapped: false, (own.count - bytes.count)..<own.count)
        }
        add(mapped: false, 0..<Self.header)
        var count = 0
        // The entries `range` keeps as they are, but for racily clean ones whose files changed: smudged copies.
        func keep(_ range: Range<Int>) {
            count += range.count
            var run = range.isEmpty ? 0 : Int(starts[range.lowerBound])
            for i in range where isRacy(i) && Self.bigEndian(base, Int(starts[i]) + 36) != 0 {
                let start = Int(starts[i])
                guard !unchanged(String(decoding: name(i), as: UTF8.self),
                                 GitRepository.hex(Array(base[(start + 40)..<(start + 60)])[...])) else { continue }
                add(mapped: true, run..<start)
                var copy = Array(base[start..<end(i)])
                copy.replaceSubrange(36..<40, with: [0, 0, 0, 0])
                addOwn(copy)
                run = end(i)
            }
            if !range.isEmpty { add(mapped: true, run..<end(range.upperBound - 1)) }
        }
        var next = 0
        for (name, entry) in sorted {
            let at = firstNotBefore(name, from: next)
            keep(next..<at)
            next = at < starts.count && self.name(at).elementsEqual(name) ? at + 1 : at
            if let entry {
                addOwn(entry)
                count += 1
            }
        }
        keep(next..<starts.count)
        own.replaceSubrange(8..<12, with: Self.bigEndian(UInt32(count)))
        return try own.withUnsafeBytes { ownBytes in
            let vectors = pieces.map { piece in
                let from = piece.mapped ? base : ownBytes
                return iovec(iov_base: UnsafeMutableRawPointer(mutating: from.baseAddress! + piece.range.lowerBound),
                             iov_len: piece.range.count)
            }
            var trailer = try PackFileWriter.sha1(vectors.map { UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len) })
            var code: Int32 = 0
            trailer.withUnsafeMutableBytes { trailer in
                code = Self.writeAll(fd, vectors + [iovec(iov_base: trailer.baseAddress, iov_len: trailer.count)])
            }
            if code == 0, fsync(fd) != 0 { code = errno }
            guard code == 0 else { throw GitError.system(errno: code, operation: .writeIndex) }
            return true
        }
    }

    /// Writes every byte `vectors` point to (again after an interruption or a partial write, at most `IOV_MAX` vectors
    /// a call, Linux's `IOV_MAX`); 0, or the errno of the failure.
    private static func writeAll(_ fd: Int32, _ vectors: [iovec]) -> Int32 {
        var vectors = vectors.filter { $0.iov_len > 0 }[...]
        while !vectors.isEmpty {
            let n = vectors.withUnsafeBufferPointer { Glibc.writev(fd, $0.baseAddress, Int32(min($0.count, 1024))) }
            if n < 0 { if errno == EINTR { continue }; return errno }
            guard n > 0 else { return EIO }
            var done = n
            while done > 0, let first = vectors.first {
                if done >= first.iov_len {
                    done -= first.iov_len
                    vectors = vectors.dropFirst()
                } else {
                    vectors[vectors.startIndex] = iovec(iov_base: first.iov_base + done, iov_len: first.iov_len - done)
                    done = 0
                }
            }
        }
        return 0
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

    /// Entry `i`'s name.
    private func name(_ i: Int) -> UnsafeRawBufferPointer { Self.name(base, starts[i], nameEnds[i]) }

    /// The name of the entry at `start` in `base`, which ends at `nameEnd`.
    private static func name(_ base: UnsafeRawBufferPointer, _ start: UInt32, _ nameEnd: UInt32) -> UnsafeRawBufferPointer {
        let start = Int(start), extended = bigEndian16(base, start + 60) & 0x4000 != 0
        return UnsafeRawBufferPointer(rebasing: base[(start + fixed + (extended ? 2 : 0))..<Int(nameEnd)])
    }

    /// Where entry `i` ends (and the next begins).
    private func end(_ i: Int) -> Int { i + 1 < starts.count ? Int(starts[i + 1]) : entriesEnd }

    /// Whether the index has a file at a folder on the way to `name`, or files under `name` as a folder.
    private func collides(_ name: [UInt8]) -> Bool {
        for (i, byte) in name.enumerated() where byte == 0x2F && contains(Array(name[..<i])) { return true }
        let folder = name + [0x2F]
        let at = firstNotBefore(folder, from: 0)
        return at < starts.count && self.name(at).starts(with: folder)
    }

    /// Whether an entry is named `name`.
    private func contains(_ name: [UInt8]) -> Bool {
        let at = firstNotBefore(name, from: 0)
        return at < starts.count && self.name(at).elementsEqual(name)
    }

    /// The first entry from `from` on whose name does not sort before `name` (binary search).
    private func firstNotBefore(_ name: [UInt8], from: Int) -> Int {
        name.withUnsafeBytes { name in
            var low = from, high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if Self.precedes(self.name(mid), name) { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// libgit2's rule: modified in or after the second and nanosecond the index was written.
    private func isRacy(_ i: Int) -> Bool {
        let start = Int(starts[i])
        let seconds = Int32(bitPattern: Self.bigEndian(base, start + 8)), nanoseconds = Self.bigEndian(base, start + 12)
        let indexSeconds = Int32(truncatingIfNeeded: written.tv_sec)
        return indexSeconds < seconds || (indexSeconds == seconds && UInt32(truncatingIfNeeded: written.tv_nsec) <= nanoseconds)
    }

    /// `a` before `b` in the order of their UTF-8 bytes (git's order of paths), by `memcmp`: the standard library's
    /// `lexicographicallyPrecedes` over two UTF-8 views went byte by byte through generic iterators (a rekey sorted
    /// 10,000 paths with it at 130 M instructions).
    static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in precedes(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    /// git's order of index entries of stage 0: by the bytes of their paths.
    private static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order < 0 || (order == 0 && a.count < b.count)
    }

    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in precedes(a, b) } }
    }

    private static func bigEndian(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    private static func bigEndian16(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }
}
