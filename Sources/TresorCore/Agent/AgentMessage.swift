// The key agent's messages on its socket: one request and one reply per connection, keys only in zeroing memory.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One message between `tresor` and its key agent. On the wire: a 4-byte big-endian length, then version 1, the
/// kind, and fields as tag (1 byte), length (2 bytes big-endian), value. The whole message, keys included, is
/// built and parsed in `SecretBytes`; a key is copied from it into a buffer of its own.
package struct AgentMessage {
    /// What a request asks, or what a reply says.
    package enum Kind: UInt8, Sendable {
        /// Keep these keys for a vault copy (replaces what was held for it).
        case put = 0x50          // "P"
        /// The keys held for a vault copy.
        case get = 0x47          // "G"
        /// Replace the keys held for a vault copy, keeping its timeouts; nothing if none are held.
        case replace = 0x52      // "R"
        /// Forget the keys of a vault copy.
        case drop = 0x44         // "D"
        /// Forget every key.
        case dropAll = 0x41      // "A"
        /// Whether keys are held for a vault copy, without counting as a use (no keys in the reply).
        case check = 0x43        // "C"
        /// Reply: done, or here are the keys.
        case ok = 0x4B           // "K"
        /// Reply: nothing is held for that vault copy.
        case none = 0x4E         // "N"
        /// Reply: the request could not be read.
        case refused = 0x45      // "E"
    }

    /// Field tags.
    package enum Tag: UInt8, Sendable {
        case vaultID = 1, root = 2, vaultKey = 3, scopeKey = 4, idleSeconds = 5, remainingSeconds = 6, count = 7
    }

    package static let version: UInt8 = 1
    /// The largest message either side accepts.
    package static let maximumBytes = 64 * 1024

    package var kind: Kind
    /// The vault's id and the canonical path of its copy: together they name what the keys belong to.
    package var vaultID = ""
    package var root = ""
    package var vaultKey: SecretBytes?
    /// Scope id (36 ASCII bytes) → scope key.
    package var scopeKeys: [String: SecretBytes] = [:]
    package var idleSeconds: UInt64?
    package var remainingSeconds: UInt64?
    package var count: UInt64?

    package init(_ kind: Kind) { self.kind = kind }

    /// The message on the wire, length prefix included.
    package func encoded() -> SecretBytes {
        var body = SecretByteBuilder(capacity: 256)
        body.append(Self.version)
        body.append(kind.rawValue)
        func field(_ tag: Tag, _ bytes: UnsafeRawBufferPointer) {
            body.append(tag.rawValue)
            body.append(UInt8(bytes.count >> 8)); body.append(UInt8(bytes.count & 0xFF))
            body.append(bytes)
        }
        func text(_ tag: Tag, _ s: String) { Array(s.utf8).withUnsafeBytes { field(tag, $0) } }
        func number(_ tag: Tag, _ n: UInt64) { withUnsafeBytes(of: n.bigEndian) { field(tag, $0) } }
        if !vaultID.isEmpty { text(.vaultID, vaultID) }
        if !root.isEmpty { text(.root, root) }
        vaultKey?.withBytes { field(.vaultKey, $0) }
        for (id, key) in scopeKeys.sorted(by: { $0.key < $1.key }) where id.utf8.count == 36 {
            var record = SecretByteBuilder(capacity: 36 + key.count)
            record.append(id)
            key.withBytes { record.append($0) }
            record.finish().withBytes { field(.scopeKey, $0) }
        }
        if let idleSeconds { number(.idleSeconds, idleSeconds) }
        if let remainingSeconds { number(.remainingSeconds, remainingSeconds) }
        if let count { number(.count, count) }
        let payload = body.finish()
        var framed = SecretByteBuilder(capacity: payload.count + 4)
        let n = UInt32(payload.count)
        framed.append(contentsOf: [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)])
        payload.withBytes { framed.append($0) }
        return framed.finish()
    }

    /// Reads one message from `socket`. - Throws: `SocketError` when reading fails, `AgentMessageError` for a
    /// message that is too long or does not parse.
    package static func read(from socket: UnixSocket) throws -> AgentMessage {
        let prefix = try socket.read(count: 4)
        let length = prefix.withBytes { b in Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]) }
        guard length >= 2, length <= maximumBytes else { throw AgentMessageError.malformed }
        return try parse(try socket.read(count: length))
    }

    /// A message body (without the length prefix). - Throws: `AgentMessageError.malformed`.
    package static func parse(_ body: SecretBytes) throws -> AgentMessage {
        try body.withBytes { b in
            guard b.count >= 2, b[0] == version, let kind = Kind(rawValue: b[1]) else { throw AgentMessageError.malformed }
            var message = AgentMessage(kind)
            var i = 2
            while i < b.count {
                guard i + 3 <= b.count else { throw AgentMessageError.malformed }
                let tag = b[i], length = Int(b[i + 1]) << 8 | Int(b[i + 2])
                let start = i + 3, end = start + length
                guard end <= b.count else { throw AgentMessageError.malformed }
                let value = UnsafeRawBufferPointer(rebasing: b[start..<end])
                func text() throws -> String {
                    guard let s = String(validating: value, as: UTF8.self) else { throw AgentMessageError.malformed }
                    return s
                }
                func number() throws -> UInt64 {
                    guard value.count == 8 else { throw AgentMessageError.malformed }
                    return value.reduce(0) { $0 << 8 | UInt64($1) }
                }
                switch Tag(rawValue: tag) {
                case .vaultID: message.vaultID = try text()
                case .root: message.root = try text()
                case .vaultKey:
                    guard value.count == Sodium.keyBytes else { throw AgentMessageError.malformed }
                    message.vaultKey = SecretBytes(copying: value)
                case .scopeKey:
                    guard value.count == 36 + Sodium.keyBytes,
                          let id = String(validating: UnsafeRawBufferPointer(rebasing: value[0..<36]), as: UTF8.self) else { throw AgentMessageError.malformed }
                    message.scopeKeys[id] = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: value[36...]))
                case .idleSeconds: message.idleSeconds = try number()
                case .remainingSeconds: message.remainingSeconds = try number()
                case .count: message.count = try number()
                case nil: break   // a field from a newer version: skipped
                }
                i = end
            }
            return message
        }
    }

    /// Writes the message to `socket`. - Throws: `SocketError`.
    package func write(to socket: UnixSocket) throws { try socket.write(encoded()) }
}

/// A message the agent or its client could not read.
package enum AgentMessageError: Error, Equatable, Sendable {
    case malformed
}
