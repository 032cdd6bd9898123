// The two test tiers: `make test` runs the fast tier; `make test-deep` also runs the long system tests (TRESOR_DEEP=1).
import Foundation
import XCTest

/// Whether the deep tier runs (`make test-deep` sets `TRESOR_DEEP=1`).
public var isDeepTier: Bool { ProcessInfo.processInfo.environment["TRESOR_DEEP"] == "1" }

/// Skips a long test (property runs at depth, kill -9 sweeps, load tests) unless the deep tier runs.
public func requireDeepTier(_ what: String = "a long system test") throws {
    guard isDeepTier else { throw XCTSkip("\(what): runs in make test-deep (TRESOR_DEEP=1)") }
}
