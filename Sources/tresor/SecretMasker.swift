// Concealing secrets in a stream of output (`tresor run`): each occurrence becomes "<concealed by tresor>".
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// A filter for one output stream. Bytes go in as they are read, in chunks of any size; what comes out is the
/// same stream with every occurrence of a secret replaced, the leftmost and then longest first. A secret split
/// across chunks is still found: bytes that could be the start of a secret are held back until the following
/// bytes show whether they are (and given out at the end of the stream). Nothing else is delayed.
struct SecretMasker {
    static let replacement = Array("<concealed by tresor>".utf8)

    private let secrets: [SecretBytes]
    /// Which first bytes start some secret.
    private let starts: [Bool]
    /// Bytes held back: a possible beginning of a secret.
    private var pending = SecretBytes(count: 0)

    /// `secrets`: the values to conceal (empty ones are ignored, duplicates kept once).
    init(secrets: [SecretBytes]) {
        var unique: [SecretBytes] = []
        for s in secrets where s.count > 0 && !unique.contains(where: { $0.constantTimeEquals(s) }) { unique.append(s) }
        self.secrets = unique
        var starts = [Bool](repeating: false, count: 256)
        for s in unique { s.withBytes { starts[Int($0[0])] = true } }
        self.starts = starts
    }

    /// The values of `texts` and, for a value of several lines, each line of at least 8 bytes on its own (a program may
    /// print a key or certificate line by line).
    static func secrets(for texts: [SecretText]) -> [SecretBytes] {
        var out: [SecretBytes] = []
        for t in texts {
            out.append(t.bytes)
            t.withUTF8 { b in
                guard b.contains(0x0A) else { return }
                var start = 0
                for i in 0...b.count where i == b.count || b[i] == 0x0A {
                    var end = i
                    if end > start, b[end - 1] == 0x0D { end -= 1 }
                    if end - start >= 8 { out.append(SecretBytes(copying: UnsafeRawBufferPointer(rebasing: b[start..<end]))) }
                    start = i + 1
                }
            }
        }
        return out
    }

    /// Takes `chunk`; calls `emit` with what can be given out now.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) {
        guard pending.count > 0 else { process(chunk, final: false, emit: emit); return }
        var joined = SecretByteBuilder(capacity: pending.count + chunk.count)
        pending.withBytes { joined.append($0) }
        joined.append(chunk)
        let all = joined.finish()
        all.withBytes { process($0, final: false, emit: emit) }
    }

    /// The end of the stream: whatever was held back, concealed where it holds a whole secret.
    mutating func finish(emit: (UnsafeRawBufferPointer) -> Void) {
        let rest = pending
        pending = SecretBytes(count: 0)
        rest.withBytes { process($0, final: true, emit: emit) }
    }

    private mutating func process(_ b: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        let n = b.count
        var flushed = 0, i = 0
        while i < n {
            guard starts[Int(b[i])] else { i += 1; continue }
            var longest = 0
            var mayGrow = false
            for s in secrets {
                s.withBytes { s in
                    let avail = n - i
                    if s.count <= avail {
                        if s.count > longest, memcmp(b.baseAddress! + i, s.baseAddress!, s.count) == 0 { longest = s.count }
                    } else if !final, memcmp(b.baseAddress! + i, s.baseAddress!, avail) == 0 {
                        mayGrow = true
                    }
                }
            }
            if mayGrow {
                // A longer secret may start here: hold everything from here until more bytes arrive.
                if i > flushed { emit(UnsafeRawBufferPointer(rebasing: b[flushed..<i])) }
                pending = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: b[i..<n]))
                return
            }
            if longest > 0 {
                if i > flushed { emit(UnsafeRawBufferPointer(rebasing: b[flushed..<i])) }
                SecretMasker.replacement.withUnsafeBytes { emit($0) }
                i += longest
                flushed = i
            } else {
                i += 1
            }
        }
        if n > flushed { emit(UnsafeRawBufferPointer(rebasing: b[flushed..<n])) }
        pending = SecretBytes(count: 0)
    }
}
