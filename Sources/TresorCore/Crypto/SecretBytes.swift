// Key material and decrypted bytes in locked memory that is zeroed when released.
internal import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A buffer for secrets: locked into memory as `sodium_mlock` locks it, where the OS allows (so it is never
/// swapped), zeroed with `sodium_memzero` and unlocked on `deinit`. Compare with `constantTimeEquals`,
/// never `==`. Heap memory rather than `sodium_malloc`: guard pages cost ~40 µs per buffer, which
/// dominated decrypting an entry (Benchmarks/README.md).
public final class SecretBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    /// Number of bytes held.
    public let count: Int

    /// A zero-filled buffer of `count` bytes.
    public init(count: Int) {
        Sodium.ensureInitialized()
        precondition(count >= 0)
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        pointer = p
        self.count = count
        sodium_memzero(p, max(count, 1))
        Self.lock(p, max(count, 1))
    }

    /// A buffer of `count` bytes whose contents the caller overwrites at once (decryption output): not
    /// zero-filled first, which for megabytes costs as much as the decryption.
    internal init(overwrittenCount count: Int) {
        Sodium.ensureInitialized()
        precondition(count >= 0)
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        pointer = p
        self.count = count
        Self.lock(p, max(count, 1))
    }

    /// A copy of `bytes`. The caller should wipe its own copy where it can.
    public convenience init<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        self.init(count: bytes.count)
        var i = 0
        for b in bytes { pointer.storeBytes(of: b, toByteOffset: i, as: UInt8.self); i += 1 }
    }

    /// A copy of `bytes` (one memcpy). The caller should wipe its own copy where it can.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(overwrittenCount: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// The UTF-8 bytes of `string`.
    public convenience init(utf8 string: String) {
        var s = string
        let n = s.utf8.count
        self.init(count: n)
        s.withUTF8 { buf in
            if let base = buf.baseAddress, n > 0 { pointer.copyMemory(from: base, byteCount: n) }
        }
    }

    /// A passphrase as Spec/FORMAT.md §2.1 defines it: the UTF-8 bytes of its NFC form. ASCII input is
    /// already NFC and is copied without passing through a `String`. Returns nil for invalid UTF-8.
    public static func passphrase(_ bytes: [UInt8]) -> SecretBytes? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return SecretBytes(copying: bytes) }
        guard let s = String(validating: bytes, as: UTF8.self) else { return nil }
        return SecretBytes(utf8: s.nfc)
    }

    /// `count` bytes from the system CSPRNG.
    public static func random(count: Int) -> SecretBytes {
        let s = SecretBytes(count: count)
        if count > 0 { randombytes_buf(s.pointer, count) }
        return s
    }

    /// What `sodium_mlock` does, without the call that cannot succeed: `mlock`, and keeping the pages out of a core dump
    /// (`madvise(MADV_DONTDUMP)`), which Linux allows only from a page boundary, where heap buffers seldom start
    /// (libsodium's call failed for nearly every buffer: two failing system calls of four per secret).
    private static func lock(_ p: UnsafeMutableRawPointer, _ count: Int) {
        _ = mlock(p, count)
        if Int(bitPattern: p) % pageSize == 0 { _ = madvise(p, count, MADV_DONTDUMP) }
    }

    /// What `sodium_munlock` does, likewise: zero, `madvise(MADV_DODUMP)` where `lock` could advise, `munlock`.
    private static func unlock(_ p: UnsafeMutableRawPointer, _ count: Int) {
        sodium_memzero(p, count)
        if Int(bitPattern: p) % pageSize == 0 { _ = madvise(p, count, MADV_DODUMP) }
        _ = munlock(p, count)
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    deinit {
        Self.unlock(pointer, max(count, 1))
        #if DEBUG
        SecretBytes.releaseProbe?(UnsafeRawBufferPointer(start: pointer, count: max(count, 1)))
        #endif
        pointer.deallocate()
    }

    #if DEBUG
    /// Test builds only: called from `deinit` with the buffer after it was zeroed and before it is freed, so a
    /// test can see what is left in memory. Set and cleared by one test at a time.
    nonisolated(unsafe) static var releaseProbe: ((UnsafeRawBufferPointer) -> Void)?
    #endif

    /// Runs `body` with read access to the bytes.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    internal func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Constant-time comparison (`sodium_memcmp`).
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return sodium_memcmp(pointer, other.pointer, count) == 0
    }

    /// The bytes decoded as UTF-8. The result is an ordinary `String` the caller must keep short-lived.
    public func utf8String() -> String? {
        withBytes { String(validating: $0, as: UTF8.self) }
    }
}

extension SecretBytes {
    /// Overwrites an ordinary byte array that held a secret on its way into or out of a `SecretBytes`.
    public static func wipe(_ bytes: inout [UInt8]) { Sodium.wipe(&bytes) }

    /// Overwrites `data` that held a secret.
    public static func wipe(_ data: inout Data) { Sodium.wipe(&data) }
}
