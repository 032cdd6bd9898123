// State records `.tresor/state/<domain>.json`: a domain's tree, clock and epoch, tagged under its key (Spec/FORMAT.md §11.6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One file of a tree as the state digest sees it: a path and its git blob id (Spec/FORMAT.md §11.6).
package struct TreeFile: Equatable, Sendable {
    package var path: String
    /// 40 lowercase hex digits.
    package var blob: String
    package var mode: UInt32
    package var size: Int
    package init(path: String, blob: String, mode: UInt32 = 0o100644, size: Int = 0) {
        self.path = path; self.blob = blob; self.mode = mode; self.size = size
    }
}

/// The state record of one domain (Spec/FORMAT.md §11.6; Spec/AUTH.md §2).
package struct StateRecord: Equatable, Sendable {
    package static let directory = ".tresor/state"
    static let formatName = "tresor-state"

    package var vaultID: String
    /// `vault` or a scope id.
    package var domain: String
    package var epoch: UInt64
    package var clock: Clock
    /// The id of the domain's tree (40 hex digits, Spec/FORMAT.md §11.6).
    package var tree: String
    package var auth: [UInt8]?
    var unknownMembers: [String: JSONValue] = [:]

    package init(vaultID: String, domain: String, epoch: UInt64, clock: Clock, tree: String) {
        self.vaultID = vaultID; self.domain = domain; self.epoch = epoch; self.clock = clock; self.tree = tree
    }

    /// The file of `domain`'s state record.
    package static func relativePath(domain: String) -> String { directory + "/" + domain + ".json" }

    /// The domain of a path `.tresor/state/<domain>.json`, if it is one (`vault` or a lowercase UUID).
    package static func domain(ofPath path: String) -> String? {
        guard EntryPath.isInside(path, folder: directory), path.hasSuffix(".json") else { return nil }
        let d = String(path.dropFirst(directory.count + 1).dropLast(5))
        return d == Domain.vault || Envelope.isCanonicalUUID(d) ? d : nil
    }

    /// The governing domain of a file path under a vault header (Spec/FORMAT.md §11.2); nil for a state record.
    package static func governingDomain(of path: String, scopes: [String: String]) -> String? {
        if domain(ofPath: path) != nil { return nil }
        if let s = ScopeHeader.scopeID(ofPath: path) { return s }
        if path.hasPrefix(".") { return Domain.vault }
        for (id, folder) in scopes where EntryPath.isInside(path, folder: folder) { return id }
        return Domain.vault
    }

    static func hexBytes(_ s: String) -> [UInt8]? {
        let b = Array(s.utf8)
        guard b.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(b.count / 2)
        var i = 0
        while i < b.count {
            guard let hi = nibble(b[i]), let lo = nibble(b[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    func json(includingAuth: Bool) -> JSONValue {
        var o = unknownMembers
        o["format"] = .string(Self.formatName)
        o["version"] = .integer(1)
        o["vault"] = .string(vaultID)
        o["domain"] = .string(domain)
        o["epoch"] = .integer(epoch)
        o["clock"] = clock.json
        o["tree"] = .string(tree)
        if includingAuth, let auth { o["auth"] = .string(Base64.encode(auth)) }
        return .object(o)
    }

    /// What the tag covers (Spec/FORMAT.md §11.6), before the `"tresor-state" 0x00` prefix.
    var authenticatedJSON: [UInt8] { json(includingAuth: false).canonicalBytes() }

    package func serialized() -> [UInt8] { json(includingAuth: true).canonicalBytes() + [0x0A] }

    /// This record tagged under `key` (the domain key of its epoch).
    package func authenticated(by key: VaultAuthenticator) throws -> StateRecord {
        var r = self
        r.auth = try key.stateTag(authenticatedJSON)
        return r
    }

    /// Whether the tag verifies under `key`.
    package func isAuthentic(under key: VaultAuthenticator) -> Bool {
        guard let auth else { return false }
        return key.verifyState(authenticatedJSON, tag: auth)
    }

    /// Parses and checks a state record's shape (Spec/FORMAT.md §11.6 reader checks up to the tree).
    /// - Throws: `CoreError.malformed`, `.unsupportedVersion`, `.badEncoding`.
    package static func parse(_ bytes: [UInt8]) throws -> StateRecord {
        guard bytes.count <= 1 << 20 else { throw CoreError.malformed(.tooLarge(.stateRecord, limit: 1 << 20)) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch let e as JSONParseError { throw CoreError.malformed(.notJSON(.stateRecord, e)) }
        guard let o = json.objectValue else { throw CoreError.malformed(.notAnObject(.stateRecord)) }
        guard o["format"]?.stringValue == formatName else { throw CoreError.malformed(.member(.stateRecord, name: "format", expected: .value(formatName))) }
        guard let v = o["version"]?.uint64Value else { throw CoreError.malformed(.member(.stateRecord, name: "version", expected: .nonNegativeInteger)) }
        guard v == 1 else { throw CoreError.unsupportedVersion(Int(clamping: v)) }
        guard let vault = o["vault"]?.stringValue, Envelope.isCanonicalUUID(vault) else { throw CoreError.malformed(.member(.stateRecord, name: "vault", expected: .lowercaseUUID)) }
        guard let domain = o["domain"]?.stringValue, domain == Domain.vault || Envelope.isCanonicalUUID(domain) else {
            throw CoreError.malformed(.member(.stateRecord, name: "domain", expected: .domain))
        }
        guard let epoch = o["epoch"]?.uint64Value, epoch >= 1 else { throw CoreError.malformed(.member(.stateRecord, name: "epoch", expected: .positiveInteger)) }
        let clock = try Clock(json: o["clock"], context: .stateRecord)
        guard let tree = o["tree"]?.stringValue, tree.utf8.count == 40, hexBytes(tree) != nil else {
            throw CoreError.malformed(.member(.stateRecord, name: "tree", expected: .objectID))
        }
        guard let a = o["auth"]?.stringValue else { throw CoreError.malformed(.member(.stateRecord, name: "auth", expected: .string)) }
        guard let tag = Base64.decodeCanonical(a), tag.count == 32 else { throw CoreError.badEncoding(.notBase64(.stateRecord, member: "auth", bytes: 32)) }
        var r = StateRecord(vaultID: vault, domain: domain, epoch: epoch, clock: clock, tree: tree)
        r.auth = tag
        let known: Set<String> = ["format", "version", "vault", "domain", "epoch", "clock", "tree", "auth"]
        r.unknownMembers = o.filter { !known.contains($0.key) }
        return r
    }
}
