// Many replicas of one vault syncing at the same moment through one remote (issue 25): real `tresor` processes started
// together, rounds of edits in between; every sync must succeed, every replica converge, no value be lost.
import Foundation
import TestSupport
import XCTest

/// What one load run measured (printed for Benchmarks/README.md; nothing here is asserted about speed).
struct SyncLoadFigures {
    var transport: String
    var replicas: Int
    /// Wall time until the last of the replicas' syncs of each round ended.
    var roundSeconds: [Double] = []
    /// Of every sync of the rounds: attempts, pack bytes received and sent (`tresor sync --json`).
    var attempts: [Int] = [], received: [Int] = [], sent: [Int] = []
    /// Every replica syncing once more to take the last round's pushes (nothing to push), then once with nothing new.
    var catchUpSeconds = 0.0, upToDateSeconds = 0.0

    /// One row of the table in Benchmarks/README.md.
    var row: String {
        func median(_ xs: [Int]) -> Int { xs.sorted()[xs.count / 2] }
        let rounds = roundSeconds.map { String(format: "%.1f", $0) }.joined(separator: ", ")
        return "| \(transport) | \(replicas) | \(rounds) s | \(median(attempts)) / \(attempts.max() ?? 0) | "
            + "\(median(received)) / \(received.max() ?? 0) | \(median(sent)) / \(sent.max() ?? 0) | "
            + String(format: "%.1f s | %.1f s |", catchUpSeconds, upToDateSeconds)
    }
}

class SyncLoadTestCase: SyncTestCase {
    /// Variables every replica's process gets on top of the test's (a transport's credentials).
    var transportEnv: [String: String] = [:]

    /// Starts `tresor ARGS --vault REPLICA` for every run at once and waits for all; returns their results in order and
    /// the wall time from the first start to the last end.
    func together(_ runs: [(replica: String, args: [String], stdin: String?)]) throws -> (results: [CLIResult], seconds: Double) {
        var started: [(Process, String, String)] = []
        var e = env
        for (k, v) in transportEnv { e[k] = v }
        let begin = Date()
        for (n, run) in runs.enumerated() {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLITestCase.binary)
            p.arguments = run.args + ["--vault", replica(run.replica)]
            p.environment = e
            let base = dir + "/.run-\(n)"
            for suffix in [".out", ".err", ".in"] { _ = FileManager.default.createFile(atPath: base + suffix, contents: nil) }
            if let stdin = run.stdin { try write(stdin, to: base + ".in") }
            p.standardInput = FileHandle(forReadingAtPath: base + ".in")
            p.standardOutput = FileHandle(forWritingAtPath: base + ".out")
            p.standardError = FileHandle(forWritingAtPath: base + ".err")
            try p.run()
            started.append((p, base + ".out", base + ".err"))
        }
        var results: [CLIResult] = []
        for (p, out, err) in started {
            p.waitUntilExit()
            results.append(CLIResult(stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                                     stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", code: p.terminationStatus))
        }
        let seconds = Date().timeIntervalSince(begin)
        for n in runs.indices { for suffix in [".out", ".err", ".in"] { try? FileManager.default.removeItem(atPath: dir + "/.run-\(n)" + suffix) } }
        return (results, seconds)
    }

    func gitOutput(_ args: [String]) throws -> String {
        let r = try run("/usr/bin/git", args, stdin: nil, extraEnv: [:])
        XCTAssertEqual(r.code, 0, "git \(args.joined(separator: " ")): \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The load run: replica `seed` makes the vault with `shared` entries and pushes it to `url` (the bare repository
    /// `bare` on disk behind it), `replicas` replicas clone it, then each round every replica adds an entry, edits the
    /// username of a shared entry (several replicas the same one: the joins keep one value and the others in history) and,
    /// after the first round, the password of the entry it added the round before; then all sync at once. After each
    /// round the remote holds every value written so far (current or in an entry's history) and every commit a sync
    /// pushed. At the end every replica syncs once more and all hold the remote's commit; then a sync with nothing new
    /// anywhere is one ref advertisement: nothing fetched, nothing pushed.
    func loadRun(transport: String, url: String, bare: String, replicas count: Int, rounds: Int, shared: Int = 4) throws -> SyncLoadFigures {
        var figures = SyncLoadFigures(transport: transport, replicas: count)
        let names = (0..<count).map { String(format: "r%02d", $0) }
        // Every (entry, field, value) written, to be found again.
        var written: [(path: String, field: String, value: String)] = []
        try on("seed", "init", "--kdf", "minimum")
        try on("seed", "remote", "add", "origin", url)
        for k in 0..<shared {
            try on("seed", "add", "S/s\(k)", "--username", "start-\(k)", "--password-stdin", stdin: "shared-\(k)\n")
            written.append(("S/s\(k)", "username", "start-\(k)"))
        }
        try on("seed", "sync", env: transportEnv)
        for name in names + ["check"] {
            let r = try tresor(["clone", url, replica(name)], extraEnv: transportEnv)
            XCTAssertEqual(r.code, 0, "clone \(name): \(r.stderr)")
        }
        for round in 0..<rounds {
            var edits: [(replica: String, args: [String], stdin: String?)] = names.enumerated().map { i, name in
                let password = "pw-\(round)-\(i)"
                written.append(("R\(round)/n\(i)", "password", password))
                return (name, ["add", "R\(round)/n\(i)", "--password-stdin"], password + "\n")
            }
            for (i, name) in names.enumerated() {
                var args = ["edit", "S/s\(i % shared)", "--set", "username=u-\(round)-\(i)"]
                written.append(("S/s\(i % shared)", "username", "u-\(round)-\(i)"))
                if round > 0 {
                    // Two edits of this replica, one after the other (its own lock orders them).
                    edits.append((name, args, nil))
                    args = ["edit", "R\(round - 1)/n\(i)", "--set", "password=pw2-\(round)-\(i)"]
                    written.append(("R\(round - 1)/n\(i)", "password", "pw2-\(round)-\(i)"))
                }
                edits.append((name, args, nil))
            }
            // Each replica's edits in turn, the replicas side by side.
            var byReplica: [String: [(replica: String, args: [String], stdin: String?)]] = [:]
            for e in edits { byReplica[e.replica, default: []].append(e) }
            for step in 0..<(byReplica.values.map(\.count).max() ?? 0) {
                let batch = names.compactMap { byReplica[$0].flatMap { $0.count > step ? $0[step] : nil } }
                for (e, r) in zip(batch, try together(batch).results) {
                    XCTAssertEqual(r.code, 0, "[\(e.replica)] tresor \(e.args.joined(separator: " ")): \(r.stderr)")
                }
            }

            let (results, seconds) = try together(names.map { ($0, ["sync", "--json"], nil) })
            figures.roundSeconds.append(seconds)
            let tip = try gitOutput(["-C", bare, "rev-parse", "main"])
            for (name, r) in zip(names, results) {
                XCTAssertEqual(r.code, 0, "round \(round), [\(name)] sync: \(r.stderr)")
                guard r.code == 0, let o = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { continue }
                let attempts = o["attempts"] as? Int ?? 0
                figures.attempts.append(attempts)
                figures.received.append(o["bytesReceived"] as? Int ?? -1)
                figures.sent.append(o["bytesSent"] as? Int ?? -1)
                XCTAssertEqual(o["remoteChanges"] as? Int, attempts - 1, "[\(name)] \(r.stdout)")
                XCTAssertEqual((o["rolledBack"] as? [Any])?.count, 0, "round \(round), [\(name)]: the remote lost a push: \(r.stdout)")
                XCTAssertEqual(o["pushed"] as? Bool, true, "round \(round), [\(name)] had changes to push: \(r.stdout)")
                // What this sync pushed is in the history of the remote's main (no push overwrote another).
                let head = try gitOutput(["-C", replica(name), "rev-parse", "HEAD"])
                let ancestor = try run("/usr/bin/git", ["-C", bare, "merge-base", "--is-ancestor", head, tip], stdin: nil, extraEnv: [:])
                XCTAssertEqual(ancestor.code, 0, "round \(round), [\(name)]: its pushed commit \(head) is not in the remote's history")
            }
            let these = figures.attempts.suffix(results.count(where: { $0.code == 0 }))
            print(String(format: "load: %@, %d replicas, round %d: %.1f s, attempts max %d, failed %d", transport, count, round, seconds,
                         these.max() ?? 0, results.count(where: { $0.code != 0 })))
            try assertHolds(written, round: round)
        }

        // Everyone takes the last round's pushes; all end at the remote's commit.
        let (caughtUp, catchUp) = try together(names.map { ($0, ["sync", "--json"], nil) })
        figures.catchUpSeconds = catchUp
        for (name, r) in zip(names, caughtUp) { XCTAssertEqual(r.code, 0, "catching up, [\(name)] sync: \(r.stderr)") }
        let tip = try gitOutput(["-C", bare, "rev-parse", "main"])
        for name in names { XCTAssertEqual(try gitOutput(["-C", replica(name), "rev-parse", "HEAD"]), tip, "[\(name)] converged") }
        XCTAssertEqual(try gitOutput(["-C", replica("r00"), "status", "--porcelain"]), "")

        // Nothing new anywhere: one ref advertisement each, nothing fetched or pushed.
        let (idle, upToDate) = try together(names.map { ($0, ["sync", "--json"], nil) })
        figures.upToDateSeconds = upToDate
        for (name, r) in zip(names, idle) {
            XCTAssertEqual(r.code, 0, "[\(name)] sync: \(r.stderr)")
            guard let o = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { continue }
            XCTAssertEqual(o["upToDate"] as? Bool, true, "[\(name)] \(r.stdout)")
            XCTAssertEqual(o["attempts"] as? Int, 1, "[\(name)] \(r.stdout)")
            XCTAssertEqual(o["bytesReceived"] as? Int, 0, "[\(name)] \(r.stdout)")
            XCTAssertEqual(o["bytesSent"] as? Int, 0, "[\(name)] \(r.stdout)")
        }
        XCTAssertEqual(try gitOutput(["-C", bare, "rev-parse", "main"]), tip)
        let fsck = try run("/usr/bin/git", ["-C", bare, "fsck", "--strict", "--no-dangling"], stdin: nil, extraEnv: [:])
        XCTAssertEqual(fsck.code, 0, fsck.stdout + fsck.stderr)
        return figures
    }

    /// The remote, as replica `check` takes it, holds every value of `written`: current, or in its entry's history.
    func assertHolds(_ written: [(path: String, field: String, value: String)], round: Int,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        try on("check", "sync", env: transportEnv)
        let export = dir + "/check-\(round).json"
        try on("check", "export", "json", "--output", export)
        defer { try? FileManager.default.removeItem(atPath: export) }
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: export))) as? [[String: Any]])
        var held: [String: Set<String>] = [:]
        for e in entries {
            guard let path = e["path"] as? String else { continue }
            for field in ["password", "username"] { if let v = e[field] as? String { held[path + " " + field, default: []].insert(v) } }
            for h in e["history"] as? [[String: Any]] ?? [] {
                if let f = h["field"] as? String, let v = h["value"] as? String { held[path + " " + f, default: []].insert(v) }
            }
        }
        let lost = written.filter { held[$0.path + " " + $0.field]?.contains($0.value) != true }
        XCTAssertEqual(lost.map { "\($0.path) \($0.field)=\($0.value)" }, [], "round \(round): values the remote lost", file: file, line: line)
    }
}
