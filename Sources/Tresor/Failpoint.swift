// Named places where a test build stops as if killed, or fails as if the disk were full; release builds have none.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `TRESOR_FAILPOINT=name` in the environment of a debug build makes the named point act; the code is
/// compiled only into debug builds (`TRESOR_FAILPOINTS`), so the release binary never honours it.
enum Failpoint {
    /// Ends the process at once, as a SIGKILL would (no cleanup, no buffers flushed).
    @inline(__always)
    static func hit(_ name: String) {
        #if TRESOR_FAILPOINTS
        if active(name) { _exit(137) }
        #endif
    }

    /// True when a test asks this point to fail (for injected errors such as a full disk).
    @inline(__always)
    static func fails(_ name: String) -> Bool {
        #if TRESOR_FAILPOINTS
        return active(name)
        #else
        return false
        #endif
    }

    #if TRESOR_FAILPOINTS
    private static func active(_ name: String) -> Bool {
        guard let wanted = ProcessInfo.processInfo.environment["TRESOR_FAILPOINT"] else { return false }
        return wanted.split(separator: ",").contains { $0 == name }
    }
    #endif
}
