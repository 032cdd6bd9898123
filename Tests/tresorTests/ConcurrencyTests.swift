// Several tresor processes on one vault at once: every command that said it succeeded is one commit naming
// exactly what it changed, every failed one left nothing, and the work tree ends clean.
import Foundation
import TestSupport
import XCTest

/// A tresor process started in the background.
final class Running {
    let process = Process()
    let out = Pipe(), err = Pipe()
    let args: [String]

    init(_ binary: String, _ args: [String], env: [String: String], stdin: String?) throws {
        self.args = args
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = args
        process.environment = env
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
    }

    func wait() -> CLIResult {
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self),
                         code: process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus)
    }
}

final class ConcurrencyTests: CLITestCase {
    func start(_ args: [String], stdin: String? = nil, env extra: [String: String] = [:]) throws -> Running {
        try Running(CLITestCase.binary, args, env: env.merging(extra) { $1 }, stdin: stdin)
    }

    func commits(since rev: String) throws -> [(message: String, files: [String])] {
        let ids = try git("rev-list", "--reverse", "\(rev)..HEAD").stdout.split(separator: "\n").map(String.init)
        return try ids.map { id in
            let message = try git("log", "-1", "--format=%s", id).stdout.trimmingCharacters(in: .newlines)
            let files = try git("show", "--name-status", "--format=", "--no-renames", id).stdout
                .split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") }.sorted()
            return (message, files)
        }
    }

    /// One command of the mix, with what its commit must say and touch when it succeeds.
    struct Planned {
        var args: [String]
        var stdin: String?
        var message: String
        var files: [String]
    }

    func plan(round: Int, slot: Int, rng: inout SplitMix64) -> Planned {
        let target = "E/e\(Int.random(in: 0..<6, using: &rng))"
        let tag = "r\(round)s\(slot)"
        switch Int.random(in: 0..<6, using: &rng) {
        case 0:
            return Planned(args: ["add", "N/\(tag)", "--password-stdin"], stdin: "pw-\(tag)\n", message: "Add N/\(tag)", files: ["A N/\(tag).json"])
        case 1:
            return Planned(args: ["edit", target, "--set", "username=u-\(tag)"], message: "Edit \(target): username", files: ["M \(target).json"])
            // (an entry removed between the edit's read and its save is saved again: the file is added)
        case 2:
            return Planned(args: ["mv", target, "M/\(tag)"], message: "Move \(target) to M/\(tag)", files: ["A M/\(tag).json", "D \(target).json"])
        case 3:
            return Planned(args: ["cp", target, "C/\(tag)"], message: "Copy \(target) to C/\(tag)", files: ["A C/\(tag).json"])
        case 4:
            return Planned(args: ["rm", "-f", target], message: "Remove \(target)", files: ["D \(target).json"])
        default:
            return Planned(args: ["rotate", target], message: "Rotate password of \(target)", files: ["M \(target).json"])
        }
    }

    func testEightProcessesWithMixedCommandsLoseNothing() throws {
        try initVault()
        for i in 0..<6 { try ok(["add", "E/e\(i)", "--username", "start", "--password-stdin"], stdin: "p\(i)\n") }
        var rng = SplitMix64(seed: 8)
        var edits: [String] = []
        for round in 0..<5 {
            let before = try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .newlines)
            let planned = (0..<8).map { plan(round: round, slot: $0, rng: &rng) }
            let running = try planned.map { try start($0.args, stdin: $0.stdin) }
            let results = running.map { $0.wait() }
            var expected: [String] = []
            for (p, r) in zip(planned, results) {
                if r.code == 0 {
                    // Every change also records the vault domain's state (Spec/FORMAT.md §11.6).
                    let files = (p.files + ["M .tresor/state/vault.json"]).sorted()
                    expected.append(p.message + " | " + files.joined(separator: ", "))
                    if p.args[0] == "edit" { edits.append(String(p.args[3].dropFirst("username=".count))) }
                } else {
                    XCTAssertTrue([4, 5].contains(r.code), "\(p.args): only a missing or taken entry may fail: \(r.stderr)")
                }
            }
            // An edit follows a concurrent move: its commit names the entry's new path. Map it back to the path
            // the edit was given, so the comparison stays exact.
            var movedTo: [String: String] = [:]
            for (p, r) in zip(planned, results) where r.code == 0 && p.args[0] == "mv" { movedTo[p.args[2]] = p.args[1] }
            let actual = try commits(since: before).map { c -> String in
                guard c.message.hasPrefix("Edit ") else { return c.message + " | " + c.files.joined(separator: ", ") }
                // An edit that met a concurrent removal saves the entry again (an edit beats a delete).
                var message = c.message
                var files = c.files.map { $0.replacingOccurrences(of: "A ", with: "M ") }.sorted()
                let path = String(message.dropFirst("Edit ".count).prefix { $0 != ":" })
                if let source = movedTo[path] {
                    message = "Edit \(source)" + message.dropFirst("Edit ".count + path.count)
                    files = files.map { $0 == "M \(path).json" ? "M \(source).json" : $0 }.sorted()
                }
                return message + " | " + files.joined(separator: ", ")
            }
            XCTAssertEqual(actual.sorted(), expected.sorted(), "round \(round): one commit per success, naming exactly what it changed")
            XCTAssertEqual(try git("status", "--porcelain").stdout, "", "round \(round)")
        }
        let fsck = try tresor("fsck")
        XCTAssertEqual(fsck.code, 0, fsck.stdout + fsck.stderr)
        // Every edit that succeeded is in the history of the vault (current, in an entry's history, or in git).
        let everything = try git("log", "-p", "--textconv").stdout
        for value in edits { XCTAssertTrue(everything.contains(value), "edit \(value) is in no commit") }
    }

    func testParallelEditsOfOneEntryKeepEveryValue() throws {
        try initVault()
        try ok(["add", "Shared/one", "--username", "u0", "--password-stdin"], stdin: "p0\n")
        var values: [String] = []
        for round in 0..<3 {
            let running = try (0..<6).map { n -> Running in
                values.append("v\(round)-\(n)")
                return try start(["edit", "Shared/one", "--set", "username=v\(round)-\(n)"])
            }
            for r in running.map({ $0.wait() }) { XCTAssertEqual(r.code, 0, r.stderr) }
        }
        let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try ok("show", "Shared/one", "--json").stdout.utf8)) as? [String: Any])
        let history = (entry["history"] as? [[String: String]] ?? []).filter { $0["field"] == "username" }.compactMap { $0["value"] }
        let all = Set(history + [entry["username"] as? String ?? ""])
        for v in values { XCTAssertTrue(all.contains(v), "\(v) lost: \(all)") }
        XCTAssertEqual(try git("rev-list", "--count", "HEAD").stdout, "\(2 + values.count)\n")
    }

    /// `tresor edit` waits in the editor while another command changes the same entry: both changes stay.
    func testAnEditInTheEditorMergesWithAChangeMadeMeanwhile() throws {
        try sampleVault()
        let go = dir + "/go", ready = dir + "/ready"
        let editor = dir + "/editor.sh"
        try write("""
            #!/bin/sh
            sed -i 's/^password: .*/password: from-the-editor/' "$1"
            touch "\(ready)"
            while [ ! -e "\(go)" ]; do sleep 0.05; done
            """, to: editor)
        chmod(editor, 0o755)
        let editing = try start(["edit", "Email/gmail"], env: ["EDITOR": editor, "VISUAL": editor])
        while !FileManager.default.fileExists(atPath: ready) { usleep(20_000) }
        try ok("edit", "Email/gmail", "--set", "username=fromB")
        try write("", to: go)
        let r = editing.wait()
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("merged"), r.stderr)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "password").stdout, "from-the-editor\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "fromB\n")
    }

    func testAWaitingCommandNamesTheHolderAndGivesUp() throws {
        try sampleVault()
        let holder = try Running("/usr/bin/flock", [vaultDir + "/.git/tresor/lock", "sleep", "4"], env: env, stdin: nil)
        defer { holder.process.terminate() }
        usleep(300_000)
        let start = Date()
        let r = try tresor(["add", "X/y", "--password-stdin"], stdin: "p\n", extraEnv: ["TRESOR_LOCK_TIMEOUT": "1.5"])
        XCTAssertEqual(r.code, 2)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.4)
        XCTAssertTrue(r.stderr.contains("waiting for") && r.stderr.contains("still changing the vault"), r.stderr)
        XCTAssertEqual(try git("rev-list", "--count", "HEAD").stdout, "4\n", "the command that gave up left nothing")
        // A lock file whose holder is gone is no obstacle: the kernel drops a dead process's lock.
        holder.process.terminate()
        _ = holder.wait()
        try ok(["add", "X/y", "--password-stdin"], stdin: "p\n")
    }

    func testStaleGitRefLocksAreTakenOver() throws {
        try sampleVault()
        let refLock = vaultDir + "/.git/refs/heads/main.lock"
        try write("", to: refLock)
        _ = try run("/usr/bin/touch", ["-d", "1 minute ago", refLock], stdin: nil, extraEnv: [:])
        try ok(["add", "A/one", "--password-stdin"], stdin: "1\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: refLock), "a ref lock a minute old was left by a crash")

        let before = try git("rev-parse", "HEAD").stdout
        try write("", to: refLock)
        let r = try tresor(["add", "A/two", "--password-stdin"], stdin: "2\n")
        XCTAssertEqual(r.code, 0, "a ref lock that stays a second under the vault lock is a crash's leftover: \(r.stderr)")
        XCTAssertNotEqual(try git("rev-parse", "HEAD").stdout, before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: refLock))
        XCTAssertEqual(try git("status", "--porcelain").stdout, "")
    }
}

/// Entry paths on the command line are entry paths exactly as `ls` prints them, `x.json` included.
final class EntryPathArgumentTests: CLITestCase {
    func testEveryCommandMapsAPathToTheSameEntryAsLs() throws {
        try initVault()
        try ok(["add", "J/x.json", "--password-stdin"], stdin: "dot-json\n")
        try ok(["add", "J/x", "--password-stdin"], stdin: "plain\n")
        XCTAssertEqual(try ok("ls", "--flat").stdout, "J/x\nJ/x.json\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: vaultDir + "/J/x.json.json"))
        XCTAssertEqual(try ok("show", "J/x.json", "--field", "password").stdout, "dot-json\n")
        XCTAssertEqual(try ok("show", "J/x", "--field", "password").stdout, "plain\n")
        try ok("edit", "J/x.json", "--set", "username=u")
        XCTAssertEqual(try ok("show", "J/x.json", "--field", "username").stdout, "u\n")
        XCTAssertEqual(try tresor("show", "J/x", "--field", "username").code, 4)
        try ok("cp", "J/x.json", "K/y.json")
        try ok("mv", "K/y.json", "K/z.json")
        XCTAssertEqual(try ok("log", "J/x.json").stdout.split(separator: "\n").count, 2)
        try ok("rm", "-f", "J/x.json")
        XCTAssertEqual(try ok("ls", "--flat").stdout, "J/x\nK/z.json\n")
        try ok("restore", "J/x.json")
        XCTAssertEqual(try ok("show", "J/x.json", "--field", "password").stdout, "dot-json\n")
        // A file name typed by mistake is not an entry, but points at the one it names.
        try ok(["add", "Mail/box", "--password-stdin"], stdin: "m\n")
        let typo = try tresor("show", "Mail/box.json")
        XCTAssertEqual(typo.code, 4)
        XCTAssertTrue(typo.stderr.contains("did you mean \"Mail/box\""), typo.stderr)
    }
}
