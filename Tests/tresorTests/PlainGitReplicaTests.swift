// Three replicas with random edits, two syncing with tresor and one with plain `git pull` / `git push` through
// tresor's drivers and hooks: they converge, and no value written anywhere is lost.
import Foundation
import TestSupport
import XCTest

final class PlainGitReplicaTests: SyncTestCase {
    @discardableResult
    func gitIn(_ name: String, _ args: String...) throws -> CLIResult {
        try run("/usr/bin/git", ["-C", replica(name)] + args, stdin: nil,
                extraEnv: ["GIT_AUTHOR_NAME": "carol", "GIT_AUTHOR_EMAIL": "c@example", "GIT_COMMITTER_NAME": "carol",
                           "GIT_COMMITTER_EMAIL": "c@example", "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"])
    }

    /// What a person does with plain git: pull (the drivers merge entries), resolve what git could not by
    /// keeping the file that is there, commit, push (the hooks authenticate the commits on the way).
    func plainGitSync(_ name: String) throws {
        for _ in 0..<4 {
            let pull = try gitIn(name, "pull", "--no-rebase", "-q", "origin", "main")
            if pull.code != 0 {
                let conflicted = try gitIn(name, "diff", "--name-only", "--diff-filter=U").stdout.split(separator: "\n").map(String.init)
                XCTAssertFalse(conflicted.isEmpty, "git pull failed without conflicts: \(pull.stderr)")
                for path in conflicted {
                    if FileManager.default.fileExists(atPath: replica(name) + "/" + path) { try gitIn(name, "add", path) }
                    else { try gitIn(name, "rm", "-q", path) }
                }
                XCTAssertEqual(try gitIn(name, "commit", "-q", "--no-edit").code, 0)
            }
            if try gitIn(name, "push", "-q", "origin", "main").code == 0 { return }
        }
        XCTFail("\(name): plain git could not push")
    }

    struct Written: Hashable { let path: String; let field: String; let value: String }

    func testAReplicaUsingPlainGitConvergesAndLosesNothing() throws {
        try setUpReplicas("B", "C")
        var rng = SplitMix64(seed: 42)
        var written: Set<Written> = []
        var counter = 0
        func fresh() -> String { counter += 1; return "v\(counter)" }
        for step in 0..<36 {
            let name = ["A", "B", "C"].randomElement(using: &rng)!
            let paths = try on(name, "ls", "--flat").stdout.split(separator: "\n").map(String.init)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where paths.count < 8:
                let path = "P\(Int.random(in: 0..<2, using: &rng))/e\(fresh())", value = fresh()
                try on(name, "add", path, "--password-stdin", stdin: value + "\n")
                written.insert(Written(path: path, field: "password", value: value))
            case 0, 1, 2:
                guard let path = paths.randomElement(using: &rng) else { continue }
                let field = ["username", "notes", "pin"].randomElement(using: &rng)!, value = fresh()
                try on(name, "edit", path, "--set", "\(field)=\(value)")
                written.insert(Written(path: path, field: field, value: value))
            case 3:
                // Edit, then delete: the edit must survive an edit elsewhere, also through plain git.
                guard let path = paths.randomElement(using: &rng) else { continue }
                let value = fresh()
                try on(name, "edit", path, "--set", "notes=\(value)")
                written.insert(Written(path: path, field: "notes", value: value))
                try on(name, "rm", "-f", path)
            default:
                if name == "C" { try plainGitSync("C") } else { try on(name, "sync") }
            }
            _ = step
        }
        for _ in 0..<2 {
            try on("A", "sync"); try on("B", "sync"); try plainGitSync("C"); try on("C", "ls")
        }
        try on("A", "sync"); try on("B", "sync")
        // Converged: the same entries everywhere.
        func state(_ name: String) throws -> [String: String] {
            var all: [String: String] = [:]
            for path in try on(name, "ls", "--flat").stdout.split(separator: "\n").map(String.init) {
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try on(name, "show", path, "--json").stdout.utf8)) as? [String: Any])
                all[path] = "\(json["password"] ?? "") \(json["username"] ?? "") \(json["notes"] ?? "") \(json["fields"] ?? "")"
            }
            return all
        }
        let final = try state("A")
        XCTAssertEqual(try state("B"), final)
        XCTAssertEqual(try state("C"), final)
        // No value lost: every value written to an entry that exists in the end is in it, current or in its
        // history — also the values a replica wrote just before deleting an entry someone else changed.
        // (Entries deleted where nobody else changed them are gone; git history keeps those.)
        for w in written where final[w.path] != nil {
            let json = try on("A", "show", w.path, "--json").stdout
            XCTAssertTrue(json.contains("\"\(w.value)\""), "\(w) lost from \(w.path)")
        }
        let history = try run("/usr/bin/git", ["-C", replica("A"), "log", "-p", "--textconv"], stdin: nil, extraEnv: [:]).stdout
        for w in written where final[w.path] == nil { XCTAssertTrue(history.contains(w.value), "\(w) is in no commit") }
        for name in ["A", "B", "C"] {
            XCTAssertEqual(try run("/usr/bin/git", ["-C", replica(name), "fsck", "--strict"], stdin: nil, extraEnv: [:]).code, 0, name)
            XCTAssertEqual(try attempt(name, "fsck").code, 0, name)
        }
    }
}
