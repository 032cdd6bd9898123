// Building text that holds secrets (a payload, `show` output, an editor view) in zeroing memory only.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A growing byte buffer in `SecretBytes`: every outgrown buffer is zeroed when released, so the bytes are
/// never in an ordinary array or `String`. `finish()` returns them in a buffer of their exact size.
package struct SecretByteBuilder {
    private var buffer: SecretBytes
    /// Number of bytes appended so far.
    package private(set) var count = 0

    /// An empty builder with room for `capacity` bytes before it first grows.
    package init(capacity: Int = 1024) { buffer = SecretBytes(count: max(capacity, 16)) }

    package mutating func append(_ byte: UInt8) {
        reserve(count + 1)
        buffer.withMutableBytes { $0[count] = byte }
        count += 1
    }

    package mutating func append<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        for b in bytes { append(b) }
    }

    /// Appends raw bytes (the caller's buffer, e.g. a `SecretText`'s).
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(count + bytes.count)
        buffer.withMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[count..<count + bytes.count]).copyMemory(from: bytes) }
        count += bytes.count
    }

    /// Appends the UTF-8 of a text that is not secret (a label, a field name).
    package mutating func append(_ text: String) { append(contentsOf: text.utf8) }

    /// Appends a secret text, its line breaks followed by `indent` (for indented multi-line values).
    package mutating func append(_ text: SecretText, indentingLinesBy indent: String = "") {
        text.withUTF8 { b in
            guard !indent.isEmpty else { append(b); return }
            for c in b {
                append(c)
                if c == 0x0A { append(indent) }
            }
        }
    }

    /// One read(2) of up to `chunk` bytes from `descriptor` (`path` names it in an error) straight into the buffer:
    /// the number of bytes appended, 0 at end of input. - Throws: `FileSystem.Failure` (`.read`).
    package mutating func append(readingFrom descriptor: Int32, path: String, chunk: Int = 4096) throws(FileSystem.Failure) -> Int {
        reserve(count + chunk)
        let start = count
        let n = try buffer.withMutableBytes { b in
            Result { () throws(FileSystem.Failure) in
                try FileSystem.readSome(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: b[start..<(start + chunk)]), path: path)
            }
        }.get()
        count += n
        return n
    }

    /// Room for `needed` bytes in a buffer this builder alone holds: a copy of a builder (a struct) shares the
    /// buffer until one of them writes, and then writes into a buffer of its own.
    private mutating func reserve(_ needed: Int) {
        if needed > buffer.count || !isKnownUniquelyReferenced(&buffer) { grow(to: needed) }
    }

    private mutating func grow(to needed: Int) {
        let bigger = SecretBytes(count: max(needed, buffer.count * 2))
        let n = count
        bigger.withMutableBytes { dst in buffer.withBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<n])) } }
        buffer = bigger
    }

    /// The bytes appended, in a buffer of their exact size.
    package func finish() -> SecretBytes {
        let out = SecretBytes(overwrittenCount: count)
        let n = count
        if n > 0 { out.withMutableBytes { dst in buffer.withBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<n])) } } }
        return out
    }
}
