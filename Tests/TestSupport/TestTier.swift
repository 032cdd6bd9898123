// The two test tiers: `make test` runs the fast tier; `make test-deep` runs the long system tests, which live in test
// classes whose names end in `DeepTests` and call `requireDeepTier()` (make test-deep sets TRESOR_DEEP=1 and filters on it).
import Foundation
import XCTest

/// Whether the deep tier runs (`make test-deep` sets `TRESOR_DEEP=1`).
public var isDeepTier: Bool { ProcessInfo.processInfo.environment["TRESOR_DEEP"] == "1" }

/// Skips a long test (property runs at depth, kill -9 sweeps, load tests) unless the deep tier runs.
public func requireDeepTier(_ what: String = "a long system test") throws {
    guard isDeepTier else { throw XCTSkip("\(what): runs in make test-deep (TRESOR_DEEP=1)") }
}
