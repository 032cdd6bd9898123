// How far a long vault operation has got; the caller decides whether and how to show it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorGit

/// One progress report of a clone, sync, check, search or import. Reported on the calling thread or, while
/// entries are decrypted in parallel, from worker threads one at a time (the handler needs no lock of its own).
public enum VaultProgress: Sendable, Equatable {
    /// Objects received from a remote so far, of `total` (0 while unknown).
    case receiving(objects: Int, total: Int, bytes: Int)
    /// Objects sent to a remote so far.
    case sending(objects: Int, total: Int, bytes: Int)
    /// Entries decrypted and checked so far.
    case entries(done: Int, total: Int)
    /// Files written to the work tree so far (the checkout after a clone).
    case files(done: Int, total: Int)

    init(_ transfer: GitTransferProgress) {
        switch transfer.direction {
        case .receiving: self = .receiving(objects: transfer.objects, total: transfer.totalObjects, bytes: transfer.bytes)
        case .sending: self = .sending(objects: transfer.objects, total: transfer.totalObjects, bytes: transfer.bytes)
        }
    }
}

/// Called with each step of a long operation (clone, sync, check, read all), on the calling thread.
public typealias VaultProgressHandler = (VaultProgress) -> Void

extension Optional where Wrapped == VaultProgressHandler {
    /// The git layer's handler forwarding to this one.
    var git: GitProgressHandler? {
        guard let handler = self else { return nil }
        return { handler(VaultProgress($0)) }
    }
}
