// A leased push to a repository on this machine sends one pack of what the remote lacks: checked on generated histories
// (files added, changed, moved, removed, folders emptied, old contents brought back, merges) by real git.
import Foundation
import XCTest
import TestSupport
@testable import TresorGit

final class GitPushTests: XCTestCase {
    /// After every push of 40 rounds of random commits, the remote's `main` is the local one and git finds every object
    /// it reaches there (`fsck --strict`, which reports a missing one); a push with nothing new writes no pack.
    func testLeasedPushesToAPathSendEverythingTheRemoteLacks() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=main", bare)
        let repo = try GitRepository.clone(url: bare, to: temp.sub("local"), credentials: .none)
        var rng = SplitMix64(seed: 20261207)
        var present: [String: String] = [:]  // path → content
        var contents: [String] = []
        var lease: String? = nil
        var sent = 0
        // A folder large enough that the versions of its tree pushed together are stored as deltas of each other.
        let big = (0..<60).map { "big/g\($0)" }
        for path in big {
            present[path] = "big \(path)"
            try write(present[path]!, to: path, in: repo.workdir)
        }
        try repo.commit(message: "big", adding: big)
        for round in 0..<40 {
            for _ in 0..<(1 + rng.next() % 3) {
                // Operations on distinct paths, applied to the next state, then committed as one.
                var next = present, touched = Set<String>()
                for _ in 0..<(1 + rng.next() % 6) {
                    let folder = ["", "a/", "a/b/", "c/", "c/d/e/", "big/"][Int(rng.next() % 6)]
                    let path = folder + "f\(rng.next() % 12)"
                    guard !touched.contains(path) else { continue }
                    switch rng.next() % 5 {
                    case 0 where next[path] != nil:
                        next[path] = nil
                    case 1 where !contents.isEmpty:  // an old content (an old blob) back at some path
                        next[path] = contents[Int(rng.next() % UInt64(contents.count))]
                    case 2:  // a file moved: the same blob at another path
                        let candidates = next.keys.filter { !touched.contains($0) && $0 != path }.sorted()
                        guard !candidates.isEmpty else { continue }
                        let from = candidates[Int(rng.next() % UInt64(candidates.count))]
                        next[path] = next[from]
                        next[from] = nil
                        touched.insert(from)
                    default:
                        let text = "round \(round) \(path) \(rng.next())"
                        next[path] = text
                        contents.append(text)
                    }
                    touched.insert(path)
                }
                let adding = touched.filter { next[$0] != nil }.sorted()
                let removing = touched.filter { next[$0] == nil && present[$0] != nil }.sorted()
                for path in removing { try FileManager.default.removeItem(atPath: repo.workdir + "/" + path) }
                for path in adding { try write(next[path]!, to: path, in: repo.workdir) }
                present = next
                guard !(adding.isEmpty && removing.isEmpty) else { continue }
                do { try repo.commit(message: "round \(round)", adding: adding, removing: removing) } catch GitError.nothingToCommit {}
            }
            if round % 5 == 4 {
                // A merge: a side commit on the last pushed commit (or main) changing one file, joined into main.
                let main = try git("rev-parse", "main", in: repo.workdir)
                let path = "side/f\(rng.next() % 4)", text = "side \(round)"
                let change = [GitTreeChange.put(path: path, blob: try repo.writeBlob(Array(text.utf8)))]
                let side = try repo.writeCommit(tree: try repo.tree(from: lease ?? main, applying: change), parents: [lease ?? main],
                                                message: "side")
                let merge = try repo.writeCommit(tree: try repo.tree(from: main, applying: change), parents: [main, side], message: "merge")
                try repo.moveBranch(from: main, to: merge, log: "merge")
                try write(text, to: path, in: repo.workdir)
                present[path] = text
                contents.append(text)
            }
            let head = try git("rev-parse", "main", in: repo.workdir)
            let packs = try packCount(bare)
            try repo.push(remote: "origin", credentials: .none, lease: .some(lease))
            XCTAssertEqual(try git("rev-parse", "main", in: bare), head, "round \(round)")
            let fsck = try runGit(["fsck", "--strict", "--no-dangling"], in: bare)
            XCTAssertEqual(fsck.status, 0, "round \(round): \(fsck.stdout)\(fsck.stderr)")
            if head == lease { XCTAssertEqual(try packCount(bare), packs, "round \(round): nothing new, no pack") }
            else { sent += 1 }
            lease = head
        }
        XCTAssertGreaterThan(sent, 30)
        // Some trees went as deltas, and git reads them back (`verify-pack` hashes every object it rebuilds).
        var deltas = 0
        for pack in try FileManager.default.contentsOfDirectory(atPath: bare + "/objects/pack") where pack.hasSuffix(".idx") {
            let verified = try runGit(["verify-pack", "-v", bare + "/objects/pack/" + pack])
            XCTAssertEqual(verified.status, 0, verified.stderr)
            deltas += verified.stdout.split(separator: "\n").filter { $0.split(separator: " ", omittingEmptySubsequences: true).count == 7 }.count
        }
        XCTAssertGreaterThan(deltas, 5, "trees stored as deltas")
        // Its packs as git writes them there (read-only, readable as the umask allows), not private to tresor.
        let mask = umask(0)
        umask(mask)
        for name in try FileManager.default.contentsOfDirectory(atPath: bare + "/objects/pack") {
            var st = stat()
            XCTAssertEqual(lstat(bare + "/objects/pack/" + name, &st), 0)
            XCTAssertEqual(st.st_mode & 0o777, 0o444 & ~mask, name)
        }
        // The remote's work tree, checked out by git, is the local one.
        let check = temp.sub("check")
        try git("clone", "-q", bare, check)
        for (path, text) in present { XCTAssertEqual(try String(contentsOfFile: check + "/" + path, encoding: .utf8), text, path) }
    }

    /// An object whose stored bytes are not the ones its id names is not sent: the push fails and the remote stays.
    func testAPushRefusesAnObjectWhoseBytesDoNotMatchItsID() throws {
        let temp = try TempDir()
        let bare = temp.sub("server.git")
        try git("init", "-q", "--bare", "--initial-branch=main", bare)
        let repo = try GitRepository.clone(url: bare, to: temp.sub("local"), credentials: .none)
        try write("one", to: "a", in: repo.workdir)
        let first = try repo.commit(message: "one", adding: ["a"])
        try repo.push(remote: "origin", credentials: .none, lease: .some(nil))
        try write("two", to: "a", in: repo.workdir)
        _ = try repo.commit(message: "two", adding: ["a"])
        // The loose file of "two"'s blob replaced by another object's (valid, but named otherwise).
        let blob = try git("rev-parse", "main:a", in: repo.workdir)
        try write("three", to: "three.txt", in: temp.path)
        let other = try git("hash-object", "-w", temp.sub("three.txt"), in: repo.workdir)
        let objects = repo.workdir + "/.git/objects/"
        let path = objects + blob.prefix(2) + "/" + blob.dropFirst(2)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: objects + other.prefix(2) + "/" + other.dropFirst(2), toPath: path)
        XCTAssertThrowsError(try repo.push(remote: "origin", credentials: .none, lease: .some(first)))
        XCTAssertEqual(try git("rev-parse", "main", in: bare), first, "the remote stays")
        XCTAssertEqual(try packCount(bare), 1, "no pack of the refused push")
    }

    private func packCount(_ bare: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: bare + "/objects/pack").filter { $0.hasSuffix(".pack") }.count
    }
}
