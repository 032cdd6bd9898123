// Ownership of libgit2 handles and small conversions between libgit2 and Swift values.
internal import CGit2
internal import CLateBinding
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Dispatch

/// libgit2 global state, initialised once per process on first use.
enum Libgit2 {
    private static let initialized: Int32 = {
        let count = git_libgit2_init()
        // A commit is durable before its ref moves: a power loss cannot leave a ref to a missing object.
        _ = tresor_git_enable_fsync(1)
        // An object is named by its hash once, when it is written here or arrives (the indexer computes the id of every
        // object a fetch receives); reading it does not hash it again, as git does not. That second SHA-1 (with
        // collision detection) was a tenth of a merge, and guarded only against this repository's own files changing
        // on disk: what an entry, header or state record says is authenticated by its own AEAD or MAC when read.
        _ = tresor_git_enable_strict_hash_verification(0)
        if let folder = defaultsFolder.withLock({ $0 }) {
            _ = tresor_git_set_search_path(Int32(GIT_CONFIG_LEVEL_PROGRAMDATA.rawValue), folder)
        }
        return count
    }()

    private static let defaultsFolder = Mutex<String?>(nil)

    /// Makes the file `config` in `folder` libgit2's lowest configuration level (`programdata`, below the system's,
    /// the user's and each repository's), for every repository this process opens, local remotes included. Takes
    /// effect only when called before libgit2 starts (`initializeInBackground`, or any first use).
    static func readDefaults(from folder: String) {
        defaultsFolder.withLock { $0 = folder }
    }

    /// Calls `git_libgit2_init` once; every entry point of the module calls this first.
    static func ensureInitialized() {
        precondition(initialized > 0, "libgit2 failed to initialise")
    }

    /// Starts `git_libgit2_init` on another thread and returns at once. It parses the system's CA bundle (with
    /// mbedTLS: about a third of an `add`), which then overlaps what a command does before it first uses git; a use
    /// meanwhile waits for it to finish (a `static let` is initialised once, under a lock).
    static func initializeInBackground() {
        startedInBackground.store(true, ordering: .relaxed)
        DispatchQueue.global(qos: .userInitiated).async { ensureInitialized() }
    }

    private static let startedInBackground = Atomic<Bool>(false)

    /// Opens the library on this thread if it is not open yet (it is bound on its first use: Sources/CLateBinding). A
    /// missing one ends the program there, so a program that changes the terminal (echo off for a passphrase, a
    /// full-screen UI) opens it first rather than have the start on another thread end it with the terminal changed.
    /// `onlyIfStarted`: only when `initializeInBackground` was called (a command that will use git).
    static func open(onlyIfStarted: Bool) {
        guard !onlyIfStarted || startedInBackground.load(ordering: .relaxed) else { return }
        tresor_late_open_git2()
    }

    private struct CertificateLocations: Equatable { var file: String?, path: String? }
    private static let certificates = Mutex<CertificateLocations?>(nil)

    /// Points libgit2's TLS at the CA certificates in `file` and `path` (git's `GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`)
    /// unless they are those it uses already: libgit2 parses the whole bundle each time it is told (about as much work
    /// as a fast-forward of 100 entries), so only a session that may speak TLS tells it, and only once per process.
    static func useCertificates(file: String?, path: String?) {
        let wanted = CertificateLocations(file: file, path: path)
        certificates.withLock { applied in
            guard applied != wanted else { return }
            // (Recorded only when libgit2 took them: a later session tries again.)
            if tresor_git_set_ssl_cert_locations(file, path) == 0 { applied = wanted } else { git_error_clear() }
        }
    }
}

/// Owns one libgit2 object pointer: acquired in `init`, freed exactly once in `deinit`, and lent only
/// inside `withPointer`, so the handle outlives every use of its pointer without `withExtendedLifetime`
/// at call sites (the shape of swift-crypto's `BoringSSLAEAD`). `owner` keeps the repository alive for
/// objects that borrow it (trees, commits, remotes…).
final class GitHandle {
    private let pointer: OpaquePointer
    private let free: (OpaquePointer?) -> Void
    private let owner: AnyObject?

    /// Runs `acquire` through `check`; throws if it fails or yields no pointer.
    init(
        _ context: @autoclosure () -> GitError.Operation,
        owner: AnyObject? = nil,
        free: @escaping (OpaquePointer?) -> Void,
        acquire: (inout OpaquePointer?) -> Int32
    ) throws {
        guard let raw = try Self.run(acquire, context(), allowNotFound: false) else {
            throw GitError.libgit2(code: GIT_ERROR.code, message: nil, operation: context())
        }
        pointer = raw
        self.free = free
        self.owner = owner
    }

    /// Like `init(_:owner:free:acquire:)`, but a `GIT_ENOTFOUND` result gives `nil` instead of an error.
    init?(
        ifFound context: @autoclosure () -> GitError.Operation,
        owner: AnyObject? = nil,
        free: @escaping (OpaquePointer?) -> Void,
        acquire: (inout OpaquePointer?) -> Int32
    ) throws {
        guard let raw = try Self.run(acquire, context(), allowNotFound: true) else { return nil }
        pointer = raw
        self.free = free
        self.owner = owner
    }

    private static func run(
        _ acquire: (inout OpaquePointer?) -> Int32,
        _ context: @autoclosure () -> GitError.Operation,
        allowNotFound: Bool
    ) throws -> OpaquePointer? {
        Libgit2.ensureInitialized()
        var raw: OpaquePointer?
        let notFound = GIT_ENOTFOUND.code
        let result = try check(acquire(&raw), context(), allowing: allowNotFound ? [notFound] : [])
        if result == notFound {
            git_error_clear()
            return nil
        }
        return raw
    }

    deinit { free(pointer) }

    /// Runs `body` with the pointer; the handle stays alive until `body` returns.
    @discardableResult
    func withPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try body(pointer)
    }
}

/// Owns a `git_signature`, which libgit2 hands out as a typed pointer rather than an opaque one.
final class SignatureHandle {
    private let pointer: UnsafeMutablePointer<git_signature>

    /// A signature stamped with the current time and the local time-zone offset.
    init(_ signature: GitSignature) throws {
        Libgit2.ensureInitialized()
        var raw: UnsafeMutablePointer<git_signature>?
        try check(git_signature_now(&raw, signature.name, signature.email),
                  .createCommit)
        guard let raw else {
            throw GitError.libgit2(code: GIT_ERROR.code, message: nil, operation: .createCommit)
        }
        pointer = raw
    }

    deinit { git_signature_free(pointer) }

    /// Runs `body` with the signature; the handle stays alive until `body` returns.
    @discardableResult
    func withPointer<R>(_ body: (UnsafeMutablePointer<git_signature>) throws -> R) rethrows -> R {
        try body(pointer)
    }
}

extension git_oid {
    /// The 40-character lowercase hex form.
    var hex: String {
        var copy = self
        var buffer = [CChar](repeating: 0, count: Int(GIT_OID_HEXSZ) + 1)
        git_oid_fmt(&buffer, &copy)
        return String(cString: buffer)
    }

    /// Parses a full 40-character hex id; `nil` for anything else.
    init?(hex: String) {
        guard hex.utf8.count == Int(GIT_OID_HEXSZ) else { return nil }
        var oid = git_oid()
        guard git_oid_fromstr(&oid, hex) == 0 else {
            git_error_clear()
            return nil
        }
        self = oid
    }

    func isSame(as other: git_oid) -> Bool {
        var a = self, b = other
        return git_oid_equal(&a, &b) != 0
    }
}

extension GitSignature {
    /// Copies a libgit2 signature into Swift values; also returns its time, held to the years 1 to 9999 (a commit
    /// can say any 64-bit time, and its metadata is not authenticated: a time past what a timestamp or the C
    /// library's calendar holds would stop `log`).
    static func from(_ raw: UnsafePointer<git_signature>) -> (GitSignature, Date) {
        let name = raw.pointee.name.map { String(cString: $0) } ?? ""
        let email = raw.pointee.email.map { String(cString: $0) } ?? ""
        let seconds = min(max(raw.pointee.when.time, -62_135_596_800), 253_402_300_799)
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        return (GitSignature(name: name, email: email), date)
    }
}

/// Calls `body` with a `git_strarray` holding copies of `strings`, freed afterwards.
func withStrArray<R>(_ strings: [String], _ body: (inout git_strarray) throws -> R) rethrows -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return try pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return try body(&array)
    }
}

/// Copies a libgit2-allocated `git_strarray` into Swift strings and disposes of it.
func takeStrArray(_ array: inout git_strarray) -> [String] {
    defer { git_strarray_dispose(&array) }
    return (0..<array.count).compactMap { index in
        array.strings[index].map { String(cString: $0) }
    }
}
