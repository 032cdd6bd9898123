// `tresor ssh-add`: give the ssh agent the private key an entry keeps, or take it back, without a file on disk.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct SSHAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh-add",
        abstract: "Add the ssh private key an entry keeps to the running ssh-agent (or remove it with -d).",
        discussion: """
            The key is the entry's field ssh-key (or --field NAME): an OpenSSH private key as ssh-keygen writes it \
            (-----BEGIN OPENSSH PRIVATE KEY-----), ed25519, ECDSA or RSA, without a passphrase: the vault encrypts it. \
            Put one in with 'tresor add Servers/web --no-password --field-file ssh-key=~/.ssh/id_ed25519' or \
            'tresor edit Servers/web --set-file ssh-key=FILE' (then remove the file), or paste it in 'tresor edit'. \
            The key goes to the agent named by SSH_AUTH_SOCK over the agent protocol; it is never written to a file. \
            The agent lists it with the key's comment, or the entry's path when the key has none ('ssh-add -l').
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Option(help: ArgumentHelp("The field that holds the key (default: ssh-key).", valueName: "name")) var field = "ssh-key"
    @Option(name: [.customShort("t"), .customLong("lifetime")], help: ArgumentHelp("The agent forgets the key after this long: seconds, or with s, m, h or d (e.g. 30m).", valueName: "time"))
    var lifetime: String?
    @Flag(name: [.short, .customLong("confirm")], help: "The agent asks (through ssh-askpass) before each use of the key.") var confirm = false
    @Flag(name: [.short, .customLong("delete")], help: "Remove the key from the agent instead.") var delete = false
    @Flag(help: .jsonReport) var json = false

    func validate() throws {
        if delete && (lifetime != nil || confirm) { throw ValidationError("-d removes a key: --lifetime and --confirm are for adding") }
        if let lifetime, SSHAdd.seconds(lifetime) == nil {
            throw ValidationError("--lifetime: \"\(displayable(lifetime))\" is not a time (a number of seconds, or with s, m, h or d: 90, 30m, 8h)")
        }
    }

    func run() throws {
        let agent = try SSHAgentClient(environment: ProcessEnvironment.values)
        let vault = try options.open(unlock: true)
        let entry = try vault.read(try vault.existingPath(path))
        guard let text = entry.secret(field) else { throw IntegrationError.sshKey(path: entry.path.string, field: field, problem: .missing) }
        let key = try OpenSSHKey(text, path: entry.path.string, field: field)
        let comment = key.comment.isEmpty ? entry.path.string : key.comment
        let seconds = lifetime.flatMap(SSHAdd.seconds)
        let name = "\(key.type) \(key.fingerprint) (\(Output.escaped(comment)))"
        if delete {
            try agent.remove(publicBlob: key.publicBlob)
        } else {
            try agent.add(key, comment: comment, lifetime: seconds, confirm: confirm)
        }
        let limits = (seconds.map { ["it expires in \($0) second\($0 == 1 ? "" : "s")"] } ?? []) + (confirm ? ["each use asks for confirmation"] : [])
        Output.report(json: json, (delete ? "Removed the ssh key of \(entry.path), \(name), from the agent." : "Added the ssh key of \(entry.path), \(name), to the agent")
                        + (delete ? "" : (limits.isEmpty ? "." : "; " + limits.joined(separator: ", ") + ".")),
                      .object(["path": .string(entry.path.string), "type": .string(key.type), "fingerprint": .string(key.fingerprint),
                               "comment": .string(comment), "removed": .bool(delete), "lifetime": seconds.map(JSONValue.integer) ?? .null,
                               "confirm": .bool(confirm)]))
    }

    /// `90`, `90s`, `30m`, `8h`, `2d` in seconds (1 to 2^32-1), else nil.
    static func seconds(_ text: String) -> UInt32? {
        let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = text
        var unit: UInt64 = 1
        if let last = text.last, let u = units[Character(last.lowercased())] { unit = u; digits.removeLast() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = UInt64(digits), n > 0 else { return nil }
        let (total, overflow) = n.multipliedReportingOverflow(by: unit)
        guard !overflow, total <= UInt64(UInt32.max) else { return nil }
        return UInt32(total)
    }
}
