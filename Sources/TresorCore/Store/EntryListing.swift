// The entry paths of a vault tree, kept as bytes from `readdir` to the output (Spec/FORMAT.md §4).
#if canImport(Glibc)
import Glibc
#endif

/// Every entry path under a vault root in byte order, each followed by a line feed, in one buffer (`ls` writes it as
/// it is), with the problems met on the way. Which files are entries, and which paths are valid, is
/// `EntryStore.entryListing()`'s; this holds the result.
package struct EntryListing: Sendable {
    /// The paths, each followed by "\n", in the order of their UTF-8 bytes.
    package private(set) var bytes: [UInt8] = []
    /// Where each path starts in `bytes`.
    private var starts: [Int] = []
    /// What is wrong with files that look like entries but are not listed, in the order of their names' bytes.
    package internal(set) var problems: [StoreProblem] = []

    package var count: Int { starts.count }

    /// The bytes of the `i`th path, without its line feed.
    private func span(_ i: Int) -> Range<Int> {
        starts[i] ..< (i + 1 < starts.count ? starts[i + 1] : bytes.count) - 1
    }

    /// The paths as values.
    package var paths: [EntryPath] {
        (0..<count).map { EntryPath(validated: String(decoding: bytes[span($0)], as: UTF8.self)) }
    }

    init(bytes: [UInt8] = [], starts: [Int] = []) {
        self.bytes = bytes
        self.starts = starts
    }

    /// Only the paths that are `folder` itself or below it (`folder` as `EntryPath` holds it: NFC, without a leading
    /// or trailing "/"); the problems stay all.
    package func below(_ folder: String) -> EntryListing {
        let out = ByteBuffer(capacity: bytes.count)
        var starts: [Int] = []
        let want = Array(folder.utf8)
        bytes.withUnsafeBufferPointer { all in
            for i in 0..<count {
                let s = span(i)
                guard s.count >= want.count, memcmp(all.baseAddress! + s.lowerBound, want, want.count) == 0,
                      s.count == want.count || all[s.lowerBound + want.count] == 0x2F else { continue }
                starts.append(out.count)
                out.append(UnsafeBufferPointer(rebasing: all[s.lowerBound...s.upperBound]))
            }
        }
        var listing = EntryListing(bytes: out.take(), starts: starts)
        listing.problems = problems
        return listing
    }
}

extension EntryStore {
    /// Every entry path in the tree, in byte order, with the problems met on the way. Skips everything whose name
    /// starts with `.` and files not ending in `.json`; never descends into links. A path is listed when
    /// `EntryPath(filePath:)` takes its file; names of printable ASCII (nearly all) are checked here in place,
    /// component by component with the same rules, and anything else by `EntryPath(filePath:)` itself.
    package func entryListing() -> EntryListing {
        var walk = ListingWalk(root: root)
        walk.read(folder: [], depth: 1, state: .valid)
        return walk.listing()
    }
}

/// The walk behind `entryListing()`. Each folder's names are read into one buffer and visited in the order of their
/// keys — a folder's name followed by "/", an entry file's name without ".json" — so that the paths come out in byte
/// order with no sort of the whole list: every path below a folder begins with the folder's key.
private struct ListingWalk {
    /// The vault root's path, as the folders' paths begin.
    let rootBytes: [UInt8]
    /// (Room for about 4,000 paths before it first grows: pages of it that are not written are never touched.)
    let paths = ByteBuffer(capacity: 64 * 1024)
    var starts: [Int] = []
    var problems: [StoreProblem] = []

    init(root: String) { rootBytes = Array(root.utf8) }

    func listing() -> EntryListing {
        var listing = EntryListing(bytes: paths.take(), starts: starts)
        listing.problems = problems.sorted { EntryPath.precedes($0.file, $1.file) }
        return listing
    }

    /// What is known of a folder's path.
    enum State {
        /// Every component is printable ASCII and valid as a folder's name.
        case valid
        /// A component breaks a rule: nothing below is an entry.
        case invalid
        /// A component holds other bytes: each path below is checked whole by `EntryPath(filePath:)`.
        case unchecked
    }

    /// A name in the folder's buffer, the length of the key it sorts by, and the key's first eight bytes as a number
    /// (big-endian, zeros after a shorter key: names hold no zero byte), which decides nearly every comparison.
    struct Item {
        var head: UInt64
        var start: UInt32
        var key: UInt16
        var count: UInt8
        var kind: FileKind
    }

    mutating func read(folder: [UInt8], depth: Int, state: State) {
        let names = ByteBuffer(capacity: 1024)
        var items: [Item] = []
        items.reserveCapacity(64)
        let extensionCount = UInt16(EntryPath.extensionBytes.count)
        // The folder's own bytes, which need not be UTF-8 (a `String` of them would name another folder).
        let path = rootBytes + (folder.isEmpty ? [] : [0x2F] + folder.dropLast()) + [0]
        _ = FileSystem.readDirectory(bytes: path, followingLink: folder.isEmpty) { name, kind in
            // (Linux names are at most 255 bytes, NAME_MAX; a longer one could be no entry nor hold one.)
            guard name[0] != 0x2E, name.count <= 255 else { return }
            var item = Item(head: 0, start: UInt32(names.count), key: UInt16(name.count), count: UInt8(name.count), kind: kind)
            names.append(name)
            if kind == .directory {
                names.append(0x2F)
                item.key += 1
            } else if kind == .file, EntryPath.endsInFileExtension(name) {
                item.key -= extensionCount
            }
            items.append(item)
        }
        let base = names.base
        for i in items.indices {
            var head: UInt64 = 0
            let start = Int(items[i].start), key = Int(items[i].key)
            for j in 0..<8 { head = head << 8 | UInt64(j < key ? base[start + j] : 0) }
            items[i].head = head
        }
        items.sort { a, b in
            if a.head != b.head { return a.head < b.head }
            let c = memcmp(base + Int(a.start), base + Int(b.start), Int(min(a.key, b.key)))
            return c != 0 ? c < 0 : a.key < b.key
        }
        folder.withUnsafeBufferPointer { folder in
            for item in items {
                let name = UnsafeBufferPointer(start: base + Int(item.start), count: Int(item.count))
                visit(name, key: Int(item.key), kind: item.kind, folder: folder, depth: depth, state: state)
            }
        }
        // `base` points into `names`, which must live until here (its last use above was taking `base`).
        withExtendedLifetime(names) {}
    }

    private mutating func visit(_ name: UnsafeBufferPointer<UInt8>, key: Int, kind: FileKind, folder: UnsafeBufferPointer<UInt8>,
                                depth: Int, state: State) {
        switch kind {
        case .directory:
            guard depth < EntryPath.maxDepth else { return }
            let inner: State
            if state == .invalid { inner = .invalid }
            else if !Self.printable(name) { inner = Self.isUTF8(name) ? .unchecked : .invalid }
            else { inner = EntryPath.componentRule(name) == nil && !EntryPath.endsInFileExtension(name) ? state : .invalid }
            read(folder: Array(folder) + name + [0x2F], depth: depth + 1, state: inner)
        case .file:
            guard key < name.count else { return }
            let stem = UnsafeBufferPointer(rebasing: name[..<key])
            if state == .valid, Self.printable(stem) {
                if folder.count + stem.count <= EntryPath.maxBytes, EntryPath.componentRule(stem) == nil { add(folder, stem) }
                else { problem(folder, name, .invalidName) }
            } else if state != .invalid, Self.isUTF8(name), let p = EntryPath(filePath: String(decoding: Array(folder) + name, as: UTF8.self)) {
                var valid = p.string
                valid.withUTF8 { add(UnsafeBufferPointer(start: nil, count: 0), $0) }
            } else {
                problem(folder, name, .invalidName)
            }
        case .symlink:
            problem(folder, name, .symbolicLink)
        default:
            if EntryPath.endsInFileExtension(name) { problem(folder, name, .notRegularFile) }
        }
    }

    /// A path that sorts after every path already listed (the walk's order is the byte order), and its line feed.
    private mutating func add(_ folder: UnsafeBufferPointer<UInt8>, _ stem: UnsafeBufferPointer<UInt8>) {
        starts.append(paths.count)
        paths.append(folder, stem, 0x0A)
    }

    private mutating func problem(_ folder: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>, _ kind: StoreProblem.Kind) {
        problems.append(StoreProblem(file: String(decoding: Array(folder) + name, as: UTF8.self), kind: kind))
    }

    /// Printable ASCII only: no byte that NFC, the control-character rule or the line-separator rule could concern.
    static func printable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Whether a name is UTF-8. One that is not is no entry path, and nothing below a folder so named is an entry
    /// (decoded, it would become U+FFFD: a name no file has, and two names could become one).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }
}

/// Bytes appended with `memcpy` to memory grown by `realloc` (in place or by remapping, for a large one): an array's
/// `append(contentsOf:)` of a buffer cost about 150 instructions a call, a fifth of the listing, and growing an array
/// copies it. Pages that are never written are never touched.
private final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = Self.allocate(nil, self.capacity)
    }

    deinit { free(base) }

    /// The bytes appended, as an array (one copy).
    func take() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    func append(_ b: UnsafeBufferPointer<UInt8>) {
        guard let source = b.baseAddress else { return }
        reserve(b.count)
        memcpy(base + count, source, b.count)
        count += b.count
    }

    /// `a`, `b` and `last`.
    func append(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ last: UInt8) {
        reserve(a.count + b.count + 1)
        if let source = a.baseAddress { memcpy(base + count, source, a.count) }
        if let source = b.baseAddress { memcpy(base + count + a.count, source, b.count) }
        base[count + a.count + b.count] = last
        count += a.count + b.count + 1
    }

    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    private func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        capacity = max(capacity * 2, count + more)
        base = Self.allocate(base, capacity)
    }

    private static func allocate(_ old: UnsafeMutablePointer<UInt8>?, _ count: Int) -> UnsafeMutablePointer<UInt8> {
        guard let memory = realloc(old, count) else { fatalError("out of memory") }
        return memory.assumingMemoryBound(to: UInt8.self)
    }
}
