// Test servers on loopback for every test target: git daemon and a private sshd, each started and stopped by the test.
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that was free a moment ago.
public func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether something accepts connections on 127.0.0.1:`port`.
public func isListening(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A server process owned by a test: started in `init`, stopped (by its own pid) in `stop`/`deinit`.
///
/// Started with `posix_spawn`, not Foundation's `Process`: sshd closes the descriptors it
/// inherits, which Foundation reads as "the child exited" and answers with a blocking `waitpid`
/// on the still-running server, stalling every later `Process` in the test run.
public final class ServerProcess {
    private(set) var pid: pid_t = 0
    public let port: UInt16

    public init(_ executable: String, _ arguments: [String], port: UInt16) throws {
        self.port = port
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        guard status == 0 else { throw XCTSkip("cannot start \(executable): error \(status)") }
        // Servers report readiness only by listening; poll briefly for that.
        var attempts = 0
        while !isListening(port), isRunning, attempts < 200 {
            attempts += 1
            usleep(25_000)
        }
        guard isRunning, isListening(port) else {
            stop()
            throw XCTSkip("\(executable) did not start listening on port \(port)")
        }
    }

    private var isRunning: Bool {
        guard pid > 0 else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            pid = 0
            return false
        }
        return true
    }

    public func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }

    deinit { stop() }
}

/// `git daemon` serving every repository under `base` at git://127.0.0.1:PORT/, push enabled.
public func startGitDaemon(base: String) throws -> ServerProcess {
    let port = try freePort()
    return try ServerProcess("/usr/bin/git", [
        "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr", "--base-path=\(base)",
        "--listen=127.0.0.1", "--port=\(port)", base,
    ], port: port)
}

/// An sshd on 127.0.0.1 accepting the ed25519 key `clientKey` for the current user.
public struct SSHFixture {
    public let server: ServerProcess
    public let clientKey: String
    /// A line for known_hosts that trusts this server.
    public let knownHostsLine: String
    public var port: UInt16 { server.port }

    public init(dir: String) throws {
        let sshd = "/usr/sbin/sshd"
        guard FileManager.default.isExecutableFile(atPath: sshd) else {
            throw XCTSkip("sshd is not installed (apt-get install -y openssh-server)")
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        for name in ["host", "client"] {
            try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", "\(dir)/\(name)"])
        }
        clientKey = dir + "/client"
        try FileManager.default.copyItem(atPath: dir + "/client.pub", toPath: dir + "/authorized_keys")
        let port = try freePort()
        let config = """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(dir)/host
            AuthorizedKeysFile \(dir)/authorized_keys
            PidFile \(dir)/sshd.pid
            UsePAM no
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            LogLevel ERROR
            # A host that serves many clients at once (sshd drops connections beyond 10 unauthenticated by default).
            MaxStartups 100

            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: dir + "/sshd_config"))
        let hostKey = try String(contentsOfFile: dir + "/host.pub", encoding: .utf8).split(separator: " ")
        knownHostsLine = "[127.0.0.1]:\(port) \(hostKey[0]) \(hostKey[1])\n"
        server = try ServerProcess(sshd, ["-D", "-e", "-f", dir + "/sshd_config"], port: port)
    }

    /// Adds `key` (a private key path with its `.pub`) to the accepted keys.
    public func authorize(_ key: String, in dir: String) throws {
        let line = try String(contentsOfFile: key + ".pub", encoding: .utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/authorized_keys"))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }
}

/// A git smart-HTTP server over TLS (Tests/Scripts/git_https_server.py: `git http-backend` behind basic auth) serving the
/// repositories under `dir/served`, with a self-signed certificate for localhost that a client trusts through
/// `GIT_SSL_CAINFO=caFile`. User `alice`, password `s3cret`.
public struct HTTPSGitServer {
    public let server: ServerProcess
    public let caFile: String
    public static let user = "alice", password = "s3cret"
    /// The URL of the repository `served/name`.
    public func url(_ name: String) -> String { "https://localhost:\(server.port)/\(name)" }

    public init(dir: String) throws {
        let python = "/usr/bin/python3", openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.isExecutableFile(atPath: openssl) else {
            throw XCTSkip("needs python3 and openssl")
        }
        let tls = dir + "/tls"
        try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/served", withIntermediateDirectories: true)
        try runTool(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tls + "/key.pem", "-out", tls + "/cert.pem",
                              "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/git_https_server.py").path
        let port = try freePort()
        caFile = tls + "/cert.pem"
        server = try ServerProcess(python, [script, "\(port)", dir + "/served", caFile, tls + "/key.pem", Self.user, Self.password], port: port)
    }
}

/// Runs a helper program and fails unless it exits 0.
public func runTool(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw XCTSkip("\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
}
