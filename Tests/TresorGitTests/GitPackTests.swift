// Tests for writing a change's objects as one pack and for staging files from known blob ids, checked with real git.
import Foundation
import XCTest
@testable import TresorGit
import CGit2

final class GitPackTests: XCTestCase {
    private func looseObjects(_ dir: String) throws -> Int {
        let counts = try git("count-objects", "-v", in: dir)
        return Int(counts.split(separator: "\n").first { $0.hasPrefix("count: ") }!.dropFirst(7))!
    }

    private func packs(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir + "/.git/objects/pack").filter { $0.hasSuffix(".pack") }
    }

    func testAChangeWrittenAsOnePackHoldsExactlyItsNewObjects() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("kept", to: "kept.json", in: temp.path)
        try write("old", to: "dir/changed.json", in: temp.path)
        let first = try repo.commit(message: "First", adding: ["kept.json", "dir/changed.json"])
        let loose = try looseObjects(temp.path)

        let second = try repo.writingObjectsAsOnePack { () -> String in
            var changes: [GitTreeChange] = [.put(path: "dir/changed.json", blob: try repo.writeBlob(Array("new".utf8)))]
            for i in 0..<100 { changes.append(.put(path: "many/\(i).json", blob: try repo.writeBlob(Array("file \(i)".utf8)))) }
            // Written but reached by no commit: not stored.
            _ = try repo.writeBlob(Array("unused".utf8))
            let tree = try repo.tree(from: first, applying: changes)
            // Readable before the pack exists.
            XCTAssertEqual(try repo.blob(at: first, path: "kept.json").map { String(decoding: $0, as: UTF8.self) }, "kept")
            return try repo.writeCommit(tree: tree, parents: [first], message: "Second")
        }
        XCTAssertEqual(try looseObjects(temp.path), loose, "no loose object written")
        let pack = try XCTUnwrap(try packs(temp.path).first)
        XCTAssertEqual(try packs(temp.path).count, 1)
        let listed = try git("verify-pack", "-v", temp.sub(".git/objects/pack/" + pack), in: temp.path)
        let ids = Set(listed.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ")
            return parts.count >= 3 && ["blob", "tree", "commit"].contains(parts[1]) ? String(parts[0]) : nil
        })
        // 101 blobs, the root tree, dir/ and many/, the commit; not kept.json's blob, not the unused one.
        XCTAssertEqual(ids.count, 101 + 3 + 1)
        XCTAssertTrue(ids.contains(second))
        XCTAssertFalse(ids.contains(try git("rev-parse", "\(first):kept.json", in: temp.path).trimmingCharacters(in: .whitespacesAndNewlines)))
        try write("unused", to: "unused.txt", in: temp.sub("outside"))
        XCTAssertFalse(ids.contains(try git("hash-object", temp.sub("outside/unused.txt"), in: temp.path)))
        try git("update-ref", "refs/heads/main", second, in: temp.path)
        try assertFsck(temp.path)
        XCTAssertEqual(try git("show", "\(second):many/42.json", in: temp.path), "file 42")
        XCTAssertEqual(try git("show", "\(second):dir/changed.json", in: temp.path), "new")
        // Afterwards objects reach the disk one by one again.
        let later = try repo.writeBlob(Array("later".utf8))
        XCTAssertEqual(try git("cat-file", "-p", later, in: temp.path), "later")
        XCTAssertEqual(try looseObjects(temp.path), loose + 1)
    }

    /// The index tresor writes for its packs (no longer libgit2's indexer), with offsets in the table of 64-bit offsets
    /// too (git puts an offset there from 2 GiB on; here from the second object, the first being at 12), as real git reads and checks it.
    func testAPacksIndexIsReadByGitWithSmallAndLargeOffsets() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        let contents = (0..<40).map { i in Array("object \(i) ".utf8) + Array(repeating: UInt8(i), count: i * 37) }
        for threshold: UInt64 in [0x8000_0000, 13] {
            var pack = PackFileWriter(largeOffsetsFrom: threshold)
            var ids: [String] = []
            for bytes in contents {
                var id = git_oid()
                _ = bytes.withUnsafeBytes { git_odb_hash(&id, $0.baseAddress, $0.count, GIT_OBJECT_BLOB) }
                let entry = try XCTUnwrap(bytes.withUnsafeBytes { PackFileWriter.entry(type: GIT_OBJECT_BLOB, data: $0) })
                pack.append(entry: entry, crc: PackFileWriter.crc(of: entry), id: id)
                ids.append(id.hex)
            }
            let written = try pack.finish()
            XCTAssertEqual(written.index.count, 8 + 256 * 4 + 40 * (20 + 4 + 4) + (threshold == 13 ? 39 * 8 : 0) + 40, "offsets past the threshold in the 64-bit table")
            try repo.store(written, in: temp.sub(".git/objects/pack"))
            let name = temp.sub(".git/objects/pack/pack-" + GitRepository.hex(written.checksum[...]))
            let listed = try git("verify-pack", "-v", name + ".idx", in: temp.path)
            XCTAssertTrue(listed.contains("non delta: 40 objects"), listed)
            for (id, bytes) in zip(ids, contents) {
                XCTAssertEqual(try runGit(["cat-file", "blob", id], in: temp.path).stdout, String(decoding: bytes, as: UTF8.self))
            }
            try FileManager.default.removeItem(atPath: name + ".pack")
            try FileManager.default.removeItem(atPath: name + ".idx")
        }
    }

    /// A crash between the pack's rename and its index's leaves the index's temporary file: the next large change puts
    /// it in place, and removes other temporary files a crash left.
    func testAPackWhoseIndexWasNotRenamedIsFinishedByTheNextLargeChange() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        let folder = temp.sub(".git/objects/pack")
        var pack = PackFileWriter()
        let bytes = Array("interrupted".utf8)
        var id = git_oid()
        _ = bytes.withUnsafeBytes { git_odb_hash(&id, $0.baseAddress, $0.count, GIT_OBJECT_BLOB) }
        let entry = try XCTUnwrap(bytes.withUnsafeBytes { PackFileWriter.entry(type: GIT_OBJECT_BLOB, data: $0) })
        pack.append(entry: entry, crc: PackFileWriter.crc(of: entry), id: id)
        let written = try pack.finish()
        let name = folder + "/pack-" + GitRepository.hex(written.checksum[...])
        // As `store` leaves them when killed after the first rename.
        let packFile = try GitRepository.writeTemporaryFile(for: name + ".pack", written.bytes, durable: true, mode: 0o400, operation: .writePack)
        _ = try GitRepository.writeTemporaryFile(for: name + ".idx", written.index, durable: true, mode: 0o400, operation: .writePack)
        try GitRepository.renameTemporary(packFile, to: name + ".pack", operation: .writePack)
        let stray = folder + "/pack-0123.pack" + GitRepository.temporarySuffix
        XCTAssertTrue(FileManager.default.createFile(atPath: stray, contents: Data("half".utf8)))
        XCTAssertNotEqual(try runGit(["cat-file", "-e", id.hex], in: temp.path).status, 0, "no index: git does not see the pack")

        _ = try repo.writingObjectsAsOnePack { () -> String in
            let blob = try repo.writeBlob(Array("next".utf8))
            let tree = try repo.tree(from: nil, applying: [.put(path: "next.json", blob: blob)])
            return try repo.writeCommit(tree: tree, parents: [], message: "Next")
        }
        XCTAssertEqual(try git("cat-file", "blob", id.hex, in: temp.path), "interrupted")
        XCTAssertTrue(try git("verify-pack", "-v", name + ".idx", in: temp.path).contains("non delta: 1 object"))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(GitRepository.temporarySuffix) }
        XCTAssertEqual(left, [], "no temporary file stays")
    }

    func testNothingIsStoredWhenTheChangeFails() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        struct Stop: Error {}
        var blob = ""
        XCTAssertThrowsError(try repo.writingObjectsAsOnePack {
            blob = try repo.writeBlob(Array("lost".utf8))
            let tree = try repo.tree(from: nil, applying: [.put(path: "a.json", blob: blob)])
            _ = try repo.writeCommit(tree: tree, parents: [], message: "Never")
            throw Stop()
        })
        XCTAssertEqual(try packs(temp.path), [])
        XCTAssertEqual(try looseObjects(temp.path), 0)
        XCTAssertNotEqual(try runGit(["cat-file", "-e", blob], in: temp.path).status, 0)
        let after = try repo.writeBlob(Array("kept".utf8))
        XCTAssertEqual(try git("cat-file", "-p", after, in: temp.path), "kept")
    }

    func testFilesStagedFromTheirBlobIDsLeaveACleanStatusAndAreSeenUnchanged() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("one", to: "a.json", in: temp.path)
        try write("two", to: "d/b.json", in: temp.path)
        Thread.sleep(forTimeInterval: 0.01)  // files older than the index written next, so not racily clean
        let first = try repo.commit(message: "First", adding: ["a.json", "d/b.json"])
        // Change a file as a checkout would, and stage it from the blob id alone.
        let blob = try repo.writeBlob(Array("uno".utf8))
        let tree = try repo.tree(from: first, applying: [.put(path: "a.json", blob: blob)])
        let second = try repo.writeCommit(tree: tree, parents: [first], message: "Second")
        try git("update-ref", "refs/heads/main", second, in: temp.path)
        try write("uno", to: "a.json", in: temp.path)
        Thread.sleep(forTimeInterval: 0.01)  // the index must be newer than the file, or git hashes it again
        try repo.refreshIndex(paths: ["a.json"], knownBlobs: ["a.json": blob])
        XCTAssertEqual(try git("status", "--porcelain", in: temp.path), "")
        XCTAssertEqual(try git("ls-files", "-s", "a.json", in: temp.path), "100644 \(blob) 0\ta.json")

        XCTAssertEqual(try repo.indexedBlobIDs(of: ["a.json", "d/b.json", "missing.json"]).keys.sorted(), ["a.json", "d/b.json"])
        XCTAssertEqual(try repo.indexedBlobIDs(of: ["a.json"])["a.json"], blob)
        // Same size, new content: the times differ, so the file is left for the caller to hash.
        try write("dos", to: "a.json", in: temp.path)
        XCTAssertNil(try repo.indexedBlobIDs(of: ["a.json"])["a.json"])
    }
}
