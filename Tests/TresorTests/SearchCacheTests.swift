// Tests for the local search cache (Spec/FORMAT.md §10): what a search decrypts, what the cache file holds,
// and that the payload filter never hides a match.
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
import XCTest

final class SearchCacheTests: VaultTestCase {
    /// The entries whose fields match `text` as `tresor grep` matches them, and how many files were decrypted.
    private func search(_ v: Vault, _ text: String, prefix: String? = nil) throws -> (matches: [String], decrypted: Int) {
        let needle = text.lowercased()
        let found = try v.searchCandidates(lowercasedNeedle: needle, prefix: prefix)
        var matches: [String] = []
        for c in found.candidates {
            guard let result = c.entry else { continue }
            let e = try result.get()
            if Self.matches(e, needle) { matches.append(c.path.string) }
        }
        return (matches, found.decrypted)
    }

    private static func matches(_ e: Entry, _ needle: String) -> Bool {
        e.fields.contains { name, field in
            TextSearch.contains(name, lowercasedNeedle: needle)
                || field.value.displayText.split(separator: "\n").contains { TextSearch.contains(String($0), lowercasedNeedle: needle) }
        }
    }

    private func cacheFile(_ v: Vault) -> String { v.root + "/" + SearchCache.relativePath }

    private func seed(_ v: Vault, count: Int) throws {
        try v.transaction { txn in
            for i in 0..<count {
                try txn.put(try entry("Site\(i % 3)/entry\(i)", ["password": "pw-\(i)-unique", "username": "user\(i)@example.com"]))
            }
        }
    }

    func testOnlyFilesChangedSinceTheLastSearchAreDecrypted() throws {
        let v = try makeVault()
        try seed(v, count: 20)
        let first = try search(v, "USER7@")
        XCTAssertEqual(first.matches, ["Site1/entry7"])
        XCTAssertEqual(first.decrypted, 20)
        var st = stat()
        XCTAssertEqual(lstat(cacheFile(v), &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(try git(v, "status", "--porcelain"), "", "the cache is inside .git, never in the tree")

        let second = try search(v, "user7@")
        XCTAssertEqual(second.matches, ["Site1/entry7"])
        XCTAssertEqual(second.decrypted, 0)

        try edit(v, "Site1/entry7", ["username": "renamed@example.org"])
        let third = try search(v, "example.org")
        XCTAssertEqual(third.matches, ["Site1/entry7"])
        XCTAssertEqual(third.decrypted, 1)
        XCTAssertEqual(try search(v, "user7@").matches, [])

        try v.remove(try EntryPath("Site0/entry0"))
        let fourth = try search(v, "pw-0-")
        XCTAssertEqual(fourth.matches, [])
        XCTAssertEqual(fourth.decrypted, 0)
        let cache = try SearchCache.open(try FileSystem.read(cacheFile(v), limit: 1 << 24),
                                         key: try SearchCache.key(vaultKey: try v.currentVaultKey()), vaultID: v.header.vaultID)
        XCTAssertEqual(cache.records.count, 19)
        XCTAssertNil(cache.records["Site0/entry0.json"])

        // A search below a folder leaves what is outside it in the cache.
        XCTAssertEqual(try search(v, "pw-", prefix: "Site2").matches.count, 6)
        XCTAssertEqual(try search(v, "pw-").decrypted, 0)
    }

    func testAFileChangedBehindTheCachesBackIsReadAgain() throws {
        let v = try makeVault()
        try seed(v, count: 5)
        let path = "Site1/entry1.json"
        let original = try FileSystem.read(v.root + "/" + path, limit: 1 << 20)
        try edit(v, "Site1/entry1", ["password": "changed-value"])
        XCTAssertEqual(try search(v, "changed-value").matches, ["Site1/entry1"])
        // The old file put back by hand (as a checkout of an older commit would): new times and inode,
        // another blob id: decrypted again.
        try FileSystem.writeAtomically(original, to: v.root + "/" + path)
        let back = try search(v, "pw-1-unique")
        XCTAssertEqual(back.matches, ["Site1/entry1"])
        XCTAssertEqual(back.decrypted, 1)
        // The same bytes written again: new times, same blob id: not decrypted.
        try FileSystem.writeAtomically(original, to: v.root + "/" + path)
        let same = try search(v, "pw-1-unique")
        XCTAssertEqual(same.matches, ["Site1/entry1"])
        XCTAssertEqual(same.decrypted, 0)
    }

    func testTheCacheHoldsNoPlaintextAndAnyCacheThatDoesNotOpenIsRebuilt() throws {
        let v = try makeVault()
        try seed(v, count: 6)
        _ = try search(v, "x")
        let bytes = try FileSystem.read(cacheFile(v), limit: 1 << 24)
        XCTAssertNil(String(decoding: bytes, as: UTF8.self).range(of: "pw-3-unique"))
        XCTAssertNil(String(decoding: bytes, as: UTF8.self).range(of: "entry3"), "paths are sealed too")

        // A flipped byte, a truncated file, garbage: the search is right and the cache is written again.
        for damaged in [bytes.enumerated().map { $0.offset == bytes.count - 5 ? $0.element ^ 1 : $0.element },
                        Array(bytes.prefix(bytes.count / 2)), Array(repeating: UInt8(7), count: 100)] {
            try FileSystem.writeAtomically(damaged, to: cacheFile(v))
            let found = try search(v, "pw-3-")
            XCTAssertEqual(found.matches, ["Site0/entry3"])
            XCTAssertEqual(found.decrypted, 6)
            XCTAssertEqual(try search(v, "pw-3-").decrypted, 0)
        }

        // Another vault's cache does not open here (another key, another vault id).
        let other = try makeVault("other")
        try seed(other, count: 6)
        _ = try search(other, "x")
        try FileSystem.writeAtomically(try FileSystem.read(cacheFile(other), limit: 1 << 24), to: cacheFile(v))
        XCTAssertEqual(try search(v, "pw-").decrypted, 6)
    }

    func testARekeyLeavesTheOldCacheUnopenable() throws {
        let v = try makeVault()
        try seed(v, count: 8)
        XCTAssertEqual(try search(v, "pw-").decrypted, 8)
        try v.rekey(passphrase: passphrase, level: .minimum)
        let after = try search(v, "pw-5-")
        XCTAssertEqual(after.matches, ["Site2/entry5"])
        XCTAssertEqual(after.decrypted, 8)
    }

    func testThePayloadFilterNeverHidesAMatch() throws {
        let v = try makeVault()
        let values = ["Plain ASCII", "quote \" and back\\slash", "tab\there", "line one\nline TWO", "KELVIN \u{212A} sign",
                      "caf\u{E9} cr\u{E8}me", "\u{130}stanbul", "emoji \u{1F511} key", "ends with space ", "UPPER lower MiXeD"]
        try v.transaction { txn in
            for (i, value) in values.enumerated() { try txn.put(try entry("Mixed/e\(i)", ["notes": value, "Field\(i)": "x"])) }
        }
        let needles = ["plain", "\"", "back\\", "\t", "two", "k", "kelvin k", "caf\u{E9}", "CR\u{C8}ME", "i", "istanbul", "\u{1F511}",
                       "space ", "mixed", "field3", "e 1", "line", "x", "zzz", "notes", "id", "modified"]
        let all = try v.readAll()
        for needle in needles {
            let expected = all.compactMap { p, r -> String? in
                guard case .success(let e) = r, Self.matches(e, needle.lowercased()) else { return nil }
                return p.string
            }
            XCTAssertEqual(try search(v, needle).matches, expected, "needle \(needle.debugDescription)")
        }
    }
}
