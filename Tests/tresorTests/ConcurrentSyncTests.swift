// The short form of ConcurrentSyncDeepTests for the fast tier: 8 replicas, one round, through a path.
import Foundation
import TestSupport
import XCTest

final class ConcurrentSyncTests: SyncLoadTestCase {
    func testEightReplicasSyncingAtOnceThroughAPathAllSucceedAndLoseNothing() throws {
        let bare = dir + "/served/vault.git"
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", bare], stdin: nil, extraEnv: [:]).code, 0)
        _ = try loadRun(transport: "path", url: bare, bare: bare, replicas: 8, rounds: 1)
    }
}
