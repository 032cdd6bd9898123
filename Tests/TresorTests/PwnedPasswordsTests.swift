// Offline Pwned Passwords look-ups on large generated files: found, absent, edges, both shapes, bad input, few reads.
import Foundation
import TestSupport
@testable import TresorCore
import XCTest
@testable import Tresor

final class PwnedPasswordsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tresor-hibp-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    static func sha1(_ password: String) -> [UInt8] { LibCrypto.digest(.sha1, of: SecretBytes(utf8: password)).withBytes { Array($0) } }
    static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
    }

    /// Writes `count` lines of strictly increasing random hashes (`HASH:COUNT` + `lineEnd`) with `planted`
    /// digests merged in at their place; returns every hash written, in order, when `keep` is set.
    @discardableResult
    func writeOrderedFile(_ path: String, count: Int, planted: [([UInt8], UInt64)], lineEnd: [UInt8] = [13, 10], keep: Bool = false) throws -> [[UInt8]] {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        var rng = SplitMix64(seed: 42)
        let plants = planted.sorted { $0.0.lexicographicallyPrecedes($1.0) }
        var next = 0
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var kept: [[UInt8]] = []
        let step = UInt64.max / UInt64(count + 1)
        func emit(_ hash: [UInt8], _ n: UInt64) {
            buffer += PwnedPasswordsTests.hex(hash)
            buffer.append(58)
            buffer += Array(String(n).utf8)
            buffer += lineEnd
            if keep { kept.append(hash) }
        }
        for i in 0..<count {
            // The first 8 bytes grow by about `step` each line; the other 12 are random.
            let top = UInt64(i) * step + rng.next() % (step / 2)
            var hash = withUnsafeBytes(of: top.bigEndian) { Array($0) }
            for _ in 0..<12 { hash.append(UInt8(truncatingIfNeeded: rng.next())) }
            while next < plants.count, plants[next].0.lexicographicallyPrecedes(hash) { emit(plants[next].0, plants[next].1); next += 1 }
            emit(hash, UInt64(i % 1000 + 1))
            if buffer.count > (1 << 20) - 100 { handle.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
        }
        while next < plants.count { emit(plants[next].0, plants[next].1); next += 1 }
        handle.write(Data(buffer))
        return kept
    }

    /// 1,000,000 lines (≈ 45 MB): every look-up reads a few kilobytes, never the file.
    func testLargeOrderedFileIsSearchedWithFewSmallReads() throws {
        let path = dir + "/pwned-passwords-sha1-ordered-by-hash.txt"
        let planted: [(String, UInt64)] = [("password", 9_545_824), ("Summer2024!", 1_337), ("Tr0ub4dor&3", 214)]
        try writeOrderedFile(path, count: 1_000_000, planted: planted.map { (PwnedPasswordsTests.sha1($0.0), $0.1) })
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
        XCTAssertGreaterThan(size, 40_000_000)
        let pwned = try PwnedPasswords(path: path)
        for (password, count) in planted {
            let before = pwned.bytesRead
            XCTAssertEqual(try pwned.count(password: SecretBytes(utf8: password)), count, password)
            // About log2(size / 4096) ≈ 14 reads of 129 bytes, then one window of about 4 KB.
            XCTAssertLessThan(pwned.bytesRead - before, 16 * 1024, password)
        }
        for password in ["not in the file", "correct horse battery staple", ""] {
            XCTAssertEqual(try pwned.count(password: SecretBytes(utf8: password)), 0, password)
        }
        XCTAssertLessThan(pwned.bytesRead, size / 500)
    }

    /// Every hash of a smaller file is found, including the first and the last line, and the hashes
    /// just above or below each one are not; LF line ends and lower-case digits work too.
    func testEveryLineIsFoundAndNeighboursAreNot() throws {
        for (name, lineEnd) in [("crlf.txt", [UInt8]([13, 10])), ("lf.txt", [10])] {
            let path = dir + "/" + name
            let hashes = try writeOrderedFile(path, count: 3000, planted: [], lineEnd: lineEnd, keep: true)
            let pwned = try PwnedPasswords(path: path)
            for (i, hash) in hashes.enumerated() where i % 7 == 0 || i == hashes.count - 1 {
                XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: hash)), UInt64(i % 1000 + 1), "line \(i) of \(name)")
                var above = hash, below = hash
                above[19] &+= 1
                below[19] &-= 1
                if i + 1 == hashes.count || hashes[i + 1] != above { XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: above)), 0) }
                if i == 0 || hashes[i - 1] != below { XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: below)), 0) }
            }
            XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: [UInt8](repeating: 0, count: 20))), 0)
            XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: [UInt8](repeating: 255, count: 20))), 0)
        }
        let lower = dir + "/lower.txt"
        let h = PwnedPasswordsTests.sha1("abc")
        try Data(String(decoding: PwnedPasswordsTests.hex(h), as: UTF8.self).lowercased().utf8 + Array(":3\n".utf8)).write(to: URL(fileURLWithPath: lower))
        XCTAssertEqual(try PwnedPasswords(path: lower).count(password: SecretBytes(utf8: "abc")), 3)
    }

    func testRangeFolder() throws {
        let folder = dir + "/ranges"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let hash = PwnedPasswordsTests.hex(PwnedPasswordsTests.sha1("hunter2"))
        let prefix = String(decoding: hash[0..<5], as: UTF8.self)
        var lines = (0..<500).map { i in String(format: "%035X", i) + ":\(i + 1)" }
        lines.append(String(decoding: hash[5...], as: UTF8.self) + ":17043")
        try Data(lines.sorted().map { $0 + "\r\n" }.joined().utf8).write(to: URL(fileURLWithPath: folder + "/" + prefix + ".txt"))
        let pwned = try PwnedPasswords(path: folder)
        XCTAssertEqual(try pwned.count(password: SecretBytes(utf8: "hunter2")), 17043)
        // Same range, not listed.
        var other = PwnedPasswordsTests.sha1("hunter2")
        other[19] &+= 1
        XCTAssertEqual(try pwned.count(sha1: SecretBytes(copying: other)), 0)
        // A range file without the .txt extension is found too; a missing range is an error, not "safe".
        try FileManager.default.moveItem(atPath: folder + "/" + prefix + ".txt", toPath: folder + "/" + prefix)
        XCTAssertEqual(try PwnedPasswords(path: folder).count(password: SecretBytes(utf8: "hunter2")), 17043)
        XCTAssertThrowsError(try pwned.count(password: SecretBytes(utf8: "something else entirely"))) { error in
            guard case VaultError.pwnedPasswords(_, .incompleteFolder) = error else { return XCTFail("\(error)") }
        }
    }

    func testBadFilesAreClearErrors() throws {
        func problem(_ body: () throws -> Void) -> PwnedPasswordsProblem? {
            do { try body(); return nil } catch VaultError.pwnedPasswords(_, let p) { return p } catch { return nil }
        }
        XCTAssertEqual(problem { _ = try PwnedPasswords(path: dir + "/absent") }, .missing)
        let garbage = dir + "/garbage.txt"
        try Data(String(repeating: "no hashes here, just text\n", count: 1000).utf8).write(to: URL(fileURLWithPath: garbage))
        XCTAssertEqual(problem { _ = try PwnedPasswords(path: garbage).count(password: SecretBytes(utf8: "x")) }?.kindOnly, .malformed(offset: 0))
        let ntlm = dir + "/ntlm.txt"
        try Data(String(repeating: "8846F7EAEE8FB117AD06BDD830B7586C:5\r\n", count: 500).utf8).write(to: URL(fileURLWithPath: ntlm))
        XCTAssertEqual(problem { _ = try PwnedPasswords(path: ntlm).count(password: SecretBytes(utf8: "x")) }, .notSHA1)
        // A line too long to be a Pwned Passwords line (no newline where one must be).
        let long = dir + "/long.txt"
        try Data(String(repeating: "A", count: 100_000).utf8).write(to: URL(fileURLWithPath: long))
        XCTAssertNotNil(problem { _ = try PwnedPasswords(path: long).count(password: SecretBytes(utf8: "x")) })
    }
}

extension PwnedPasswordsProblem {
    /// `.malformed` with any offset compares equal, for tests that only check the kind.
    var kindOnly: PwnedPasswordsProblem { if case .malformed = self { return .malformed(offset: 0) } else { return self } }
}
