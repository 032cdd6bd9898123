// Random operations on three replicas with random sync orders: they converge, and no written value is lost.
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

final class SyncPropertyTests: VaultTestCase {
    func testRandomOperationsOnThreeReplicasConvergeAndLoseNothing() throws {
        for seed: UInt64 in 1...8 { try runScenario(seed: seed, steps: 50) }
    }

    struct Written: Hashable { let id: String; let field: String; let value: String }

    func runScenario(seed: UInt64, steps: Int) throws {
        var rng = SplitMix64(seed: seed)
        let base = dir + "/seed\(seed)"
        let remote = base + "/remote.git"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        p.arguments = ["init", "-q", "--bare", "-b", "main", remote]
        try p.run(); p.waitUntilExit()
        let pass = SecretBytes(utf8: "start")
        let a = try Vault.create(at: base + "/A", passphrase: pass, level: .minimum)
        try a.addRemote(name: "origin", url: remote)
        _ = try a.sync(credentials: .none)
        var replicas = [a]
        for name in ["B", "C"] {
            let v = try Vault.clone(url: remote, to: base + "/" + name, credentials: .none)
            try v.unlock(passphrase: pass)
            try v.completeClone()
            replicas.append(v)
        }
        var written: Set<Written> = []
        var counter = 0
        func fresh() -> String { counter += 1; return "s\(seed)-\(counter)" }

        for step in 0..<steps {
            let v = replicas[Int.random(in: 0..<3, using: &rng)]
            let paths = v.list().paths
            let now = Timestamp.now()
            switch Int.random(in: 0..<11, using: &rng) {
            case 0, 1 where paths.count < 12:
                var e = Entry(path: try EntryPath("F\(Int.random(in: 0..<3, using: &rng))/e\(fresh())"), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                let value = fresh()
                try e.set("password", .text(SecretText(value)), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                try v.add(e)
                written.insert(Written(id: e.id, field: "password", value: value))
            case 0, 1, 2, 3, 4:
                guard let path = paths.randomElement(using: &rng) else { continue }
                let old = try v.read(path)
                var e = old
                let field = ["password", "username", "notes", "pin"].randomElement(using: &rng)!
                let value = fresh()
                try e.set(field, .text(SecretText(value)), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                _ = try v.save(e, basedOn: old)
                written.insert(Written(id: e.id, field: field, value: value))
            case 5:
                guard let path = paths.randomElement(using: &rng) else { continue }
                let target = try EntryPath("G/\(path.name)-\(fresh())")
                try v.move(path, to: target)
            case 6:
                guard let path = paths.randomElement(using: &rng) else { continue }
                try v.remove(path)
            case 8:
                // Edit, then delete in a later commit: the edit must survive an edit elsewhere (MERGE.md §3.2.1).
                guard let path = paths.randomElement(using: &rng) else { continue }
                let old = try v.read(path)
                var e = old
                let value = fresh()
                try e.set("password", .text(SecretText(value)), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                _ = try v.save(e, basedOn: old)
                written.insert(Written(id: e.id, field: "password", value: value))
                try v.remove(path)
            case 7 where step % 3 == 0:
                try v.changePassphrase(to: SecretBytes(utf8: fresh()), level: .minimum)
            default:
                _ = try v.sync(credentials: .none)
            }
        }
        for v in replicas + replicas { _ = try v.sync(credentials: .none) }

        // Converged: identical decrypted contents and headers everywhere.
        func state(_ v: Vault) throws -> [String: Entry] {
            var all: [String: Entry] = [:]
            for (path, r) in try v.readAll() { all[path.string] = try r.get() }
            return all
        }
        let final = try state(replicas[0])
        for v in replicas.dropFirst() {
            XCTAssertEqual(try state(v), final, "seed \(seed): replicas differ")
            XCTAssertEqual(try Vault.open(at: v.root).header, try Vault.open(at: replicas[0].root).header, "seed \(seed)")
        }

        // No value lost: current, in the entry's history, or (deleted entries) in git history.
        var byID: [String: Entry] = [:]
        for e in final.values { byID[e.id] = e }
        let inGit = try valuesInGitHistory(replicas[0])
        for w in written {
            if let e = byID[w.id] {
                let current = e.fields[w.field]?.value == .text(SecretText(w.value))
                let past = e.history.contains { $0.field == w.field && $0.value == .text(SecretText(w.value)) }
                XCTAssertTrue(current || past, "seed \(seed): \(w) lost from a live entry")
            } else {
                XCTAssertTrue(inGit.contains(w), "seed \(seed): \(w) of a deleted entry is not in git history")
            }
        }
    }

    /// Every field value of every entry version in any commit reachable from HEAD.
    func valuesInGitHistory(_ v: Vault) throws -> Set<Written> {
        let repo = try v.repository()
        let cipher = try EntryCipher(vaultKey: try v.currentVaultKey())
        var seen: Set<String> = [], values: Set<Written> = []
        for commit in try repo.log() {
            for file in try repo.treeEntries(at: commit.id) where file.path.hasSuffix(".json") && !file.path.hasPrefix(".") {
                guard seen.insert(file.id).inserted, let e = try? cipher.open(try repo.blob(id: file.id), expectedPath: nil) else { continue }
                for (name, f) in e.fields { values.insert(Written(id: e.id, field: name, value: f.value.displayText)) }
                for h in e.history { values.insert(Written(id: e.id, field: h.field, value: h.value.displayText)) }
            }
        }
        return values
    }
}
