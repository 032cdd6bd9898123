// A Unix stream socket behind one owner: listen, accept, connect, the peer's user id, whole messages in and out.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Why a socket call failed: the call, the path and errno.
public struct SocketError: Error, Equatable, Sendable {
    public enum Call: String, Sendable { case socket, bind, listen, accept, connect, read, write, peer, pathTooLong }
    public var call: Call
    public var path: String
    public var errno: Int32

    public init(call: Call, path: String, errno: Int32) { self.call = call; self.path = path; self.errno = errno }
}

/// One socket descriptor, closed when the object goes away. The descriptor is lent only inside the methods.
/// (The agent's socket: socket calls of its own with `SocketError`, outside FileSystem's file calls.)
package final class UnixSocket {
    private var fd: Int32
    /// The path it is bound or connected to.
    package let path: String

    private init(fd: Int32, path: String) { self.fd = fd; self.path = path }

    deinit { close() }

    package func close() {
        if fd >= 0 { FileSystem.close(fd); fd = -1 }
    }

    /// The longest path a socket address holds (the terminating NUL excluded).
    package static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathBytes else { throw SocketError(call: .pathTooLong, path: path, errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func newDescriptor(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: .socket, path: path, errno: errno) }
        return fd
    }

    /// A listening socket at `path` (which must not exist), created with mode 0600 whatever the umask.
    /// - Throws: `SocketError`.
    package static func listen(at path: String, backlog: Int32 = 16) throws -> UnixSocket {
        var address = try address(path)
        let fd = try newDescriptor(path)
        let socket = UnixSocket(fd: fd, path: path)
        let old = umask(0o177)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindErrno = errno
        umask(old)
        guard rc == 0 else { throw SocketError(call: .bind, path: path, errno: bindErrno) }
        guard Glibc.listen(fd, backlog) == 0 else { throw SocketError(call: .listen, path: path, errno: errno) }
        return socket
    }

    /// A connection to the socket at `path`. - Throws: `SocketError` (`.connect` with ENOENT or ECONNREFUSED when
    /// nothing listens there).
    package static func connect(to path: String) throws -> UnixSocket {
        var address = try address(path)
        let fd = try newDescriptor(path)
        let socket = UnixSocket(fd: fd, path: path)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw SocketError(call: .connect, path: path, errno: errno) }
        return socket
    }

    /// Waits up to `timeout` seconds for a connection; nil when none came (or a signal interrupted the wait).
    /// - Throws: `SocketError` when accepting fails.
    package func accept(timeout: TimeInterval) throws -> UnixSocket? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, min(timeout, 3600)) * 1000))
        guard ready > 0 else { return nil }
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else {
            if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { return nil }
            throw SocketError(call: .accept, path: path, errno: errno)
        }
        let socket = UnixSocket(fd: client, path: path)
        // Single-threaded: no program is started between accept and this.
        do { try FileSystem.setCloseOnExec(client, path: path) } catch { throw SocketError(call: .accept, path: path, errno: error.errno) }
        return socket
    }

    /// The user id of the connected peer (`SO_PEERCRED`), set by the kernel at connect time: it cannot be forged.
    /// - Throws: `SocketError`.
    package func peerUserID() throws -> UInt32 {
        guard let uid = ProcessHardening.peerUserID(socket: fd) else { throw SocketError(call: .peer, path: path, errno: errno) }
        return uid
    }

    /// Reads and writes give up after `seconds` (`SO_RCVTIMEO`/`SO_SNDTIMEO`), so a silent peer never blocks.
    package func setTimeout(_ seconds: TimeInterval) {
        var t = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`. - Throws: `SocketError`.
    package func write(_ bytes: SecretBytes) throws {
        try bytes.withBytes { b in
            var off = 0
            while off < b.count {
                let n = send(fd, b.baseAddress! + off, b.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; throw SocketError(call: .write, path: path, errno: errno) }
                off += n
            }
        }
    }

    /// Reads exactly `count` bytes into a zeroing buffer. - Throws: `SocketError` (`.read` with errno 0 when the
    /// peer closed early).
    package func read(count: Int) throws -> SecretBytes {
        let out = SecretBytes(count: count)
        try out.withMutableBytes { b in
            var off = 0
            while off < count {
                let n = recv(fd, b.baseAddress! + off, count - off, 0)
                if n < 0 { if errno == EINTR { continue }; throw SocketError(call: .read, path: path, errno: errno) }
                if n == 0 { throw SocketError(call: .read, path: path, errno: 0) }
                off += n
            }
        }
        return out
    }
}
