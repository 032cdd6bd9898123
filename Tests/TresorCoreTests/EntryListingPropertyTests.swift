// The listing kept as bytes (EntryListing) against the rule it implements, on generated trees: a file is an entry
// exactly when `EntryPath(filePath:)` takes its vault-relative path, and the entries come out in the order of their
// bytes (Spec/FORMAT.md §4).
import Foundation
import TestSupport
@testable import TresorCore
import XCTest

final class EntryListingPropertyTests: XCTestCase {
    /// Names that test the rules and the order: folders named like entry files, `git~1` in any case, leading and
    /// trailing spaces and dots, forbidden and control characters, NFC and decomposed letters, a line separator, names
    /// at and over the component limit, and names that sort around "/" ("-" and "0" beside a folder of the same stem).
    static let names: [String] = [
        "a", "b", "Email", "Email-old", "Email0", "Email.json", "site-1", "site-10", "site-2", "x.json", "git~1", "GIT~1",
        " lead", "trail ", "trail.", "a:b", "a*b", "q?", "ctl\u{01}", "del\u{7F}", "c1\u{85}", "caf\u{E9}", "cafe\u{301}",
        "line\u{2028}sep", "日本", "Ωmega", String(repeating: "n", count: 100), String(repeating: "o", count: 101),
        String(repeating: "p", count: 8), String(repeating: "p", count: 9), "pppppppp-", "a b", "~", "x.JSON", ".hidden",
        "a!b", "a#", "a(1)", "a+b", "a,b", "a'",
    ]

    /// 300 trees of seed 1 by default; TRESOR_FIRST_SEED chooses others (a failure names its seed).
    func testTheListingIsEveryFileEntryPathTakesInByteOrder() throws {
        let first = UInt64(ProcessInfo.processInfo.environment["TRESOR_FIRST_SEED"] ?? "") ?? 1
        var listed = 0, unchecked = 0, problems: [StoreProblem.Kind: Int] = [:]
        for seed in first..<first + 300 {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-listing-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: root) }
            var random = SplitMix64(seed: seed)
            try grow(root, depth: 1, random: &random)
            try check(root, seed: seed, random: &random)
            let listing = EntryStore(root: root).entryListing()
            listed += listing.count
            unchecked += listing.paths.filter { $0.string.utf8.contains { $0 >= 0x80 } }.count
            for p in listing.problems { problems[p.kind, default: 0] += 1 }
        }
        // The trees hold what the rules are about: entries, names that are not ASCII, and every kind of problem.
        XCTAssertGreaterThan(listed, 400)
        XCTAssertGreaterThan(unchecked, 50)
        XCTAssertGreaterThan(problems[.invalidName, default: 0], 100)
        XCTAssertGreaterThan(problems[.symbolicLink, default: 0], 50)
        XCTAssertGreaterThan(problems[.notRegularFile, default: 0], 50)
    }

    /// A deep chain: past 16 components nothing is read, and paths over 255 bytes are problems.
    func testDepthAndLengthLimits() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-listing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var folder = root
        for depth in 1...18 {
            folder += "/" + String(repeating: Character(UnicodeScalar(UInt8(0x60 + depth))), count: depth <= 8 ? 30 : 2)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/e.json", contents: Data("{}".utf8)))
        }
        var random = SplitMix64(seed: 0)
        try check(root, seed: 0, random: &random)
        XCTAssertFalse(EntryStore(root: root).entryListing().problems.isEmpty, "no path was too long")
    }

    /// One folder of 2,000 entries with long names: several reads of the directory's records, buffers that grow, and
    /// the sort of many names.
    func testALargeFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-listing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/Big", withIntermediateDirectories: true)
        var random = SplitMix64(seed: 7)
        for i in 0..<2000 {
            let name = String(repeating: "n", count: Int(random.next() % 90)) + "-\(random.next() % 100_000)-\(i)"
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/Big/" + name + ".json", contents: Data("{}".utf8)))
        }
        try check(root, seed: 7, random: &random)
        XCTAssertEqual(EntryStore(root: root).entryListing().count, 2000)
    }

    /// Names that are not UTF-8 (made with their bytes): no entry, nothing below a folder so named either, each file a
    /// problem, and the entries around them still in byte order.
    func testNamesThatAreNotUTF8AreProblems() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-listing-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func bytesPath(_ parts: [UInt8]...) -> [CChar] { (Array(root.utf8) + parts.flatMap { [0x2F] + $0 } + [0]).map { CChar(bitPattern: $0) } }
        let json = Array(".json".utf8)
        func make(_ path: [CChar]) {
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        for name: [UInt8] in [[0xFF], [0xFE], [0xC3, 0x28], Array("😀".utf8), Array("a".utf8), [0xF0, 0x9F]] { make(bytesPath(name + json)) }
        XCTAssertEqual(mkdir(bytesPath([0xFF]), 0o700), 0)
        make(bytesPath([0xFF], Array("inside.json".utf8)))
        let listing = EntryStore(root: root).entryListing()
        XCTAssertEqual(listing.paths.map(\.string), ["a", "😀"])
        XCTAssertEqual(listing.bytes, Array("a\n😀\n".utf8))
        XCTAssertEqual(listing.problems.count, 5, "\(listing.problems)")
        XCTAssertTrue(listing.problems.allSatisfy { $0.kind == .invalidName })
    }

    private func check(_ root: String, seed: UInt64, random: inout SplitMix64) throws {
        let listing = EntryStore(root: root).entryListing()
        let expected = try oracle(root)
        XCTAssertEqual(listing.paths.map(\.string), expected.paths, "seed \(seed)")
        XCTAssertEqual(listing.problems.map(\.file), expected.problems.map(\.file), "seed \(seed)")
        XCTAssertEqual(listing.problems.map(\.kind), expected.problems.map(\.kind), "seed \(seed)")
        XCTAssertEqual(listing.bytes, Array(expected.paths.map { $0 + "\n" }.joined().utf8), "seed \(seed)")
        // Below a folder (of one component or two): the same paths as a filter of the whole listing.
        let folders = Set(expected.paths.flatMap { path -> [String] in
            let parts = path.split(separator: "/").map(String.init)
            return parts.count < 2 ? [] : parts.count < 3 ? [parts[0]] : [parts[0], parts[0] + "/" + parts[1]]
        })
        for folder in folders.sorted().prefix(4) + [Self.names[Int(random.next() % UInt64(Self.names.count))].nfc] {
            let below = listing.below(folder)
            let want = Array(folder.utf8)
            let inside = expected.paths.filter { Array($0.utf8) == want || Array($0.utf8).starts(with: want + [0x2F]) }
            XCTAssertEqual(below.paths.map(\.string), inside, "seed \(seed), below \(folder)")
            XCTAssertEqual(below.bytes, Array(below.paths.map { $0.string + "\n" }.joined().utf8), "seed \(seed)")
        }
    }

    /// Random folders, entry files, other files, links and pipes under `folder`.
    private func grow(_ folder: String, depth: Int, random: inout SplitMix64) throws {
        for _ in 0..<Int(random.next() % UInt64(depth == 1 ? 12 : 6)) {
            let name = Self.names[Int(random.next() % UInt64(Self.names.count))]
            let path = folder + "/" + name
            switch random.next() % 10 {
            // (A name already taken stays what it is: a folder, a link or a pipe is not made a file.)
            case 0...3: _ = FileManager.default.createFile(atPath: path + ".json", contents: Data("{}".utf8))
            case 4: _ = FileManager.default.createFile(atPath: path, contents: Data())
            case 5: try? FileManager.default.createSymbolicLink(atPath: path + (random.next() % 2 == 0 ? ".json" : ""), withDestinationPath: folder)
            case 6: _ = mkfifo(path + ".json", 0o600)
            default:
                guard depth < 4, (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)) != nil
                else { continue }
                try grow(path, depth: depth + 1, random: &random)
            }
        }
    }

    /// The rule written plainly, with Foundation: every name not starting with "." in every folder down to depth 16,
    /// not following links; a regular file ending in ".json" is an entry when `EntryPath(filePath:)` takes it, a
    /// problem otherwise; a link is a problem; anything else ending in ".json" is a problem; sorted by bytes.
    private func oracle(_ root: String) throws -> (paths: [String], problems: [StoreProblem]) {
        var paths: [String] = [], problems: [StoreProblem] = []
        func walk(_ rel: String, depth: Int) throws {
            let dir = rel.isEmpty ? root : root + "/" + rel
            for name in try FileManager.default.contentsOfDirectory(atPath: dir) where !name.hasPrefix(".") {
                let r = rel.isEmpty ? name : rel + "/" + name
                let type = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.type] as? FileAttributeType
                switch type {
                case .typeDirectory?: if depth < 16 { try walk(r, depth: depth + 1) }
                case .typeRegular?:
                    guard name.utf8.count > 5, name.utf8.suffix(5).elementsEqual(".json".utf8) else { continue }
                    if let p = EntryPath(filePath: r) { paths.append(p.string) } else { problems.append(StoreProblem(file: r, kind: .invalidName)) }
                case .typeSymbolicLink?: problems.append(StoreProblem(file: r, kind: .symbolicLink))
                default:
                    if name.utf8.suffix(5).elementsEqual(".json".utf8) { problems.append(StoreProblem(file: r, kind: .notRegularFile)) }
                }
            }
        }
        try walk("", depth: 1)
        return (paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, problems.sorted { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) })
    }
}
