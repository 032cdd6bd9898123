// Replicas syncing through a bare repository with the binary: each merge rule of Spec/MERGE.md end to end.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

class SyncTestCase: CLITestCase {
    var remote: String { dir + "/remote.git" }
    func replica(_ name: String) -> String { dir + "/" + name }

    /// Every replica a sync test made passes `git fsck --strict` at the end (README: the repository reads
    /// normally with git).
    override func tearDownWithError() throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.count == 1 {
            let path = replica(name)
            guard FileManager.default.fileExists(atPath: path + "/.git") else { continue }
            let r = try run("/usr/bin/git", ["-C", path, "fsck", "--strict", "--no-dangling"], stdin: nil, extraEnv: [:])
            XCTAssertEqual(r.code, 0, "git fsck --strict in replica \(name): \(r.stdout)\(r.stderr)")
        }
        try super.tearDownWithError()
    }

    /// `tresor ARGS --vault REPLICA`, failing the test unless it exits 0.
    @discardableResult
    func on(_ name: String, _ args: String..., stdin: String? = nil, env extra: [String: String?] = [:],
            file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        let r = try tresor(args + ["--vault", replica(name)], stdin: stdin, extraEnv: extra)
        XCTAssertEqual(r.code, 0, "[\(name)] tresor \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        return r
    }

    func attempt(_ name: String, _ args: String..., env extra: [String: String?] = [:]) throws -> CLIResult {
        try tresor(args + ["--vault", replica(name)], extraEnv: extra)
    }

    /// A bare remote, replica A with two entries pushed to it, and `others` cloned from it.
    func setUpReplicas(_ others: String...) throws {
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote], stdin: nil, extraEnv: [:]).code, 0)
        try on("A", "init", "--kdf", "minimum")
        try on("A", "remote", "add", "origin", remote)
        try on("A", "add", "Email/gmail", "--username", "alice", "--password-stdin", stdin: "first-secret\n")
        try on("A", "add", "Social/github", "--username", "alice", "--password-stdin", stdin: "gh-secret\n")
        try on("A", "sync")
        for name in others { try ok("clone", remote, replica(name)) }
    }

    func entryJSON(_ name: String, _ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try on(name, "show", path, "--json").stdout.utf8)) as? [String: Any])
    }

    /// Every entry of a replica, decrypted, as `show --json` prints it.
    func contents(_ name: String) throws -> [String: String] {
        var all: [String: String] = [:]
        for path in try on(name, "ls").stdout.split(separator: "\n") {
            all[String(path)] = try on(name, "show", String(path), "--json").stdout
        }
        return all
    }

    /// Pushes a commit made with the real git CLI to the remote, as a hostile peer would.
    /// Pushes a commit made with plain git in a clone of the remote. With `authenticated`, the commit carries
    /// a valid tag, as a faulty replica of someone who holds the vault key could make: only the content
    /// checks stand between it and the vault. Without, it is what anyone who can write to the remote makes.
    func pushHostileCommit(authenticated: Bool = true, _ change: (String) throws -> Void) throws {
        let work = dir + "/attacker"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", remote, work], stdin: nil, extraEnv: [:]).code, 0)
        try change(work)
        for args in [["add", "-A"], ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "hostile"]] {
            let r = try run("/usr/bin/git", ["-C", work] + args, stdin: nil, extraEnv: [:])
            XCTAssertEqual(r.code, 0, r.stderr)
        }
        if authenticated { try authenticateHead(work) }
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "push", "-q", "-f", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        try? FileManager.default.removeItem(atPath: work)
    }

    /// Rewrites HEAD of the git work tree `work` into the same commit with a valid `tresor-auth` tag,
    /// computed with the key of the vault replica A (which shares the test passphrase).
    func authenticateHead(_ work: String) throws {
        let headerBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: replica("A") + "/.tresor/vault.json")))
        let key = try VaultHeader.parse(headerBytes).unlock(passphrase: SecretBytes(utf8: "correct horse battery staple"))
        let authenticator = try VaultAuthenticator(vaultKey: key)
        let content = try run("/usr/bin/git", ["-C", work, "cat-file", "commit", "HEAD"], stdin: nil, extraEnv: [:]).stdout
        let tag = try authenticator.commitTag(Array(content.utf8))
        var lines = content.components(separatedBy: "\n")
        let committer = lines.firstIndex { $0.hasPrefix("committer ") }!
        lines.insert("\(VaultAuthenticator.commitField) \(tag)", at: committer + 1)
        try write(lines.joined(separator: "\n"), to: dir + "/commit.txt")
        let id = try run("/usr/bin/git", ["-C", work, "hash-object", "-t", "commit", "-w", dir + "/commit.txt"], stdin: nil, extraEnv: [:])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", work, "update-ref", "HEAD", id], stdin: nil, extraEnv: [:]).code, 0)
    }

    func history(_ name: String, _ path: String) throws -> [[String: String]] {
        try XCTUnwrap(try entryJSON(name, path)["history"] as? [[String: String]])
    }
}

final class SyncTests: SyncTestCase {
    func testCloneAndFastForward() throws {
        try setUpReplicas("B")
        XCTAssertEqual(try on("B", "ls").stdout, "Email/gmail\nSocial/github\n")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "password").stdout, "first-secret\n")
        let mode = try FileManager.default.attributesOfItem(atPath: replica("B") + "/Email/gmail.json")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "a clone's files are private")
        try on("A", "edit", "Email/gmail", "--set", "notes=from A")
        XCTAssertTrue(try on("A", "sync").stdout.contains("Pushed to origin"))
        XCTAssertTrue(try on("B", "sync").stdout.contains("fast-forward"))
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "from A\n")
        XCTAssertEqual(try on("B", "sync").stdout, "Already up to date with origin.\n")
        XCTAssertEqual(try on("B", "fsck").code, 0)
    }

    /// The packs tresor sends keep the deltas of trees (each version of a folder against the one before it), and never
    /// store an entry file as a delta (ciphertext has none): the data file libgit2/config shrinks libgit2's delta search
    /// to one neighbour, which a push of many versions of one folder still finds.
    func testPushesAndClonesFromAPathDeltaTreesButNotEntryFiles() throws {
        try setUpReplicas()
        // Twelve commits, each adding one entry to one folder: its trees differ by one line, as deltas like.
        for i in 0..<12 { try on("A", "add", "Email/site-\(i)", "--password-stdin", stdin: "pw-\(i)\n") }
        try on("A", "sync")
        try ok("clone", remote, replica("C"))
        XCTAssertEqual(try on("C", "ls").stdout.split(separator: "\n").count, 14)
        for repo in [remote, replica("C") + "/.git"] {
            var deltas: [String: Int] = [:], objects = 0
            for pack in try FileManager.default.contentsOfDirectory(atPath: repo + "/objects/pack") where pack.hasSuffix(".idx") {
                let r = try run("/usr/bin/git", ["verify-pack", "-v", repo + "/objects/pack/" + pack], stdin: nil, extraEnv: [:])
                XCTAssertEqual(r.code, 0, r.stderr)
                // "id type size size-in-pack offset", and "depth base" after them for a delta.
                for line in r.stdout.split(separator: "\n") {
                    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                    guard let id = fields.first, id.count == 40, id.allSatisfy(\.isHexDigit) else { continue }
                    objects += 1
                    if fields.count == 7 { deltas[String(fields[1]), default: 0] += 1 }
                }
            }
            XCTAssertGreaterThan(objects, 40, repo)
            XCTAssertNil(deltas["blob"], repo)
            XCTAssertGreaterThan(deltas["tree", default: 0], 5, repo)
        }
    }

    /// A clone from a path takes the remote's pack files as they are, each read through the clone's own indexer (so its
    /// packs are the remote's, byte for byte); a remote with an object outside its packs is fetched from instead.
    /// Either clone checks every entry.
    func testACloneFromAPathTakesTheRemotesPacksAndFetchesWhenAnObjectIsLoose() throws {
        try setUpReplicas()
        try on("A", "edit", "Email/gmail", "--set", "notes=second push")
        try on("A", "sync")
        func packs(_ objects: String) throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: objects + "/pack").filter { $0.hasSuffix(".pack") })
        }
        let remotePacks = try packs(remote + "/objects")
        XCTAssertGreaterThanOrEqual(remotePacks.count, 2)
        let taken = try ok("clone", remote, replica("B"))
        XCTAssertTrue(taken.stderr.contains("all verified"), taken.stderr)
        XCTAssertEqual(try packs(replica("B") + "/.git/objects"), remotePacks)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "second push\n")
        // One loose object in the remote (git's receive-pack leaves small pushes so): fetched, into one new pack.
        let loose = try run("/usr/bin/git", ["-C", remote, "hash-object", "-w", "--stdin"], stdin: "unrelated\n", extraEnv: [:])
        XCTAssertEqual(loose.code, 0, loose.stderr)
        try ok("clone", "file://" + remote, replica("C"))
        let fetched = try packs(replica("C") + "/.git/objects")
        XCTAssertEqual(fetched.count, 1)
        XCTAssertTrue(fetched.isDisjoint(with: remotePacks))
        XCTAssertEqual(try on("C", "show", "Email/gmail", "--field", "notes").stdout, "second push\n")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("C"), "fsck"], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "fsck"], stdin: nil, extraEnv: [:]).code, 0)
    }

    /// A sync from a path reads, of the remote's packs, only the one pushed since (its bytes are all it receives), and
    /// takes it in as it is; a remote index that claims a new pack holds only known objects leaves a hole, which is
    /// refused with nothing changed; a loose object there, and the sync fetches.
    func testASyncFromAPathReadsOnlyThePacksPushedSince() throws {
        try setUpReplicas("B")
        func packs(_ objects: String) throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: objects + "/pack").filter { $0.hasSuffix(".pack") })
        }
        func received(_ r: CLIResult) throws -> Int {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
            return try XCTUnwrap(o["bytesReceived"] as? Int, r.stdout)
        }
        let held = try packs(replica("B") + "/.git/objects")
        try on("A", "edit", "Email/gmail", "--set", "notes=second push")
        try on("A", "sync")
        let pushed = try XCTUnwrap(try packs(remote + "/objects").subtracting(held).first)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: remote + "/objects/pack/" + pushed)[.size] as? Int)
        XCTAssertEqual(try received(try on("B", "sync", "--json")), size)
        XCTAssertEqual(try packs(replica("B") + "/.git/objects"), held.union([pushed]))
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "second push\n")

        // The next pack's index replaced by that of a pack B holds: B skips the pack, misses the commit, refuses.
        try on("A", "edit", "Email/gmail", "--set", "notes=third push")
        try on("A", "sync")
        let third = try XCTUnwrap(try packs(remote + "/objects").subtracting(held.union([pushed])).first)
        let index = remote + "/objects/pack/" + third.dropLast(".pack".count) + ".idx"
        let honest = try Data(contentsOf: URL(fileURLWithPath: index))
        try FileManager.default.removeItem(atPath: index)
        try FileManager.default.copyItem(atPath: remote + "/objects/pack/" + pushed.dropLast(".pack".count) + ".idx", toPath: index)
        let head = try run("/usr/bin/git", ["-C", replica("B"), "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout
        let refused = try tresor(["sync", "--vault", replica("B")])
        XCTAssertNotEqual(refused.code, 0, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("unknown revision"), refused.stderr)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout, head)
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "second push\n")
        try FileManager.default.removeItem(atPath: index)
        try honest.write(to: URL(fileURLWithPath: index))

        // A loose object in the remote: fetched, as before.
        XCTAssertEqual(try run("/usr/bin/git", ["-C", remote, "hash-object", "-w", "--stdin"], stdin: "unrelated\n", extraEnv: [:]).code, 0)
        try on("B", "sync")
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "third push\n")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "fsck"], stdin: nil, extraEnv: [:]).code, 0)
    }

    /// A clone takes in only what the remote's `main` reaches, and only once all of it is there: a path remote whose
    /// pack of older history is gone is refused (nothing is left), and an unreachable commit packed beside `main`
    /// stays out of the clone.
    func testACloneTakesOnlyAWholeMainFromAPath() throws {
        try setUpReplicas()
        try on("A", "edit", "Email/gmail", "--set", "notes=second push")
        try on("A", "sync")
        func git(_ args: String...) throws -> String {
            let r = try run("/usr/bin/git", ["-C", remote] + args, stdin: nil, extraEnv: ["GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@m",
                                                                                          "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@m"])
            XCTAssertEqual(r.code, 0, r.stderr)
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // An unreachable commit in the one pack of everything.
        let junk = try git("commit-tree", "-m", "junk", try git("rev-parse", "main^{tree}"))
        _ = try git("update-ref", "refs/junk", junk)
        _ = try git("repack", "-a", "-d", "-q")
        _ = try git("update-ref", "-d", "refs/junk")
        try ok("clone", remote, replica("B"))
        XCTAssertEqual(try on("B", "show", "Email/gmail", "--field", "notes").stdout, "second push\n")
        XCTAssertNotEqual(try run("/usr/bin/git", ["-C", replica("B"), "cat-file", "-e", junk], stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "fsck"], stdin: nil, extraEnv: [:]).code, 0)
        // The older history's objects gone from the remote (the tip's commit and trees kept): refused, nothing left.
        let parent = try git("rev-parse", "main~1")
        let kept = try git("rev-list", "--objects", "--no-object-names", "main", "^" + parent)
        let pack = try run("/usr/bin/git", ["-C", remote, "pack-objects", "-q", "objects/pack/pack"], stdin: kept + "\n", extraEnv: [:])
        XCTAssertEqual(pack.code, 0, pack.stderr)
        for name in try FileManager.default.contentsOfDirectory(atPath: remote + "/objects/pack")
        where !name.contains(pack.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) {
            try FileManager.default.removeItem(atPath: remote + "/objects/pack/" + name)
        }
        let refused = try tresor(["clone", remote, replica("C")])
        XCTAssertNotEqual(refused.code, 0, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("object not found"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: replica("C")))
    }

    func testSameFieldChangedOnBothSidesKeepsLaterAndMovesOtherToHistory() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "from-A\n")
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "from-B\n")   // later: wins
        try on("A", "sync")
        let merge = try on("B", "sync")
        XCTAssertTrue(merge.stdout.contains("Merged origin: 1 entry changed: Email/gmail"), merge.stdout)
        XCTAssertTrue(merge.stdout.contains("resolved: field \"password\" of \"Email/gmail\" was changed on both sides"), merge.stdout)
        XCTAssertFalse(merge.stdout.contains("from-A") || merge.stdout.contains("from-B"), "reports never show values")
        try on("A", "sync")
        for name in ["A", "B"] {
            XCTAssertEqual(try on(name, "show", "Email/gmail", "--field", "password").stdout, "from-B\n")
            XCTAssertTrue(try history(name, "Email/gmail").contains { $0["value"] == "from-A" && $0["reason"] == "merge" })
        }
        XCTAssertEqual(try contents("A"), try contents("B"))
        XCTAssertEqual(try run("/usr/bin/git", ["-C", replica("B"), "log", "-1", "--format=%P"], stdin: nil, extraEnv: [:])
            .stdout.split(separator: " ").count, 2, "a two-parent merge commit")
    }

    func testDifferentFieldsMergeWithoutConflict() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "username=alice-A")
        try on("B", "edit", "Email/gmail", "--set", "notes=note-B")
        try on("A", "sync")
        let r = try on("B", "sync")
        XCTAssertFalse(r.stdout.contains("resolved"), r.stdout)
        try on("A", "sync")
        for name in ["A", "B"] {
            let e = try entryJSON(name, "Email/gmail")
            XCTAssertEqual(e["username"] as? String, "alice-A")
            XCTAssertEqual(e["notes"] as? String, "note-B")
            XCTAssertEqual(e["password"] as? String, "first-secret")
        }
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    func testRenameOnOneSideEditOnTheOtherMergeIntoOneEntry() throws {
        try setUpReplicas("B")
        try on("A", "mv", "Email/gmail", "Mail/google")
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "edited-on-B\n")
        try on("A", "sync")
        try on("B", "sync")
        try on("A", "sync")
        for name in ["A", "B"] {
            XCTAssertEqual(try on(name, "ls").stdout, "Mail/google\nSocial/github\n")
            XCTAssertEqual(try on(name, "show", "Mail/google", "--field", "password").stdout, "edited-on-B\n")
        }
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    func testDeleteVersusEditKeepsTheEdit() throws {
        try setUpReplicas("B")
        try on("A", "rm", "Email/gmail")
        try on("B", "edit", "Email/gmail", "--set", "notes=still needed")
        try on("A", "sync")
        let r = try on("B", "sync")
        XCTAssertTrue(r.stdout.contains("deleted on one side and changed on the other"), r.stdout)
        try on("A", "sync")
        for name in ["A", "B"] { XCTAssertEqual(try on(name, "show", "Email/gmail", "--field", "notes").stdout, "still needed\n") }
    }

    /// Spec/MERGE.md §2: a deletion removes what the deleter had seen, its own earlier edit included; the entry comes
    /// back as the side that changed it concurrently has it, and `tresor restore` brings the deleter's version back.
    func testEditThenDeleteVersusEditKeepsTheOtherSidesVersionAndRestoreBringsBackTheDeletersValues() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--set", "notes=written before the delete")
        try on("A", "rm", "Email/gmail")
        try on("B", "edit", "Email/gmail", "--set", "username=edited on B")
        try on("A", "sync"); try on("B", "sync"); try on("A", "sync")
        for name in ["A", "B"] {
            let e = try entryJSON(name, "Email/gmail")
            XCTAssertEqual(e["username"] as? String, "edited on B")
        }
        // A's deleted version is in git history: restoring it over the revived entry sets its values again.
        try on("A", "restore", "Email/gmail")
        let e = try entryJSON("A", "Email/gmail")
        XCTAssertEqual(e["notes"] as? String, "written before the delete", "\(e)")
    }

    func testDeleteOnBothSidesIsGone() throws {
        try setUpReplicas("B")
        try on("A", "rm", "Social/github")
        try on("B", "rm", "Social/github")
        try on("B", "edit", "Email/gmail", "--set", "notes=x")
        try on("A", "sync"); try on("B", "sync"); try on("A", "sync")
        for name in ["A", "B"] { XCTAssertEqual(try on(name, "ls").stdout, "Email/gmail\n") }
    }

    func testAddAddAtTheSamePathKeepsBoth() throws {
        try setUpReplicas("B")
        try on("A", "add", "Bank/ing", "--password-stdin", stdin: "bank-A\n")
        try on("B", "add", "Bank/ing", "--password-stdin", stdin: "bank-B\n")
        try on("A", "sync")
        let r = try on("B", "sync")
        XCTAssertTrue(r.stdout.contains("two entries ended at \"Bank/ing\""), r.stdout)
        try on("A", "sync")
        let paths = try on("A", "ls").stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Bank/") }
        XCTAssertEqual(paths.count, 2)
        XCTAssertTrue(paths[1].hasPrefix("Bank/ing.conflict-"), "\(paths)")
        let values = Set(try paths.map { try on("A", "show", $0, "--field", "password").stdout })
        XCTAssertEqual(values, ["bank-A\n", "bank-B\n"])
        XCTAssertEqual(try contents("A"), try contents("B"))
    }

    /// `sync --json` prints the records of Spec/MERGE.md §8 with the member names and paths the Spec gives.
    func testSyncJSONPrintsMergeRecords() throws {
        try setUpReplicas("B")
        try on("A", "edit", "Email/gmail", "--password-stdin", stdin: "from-A\n")
        try on("A", "add", "Bank/ing", "--password-stdin", stdin: "bank-A\n")
        try on("B", "edit", "Email/gmail", "--password-stdin", stdin: "from-B\n")
        try on("B", "add", "Bank/ing", "--password-stdin", stdin: "bank-B\n")
        try on("A", "sync")
        let out = try on("B", "sync", "--json").stdout
        XCTAssertFalse(out.contains("from-A") || out.contains("from-B") || out.contains("bank-"), "records never hold values")
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let records = try XCTUnwrap(report["resolutions"] as? [[String: Any]])
        let members: Set = ["entryID", "path", "field", "kind", "losingPath", "newPath", "winnerOrigin", "winnerModified",
                            "loserOrigin", "loserModified", "description"]
        for r in records { XCTAssertEqual(Set(r.keys), members, "\(r)") }
        let gmailID = try XCTUnwrap(try entryJSON("B", "Email/gmail")["id"] as? String)
        let conflict = try XCTUnwrap(records.first { $0["kind"] as? String == "field-conflict" })
        XCTAssertEqual(conflict["entryID"] as? String, gmailID)
        XCTAssertEqual(conflict["path"] as? String, "Email/gmail")
        XCTAssertEqual(conflict["field"] as? String, "password")
        XCTAssertTrue(conflict["newPath"] is NSNull && conflict["losingPath"] is NSNull, "\(conflict)")
        XCTAssertNotNil(conflict["winnerModified"] as? String)
        XCTAssertNotNil(conflict["loserOrigin"] as? String)
        let moved = try XCTUnwrap(records.first { $0["kind"] as? String == "path-collision-renamed" })
        XCTAssertEqual(moved["path"] as? String, "Bank/ing")
        let newPath = try XCTUnwrap(moved["newPath"] as? String)
        XCTAssertTrue(newPath.hasPrefix("Bank/ing.conflict-"), newPath)
        XCTAssertEqual(try entryJSON("B", newPath)["path"] as? String, newPath)
        XCTAssertEqual(records.last?["kind"] as? String, "path-collision-renamed", "collisions come after entry decisions")
    }

    func testThreeReplicasConverge() throws {
        try setUpReplicas("B", "C")
        try on("A", "edit", "Email/gmail", "--set", "username=from-A")
        try on("B", "edit", "Email/gmail", "--set", "username=from-B")
        try on("C", "edit", "Email/gmail", "--set", "username=from-C")
        try on("C", "add", "New/entry", "--password-stdin", stdin: "c-secret\n")
        try on("B", "mv", "Social/github", "Dev/github")
        for name in ["A", "B", "C", "A", "B"] { try on(name, "sync") }
        let a = try contents("A")
        XCTAssertEqual(a, try contents("B"))
        XCTAssertEqual(a, try contents("C"))
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "from-C\n")
        let losers = Set(try history("A", "Email/gmail").filter { $0["field"] == "username" }.map { $0["value"]! })
        XCTAssertTrue(losers.isSuperset(of: ["alice", "from-A", "from-B"]), "\(losers)")
    }

    func testPassphraseChangedOnBothSidesBothWork() throws {
        try setUpReplicas("B")
        try write("pass-A\n", to: dir + "/pA"); try write("pass-B\n", to: dir + "/pB")
        try on("A", "passwd", "--new-passphrase-file", dir + "/pA")
        try on("B", "passwd", "--new-passphrase-file", dir + "/pB")
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pA"])
        try on("B", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pB"])
        try on("A", "sync", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pA"])
        for name in ["A", "B"] {
            for p in ["pA", "pB"] {
                XCTAssertEqual(try on(name, "show", "Email/gmail", "--field", "password", env: ["TRESOR_PASSPHRASE_FILE": dir + "/" + p]).stdout,
                               "first-secret\n")
            }
        }
        // passwd replaces every passphrase slot by one (Spec/FORMAT.md §3.5), and says so.
        try write("pass-C\n", to: dir + "/pC")
        let r = try on("A", "passwd", "--new-passphrase-file", dir + "/pC", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pB"])
        XCTAssertTrue(r.stderr.contains("1 other passphrase no longer opens the vault"), r.stderr)
        XCTAssertNotEqual(try attempt("A", "show", "Email/gmail", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pA"]).code, 0)
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "password", env: ["TRESOR_PASSPHRASE_FILE": dir + "/pC"]).stdout,
                       "first-secret\n")
    }

    func testEntryLogAndRestore() throws {
        try setUpReplicas()
        try on("A", "edit", "Email/gmail", "--set", "username=bob", "--set", "notes=n")
        try on("A", "rm", "Email/gmail")
        let log = try on("A", "log", "Email/gmail").stdout.split(separator: "\n")
        XCTAssertEqual(log.count, 3)
        XCTAssertTrue(log[0].contains("removed") && log[1].contains("changed: notes, username") && log[2].contains("added: password, username"), "\(log)")
        XCTAssertFalse(log.joined().contains("bob"), "the log names fields, never values")
        try on("A", "restore", "Email/gmail")
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "bob\n")
        let first = String(try on("A", "log", "Email/gmail").stdout.split(separator: "\n").last!.prefix(8))
        try on("A", "restore", "Email/gmail", "--at", first)
        XCTAssertEqual(try on("A", "show", "Email/gmail", "--field", "username").stdout, "alice\n")
        XCTAssertTrue(try history("A", "Email/gmail").contains { $0["value"] == "bob" }, "restoring keeps the current value in history")
        XCTAssertTrue(try run("/usr/bin/git", ["-C", replica("A"), "log", "-1", "--format=%s"], stdin: nil, extraEnv: [:]).stdout.hasPrefix("Restore Email/gmail from "))
    }

    func testRemotesListAndRemove() throws {
        try setUpReplicas()
        XCTAssertEqual(try on("A", "remote", "list").stdout, "origin\t\(remote)\n")
        try on("A", "remote", "add", "backup", dir + "/backup.git")
        try on("A", "remote", "remove", "backup")
        XCTAssertEqual(try on("A", "remote").stdout, "origin\t\(remote)\n")
    }
}
