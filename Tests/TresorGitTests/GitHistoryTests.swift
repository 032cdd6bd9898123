// Tests for the commit log, per-commit changes and uncommitted paths.
import Foundation
import XCTest
@testable import TresorGit

final class GitHistoryTests: XCTestCase {
    func testLogListsNewestFirstWithDetails() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        var ids: [String] = []
        for number in 1...3 {
            try write("\(number)", to: "f", in: temp.path)
            ids.append(try repo.commit(message: "Step \(number)\n\nDetails \(number).", adding: ["f"]))
        }
        let log = try repo.log()
        XCTAssertEqual(log.map(\.id), ids.reversed())
        XCTAssertEqual(log.map(\.summary), ["Step 3", "Step 2", "Step 1"])
        XCTAssertEqual(log[0].message, "Step 3\n\nDetails 3.\n")
        XCTAssertEqual(log[0].parents, [ids[1]])
        XCTAssertEqual(log[2].parents, [])
        XCTAssertEqual(log[0].author, repo.defaultSignature())
        XCTAssertLessThan(abs(log[0].date.timeIntervalSinceNow), 600)
        let gitDates = try git("log", "--format=%at", in: temp.path).split(separator: "\n")
        XCTAssertEqual(log.map { String(Int($0.date.timeIntervalSince1970)) }, gitDates.map(String.init))
        XCTAssertEqual(try repo.log(limit: 2).map(\.id), [ids[2], ids[1]])
        XCTAssertEqual(try repo.log(limit: 0), [])
    }

    func testLogByPathFollowsMerges() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("a1", to: "a", in: temp.path)
        try write("b1", to: "b", in: temp.path)
        let base = try repo.commit(message: "base", adding: ["a", "b"])
        try git("checkout", "-q", "-b", "side", in: temp.path)
        try write("a-side", to: "a", in: temp.path)
        try git("commit", "-q", "-am", "side changes a", in: temp.path)
        try git("checkout", "-q", "main", in: temp.path)
        try write("b2", to: "b", in: temp.path)
        let mainB = try repo.commit(message: "main changes b", adding: ["b"])
        try git("merge", "-q", "--no-ff", "-m", "merge side", "side", in: temp.path)
        let merge = try git("rev-parse", "HEAD", in: temp.path)
        let side = try git("rev-parse", "side", in: temp.path)

        let repoAgain = try GitRepository.open(at: temp.path)
        XCTAssertEqual(try repoAgain.log().count, 4)
        XCTAssertEqual(try repoAgain.log(path: "a").map(\.id), [side, base])
        XCTAssertEqual(try repoAgain.log(path: "b").map(\.id), [mainB, base])
        XCTAssertEqual(try repoAgain.log(path: "a", limit: 1).map(\.id), [side])
        XCTAssertEqual(try repoAgain.log(path: "nowhere"), [])

        // A merge that writes content neither side had is listed for that path.
        try git("checkout", "-q", "-b", "other", base, in: temp.path)
        try write("a-other", to: "a", in: temp.path)
        try git("commit", "-q", "-am", "other changes a", in: temp.path)
        try git("checkout", "-q", "main", in: temp.path)
        XCTAssertNotEqual(try runGit(["merge", "-q", "other"], in: temp.path).status, 0)
        try write("a-resolved", to: "a", in: temp.path)
        try git("commit", "-q", "-am", "resolve a", in: temp.path)
        let resolved = try git("rev-parse", "HEAD", in: temp.path)
        XCTAssertEqual(try repoAgain.log(path: "a").first?.id, resolved)
        XCTAssertEqual(try repoAgain.log(path: "a").count, 4)
        XCTAssertEqual(try repoAgain.log(path: "b").map(\.id), [mainB, base])
        XCTAssertEqual(try repoAgain.log().first?.parents.count, 2)
        XCTAssertTrue(try repoAgain.log().map(\.id).contains(merge))
    }

    func testChangesReportsEachKind() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("keep", to: "keep", in: temp.path)
        try write("old", to: "dir/edit", in: temp.path)
        try write("gone", to: "gone", in: temp.path)
        try write("moving content", to: "from", in: temp.path)
        let root = try repo.commit(message: "root", adding: ["keep", "dir/edit", "gone", "from"])
        XCTAssertEqual(try repo.changes(in: root), [
            GitChange(path: "dir/edit", kind: .added), GitChange(path: "from", kind: .added),
            GitChange(path: "gone", kind: .added), GitChange(path: "keep", kind: .added),
        ])

        try write("new", to: "dir/edit", in: temp.path)
        try write("fresh", to: "new/file", in: temp.path)
        try FileManager.default.removeItem(atPath: temp.sub("gone"))
        try FileManager.default.moveItem(atPath: temp.sub("from"), toPath: temp.sub("to"))
        let second = try repo.commit(message: "all kinds", adding: ["dir/edit", "new/file", "to"], removing: ["gone", "from"])
        XCTAssertEqual(try repo.changes(in: second), [
            GitChange(path: "dir/edit", kind: .modified), GitChange(path: "gone", kind: .deleted),
            GitChange(path: "new/file", kind: .added), GitChange(path: "to", kind: .renamed(from: "from")),
        ])
        XCTAssertEqual(try repo.changes(in: "HEAD"), try repo.changes(in: second))
        assertGitError(.unknownRevision("0000000"), try repo.changes(in: "0000000"))
        try assertFsck(temp.path)
    }

    func testUncommittedPaths() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        XCTAssertEqual(try repo.uncommittedPaths(), [])
        try write("ignored.tmp\n", to: ".gitignore", in: temp.path)
        try write("t", to: "tracked", in: temp.path)
        try write("s", to: "staged", in: temp.path)
        try write("d", to: "deleted", in: temp.path)
        XCTAssertEqual(try repo.uncommittedPaths(), [".gitignore", "deleted", "staged", "tracked"])
        try repo.commit(message: "start", adding: [".gitignore", "tracked", "staged", "deleted"])
        XCTAssertEqual(try repo.uncommittedPaths(), [])

        try write("t2", to: "tracked", in: temp.path)
        try write("s2", to: "staged", in: temp.path)
        try git("add", "staged", in: temp.path)
        try FileManager.default.removeItem(atPath: temp.sub("deleted"))
        try write("u", to: "new/deep/untracked", in: temp.path)
        try write("i", to: "ignored.tmp", in: temp.path)
        XCTAssertEqual(try repo.uncommittedPaths(), ["deleted", "new/deep/untracked", "staged", "tracked"])
    }
}
