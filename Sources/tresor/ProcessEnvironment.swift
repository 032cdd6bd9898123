// The environment tresor started with, read once.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `ProcessInfo.environment` builds a new dictionary from `environ` each time it is read (about 0.4 million
/// instructions with a desktop's environment); one command read it eight times. tresor never changes its own
/// environment, so it is read once.
enum ProcessEnvironment {
    static let values: [String: String] = ProcessInfo.processInfo.environment
}
