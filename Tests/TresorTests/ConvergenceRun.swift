// Random runs of four replicas of one vault — three syncing with tresor, one with plain `git pull` and `git push`
// through tresor's drivers and hooks — with adds, edits, moves, copies, removals, restores, rekeys and scopes, in random
// sync orders. After a final round of syncs every replica holds the same commit, and the invariant of Spec/MERGE.md §2
// holds: every value written is current or in its entry's history, unless a replica that had seen the write removed
// the entry. A failing sequence is shrunk to a shortest one that still fails, printed, and written for replay.
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

/// One step of a run. `pick` and `field` choose among what the replica holds when the step runs, so any subsequence of
/// a run is a run too (what shrinking needs).
struct ConvergenceOp: Codable, CustomStringConvertible {
    enum Kind: String, Codable, CaseIterable {
        case add, edit, editThenRemove, move, copy, remove, restore, rekey, scopeCreate, scopeRemove, sync, passwd, burst
    }
    var kind: Kind
    var replica: Int
    var pick: Int
    var field: Int

    var description: String { "\(kind.rawValue)@\(ConvergenceRun.names[replica])(\(pick),\(field))" }

    /// A random step: syncs about a third of the time, rekeys and scope changes rarely.
    static func random(using rng: inout SplitMix64) -> ConvergenceOp {
        let weighted: [(Kind, Int)] = [(.add, 10), (.edit, 18), (.editThenRemove, 3), (.move, 5), (.copy, 3), (.remove, 5),
                                       (.restore, 3), (.rekey, 1), (.scopeCreate, 1), (.scopeRemove, 1), (.sync, 28),
                                       (.passwd, 1), (.burst, 3)]
        var n = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.1 }, using: &rng)
        var kind = Kind.sync
        for (k, w) in weighted { if n < w { kind = k; break }; n -= w }
        return ConvergenceOp(kind: kind, replica: Int.random(in: 0..<4, using: &rng), pick: Int.random(in: 0..<1000, using: &rng),
                             field: Int.random(in: 0..<1000, using: &rng))
    }
}

/// The vault, its remote and its four replicas for one run, with what the run wrote and removed.
final class ConvergenceRun {
    static let names = ["A", "B", "C", "G"]
    /// A value written: which entry, which field, the value, and the dot of the write.
    struct Write: Hashable { let id: String; let field: String; let value: String; let dot: Dot }
    /// An entry removed by a replica, with the entry's clock then (what the removing replica had seen of it).
    struct Removal { let id: String; let clock: Clock }

    let base: String
    let binary: String
    /// The passphrase now (a `passwd` step changes it; G's drivers and hooks read it from `passphraseFile`).
    var passphrase = SecretBytes(utf8: "correct horse battery staple")
    var vaults: [Vault] = []
    var writes: [Write] = []
    var removals: [Removal] = []
    var removedPaths: [String] = []
    var counter = 0
    /// Steps that did nothing because what they chose could not be done (no entry, a name taken): not failures.
    var skipped = 0

    var remote: String { base + "/remote.git" }
    var passphraseFile: String { base + "/passphrase" }

    init(base: String, binary: String) throws {
        self.base = base
        self.binary = binary
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try "correct horse battery staple\n".write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        try GitRepository.createBare(at: remote)
        let a = try Vault.create(at: base + "/A", passphrase: passphrase, level: .minimum)
        try a.addRemote(name: "origin", url: remote)
        _ = try a.sync(credentials: .none)
        vaults = [a]
        for name in ["B", "C"] {
            let v = try Vault.clone(url: remote, to: base + "/" + name, credentials: .none)
            try v.unlock(passphrase: passphrase)
            try v.completeClone()
            vaults.append(v)
        }
        // G uses plain git: cloned by the tresor binary, so git's drivers and hooks run that binary. Its keys are in an
        // agent of its own (`tresor unlock`), as a person's would be: they stay good across a passphrase changed elsewhere.
        try FileManager.default.createDirectory(atPath: base + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let clone = try runProcess(binary, ["clone", remote, base + "/G"], env: toolEnvironment)
        guard clone.status == 0 else { throw RunFailure("clone for G: \(clone.stderr)") }
        let unlock = try runProcess(binary, ["unlock", "--vault", base + "/G"], env: toolEnvironment)
        guard unlock.status == 0 else { throw RunFailure("unlock for G: \(unlock.stderr)") }
        vaults.append(try openG())
    }

    struct RunFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// The environment git's drivers and hooks (the tresor binary) run with on G.
    var toolEnvironment: [String: String] {
        ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": base, "LANG": "C.UTF-8", "TRESOR_PASSPHRASE_FILE": passphraseFile,
         "TRESOR_SESSION_DIR": base + "/sessions", "XDG_RUNTIME_DIR": base + "/run", "TRESOR_PINENTRY": "none", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "g", "GIT_AUTHOR_EMAIL": "g@example",
         "GIT_COMMITTER_NAME": "g", "GIT_COMMITTER_EMAIL": "g@example", "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"]
    }

    /// Every passphrase the vault had, newest first: a replica that has not synced since a change opens with an older one,
    /// as its person would type it.
    var passphrases: [SecretBytes] = []

    func openG() throws -> Vault {
        let v = try Vault.open(at: base + "/G")
        for p in [passphrase] + passphrases.reversed() {
            do { try v.unlock(passphrase: p); return v } catch VaultError.wrongPassphrase { continue }
        }
        throw RunFailure("no passphrase the vault ever had opens G")
    }

    func fresh() -> String { counter += 1; return "v\(counter)" }

    /// The value of `field` of the entry with `id` as `v` stores it, with its dot.
    func recordWrite(_ v: Vault, path: EntryPath, field: String, value: String) throws {
        let e = try v.read(path)
        guard let f = e.fields[field] else { throw RunFailure("\(path): field \(field) just written is not there") }
        writes.append(Write(id: e.id, field: field, value: value, dot: f.dot))
    }

    func apply(_ op: ConvergenceOp) throws {
        let v = vaults[op.replica]
        let paths = v.list().paths.sorted { $0.string < $1.string }
        let chosen = paths.isEmpty ? nil : paths[op.pick % paths.count]
        let fieldName = ["password", "username", "notes", "pin"][op.field % 4]
        do {
            switch op.kind {
            case .add:
                let folder = ["F0", "F1", "S0", "S1"][op.field % 4]
                let path = try EntryPath("\(folder)/e\(fresh())"), value = fresh()
                let stored = try v.add(path, fields: ["password": .text(SecretText(value))])
                writes.append(Write(id: stored.id, field: "password", value: value, dot: stored.fields["password"]!.dot))
            case .edit, .editThenRemove:
                guard let path = chosen else { skipped += 1; return }
                let value = fresh()
                let outcome = try v.edit(try v.read(path), changes: [fieldName: .text(SecretText(value))])
                try recordWrite(v, path: outcome?.path ?? path, field: fieldName, value: value)
                if op.kind == .editThenRemove { try remove(v, outcome?.path ?? path) }
            case .move:
                guard let path = chosen else { skipped += 1; return }
                try v.move(path, to: try EntryPath("\(["F0", "G1", "S0", "S1"][op.field % 4])/m\(fresh())"))
            case .copy:
                guard let path = chosen else { skipped += 1; return }
                let to = try EntryPath("\(["F1", "S1"][op.field % 2])/c\(fresh())")
                try v.copy(path, to: to)
                let copy = try v.read(to)
                for (name, f) in copy.fields { writes.append(Write(id: copy.id, field: name, value: f.value.displayText, dot: f.dot)) }
            case .remove:
                guard let path = chosen else { skipped += 1; return }
                try remove(v, path)
            case .restore:
                guard !removedPaths.isEmpty else { skipped += 1; return }
                try v.restore(try EntryPath(removedPaths[op.pick % removedPaths.count]), at: nil)
            case .rekey:
                _ = try v.rekey(passphrase: passphrase, level: .minimum)
            case .scopeCreate:
                _ = try v.createScope(try EntryPath("S\(op.field % 2)"), members: [])
            case .scopeRemove:
                _ = try v.removeScope("S\(op.field % 2)")
            case .sync:
                if op.replica == 3 { try plainGitSync() } else { try sync(v) }
            case .passwd:
                // Everyone types the new passphrase from now on; replicas that have not synced keep their slot of the old
                // one, whose key is the same.
                let new = "passphrase \(fresh())"
                try v.changePassphrase(to: SecretBytes(utf8: new), level: .minimum)
                passphrases.append(passphrase)
                passphrase = SecretBytes(utf8: new)
                try (new + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)
            case .burst:
                // One field of one entry set on every replica that has it, before any of them syncs.
                guard let path = chosen else { skipped += 1; return }
                let id = try v.read(path).id
                for other in vaults {
                    guard let here = other.list().paths.first(where: { (try? other.read($0).id) == id }) else { continue }
                    let value = fresh()
                    let outcome = try other.edit(try other.read(here), changes: [fieldName: .text(SecretText(value))])
                    try recordWrite(other, path: outcome?.path ?? here, field: fieldName, value: value)
                }
            }
        } catch let e as VaultError {
            // What the step chose could not be done here: not a failure of the vault.
            switch (op.kind, e) {
            case (_, .entryNotFound), (_, .entryExists), (_, .caseCollision), (_, .sameEntry), (_, .nothingChanged): skipped += 1
            // A restore whose earlier version is under a key this replica did not keep (found on G, which follows rekeys
            // through git's hooks): refused with nothing changed, as docs/sync.md says.
            case (.restore, .earlierVersionNotOpened): skipped += 1
            case (.scopeCreate, .scopeNests), (.scopeCreate, .header), (.scopeRemove, .noSuchScope): skipped += 1
            default: throw RunFailure("\(op): \(e)")
            }
        }
    }

    /// A sync of an in-process replica. A rekey made elsewhere with a passphrase this one does not use (a passphrase
    /// changed concurrently: the rekey's side keeps its passphrase slot and the change is dropped and reported,
    /// Spec/MERGE.md §8 step 3) is opened with the passphrase that rekey kept, as its person would type it when asked;
    /// from then on that passphrase is the vault's, for everyone (G's hooks read it from the passphrase file).
    func sync(_ v: Vault) throws {
        do { _ = try v.sync(credentials: .none, retryTime: 5) }
        catch VaultError.removedFromVault(_, true) {
            for p in [passphrase] + passphrases.reversed() {
                v.credential = .passphrase(p)
                do { _ = try v.sync(credentials: .none, retryTime: 5) } catch VaultError.removedFromVault(_, true) { continue }
                if !p.constantTimeEquals(passphrase) {
                    passphrases.append(passphrase)
                    passphrase = p
                    try ((p.utf8String() ?? "") + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)
                }
                return
            }
            throw RunFailure("no passphrase the vault ever had opens what the remote holds")
        }
    }

    private func remove(_ v: Vault, _ path: EntryPath) throws {
        let e = try v.read(path)
        try v.remove(path)
        removals.append(Removal(id: e.id, clock: e.clock))
        removedPaths.append(path.string)
    }

    /// What a person does with plain git: pull (the drivers merge entries and headers, the hooks take the result in),
    /// resolve what git could not by keeping the file that is there, commit, push.
    func plainGitSync() throws {
        let g = base + "/G"
        // What git's hooks and drivers (tresor) say goes to git's stderr: an error there is a failure of the run.
        func checkTools(_ r: (status: Int32, stdout: String, stderr: String), _ what: String) throws {
            if r.stderr.contains("tresor: error") { throw RunFailure("G's \(what) through git: \(r.stderr)") }
        }
        for _ in 0..<4 {
            // G's person types the passphrase the pull asks for: the newest one of this household that opens both G's
            // header and the remote's, else the one that opens the newer key of the two (the join follows it, and the
            // older side is opened with the key G holds). A change made on a replica that has not synced is not asked.
            func header(_ dir: String, _ rev: String) throws -> VaultHeader? {
                let shown = try git(dir, ["show", rev + ":" + VaultHeader.relativePath])
                return shown.status == 0 ? try? VaultHeader.parse(Array(shown.stdout.utf8)) : nil
            }
            if let theirs = try header(remote, "main"), let ours = try header(g, "HEAD") {
                let candidates = [passphrase] + passphrases.reversed()
                func opens(_ h: VaultHeader, _ p: SecretBytes) -> Bool { (try? h.unlock(passphrase: p)) != nil }
                let newer = ours.epoch > theirs.epoch ? ours : theirs
                if let p = candidates.first(where: { opens(ours, $0) && opens(theirs, $0) }) ?? candidates.first(where: { opens(newer, $0) }) {
                    try ((p.utf8String() ?? "") + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)
                }
            }
            let pull = try git(g, ["pull", "--no-rebase", "-q", "origin", "main"])
            try checkTools(pull, "pull")
            if pull.status != 0 {
                let conflicted = try git(g, ["diff", "--name-only", "--diff-filter=U"]).stdout.split(separator: "\n").map(String.init)
                guard !conflicted.isEmpty else { throw RunFailure("git pull on G failed without conflicts: \(pull.stderr)") }
                for path in conflicted {
                    _ = FileManager.default.fileExists(atPath: g + "/" + path) ? try git(g, ["add", path]) : try git(g, ["rm", "-q", path])
                }
                let commit = try git(g, ["commit", "-q", "--no-edit"])
                guard commit.status == 0 else { throw RunFailure("git commit on G: \(commit.stderr)") }
                try checkTools(commit, "commit")
            }
            if try git(g, ["push", "-q", "origin", "main"]).status == 0 {
                vaults[3] = try openG()
                return
            }
        }
        throw RunFailure("G could not push with plain git")
    }

    func git(_ dir: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess("/usr/bin/git", ["-C", dir] + args, env: toolEnvironment)
    }

    /// Syncs every replica, in order, until a whole round changes nothing; then checks convergence and the invariant.
    /// - Returns: what is wrong, or nil.
    func finish() throws -> String? {
        for _ in 0..<4 {
            for i in 0..<4 { try apply(ConvergenceOp(kind: .sync, replica: i, pick: 0, field: 0)) }
        }
        let heads = try vaults.map { try $0.repository().headCommitID() ?? "" }
        guard Set(heads).count == 1 else {
            return "did not converge: " + zip(ConvergenceRun.names, heads).map { "\($0) \($1.prefix(8))" }.joined(separator: ", ")
        }
        // One key: every replica followed every rekey, and every entry file opens under it (readAll below).
        let key = try vaults[0].currentVaultKey()
        for (name, v) in zip(ConvergenceRun.names, vaults) where !(try v.currentVaultKey()).constantTimeEquals(key) {
            return "did not converge: \(name) holds another vault key"
        }
        for dir in [remote] + ConvergenceRun.names.map({ base + "/" + $0 }) {
            let fsck = try runProcess("/usr/bin/git", ["-C", dir, "fsck", "--strict", "--no-progress"], env: toolEnvironment)
            if fsck.status != 0 { return "git fsck --strict of \(dir): \(fsck.stderr)" }
        }
        var byID: [String: Entry] = [:]
        for (path, r) in try vaults[0].readAll() {
            switch r {
            case .success(let e): byID[e.id] = e
            case .failure(let e): return "\(path) does not read: \(e)"
            }
        }
        // An entry removed by a replica that had seen every change to it stays removed (a restore is a change).
        for e in byID.values where removals.contains(where: { $0.id == e.id && e.clock.isAtMost($0.clock) }) {
            return "came back after a removal that had seen all of it: \(e.path) (\(e.id))"
        }
        for w in writes {
            // A replica that had seen the write removed the entry: the value may be gone (an edit elsewhere it had not
            // seen keeps the entry, without it).
            let removedBySeer = removals.contains { $0.id == w.id && $0.clock.covers(w.dot) }
            if let e = byID[w.id] {
                let current = e.fields[w.field]?.value == .text(SecretText(w.value))
                let past = e.history.contains { $0.field == w.field && $0.value == .text(SecretText(w.value)) }
                let capped = e.history.filter { $0.field == w.field }.count >= Entry.historyLimitPerField
                if !current && !past && !capped && !removedBySeer {
                    return "lost from a live entry: \(w.value) (\(w.field) of \(e.path), dot \(w.dot))"
                }
            } else if !removedBySeer {
                return "gone with its entry, which no replica that had seen it removed: \(w.value) (\(w.field) of \(w.id), dot \(w.dot))"
            }
        }
        return nil
    }
}

func runProcess(_ exe: String, _ args: [String], env: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    // Read both pipes while the process runs (a full pipe would block it).
    final class Box: @unchecked Sendable { var data = Data() }   // written by the reader, read once it has finished
    let errData = Box()
    let reader = Thread { errData.data = err.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !reader.isFinished { usleep(1000) }
    return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.data, as: UTF8.self))
}

/// Runs and shrinks convergence runs for a test case.
struct ConvergenceProperty {
    let dir: String
    let binary: String

    /// The tresor binary next to the test bundle.
    static var builtBinary: String {
        if let b = ProcessInfo.processInfo.environment["TRESOR_BIN"] { return b }
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let p = candidate.appendingPathComponent("tresor").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return products.appendingPathComponent("tresor").path
    }

    /// What goes wrong when `ops` run on a fresh vault, or nil.
    func failure(of ops: [ConvergenceOp], label: String) -> String? {
        let base = dir + "/" + label + "-" + UUID().uuidString.prefix(8)
        // TRESOR_KEEP_RUNS=1 keeps the replicas of each run for a look (their folder is printed).
        let keep = ProcessInfo.processInfo.environment["TRESOR_KEEP_RUNS"] == "1"
        defer {
            if keep {
                let kept = NSTemporaryDirectory() + "tresor-kept-" + base.split(separator: "/").last!
                try? FileManager.default.moveItem(atPath: base, toPath: kept)
                print("kept the run in \(kept)")
            } else { try? FileManager.default.removeItem(atPath: base) }
        }
        do {
            let run = try ConvergenceRun(base: base, binary: binary)
            for (i, op) in ops.enumerated() {
                do { try run.apply(op) } catch { return "step \(i) \(op): \(error)" }
            }
            return try run.finish()
        } catch {
            return "\(error)"
        }
    }

    /// The kind of a failure, which shrinking keeps: the invariant broken, or the error's case (and rule).
    static func kind(of failure: String) -> String {
        for k in ["lost from a live entry", "gone with its entry", "did not converge", "does not read", "git fsck", "came back",
                  "through git"] where failure.contains(k) { return k }
        let afterStep = failure.range(of: "): ").map { String(failure[$0.upperBound...]) } ?? failure
        let name = String(afterStep.prefix { $0.isLetter || $0 == "." })
        if let rule = afterStep.range(of: "AcceptanceRule.") { return name + "/" + afterStep[rule.upperBound...].prefix { $0.isLetter } }
        return name
    }

    /// A shortest subsequence of `ops` that still fails the same way (delta debugging), within `seconds`.
    func shrink(_ ops: [ConvergenceOp], failing first: String, seconds: TimeInterval) -> (ops: [ConvergenceOp], failure: String) {
        let deadline = Date().addingTimeInterval(seconds)
        let kind = Self.kind(of: first)
        var current = ops
        var failure = first
        var chunk = max(1, current.count / 2)
        while chunk >= 1, Date() < deadline {
            var removedAny = false
            var start = 0
            while start < current.count, Date() < deadline {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                if let f = self.failure(of: candidate, label: "shrink"), Self.kind(of: f) == kind {
                    current = candidate
                    failure = f
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return (current, failure)
    }

    /// Runs `steps` random steps of each seed; on a failure, shrinks it for at most `shrinkSeconds`, writes the shortest
    /// sequence to a file for `TRESOR_REPLAY`, and fails the test naming both.
    func check(seeds: [UInt64], steps: Int, shrinkSeconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) {
        if let replay = ProcessInfo.processInfo.environment["TRESOR_REPLAY"], !replay.isEmpty {
            guard let data = FileManager.default.contents(atPath: replay),
                  let ops = try? JSONDecoder().decode([ConvergenceOp].self, from: data) else {
                return XCTFail("TRESOR_REPLAY: \(replay) is no list of steps", file: file, line: line)
            }
            guard let f = failure(of: ops, label: "replay") else { return }
            // TRESOR_SHRINK_SECONDS=N shrinks a failing replay further (written next to it, "-shrunk-K-steps.json").
            if let seconds = Double(ProcessInfo.processInfo.environment["TRESOR_SHRINK_SECONDS"] ?? "") {
                let (shortest, why) = shrink(ops, failing: f, seconds: seconds)
                let out = replay.replacingOccurrences(of: ".json", with: "") + "-shrunk-\(shortest.count)-steps.json"
                let encoder = JSONEncoder()
                if let data = try? encoder.encode(shortest) { _ = FileManager.default.createFile(atPath: out, contents: data) }
                return XCTFail("replay of \(replay): \(f)\nshrunk to \(shortest.count) steps in \(out): \(why)", file: file, line: line)
            }
            XCTFail("replay of \(replay): \(f)", file: file, line: line)
            return
        }
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let ops = (0..<steps).map { _ in ConvergenceOp.random(using: &rng) }
            guard let f = failure(of: ops, label: "seed\(seed)") else { continue }
            let (shortest, why) = shrink(ops, failing: f, seconds: shrinkSeconds)
            let out = NSTemporaryDirectory() + "tresor-convergence-seed\(seed)-\(shortest.count)-steps.json"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted]
            if let data = try? encoder.encode(shortest) { _ = FileManager.default.createFile(atPath: out, contents: data) }
            XCTFail("""
                seed \(seed): \(f)
                shrunk to \(shortest.count) of \(ops.count) steps: \(shortest.map(\.description).joined(separator: " "))
                which fails with: \(why)
                replay: TRESOR_REPLAY=\(out) swift test --filter \(seeds.count > 3 ? "ConvergenceDeepTests" : "ConvergencePropertyTests")
                once fixed, copy it to Tests/Fixtures/convergence/ (replayed by every make test)
                """, file: file, line: line)
        }
    }
}
