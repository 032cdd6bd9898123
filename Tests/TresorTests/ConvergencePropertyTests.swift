// The convergence property (ConvergenceRun.swift): a few short runs in `make test`, many long ones in `make test-deep`.
import Foundation
import TestSupport
import XCTest

final class ConvergencePropertyTests: VaultTestCase {
    /// Three seeds of 60 steps: every kind of step, four replicas, one of them syncing with plain git.
    func testFourReplicasOneOfThemOnPlainGitConvergeAndLoseNothing() throws {
        ConvergenceProperty(dir: dir, binary: ConvergenceProperty.builtBinary).check(seeds: [1, 2, 3], steps: 60, shrinkSeconds: 120)
    }

    /// Every failure the property found and shrank (Tests/Fixtures/convergence, one file per case, named by its seed and
    /// length) holds now: each is replayed on fresh replicas.
    func testEveryShrunkFailureFoundEarlierHolds() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/convergence")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(files.isEmpty)
        let property = ConvergenceProperty(dir: dir, binary: ConvergenceProperty.builtBinary)
        for name in files {
            let ops = try JSONDecoder().decode([ConvergenceOp].self, from: Data(contentsOf: folder.appendingPathComponent(name)))
            if let f = property.failure(of: ops, label: "case") { XCTFail("\(name): \(f)") }
        }
    }
}

final class ConvergenceDeepTests: VaultTestCase {
    /// Many long runs (TRESOR_SEEDS, TRESOR_STEPS and TRESOR_FIRST_SEED change how many, how long and which); a failure
    /// is shrunk for up to ten minutes.
    func testLongRunsOfFourReplicasConvergeAndLoseNothing() throws {
        try requireDeepTier("long convergence runs")
        let env = ProcessInfo.processInfo.environment
        // Seeds 100–109 by default: 2,500 steps (Benchmarks/README.md "Convergence" records longer runs).
        let seeds = UInt64(env["TRESOR_SEEDS"] ?? "") ?? 10
        let steps = Int(env["TRESOR_STEPS"] ?? "") ?? 250
        let first = UInt64(env["TRESOR_FIRST_SEED"] ?? "") ?? 100
        ConvergenceProperty(dir: dir, binary: ConvergenceProperty.builtBinary)
            .check(seeds: Array(first..<(first + seeds)), steps: steps, shrinkSeconds: 600)
    }
}
