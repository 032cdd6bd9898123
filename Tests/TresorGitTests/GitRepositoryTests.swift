// Tests for creating and opening repositories, committing, and reading files back, checked with real git.
import Foundation
import XCTest
import TestSupport
@testable import TresorGit

final class GitRepositoryTests: XCTestCase {
    func testCreateMakesAnEmptyRepositoryOnMain() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.sub("vault/nested"))
        XCTAssertEqual(repo.workdir, temp.sub("vault/nested"))
        XCTAssertNil(try repo.headCommitID())
        XCTAssertEqual(try repo.log(), [])
        XCTAssertEqual(try repo.trackedPaths(), [])
        XCTAssertEqual(try git("symbolic-ref", "HEAD", in: repo.workdir), "refs/heads/main")
        XCTAssertEqual(try git("rev-parse", "--is-bare-repository", in: repo.workdir), "false")
    }

    func testCreateRefusesAnExistingRepository() throws {
        let temp = try TempDir()
        _ = try GitRepository.create(at: temp.path)
        assertGitError(.alreadyExists(path: temp.path), try GitRepository.create(at: temp.path))
    }

    func testOpenFindsOnlyTheWorkTreeItself() throws {
        let temp = try TempDir()
        try git("init", "-q", temp.sub("repo"))
        try FileManager.default.createDirectory(atPath: temp.sub("repo/sub"), withIntermediateDirectories: true)
        let repo = try GitRepository.open(at: temp.sub("repo"))
        XCTAssertEqual(repo.workdir, temp.sub("repo"))
        assertGitError(.notARepository(path: temp.sub("repo/sub")), try GitRepository.open(at: temp.sub("repo/sub")))
        assertGitError(.notARepository(path: temp.sub("missing")), try GitRepository.open(at: temp.sub("missing")))
        try git("init", "-q", "--bare", temp.sub("bare.git"))
        XCTAssertThrowsError(try GitRepository.open(at: temp.sub("bare.git")))
    }

    func testCommitsAreValidAndLeaveACleanStatus() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("one", to: "a.json", in: temp.path)
        try write("two", to: "dir/b.json", in: temp.path)
        let me = GitSignature(name: "Ada Lovelace", email: "ada@example.org")
        let first = try repo.commit(message: "Add a and b", adding: ["a.json", "dir/b.json"], signature: me)
        try write("one, changed", to: "a.json", in: temp.path)
        let second = try repo.commit(message: "Change a\n\nWith a body.", adding: ["a.json"], signature: me)

        try assertFsck(temp.path)
        XCTAssertEqual(try git("status", "--porcelain", in: temp.path), "")
        XCTAssertEqual(try repo.headCommitID(), second)
        XCTAssertEqual(try git("rev-parse", "main", in: temp.path), second)
        XCTAssertEqual(
            try git("log", "--format=%H|%P|%an|%ae|%cn|%s", in: temp.path),
            "\(second)|\(first)|Ada Lovelace|ada@example.org|Ada Lovelace|Change a\n"
                + "\(first)||Ada Lovelace|ada@example.org|Ada Lovelace|Add a and b"
        )
        XCTAssertEqual(try git("log", "-1", "--format=%B", in: temp.path), "Change a\n\nWith a body.\n")
        XCTAssertEqual(try git("show", "HEAD:a.json", in: temp.path), "one, changed")
        XCTAssertEqual(try git("reflog", "-1", "--format=%gs", "main", in: temp.path), "commit: Change a")
        XCTAssertEqual(try repo.trackedPaths(), ["a.json", "dir/b.json"])
    }

    func testCommitStagesOnlyTheListedPaths() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("a", to: "a", in: temp.path)
        try write("b", to: "b", in: temp.path)
        try repo.commit(message: "a", adding: ["a"])
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", in: temp.path), "a")
        XCTAssertEqual(try git("status", "--porcelain", in: temp.path), "?? b")

        try FileManager.default.removeItem(atPath: temp.sub("a"))
        try write("b2", to: "b", in: temp.path)
        try repo.commit(message: "swap", adding: ["b"], removing: ["a"])
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", in: temp.path), "b")
        XCTAssertEqual(try git("status", "--porcelain", in: temp.path), "")
        try assertFsck(temp.path)
    }

    func testCommitWithoutChangesIsRefusedUnlessAllowed() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        assertGitError(.nothingToCommit, try repo.commit(message: "empty", adding: []))
        try write("x", to: "x", in: temp.path)
        try repo.commit(message: "x", adding: ["x"])
        assertGitError(.nothingToCommit, try repo.commit(message: "again", adding: ["x"]))
        let empty = try repo.commit(message: "marker", adding: [], allowEmpty: true)
        XCTAssertEqual(try git("log", "-1", "--format=%H %s", in: temp.path), "\(empty) marker")
        try assertFsck(temp.path)
    }

    func testCommitRejectsBadPaths() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.sub("repo"))
        try write("secret", to: "outside", in: temp.path)
        // Also where a combining mark after a slash makes one Character of "/" and the mark (git reads bytes), and
        // ".git" in another case.
        for bad in ["../outside", "/etc/passwd", "a//b", "./a", "", "a/", "a/../\u{301}b", "x/.\u{301}/../../outside", ".GiT/config",
                    "a/.gIt", "a\u{0}b"] {
            assertGitError(.invalidPath(bad), try repo.commit(message: "bad", adding: [bad]))
        }
        assertGitError(.fileNotFound(path: "missing"), try repo.commit(message: "bad", adding: ["missing"]))
        try FileManager.default.createDirectory(atPath: temp.sub("repo/dir"), withIntermediateDirectories: true)
        assertGitError(.fileNotFound(path: "dir"), try repo.commit(message: "bad", adding: ["dir"]))
        XCTAssertThrowsError(try repo.commit(message: "bad", adding: [".git/config"]))
        XCTAssertNil(try repo.headCommitID())
    }

    func testBlobReadsOlderVersionsAndAbsentPaths() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        try write("v1", to: "e/f.json", in: temp.path)
        let first = try repo.commit(message: "v1", adding: ["e/f.json"])
        try write("v2", to: "e/f.json", in: temp.path)
        try repo.commit(message: "v2", adding: ["e/f.json"])
        try write("", to: "empty", in: temp.path)
        try repo.commit(message: "empty file", adding: ["empty"])

        XCTAssertEqual(try repo.blob(at: "HEAD", path: "e/f.json"), Array("v2".utf8))
        XCTAssertEqual(try repo.blob(at: "HEAD~2", path: "e/f.json"), Array("v1".utf8))
        XCTAssertEqual(try repo.blob(at: first, path: "e/f.json"), Array("v1".utf8))
        XCTAssertEqual(try repo.blob(at: "HEAD", path: "empty"), [])
        XCTAssertNil(try repo.blob(at: first, path: "empty"))
        XCTAssertNil(try repo.blob(at: "HEAD", path: "e"), "a directory is not a file")
        assertGitError(.unknownRevision("HEAD~9"), try repo.blob(at: "HEAD~9", path: "e/f.json"))
        assertGitError(.unknownRevision("nonsense"), try repo.blob(at: "nonsense", path: "e/f.json"))
    }

    /// A file's blob id is what git's own `hash-object` says, read whole or (above the limit) by libgit2; a symbolic
    /// link, a folder and a missing file are errors naming the file.
    func testAFileHashesAsGitSaysAndALinkIsRefused() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.sub("repo"))
        var rng = SplitMix64(seed: 0x4A5)
        for size in [0, 1, 100, 65_535, 65_536, 65_537, 200_000] {
            let path = temp.sub("repo/f\(size)")
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let expected = try git("hash-object", "--no-filters", path)
            XCTAssertEqual(try repo.hashFile(path), expected, "\(size) bytes")
            XCTAssertEqual(try repo.hashFile(path, inMemoryUpTo: size / 2), expected, "\(size) bytes, by libgit2")
        }
        try FileManager.default.createSymbolicLink(atPath: temp.sub("repo/link"), withDestinationPath: temp.sub("repo/f100"))
        try FileManager.default.createDirectory(atPath: temp.sub("repo/dir"), withIntermediateDirectories: true)
        for name in ["link", "dir", "missing"] {
            XCTAssertThrowsError(try repo.hashFile(temp.sub("repo/" + name)), name) { error in
                guard case .system(_, .hashFile(let path))? = error as? GitError else { return XCTFail("\(error)") }
                XCTAssertEqual(path, temp.sub("repo/" + name))
            }
        }
    }

    func testConfigAndDefaultSignature() throws {
        let temp = try TempDir()
        let repo = try GitRepository.create(at: temp.path)
        XCTAssertNil(repo.config("tresor.nothing"))
        try repo.setConfig("user.name", "Grace Hopper")
        try repo.setConfig("user.email", "grace@example.org")
        XCTAssertEqual(try git("config", "--local", "user.name", in: temp.path), "Grace Hopper")
        XCTAssertEqual(repo.config("user.name"), "Grace Hopper")
        XCTAssertEqual(repo.defaultSignature(), GitSignature(name: "Grace Hopper", email: "grace@example.org"))

        try write("x", to: "x", in: temp.path)
        try repo.commit(message: "x", adding: ["x"])
        XCTAssertEqual(try git("log", "-1", "--format=%an <%ae>", in: temp.path), "Grace Hopper <grace@example.org>")
    }

    func testSignatureFallbacks() {
        let fallback = GitRepository.signature(name: nil, email: " ")
        XCTAssertEqual(fallback.name, "Tresor")
        XCTAssertTrue(fallback.email.hasPrefix("tresor@"))
        XCTAssertEqual(GitRepository.signature(name: "<Eve>", email: "e@x").name, "Eve")
        XCTAssertEqual(GitRepository.hostName("My Laptop.Local"), "mylaptop.local")
        XCTAssertEqual(GitRepository.hostName("<>"), "localhost")
    }

    func testCommitsMadeByGitAreReadBack() throws {
        let temp = try TempDir()
        try git("init", "-q", temp.path)
        try write("x", to: "x", in: temp.path)
        try git("add", "x", in: temp.path)
        try git("commit", "-q", "-m", "by git", in: temp.path)
        let repo = try GitRepository.open(at: temp.path)
        try write("y", to: "y", in: temp.path)
        try repo.commit(message: "by tresor", adding: ["y"])
        XCTAssertEqual(try repo.log().map(\.summary), ["by tresor", "by git"])
        XCTAssertEqual(try repo.log().last?.author, GitSignature(name: "Test Git", email: "test@example.org"))
        XCTAssertEqual(try git("status", "--porcelain", in: temp.path), "")
        try assertFsck(temp.path)
    }
}
