// The transaction mechanism through the library: lock, commit-first, recovery, and saving edits made meanwhile.
import Foundation
@testable import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

final class TransactionTests: VaultTestCase {
    func headCount(_ v: Vault) throws -> Int {
        Int(try git(v, "rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func testConcurrentChangesFromSeveralHandlesSerialiseAndLoseNothing() throws {
        let first = try makeVault()
        let handles = try (0..<4).map { _ -> Vault in
            let v = try Vault.open(at: first.root)
            try v.unlock(passphrase: passphrase)
            return v
        }
        let errors = NSLock()
        var failures: [Error] = []
        DispatchQueue.concurrentPerform(iterations: 4) { n in
            for i in 0..<5 {
                do { try handles[n].add(try self.entry("T\(n)/e\(i)", ["password": "p\(n)-\(i)"])) }
                catch { errors.lock(); failures.append(error); errors.unlock() }
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures)")
        XCTAssertEqual(try headCount(first), 21)
        XCTAssertEqual(first.list().paths.count, 20)
        XCTAssertEqual(try git(first, "status", "--porcelain"), "")
        for n in 0..<4 { for i in 0..<5 { XCTAssertEqual(try first.read(try EntryPath("T\(n)/e\(i)")).text("password"), "p\(n)-\(i)") } }
    }

    /// Another handle (another process) rekeys the vault and a scope after this one unlocked: this one's next change seals
    /// under the new keys, opened with its passphrase, never under the keys it unlocked with.
    func testAChangeAfterAnotherProcessRekeyedSealsUnderTheNewKeys() throws {
        let a = try makeVault()
        _ = try a.createScope(try EntryPath("Team"), members: [])
        let b = try Vault.open(at: a.root)
        try b.unlock(passphrase: passphrase)
        try a.rekey(passphrase: passphrase, level: .minimum)
        try a.addMember("device", publicKey: Identity.generate().publicKey, toScope: "Team")
        _ = try a.removeMember("device", fromScope: "Team")
        try b.add(try entry("Mail/x", ["password": "after the rekey"]))
        try b.add(try entry("Team/y", ["password": "after the scope's rekey"]))
        let fresh = try Vault.open(at: a.root)
        try fresh.unlock(passphrase: passphrase)
        XCTAssertEqual(try fresh.read(try EntryPath("Mail/x")).text("password"), "after the rekey")
        XCTAssertEqual(try fresh.read(try EntryPath("Team/y")).text("password"), "after the scope's rekey")
        XCTAssertEqual(try fresh.check().problems.count, 0)
    }

    /// Unlocked with a key alone (the agent's or a session's), a handle cannot open a key changed meanwhile: its change
    /// stops and writes nothing.
    func testAChangeWithoutACredentialAfterARekeyStopsAndWritesNothing() throws {
        let a = try makeVault()
        let b = try Vault.open(at: a.root)
        try b.unlock(vaultKey: try a.currentVaultKey())
        try a.rekey(passphrase: passphrase, level: .minimum)
        let head = try git(a, "rev-parse", "HEAD")
        XCTAssertThrowsError(try b.add(try entry("Mail/x", ["password": "never sealed"]))) { error in
            XCTAssertEqual(error as? VaultError, .rekeyedMeanwhile)
        }
        XCTAssertEqual(try git(a, "rev-parse", "HEAD"), head)
        XCTAssertEqual(try git(a, "status", "--porcelain"), "")
    }

    func testAWaitingChangeGivesUpAfterTheTimeoutNamingTheHolder() throws {
        let a = try makeVault()
        let b = try Vault.open(at: a.root)
        try b.unlock(passphrase: passphrase)
        b.lockTimeout = 0.3
        var waitedFor: LockHolder?
        b.onLockWait = { waitedFor = $0 }
        try a.transaction { _ in
            XCTAssertThrowsError(try b.add(try self.entry("X/y", ["password": "p"]))) { error in
                guard case VaultError.lockTimeout(let holder, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(holder.pid, getpid())
            }
        }
        XCTAssertNil(waitedFor, "a wait under a second is not announced")
        XCTAssertEqual(try headCount(a), 1, "the change that gave up left nothing")
        try b.add(try entry("X/y", ["password": "p"]))
        XCTAssertEqual(try headCount(a), 2)
    }

    func testAFailingBodyChangesNothingAndAnEmptyOneMakesNoCommit() throws {
        let v = try makeVault()
        struct Stop: Error {}
        XCTAssertThrowsError(try v.transaction { txn in
            try txn.put(try self.entry("A/b", ["password": "x"]))
            txn.message = "Add A/b"
            throw Stop()
        })
        try v.transaction { _ in }
        XCTAssertEqual(try headCount(v), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: v.root + "/A/b.json"))
    }

    func testRecoveryFinishesAChangeWhoseBranchMovedBeforeTheWorkTree() throws {
        let v = try makeVault()
        try v.add(try entry("Email/gmail", ["password": "old"]))
        let repo = try v.repository()
        let head = try XCTUnwrap(try repo.headCommitID())
        // What a process killed right after moving the branch leaves: a journal, the new commit, old files.
        var e = try v.read(try EntryPath("Email/gmail"))
        try e.set("password", .text("new"), change: Change(time: .now(), origin: "t", dot: .placeholder))
        let blob = try repo.writeBlob(try EntryCipher(vaultKey: try v.currentVaultKey()).seal(e))
        let tree = try repo.tree(from: head, applying: [.put(path: "Email/gmail.json", blob: blob)])
        let commit = try repo.writeCommit(tree: tree, parents: [head], message: "Edit Email/gmail: password")
        try FileSystem.writeAtomically(Journal(base: head, target: commit, paths: ["Email/gmail.json"]).serialized(),
                                       to: v.root + "/" + Journal.relativePath)
        try repo.moveBranch(from: head, to: commit, log: "test")
        XCTAssertEqual(try v.read(try EntryPath("Email/gmail")).text("password"), "old", "the work tree is behind")

        let again = try Vault.open(at: v.root)
        try again.unlock(passphrase: passphrase)
        try again.recoverIfNeeded()
        XCTAssertEqual(try again.read(try EntryPath("Email/gmail")).text("password"), "new")
        XCTAssertFalse(FileManager.default.fileExists(atPath: v.root + "/" + Journal.relativePath))
        XCTAssertEqual(try git(v, "status", "--porcelain"), "")
        XCTAssertTrue(try again.check().problems.isEmpty)
    }

    func testRecoveryDiscardsAChangeWhoseBranchNeverMoved() throws {
        let v = try makeVault()
        let repo = try v.repository()
        let head = try XCTUnwrap(try repo.headCommitID())
        let blob = try repo.writeBlob(Array("never committed".utf8))
        let tree = try repo.tree(from: head, applying: [.put(path: "A/b.json", blob: blob)])
        let commit = try repo.writeCommit(tree: tree, parents: [head], message: "Add A/b")
        try FileSystem.writeAtomically(Journal(base: head, target: commit, paths: ["A/b.json"]).serialized(),
                                       to: v.root + "/" + Journal.relativePath)
        try v.recoverIfNeeded()
        XCTAssertEqual(try repo.headCommitID(), head)
        XCTAssertFalse(FileManager.default.fileExists(atPath: v.root + "/A/b.json"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: v.root + "/" + Journal.relativePath))
        XCTAssertEqual(try git(v, "status", "--porcelain"), "")
    }

    func testSaveMergesAChangeMadeMeanwhile() throws {
        let v = try makeVault()
        try v.add(try entry("Email/gmail", ["password": "p0", "username": "u0"]))
        let original = try v.read(try EntryPath("Email/gmail"))
        try edit(v, "Email/gmail", ["username": "fromB"])                // another command, meanwhile
        var mine = original
        try mine.set("password", .text("fromA"), change: Change(time: .now(), origin: v.deviceID, dot: .placeholder))
        let outcome = try v.save(mine, basedOn: original)
        XCTAssertTrue(outcome.merged)
        let e = try v.read(try EntryPath("Email/gmail"))
        XCTAssertEqual(e.text("password"), "fromA")
        XCTAssertEqual(e.text("username"), "fromB")

        // The same field changed meanwhile: the later write wins, the other value is in the history.
        let before = try v.read(try EntryPath("Email/gmail"))
        try edit(v, "Email/gmail", ["username": "fromC"])
        var late = before
        try late.set("username", .text("fromD"), change: Change(time: .now(), origin: v.deviceID, dot: .placeholder))
        let second = try v.save(late, basedOn: before)
        XCTAssertTrue(second.merged)
        XCTAssertEqual(second.resolutions.map(\.kind), [.fieldConflict])
        let after = try v.read(try EntryPath("Email/gmail"))
        XCTAssertEqual(after.text("username"), "fromD")
        XCTAssertTrue(values(after, "username").isSuperset(of: ["u0", "fromB", "fromC", "fromD"]))
    }

    func testSaveFollowsAnEntryMovedMeanwhileAndRecreatesOneRemoved() throws {
        let v = try makeVault()
        try v.add(try entry("Email/gmail", ["password": "p0"]))
        let original = try v.read(try EntryPath("Email/gmail"))
        try v.move(try EntryPath("Email/gmail"), to: try EntryPath("Mail/google"))
        var mine = original
        try mine.set("password", .text("edited"), change: Change(time: .now(), origin: v.deviceID, dot: .placeholder))
        let moved = try v.save(mine, basedOn: original)
        XCTAssertEqual(moved.path?.string, "Mail/google")
        XCTAssertEqual(v.list().paths.map(\.string), ["Mail/google"])
        XCTAssertEqual(try v.read(try EntryPath("Mail/google")).text("password"), "edited")

        let again = try v.read(try EntryPath("Mail/google"))
        try v.remove(try EntryPath("Mail/google"))
        var edited = again
        try edited.set("notes", .text("kept"), change: Change(time: .now(), origin: v.deviceID, dot: .placeholder))
        _ = try v.save(edited, basedOn: again)
        XCTAssertEqual(try v.read(try EntryPath("Mail/google")).text("notes"), "kept", "an edit beats a delete")

        // Removed, and another entry took the path: both are kept.
        let third = try v.read(try EntryPath("Mail/google"))
        try v.remove(try EntryPath("Mail/google"))
        try v.add(try entry("Mail/google", ["password": "someone else"]))
        var mine3 = third
        try mine3.set("notes", .text("mine"), change: Change(time: .now(), origin: v.deviceID, dot: .placeholder))
        let beside = try v.save(mine3, basedOn: third)
        XCTAssertEqual(beside.path?.string, "Mail/google.conflict-" + third.id.prefix(8))
        XCTAssertEqual(v.list().paths.count, 2)
    }

    func testAChangeNeverOverwritesAFileChangedOutsideTresor() throws {
        let v = try makeVault()
        try v.add(try entry("Email/gmail", ["password": "p0"]))
        let original = try v.read(try EntryPath("Email/gmail"))
        let file = v.root + "/Email/gmail.json"
        let handEdited = try String(contentsOfFile: file, encoding: .utf8) + " "
        try handEdited.write(toFile: file, atomically: true, encoding: .utf8)
        var mine = original
        try mine.set("password", .text("new"), change: Change(time: .now(), origin: "t", dot: .placeholder))
        XCTAssertThrowsError(try v.save(mine, basedOn: original)) { error in
            XCTAssertEqual(error as? VaultError, .changedOutsideTresor(path: "Email/gmail.json"))
        }
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), handEdited)
        XCTAssertEqual(try headCount(v), 2)
        // Entries elsewhere still change.
        try v.add(try entry("Bank/ing", ["password": "b"]))
        XCTAssertEqual(try headCount(v), 3)
    }

    func testCaseCollisionsAreFoundAmongStagedEntriesToo() throws {
        let v = try makeVault()
        XCTAssertThrowsError(try v.transaction { txn in
            try txn.checkNew(try EntryPath("Mail/Work"))
            try txn.put(try self.entry("Mail/Work", ["password": "a"]))
            try txn.checkNew(try EntryPath("mail/work"))
        }) { error in XCTAssertEqual(error as? VaultError, .caseCollision(path: "mail/work", existing: "Mail")) }
        XCTAssertEqual(try headCount(v), 1)
    }
}
