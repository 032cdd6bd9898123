// How far a fetch or push has got, as libgit2's transfer callbacks report it.
import Foundation

/// Objects received (fetch, clone) or sent (push) so far. Reported from libgit2's callbacks, on the calling thread.
public struct GitTransferProgress: Sendable, Equatable {
    public enum Direction: Sendable { case receiving, sending }
    public var direction: Direction
    public var objects: Int
    public var totalObjects: Int
    public var bytes: Int

    public init(direction: Direction, objects: Int, totalObjects: Int, bytes: Int) {
        self.direction = direction; self.objects = objects; self.totalObjects = totalObjects; self.bytes = bytes
    }
}

/// Called with each progress report of a network operation.
public typealias GitProgressHandler = (GitTransferProgress) -> Void
