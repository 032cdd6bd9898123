// A client of the ssh agent protocol (draft-miller-ssh-agent): add and remove one identity over SSH_AUTH_SOCK.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore

/// The running ssh-agent (or any agent speaking its protocol) at a Unix socket.
package struct SSHAgentClient {
    package let socket: String

    static let addIdentity: UInt8 = 17            // SSH2_AGENTC_ADD_IDENTITY
    static let removeIdentity: UInt8 = 18         // SSH2_AGENTC_REMOVE_IDENTITY
    static let addConstrained: UInt8 = 25         // SSH2_AGENTC_ADD_ID_CONSTRAINED
    static let success: UInt8 = 6                 // SSH_AGENT_SUCCESS
    static let failure: UInt8 = 5                 // SSH_AGENT_FAILURE
    static let constrainLifetime: UInt8 = 1       // SSH_AGENT_CONSTRAIN_LIFETIME
    static let constrainConfirm: UInt8 = 2        // SSH_AGENT_CONSTRAIN_CONFIRM
    /// Agents answer with messages far smaller than this; a longer length is a broken agent.
    static let maxReply = 256 * 1024

    /// The agent `SSH_AUTH_SOCK` names. - Throws: `IntegrationError.sshAgentUnavailable` when it is unset.
    package init(environment: [String: String]) throws {
        guard let s = environment["SSH_AUTH_SOCK"], !s.isEmpty else { throw IntegrationError.sshAgentUnavailable(socket: nil, errno: 0) }
        socket = s
    }

    /// Adds `key` with `comment`; `lifetime` (seconds) and `confirm` become the agent's constraints.
    /// - Throws: `IntegrationError.sshAgentUnavailable`, `.sshAgentProtocol`, `.sshAgentRefused`.
    package func add(_ key: OpenSSHKey, comment: String, lifetime: UInt32?, confirm: Bool) throws {
        var m = SecretByteBuilder(capacity: key.privateFields.count + comment.utf8.count + 32)
        m.append(lifetime != nil || confirm ? SSHAgentClient.addConstrained : SSHAgentClient.addIdentity)
        key.privateFields.withBytes { m.append($0) }
        SSHAgentClient.appendString(Array(comment.utf8), to: &m)
        if let lifetime {
            m.append(SSHAgentClient.constrainLifetime)
            SSHAgentClient.appendUInt32(lifetime, to: &m)
        }
        if confirm { m.append(SSHAgentClient.constrainConfirm) }
        try expectSuccess(try request(m.finish()), .add)
    }

    /// Removes the identity whose public key blob is `publicBlob`.
    package func remove(publicBlob: [UInt8]) throws {
        var m = SecretByteBuilder(capacity: publicBlob.count + 8)
        m.append(SSHAgentClient.removeIdentity)
        SSHAgentClient.appendString(publicBlob, to: &m)
        try expectSuccess(try request(m.finish()), .remove)
    }

    private func expectSuccess(_ reply: [UInt8], _ what: IntegrationError.SSHAgentRequest) throws {
        switch reply.first {
        case SSHAgentClient.success?: return
        case SSHAgentClient.failure?: throw IntegrationError.sshAgentRefused(socket: socket, request: what)
        default: throw IntegrationError.sshAgentProtocol(socket: socket)
        }
    }

    static func appendUInt32(_ v: UInt32, to m: inout SecretByteBuilder) {
        for shift in stride(from: 24, through: 0, by: -8) { m.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    static func appendString(_ s: [UInt8], to m: inout SecretByteBuilder) {
        appendUInt32(UInt32(s.count), to: &m)
        m.append(contentsOf: s)
    }

    /// Sends one message (its length first) and reads one reply.
    private func request(_ message: SecretBytes) throws -> [UInt8] {
        // ssh-agent's socket: socket calls of its own (connect, send, recv), outside FileSystem's file calls.
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IntegrationError.sshAgentUnavailable(socket: socket, errno: errno) }
        defer { FileSystem.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { throw IntegrationError.sshAgentUnavailable(socket: socket, errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw IntegrationError.sshAgentUnavailable(socket: socket, errno: errno) }
        var frame = SecretByteBuilder(capacity: message.count + 4)
        SSHAgentClient.appendUInt32(UInt32(message.count), to: &frame)
        message.withBytes { frame.append($0) }
        let sent = frame.finish().withBytes { b -> Bool in
            var off = 0
            while off < b.count {
                let n = send(fd, b.baseAddress! + off, b.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        guard sent else { throw IntegrationError.sshAgentProtocol(socket: socket) }
        func readExactly(_ n: Int) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: n)
            var got = 0
            while got < n {
                let r = out[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if r < 0 { if errno == EINTR { continue }; return nil }
                if r == 0 { return nil }
                got += r
            }
            return out
        }
        guard let head = readExactly(4) else { throw IntegrationError.sshAgentProtocol(socket: socket) }
        let length = head.reduce(0) { $0 << 8 | Int($1) }
        guard length >= 1, length <= SSHAgentClient.maxReply, let reply = readExactly(length) else { throw IntegrationError.sshAgentProtocol(socket: socket) }
        return reply
    }
}
