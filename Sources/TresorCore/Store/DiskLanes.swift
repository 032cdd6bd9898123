// Threads for work that waits on the disk rather than the processor.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body(lane)` for each of `count` lanes, each on its own thread, and returns when every lane is done.
/// For file-system calls that mostly wait (a rename that frees the file it replaces waits for the disk to discard
/// its blocks on a file system mounted with `discard`): more threads than cores overlap the waits, which
/// `DispatchQueue.concurrentPerform` (one thread per core) does not. A lane whose thread cannot be started runs
/// on the calling thread after the others started.
package enum DiskLanes {
    package static func run(_ count: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in start(count, body) }
    }

    private static func start(_ count: Int, _ body: @escaping (Int) -> Void) {
        final class Work { let run: () -> Void; init(_ run: @escaping () -> Void) { self.run = run } }
        #if canImport(Darwin)
        typealias Thread = pthread_t?
        #else
        typealias Thread = pthread_t
        #endif
        var threads: [Thread] = []
        var inline: [Int] = []
        for lane in 0..<max(0, count) {
            let work = Unmanaged.passRetained(Work { body(lane) })
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            let started = pthread_create(&thread, nil, { arg in
                // (The argument is optional on Linux and not on Darwin.)
                Unmanaged<Work>.fromOpaque((arg as UnsafeMutableRawPointer?)!).takeRetainedValue().run()
                return nil
            }, work.toOpaque())
            if started == 0 { threads.append(thread) } else { work.release(); inline.append(lane) }
        }
        for lane in inline { body(lane) }
        #if canImport(Darwin)
        for case let thread? in threads { pthread_join(thread, nil) }
        #else
        for thread in threads { pthread_join(thread, nil) }
        #endif
    }
}
