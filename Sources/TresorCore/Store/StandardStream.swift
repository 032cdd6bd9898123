// Writing whole buffers to a file descriptor (standard output and error), as Foundation's FileHandle.write did.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard output and error written without buffering.
package enum StandardStream {
    /// Writes every byte of `bytes` to `fd`, again after an interrupted or partial write. Returns false when the
    /// descriptor refuses them (a closed pipe while SIGPIPE is ignored, a full disk); the rest is dropped.
    @discardableResult
    package static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? FileSystem.writeAll(fd, bytes, path: fd == STDERR_FILENO ? "standard error" : "standard output")) != nil
    }

    /// Writes the UTF-8 of `text` to `fd`.
    @discardableResult
    package static func write(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes` to `fd`.
    @discardableResult
    package static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write(fd, $0) }
    }
}
