// git's index edited in place for a change's paths (GitIndexFile) against libgit2 writing the whole index, on random
// changes with racily clean entries among them, read back by real git.
import Foundation
import XCTest
import TestSupport
@testable import TresorGit

final class GitIndexFileTests: XCTestCase {
    /// Names that sort in the corners of git's byte order: a folder against a file with a longer name, dots and dashes
    /// before and after "/", a name that is a prefix of another, bytes above ASCII.
    private let names = ["a-b", "a.b", "a/b", "a/b-c", "a/b.c", "a0", "ab", "b", "é", "z/é.json", "Folder1/site-1.json",
                         "Folder1/site-10.json", "Folder1/site-1.jsonx", "Folder10/x", "deep/er/and/deeper/file"]

    private func index(_ dir: String) throws -> (Data, timespec) {
        var st = stat()
        XCTAssertEqual(lstat(dir + "/.git/index", &st), 0)
        return (try Data(contentsOf: URL(fileURLWithPath: dir + "/.git/index")), st.st_mtim)
    }

    /// Puts back an index file and its modification time (which decides what is racily clean).
    private func restore(_ saved: (Data, timespec), in dir: String) throws {
        try saved.0.write(to: URL(fileURLWithPath: dir + "/.git/index"))
        var times = [saved.1, saved.1]
        XCTAssertEqual(utimensat(AT_FDCWD, dir + "/.git/index", &times, 0), 0)
    }

    /// Sets a file's modification time (and so its change time to now).
    private func touch(_ path: String, to time: timespec) {
        var times = [time, time]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    func testAnIndexEditedInPlaceIsTheOneLibgit2WritesOnRandomChanges() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        let files = names
        for name in files { try write("first \(name)", to: name, in: temp.path) }
        Thread.sleep(forTimeInterval: 0.02)
        _ = try repo.commit(message: "First", adding: files)
        var rng = SplitMix64(seed: 20261207)
        var present = Set(files)
        // Files staged with a modification time after the index was written: racily clean in the next round.
        var racy: [String] = []
        var smudged = 0, keptRacy = 0, smudgedEntries = 0
        var lastFuture = timespec()
        for round in 0..<60 {
            var paths: [String] = [], known: [String: String] = [:]
            for name in files where rng.next() % 4 == 0 {
                paths.append(name)
                if present.contains(name), rng.next() % 3 == 0 {
                    try FileManager.default.removeItem(atPath: temp.sub(name))
                    present.remove(name)
                } else {
                    let text = "round \(round) \(name) " + String(repeating: "x", count: Int(rng.next() % 40))
                    try write(text, to: name, in: temp.path)
                    known[name] = try repo.writeBlob(Array(text.utf8))
                    present.insert(name)
                }
            }
            // Last round's racily clean files the change does not name: some rewritten with other bytes of the same size
            // (both ways must smudge them), the others left as they are (both ways keep them).
            for name in racy where !paths.contains(name) && present.contains(name) {
                guard rng.next() % 2 == 0 else { keptRacy += 1; continue }
                let old = try String(contentsOfFile: temp.sub(name), encoding: .utf8)
                try write(String(old.reversed()) == old ? old + "!" : String(old.reversed()), to: name, in: temp.path)
                smudged += 1
            }
            // The index of the round before is dated exactly when its racy files were modified (racily clean in the same
            // nanosecond, not only after it).
            if !racy.isEmpty { touch(temp.sub(".git/index"), to: lastFuture) }
            // (In name order: a dictionary's order differs from run to run, and with it what the seed chose.)
            racy = known.keys.sorted().filter { _ in rng.next() % 3 == 0 }
            let future = timespec(tv_sec: time(nil) + 3600, tv_nsec: Int(rng.next() % 1_000_000_000))
            for name in racy { touch(temp.sub(name), to: future) }
            lastFuture = future
            let saved = try index(temp.path)
            XCTAssertTrue(try repo.refreshIndexInPlace(paths: paths, knownBlobs: known), "round \(round): edited in place")
            let inPlace = try git("ls-files", "--stage", "--debug", in: temp.path)
            smudgedEntries += inPlace.components(separatedBy: "size: 0\t").count - 1
            try restore(saved, in: temp.path)
            try repo.refreshIndex(paths: paths, knownBlobs: known, inPlace: false)
            XCTAssertEqual(inPlace, try git("ls-files", "--stage", "--debug", in: temp.path), "round \(round): the same entries")
            XCTAssertEqual(try runGit(["fsck", "--no-dangling"], in: temp.path).status, 0)
        }
        XCTAssertGreaterThan(smudged, 5, "racily clean files changed behind the index")
        XCTAssertGreaterThan(keptRacy, 5, "racily clean files left as they were")
        XCTAssertGreaterThan(smudgedEntries, 0, "some entries smudged in the indexes written")
    }

    /// An index real git wrote with what it may add: version 3 entries (skip-worktree), the untracked cache and the
    /// offset tables (`UNTR`, `EOIE`, `IEOT`). Edited in place, the flags stay and the caches go, as libgit2 does.
    func testAnIndexGitWroteWithItsCachesIsEditedAsLibgit2Would() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        for name in ["a.json", "b.json", "c.json"] { try write("one \(name)", to: name, in: temp.path) }
        _ = try repo.commit(message: "First", adding: ["a.json", "b.json", "c.json"])
        let options = ["-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true", "-c", "index.threads=2",
                       "-c", "core.untrackedCache=true"]
        XCTAssertEqual(try runGit(options + ["update-index", "--skip-worktree", "c.json"], in: temp.path).status, 0)
        XCTAssertEqual(try runGit(options + ["update-index", "--untracked-cache", "--force-untracked-cache"], in: temp.path).status, 0)
        XCTAssertEqual(try runGit(options + ["status", "--porcelain"], in: temp.path).status, 0)
        let raw = try Data(contentsOf: URL(fileURLWithPath: temp.sub(".git/index")))
        XCTAssertEqual(raw[7], 3, "version 3")
        for ext in ["UNTR", "EOIE", "IEOT"] { XCTAssertNotNil(raw.range(of: Data(ext.utf8)), ext) }
        Thread.sleep(forTimeInterval: 0.02)
        try write("two a.json", to: "a.json", in: temp.path)
        try write("new d.json", to: "d.json", in: temp.path)
        let known = ["a.json": try repo.writeBlob(Array("two a.json".utf8)), "d.json": try repo.writeBlob(Array("new d.json".utf8))]
        let saved = try index(temp.path)
        XCTAssertTrue(try repo.refreshIndexInPlace(paths: ["a.json", "d.json"], knownBlobs: known))
        let inPlace = try git("ls-files", "-t", "--stage", "--debug", in: temp.path)
        XCTAssertTrue(inPlace.split(separator: "\n").contains { $0.hasPrefix("S ") && $0.hasSuffix("\tc.json") }, "skip-worktree kept: \(inPlace)")
        XCTAssertEqual(try git("status", "--porcelain", "--untracked-files=no", in: temp.path), "M  a.json\nA  d.json")
        try restore(saved, in: temp.path)
        try repo.refreshIndex(paths: ["a.json", "d.json"], knownBlobs: known, inPlace: false)
        XCTAssertEqual(inPlace, try git("ls-files", "-t", "--stage", "--debug", in: temp.path))
    }

    /// A link's entry, or a file put where the index has a folder (or on the way to a file it has): libgit2's work.
    func testLinksAndFilesInPlaceOfFoldersAreLeftToLibgit2() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("one", to: "a.json", in: temp.path)
        try write("two", to: "d/b.json", in: temp.path)
        _ = try repo.commit(message: "First", adding: ["a.json", "d/b.json"])
        let blob = try repo.writeBlob(Array("uno".utf8))
        // A file where the index has the folder d/, and one under a.json taken as a folder.
        try FileManager.default.removeItem(atPath: temp.sub("d"))
        try write("uno", to: "d", in: temp.path)
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["d"], knownBlobs: ["d": blob]))
        try FileManager.default.removeItem(atPath: temp.sub("d"))
        try write("two", to: "d/b.json", in: temp.path)
        try FileManager.default.removeItem(atPath: temp.sub("a.json"))
        try write("uno", to: "a.json/x", in: temp.path)
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["a.json/x"], knownBlobs: ["a.json/x": blob]))
        try FileManager.default.removeItem(atPath: temp.sub("a.json"))
        try write("one", to: "a.json", in: temp.path)
        XCTAssertTrue(try repo.refreshIndexInPlace(paths: ["d/b"], knownBlobs: [:]), "a path that is gone: nothing collides")
        // A link in the index.
        try FileManager.default.createSymbolicLink(atPath: temp.sub("link"), withDestinationPath: "a.json")
        XCTAssertEqual(try runGit(["add", "link"], in: temp.path).status, 0)
        try write("uno", to: "a.json", in: temp.path)
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: ["a.json": blob]))
        try repo.refreshIndex(paths: ["a.json"], knownBlobs: ["a.json": blob])
        XCTAssertEqual(try git("ls-files", "--stage", "a.json", "link", in: temp.path).split(separator: "\n").count, 2)
    }

    func testIndexesItDoesNotEditAreLeftToLibgit2() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("one", to: "a.json", in: temp.path)
        try write("two", to: "b.json", in: temp.path)
        _ = try repo.commit(message: "First", adding: ["a.json", "b.json"])
        try write("uno", to: "a.json", in: temp.path)
        let blob = try repo.writeBlob(Array("uno".utf8))
        // A file whose blob is not known: libgit2 hashes it.
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: [:]))
        XCTAssertTrue(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: ["a.json": blob]))
        // Version 4 (paths compressed).
        try git("update-index", "--index-version", "4", in: temp.path)
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: ["a.json": blob]), "version 4")
        try repo.refreshIndex(paths: ["a.json"], knownBlobs: ["a.json": blob])
        XCTAssertEqual(try git("ls-files", "--stage", "a.json", in: temp.path), "100644 \(blob) 0\ta.json")
        try git("update-index", "--index-version", "2", in: temp.path)
        // A path in conflict (stages 1 and 2).
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "printf '100644 \(blob) 1\\tc.json\\n100644 \(blob) 2\\tc.json\\n' | git update-index --index-info"]
        shell.currentDirectoryURL = URL(fileURLWithPath: temp.path)
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(try git("ls-files", "--unmerged", in: temp.path).split(separator: "\n").count, 2)
        XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: ["a.json": blob]), "a conflict")
        try repo.refreshIndex(paths: ["b.json"], knownBlobs: ["b.json": try repo.writeBlob(Array("two".utf8))])
        XCTAssertEqual(try git("ls-files", "--unmerged", in: temp.path).split(separator: "\n").count, 2, "kept by libgit2")
        // Held by another writer: locked, nothing written.
        XCTAssertTrue(FileManager.default.createFile(atPath: temp.sub(".git/index.lock"), contents: Data()))
        XCTAssertThrowsError(try repo.refreshIndexInPlace(paths: ["a.json"], knownBlobs: ["a.json": blob])) { error in
            XCTAssertEqual(error as? GitError, .locked(path: ".git/index.lock"))
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: temp.sub(".git/index.lock")), "another writer's lock stays")
    }
}

extension GitIndexFileTests {
    /// An index above a megabyte (its old checksum checked on another thread while the new file is written), edited in
    /// place on random changes as libgit2 edits it.
    func testALargeIndexIsEditedAsLibgit2Would() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try fillIndex(repo, temp.path, entries: 15_000)
        var rng = SplitMix64(seed: 20261208)
        for round in 0..<6 {
            var decisions: [String: String?] = [:]
            for _ in 0..<(1 + rng.next() % 30) {
                let name = "Folder\(rng.next() % 60)/site-\(rng.next() % 16_000).json"
                decisions[name] = rng.next() % 3 == 0 ? .some(nil) : "round \(round) \(name)"
            }
            var known: [String: String] = [:]
            for (name, text) in decisions {
                if let text {
                    try write(text, to: name, in: temp.path)
                    known[name] = try repo.writeBlob(Array(text.utf8))
                } else {
                    try? FileManager.default.removeItem(atPath: temp.sub(name))
                }
            }
            let paths = decisions.keys.sorted()
            let saved = try index(temp.path)
            XCTAssertGreaterThan(saved.0.count, 1 << 20)
            XCTAssertTrue(try repo.refreshIndexInPlace(paths: paths, knownBlobs: known), "round \(round): edited in place")
            let inPlace = try git("ls-files", "--stage", "--debug", in: temp.path)
            try restore(saved, in: temp.path)
            try repo.refreshIndex(paths: paths, knownBlobs: known, inPlace: false)
            XCTAssertEqual(inPlace, try git("ls-files", "--stage", "--debug", in: temp.path), "round \(round): the same entries")
        }
    }

    /// An index whose checksum is wrong, large (checked on another thread) or small, is not edited: nothing is written,
    /// no lock is left, and libgit2 then reports it.
    func testAnIndexWithAWrongChecksumIsLeftAsItIs() throws {
        for entries in [15_000, 20] {
            let temp = try TempDir()
            let repo = try GitRepository.create(at: temp.path)
            try fillIndex(repo, temp.path, entries: entries)
            var raw = try Data(contentsOf: URL(fileURLWithPath: temp.sub(".git/index")))
            raw[raw.count / 2] ^= 0x01
            try raw.write(to: URL(fileURLWithPath: temp.sub(".git/index")))
            try write("two", to: "new.json", in: temp.path)
            let known = ["new.json": try repo.writeBlob(Array("two".utf8))]
            XCTAssertFalse(try repo.refreshIndexInPlace(paths: ["new.json"], knownBlobs: known), "\(entries) entries")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: temp.sub(".git/index"))), raw, "\(entries) entries: untouched")
            XCTAssertFalse(FileManager.default.fileExists(atPath: temp.sub(".git/index.lock")))
            XCTAssertThrowsError(try repo.refreshIndex(paths: ["new.json"], knownBlobs: known), "\(entries) entries: libgit2 says so")
        }
    }

    /// An index of `entries` paths in 50 folders, all of one blob (staged without their files, as `--index-info` does).
    private func fillIndex(_ repo: GitRepository, _ dir: String, entries: Int) throws {
        let blob = try repo.writeBlob(Array("one".utf8))
        let lines = (0..<entries).map { "100644 \(blob)\tFolder\($0 % 50)/site-\($0).json\n" }.joined()
        try lines.write(toFile: dir + "/info", atomically: true, encoding: .utf8)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "git update-index --index-info < info && rm info"]
        shell.currentDirectoryURL = URL(fileURLWithPath: dir)
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        XCTAssertEqual(try git("ls-files", in: dir).split(separator: "\n").count, entries)
    }
}
