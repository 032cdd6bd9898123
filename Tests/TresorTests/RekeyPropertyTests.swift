// Random edits, moves, deletions and rekeys on three replicas with random sync orders: they converge, every
// value ends under the newest key, and no written value is lost (Spec/FORMAT.md §3.11, Spec/MERGE.md §10.1).
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
import TresorGit
import XCTest

final class RekeyPropertyTests: VaultTestCase {
    func testRekeysConcurrentWithEditsOnThreeReplicasConvergeUnderTheNewestKey() throws {
        for seed: UInt64 in 1...8 { try runScenario(seed: seed, steps: 50) }
    }

    struct Written: Hashable { let id: String; let field: String; let value: String }

    func runScenario(seed: UInt64, steps: Int) throws {
        var rng = SplitMix64(seed: seed &* 7919)
        let base = dir + "/seed\(seed)"
        let remote = base + "/remote.git"
        try GitRepository.createBare(at: remote)
        let pass = SecretBytes(utf8: "shared passphrase")
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
        var keys = [try a.currentVaultKey()]
        var written: Set<Written> = []
        var counter = 0, rekeys = 0
        func fresh() -> String { counter += 1; return "r\(seed)-\(counter)" }

        for _ in 0..<steps {
            let v = replicas[Int.random(in: 0..<3, using: &rng)]
            let paths = v.list().paths
            let now = Timestamp.now()
            let op = Int.random(in: 0..<10, using: &rng)
            switch op {
            case 0, 1 where paths.count < 10:
                var e = Entry(path: try EntryPath("F\(Int.random(in: 0..<3, using: &rng))/e\(fresh())"), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                let value = fresh()
                try e.set("password", .text(SecretText(value)), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                try v.add(e)
                written.insert(Written(id: e.id, field: "password", value: value))
            case 0, 1, 2, 3:
                guard let path = paths.randomElement(using: &rng) else { continue }
                let old = try v.read(path)
                var e = old
                let field = ["password", "username", "notes"].randomElement(using: &rng)!
                let value = fresh()
                try e.set(field, .text(SecretText(value)), change: Change(time: now, origin: v.deviceID, dot: .placeholder))
                _ = try v.save(e, basedOn: old)
                written.insert(Written(id: e.id, field: field, value: value))
            case 4:
                guard let path = paths.randomElement(using: &rng) else { continue }
                try v.move(path, to: try EntryPath("G/\(path.name)-\(fresh())"))
            case 5:
                guard let path = paths.randomElement(using: &rng) else { continue }
                try v.remove(path)
            case 6:
                try v.rekey(passphrase: pass, level: .minimum)
                keys.append(try v.currentVaultKey())
                rekeys += 1
            default:
                _ = try v.sync(credentials: .none)
            }
        }
        for v in replicas + replicas { _ = try v.sync(credentials: .none) }
        XCTAssertGreaterThan(rekeys, 0, "seed \(seed): no rekey happened")

        func state(_ v: Vault) throws -> [String: Entry] {
            var all: [String: Entry] = [:]
            for (path, r) in try v.readAll() { all[path.string] = try r.get() }
            return all
        }
        let final = try state(replicas[0])
        let finalKey = try replicas[0].currentVaultKey()
        for v in replicas.dropFirst() {
            XCTAssertEqual(try state(v), final, "seed \(seed): replicas differ")
            XCTAssertEqual(try Vault.open(at: v.root).header, try Vault.open(at: replicas[0].root).header, "seed \(seed)")
            XCTAssertTrue(try v.currentVaultKey().constantTimeEquals(finalKey), "seed \(seed): replicas hold different keys")
        }
        // Every entry file is under the newest key and under no earlier one.
        let newest = try EntryCipher(vaultKey: finalKey)
        let older = try keys.filter { !$0.constantTimeEquals(finalKey) }.map { try EntryCipher(vaultKey: $0) }
        for v in replicas {
            let repo = try v.repository()
            let head = try XCTUnwrap(try repo.headCommitID())
            for file in try repo.treeEntries(at: head) where EntryPath(filePath: file.path) != nil {
                let bytes = try repo.blob(id: file.id)
                XCTAssertNoThrow(try newest.open(bytes, expectedPath: nil), "seed \(seed): \(file.path) not under the newest key")
                for c in older { XCTAssertThrowsError(try c.open(bytes, expectedPath: nil), "seed \(seed): \(file.path) opens with an old key") }
            }
        }
        // No value lost: current, in the entry's history, or (deleted entries) in git history under some key.
        var byID: [String: Entry] = [:]
        for e in final.values { byID[e.id] = e }
        let inGit = try valuesInGitHistory(replicas[0], keys: keys)
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

    func valuesInGitHistory(_ v: Vault, keys: [SecretBytes]) throws -> Set<Written> {
        let repo = try v.repository()
        let ciphers = try keys.map { try EntryCipher(vaultKey: $0) }
        var seen: Set<String> = [], values: Set<Written> = []
        for commit in try repo.log() {
            for file in try repo.treeEntries(at: commit.id) where file.path.hasSuffix(".json") && !file.path.hasPrefix(".") {
                guard seen.insert(file.id).inserted else { continue }
                let bytes = try repo.blob(id: file.id)
                guard let e = ciphers.lazy.compactMap({ try? $0.open(bytes, expectedPath: nil) }).first else { continue }
                for (name, f) in e.fields { values.insert(Written(id: e.id, field: name, value: f.value.displayText)) }
                for h in e.history { values.insert(Written(id: e.id, field: h.field, value: h.value.displayText)) }
            }
        }
        return values
    }
}
