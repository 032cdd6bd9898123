// Tests for two clones of one bare repository: fetch, merge base, merges, conflicts, fast-forward and push.
import Foundation
import XCTest
@testable import TresorGit

/// A bare "server" repository and two clones of it, all in one temp dir.
struct TwoClones {
    let temp: TempDir
    let bare: String
    let alice: GitRepository
    let bob: GitRepository

    /// The bare repository starts with one commit holding `files`.
    init(files: [String: String] = ["base": "base"]) throws {
        temp = try TempDir()
        bare = temp.sub("server.git")
        try git("init", "-q", "--bare", bare)
        let seed = try GitRepository.create(at: temp.sub("seed"))
        for (path, text) in files { try write(text, to: path, in: seed.workdir) }
        try seed.commit(message: "seed", adding: Array(files.keys))
        try seed.addRemote(name: "origin", url: bare)
        try seed.push(remote: "origin", credentials: .none)
        alice = try GitRepository.clone(url: bare, to: temp.sub("alice"), credentials: .none)
        bob = try GitRepository.clone(url: bare, to: temp.sub("bob"), credentials: .none)
    }

    /// Writes `files` into `repo`, deletes `deleting`, and commits.
    @discardableResult
    func change(_ repo: GitRepository, _ files: [String: String], deleting: [String] = [], _ message: String) throws -> String {
        for (path, text) in files { try write(text, to: path, in: repo.workdir) }
        for path in deleting { try FileManager.default.removeItem(atPath: repo.workdir + "/" + path) }
        return try repo.commit(message: message, adding: Array(files.keys), removing: deleting)
    }
}

extension GitRepository {
    /// A merge commit the way the vault layer makes one: tree and commit in the object database, then a
    /// compare-and-swap of the branch, then the work tree.
    @discardableResult
    func commitMerge(message: String, ours: String, theirs: String, merge: GitMergeResult) throws -> String {
        let id = try writeCommit(tree: try merge.writeTree(), parents: [ours, theirs], message: message)
        try moveBranch(from: ours, to: id, log: "merge")
        try checkoutHead()
        return id
    }
}

final class GitMergeTests: XCTestCase {
    let origin = GitRepository.trackingRef(remote: "origin")

    func testCloneFetchAndFastForward() throws {
        let setup = try TwoClones(files: ["a": "1"])
        XCTAssertEqual(try setup.alice.remotes(), [GitRemote(name: "origin", url: setup.bare)])
        XCTAssertEqual(try setup.alice.trackedPaths(), ["a"])
        XCTAssertEqual(try git("status", "--porcelain", "--branch", in: setup.alice.workdir), "## main...origin/main")

        let new = try setup.change(setup.alice, ["a": "2", "b": "new"], "alice edits")
        try setup.alice.push(remote: "origin", credentials: .none)
        XCTAssertEqual(try git("rev-parse", "main", in: setup.bare), new)
        XCTAssertEqual(setup.alice.resolve(origin), new, "push updates the remote-tracking ref")

        let before = try XCTUnwrap(try setup.bob.headCommitID())
        try setup.bob.fetch(remote: "origin", credentials: .none)
        XCTAssertEqual(setup.bob.resolve(origin), new)
        XCTAssertEqual(try setup.bob.headCommitID(), before, "fetch leaves the branch alone")
        XCTAssertEqual(try setup.bob.mergeBase("HEAD", origin), before)

        try setup.bob.fastForward(to: origin)
        XCTAssertEqual(try setup.bob.headCommitID(), new)
        XCTAssertEqual(try String(contentsOfFile: setup.bob.workdir + "/a", encoding: .utf8), "2")
        XCTAssertEqual(try git("status", "--porcelain", in: setup.bob.workdir), "")
        try setup.bob.fastForward(to: origin)
        try assertFsck(setup.bob.workdir)
    }

    func testFastForwardRefusesDivergence() throws {
        let setup = try TwoClones()
        try setup.change(setup.alice, ["x": "alice"], "alice")
        try setup.alice.push(remote: "origin", credentials: .none)
        try setup.bob.fetch(remote: "origin", credentials: .none)
        try write("local edit", to: "base", in: setup.bob.workdir)
        try setup.bob.commit(message: "bob", adding: ["base"])
        assertGitError(.notFastForward(origin), try setup.bob.fastForward(to: origin))
    }

    func testBranchMovesOnlyFromTheExpectedCommit() throws {
        let setup = try TwoClones()
        let head = try XCTUnwrap(try setup.alice.headCommitID())
        let tree = try setup.alice.tree(from: head, applying: [.put(path: "dir/new", blob: try setup.alice.writeBlob(Array("n".utf8)))])
        let one = try setup.alice.writeCommit(tree: tree, parents: [head], message: "one")
        let two = try setup.alice.writeCommit(tree: tree, parents: [head], message: "two")
        try setup.alice.moveBranch(from: head, to: one, log: "one")
        assertGitError(.branchMoved(branch: "refs/heads/main"), try setup.alice.moveBranch(from: head, to: two, log: "two"))
        XCTAssertEqual(try setup.alice.headCommitID(), one)
        // A ref lock file of another process is reported, not waited for or removed here.
        _ = FileManager.default.createFile(atPath: setup.alice.workdir + "/.git/refs/heads/main.lock", contents: Data())
        assertGitError(.locked(path: ".git/refs/heads/main.lock"), try setup.alice.moveBranch(from: one, to: two, log: "two"))
        XCTAssertEqual(try setup.alice.headCommitID(), one)
        // Removing the last file of a folder removes the folder from the tree.
        let back = try setup.alice.tree(from: one, applying: [.remove(path: "dir/new")])
        XCTAssertEqual(back, try setup.alice.treeEntriesID(of: head))
    }

    func testCleanMergeCommitsTwoParentsAndUpdatesTheWorkTree() throws {
        let setup = try TwoClones(files: ["base": "base", "old": "old", "shared": "s"])
        try setup.change(setup.alice, ["a": "from alice", "shared": "s2"], deleting: ["old"], "alice")
        try setup.alice.push(remote: "origin", credentials: .none)
        let ours = try setup.change(setup.bob, ["b": "from bob"], "bob")
        try setup.bob.fetch(remote: "origin", credentials: .none)
        let theirs = try XCTUnwrap(setup.bob.resolve(origin))
        let base = try setup.bob.mergeBase(ours, theirs)
        XCTAssertEqual(base, try git("merge-base", ours, theirs, in: setup.bob.workdir))

        let merge = try setup.bob.mergeTrees(base: base, ours: ours, theirs: theirs)
        XCTAssertFalse(merge.hasConflicts)
        XCTAssertEqual(merge.paths(), ["a", "b", "base", "shared"])
        XCTAssertEqual(try merge.contents(at: "shared"), Array("s2".utf8))
        XCTAssertNil(try merge.contents(at: "old"))

        let id = try setup.bob.commitMerge(message: "Merge alice", ours: ours, theirs: theirs, merge: merge)
        XCTAssertEqual(try git("log", "-1", "--format=%P|%s", in: setup.bob.workdir), "\(ours) \(theirs)|Merge alice")
        XCTAssertEqual(try setup.bob.headCommitID(), id)
        XCTAssertEqual(try git("status", "--porcelain", in: setup.bob.workdir), "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: setup.bob.workdir + "/old"), "deleted by alice")
        XCTAssertEqual(try String(contentsOfFile: setup.bob.workdir + "/a", encoding: .utf8), "from alice")
        XCTAssertEqual(try setup.bob.trackedPaths(), ["a", "b", "base", "shared"])
        try assertFsck(setup.bob.workdir)

        try setup.bob.push(remote: "origin", credentials: .none)
        XCTAssertEqual(try git("rev-parse", "main", in: setup.bare), id)

        // The index that checkout wrote is the one the next commit starts from.
        try setup.change(setup.bob, ["c": "after the merge"], "after merge")
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", in: setup.bob.workdir), "a\nb\nbase\nc\nshared")
        XCTAssertEqual(try git("status", "--porcelain", in: setup.bob.workdir), "")
        XCTAssertEqual(try setup.bob.changes(in: "HEAD"), [GitChange(path: "c", kind: .added)])
    }

    func testConflictsOfEveryKindAreListedAndResolved() throws {
        let setup = try TwoClones(files: ["both": "v0", "gone-theirs": "g0", "gone-ours": "o0"])
        try setup.change(setup.alice, ["both": "alice", "added": "alice added", "gone-ours": "alice o"],
                         deleting: ["gone-theirs"], "alice")
        try setup.alice.push(remote: "origin", credentials: .none)
        let ours = try setup.change(setup.bob, ["both": "bob", "added": "bob added", "gone-theirs": "bob g"],
                                    deleting: ["gone-ours"], "bob")
        try setup.bob.fetch(remote: "origin", credentials: .none)
        let theirs = try XCTUnwrap(setup.bob.resolve(origin))

        let merge = try setup.bob.mergeTrees(base: setup.bob.mergeBase(ours, theirs), ours: ours, theirs: theirs)
        XCTAssertEqual(merge.conflicts.map(\.path), ["added", "both", "gone-ours", "gone-theirs"])
        func text(_ version: GitConflict.Version?) -> String? { version.map { String(decoding: $0.contents, as: UTF8.self) } }
        let byPath = Dictionary(uniqueKeysWithValues: merge.conflicts.map { ($0.path, $0) })
        let expected: [String: [String?]] = [
            "added": [nil, "bob added", "alice added"],         // add/add
            "both": ["v0", "bob", "alice"],                     // modify/modify
            "gone-ours": ["o0", nil, "alice o"],                // delete/modify
            "gone-theirs": ["g0", "bob g", nil],                // modify/delete
        ]
        for (path, sides) in expected {
            let conflict = try XCTUnwrap(byPath[path])
            XCTAssertEqual([text(conflict.ancestor), text(conflict.ours), text(conflict.theirs)], sides, path)
        }
        let blobID = try git("rev-parse", "\(theirs):both", in: setup.bob.workdir)
        XCTAssertEqual(byPath["both"]?.theirs?.id, blobID)

        assertGitError(.unresolvedConflicts(paths: ["added", "both", "gone-ours", "gone-theirs"]),
                       try setup.bob.commitMerge(message: "m", ours: ours, theirs: theirs, merge: merge))
        try merge.write(Array("merged".utf8), at: "both")
        try merge.write(Array("bob added\nalice added".utf8), at: "added")
        try merge.remove("gone-ours")
        try merge.write(Array("bob g".utf8), at: "gone-theirs")
        XCTAssertFalse(merge.hasConflicts)
        XCTAssertEqual(merge.paths(), ["added", "both", "gone-theirs"])

        try setup.bob.commitMerge(message: "Merge with resolutions", ours: ours, theirs: theirs, merge: merge)
        XCTAssertEqual(try git("show", "HEAD:both", in: setup.bob.workdir), "merged")
        XCTAssertEqual(try git("ls-tree", "-r", "--name-only", "HEAD", in: setup.bob.workdir), "added\nboth\ngone-theirs")
        XCTAssertEqual(try String(contentsOfFile: setup.bob.workdir + "/both", encoding: .utf8), "merged")
        XCTAssertEqual(try git("status", "--porcelain", in: setup.bob.workdir), "")
        try assertFsck(setup.bob.workdir)
    }

    func testUnrelatedHistoriesMergeWithoutBase() throws {
        let temp = try TempDir()
        let one = try GitRepository.create(at: temp.sub("one"))
        try write("1", to: "same", in: one.workdir)
        try write("only one", to: "one", in: one.workdir)
        let ours = try one.commit(message: "one", adding: ["same", "one"])
        let two = try GitRepository.create(at: temp.sub("two"))
        try write("2", to: "same", in: two.workdir)
        try write("only two", to: "two", in: two.workdir)
        try two.commit(message: "two", adding: ["same", "two"])
        try one.addRemote(name: "other", url: two.workdir)
        try one.fetch(remote: "other", credentials: .none)
        let theirs = try XCTUnwrap(one.resolve("refs/remotes/other/main"))
        XCTAssertNil(try one.mergeBase(ours, theirs))

        let merge = try one.mergeTrees(base: nil, ours: ours, theirs: theirs)
        XCTAssertEqual(merge.conflicts.map(\.path), ["same"])
        XCTAssertNil(merge.conflicts.first?.ancestor)
        try merge.write(Array("1+2".utf8), at: "same")
        try one.commitMerge(message: "join", ours: ours, theirs: theirs, merge: merge)
        XCTAssertEqual(try one.trackedPaths(), ["one", "same", "two"])
        try assertFsck(one.workdir)
    }

    func testRejectedPushesAreErrors() throws {
        let setup = try TwoClones()
        try setup.change(setup.alice, ["a": "a"], "alice")
        try setup.alice.push(remote: "origin", credentials: .none)
        try setup.change(setup.bob, ["b": "b"], "bob")
        // Bob has not fetched: libgit2 refuses the non-fast-forward itself.
        XCTAssertThrowsError(try setup.bob.push(remote: "origin", credentials: .none)) { error in
            guard case GitError.pushRejected(let remote, _)? = error as? GitError else {
                return XCTFail("unexpected error: \(error)")
            }
            XCTAssertEqual(remote, "origin")
        }

        XCTAssertNotEqual(try git("rev-parse", "main", in: setup.bare), try setup.bob.headCommitID())
    }

    func testSetRefAndResolve() throws {
        let setup = try TwoClones()
        let head = try XCTUnwrap(try setup.alice.headCommitID())
        try setup.alice.setRef(name: "refs/tresor/pre-sync/20240101T000000Z", to: "HEAD")
        XCTAssertEqual(try git("rev-parse", "refs/tresor/pre-sync/20240101T000000Z", in: setup.alice.workdir), head)
        XCTAssertEqual(setup.alice.resolve("refs/tresor/pre-sync/20240101T000000Z"), head)
        XCTAssertEqual(setup.alice.resolve("main"), head)
        XCTAssertEqual(setup.alice.resolve(String(head.prefix(10))), head)
        XCTAssertNil(setup.alice.resolve("no-such-branch"))
        XCTAssertThrowsError(try setup.alice.setRef(name: "HEAD", to: "HEAD"))
        assertGitError(.unknownRevision("nope"), try setup.alice.setRef(name: "refs/tresor/x", to: "nope"))
    }
}
