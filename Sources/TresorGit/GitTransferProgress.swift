// How far a fetch or push has got, as libgit2's transfer callbacks report it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Objects received (fetch, clone) or sent (push) so far. Reported from libgit2's callbacks, on the calling thread.
package struct GitTransferProgress: Sendable, Equatable {
    package enum Direction: Sendable { case receiving, sending }
    package var direction: Direction
    package var objects: Int
    package var totalObjects: Int
    package var bytes: Int

    package init(direction: Direction, objects: Int, totalObjects: Int, bytes: Int) {
        self.direction = direction; self.objects = objects; self.totalObjects = totalObjects; self.bytes = bytes
    }
}

/// Called with each progress report of a network operation.
package typealias GitProgressHandler = (GitTransferProgress) -> Void
