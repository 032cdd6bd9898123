// `tresor git-credential` (also run as `git-credential-tresor`): git's credential helper answered from the vault.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

struct GitCredential: ParsableCommand {
    static let commandName = "git-credential"
    static let configuration = CommandConfiguration(
        commandName: commandName,
        abstract: "git's credential helper: https passwords from the vault ('git config --global credential.helper tresor').",
        discussion: """
            git runs it as git-credential-tresor (installed next to tresor) with get, store or erase and the \
            credential's attributes on standard input.

            get: the entry with a password whose URL has git's protocol and host (and port), and, with \
            credential.useHttpPath, a path that contains the repository's (a URL for the whole host matches every \
            repository there); with a user name in git's URL, only an entry with that user name. The most specific \
            URL wins, then the first path. git gets the entry's user name and password.

            store: git tells a helper a credential that worked. When git runs at a terminal, tresor offers to save a \
            credential the vault does not hold yet (as git/HOST/USER, with the URL), or to update the password of the \
            entry that matched; answering no, or no terminal, changes nothing. erase does nothing: git asks for it \
            when a server refused a password, and a vault entry is changed only by a person.

            The vault is unlocked without a prompt (git owns standard input): a session, a passphrase file or \
            an identity. A locked vault answers nothing, with a warning, and git asks its other helpers or the user.
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "get, store or erase (others are ignored, as git asks of helpers).") var operation: String

    func run() throws {
        let attributes = try GitCredential.readAttributes()
        switch operation {
        case "get": try get(attributes)
        case "store": try store(attributes)
        default: return  // erase and operations of later git versions: nothing to do.
        }
    }

    func get(_ attributes: [String: String]) throws {
        guard let query = GitCredentialQuery(attributes: attributes) else { return }
        guard let vault = openQuietly() else { return }
        guard let answer = try vault.gitCredential(for: query) else { return }
        var out = SecretByteBuilder()
        if query.username == nil, let user = answer.username {
            guard GitCredential.isSendable(user) else { Output.warning("the user name of \(Output.quoted(answer.path.string)) holds a line break; git cannot take it"); return }
            out.append("username=")
            user.withUTF8 { out.append($0) }
            out.append(0x0A)
        }
        guard GitCredential.isSendable(answer.password) else {
            Output.warning("the password of \(Output.quoted(answer.path.string)) holds a line break or NUL; git cannot take it")
            return
        }
        out.append("password=")
        answer.password.withUTF8 { out.append($0) }
        out.append(0x0A)
        try Output.write(secret: out.finish())
    }

    func store(_ attributes: [String: String]) throws {
        guard let query = GitCredentialQuery(attributes: attributes), let user = query.username,
              let typed = attributes["password"], !typed.isEmpty, let tty = ControllingTerminal.open() else { return }
        let password = SecretText(typed)
        guard let vault = openQuietly() else { return }
        let site = "\(query.scheme)://\(query.host)"
        if let answer = try vault.gitCredential(for: query) {
            guard answer.password != password else { return }
            guard tty.confirm("tresor: the password for \(user)@\(query.host) differs from the one in \(answer.path). Update \(answer.path)?") else { return }
            let entry = try vault.read(answer.path)
            if let outcome = try vault.edit(entry, changes: ["password": .text(password)]) {
                tty.say("tresor: updated the password of \(outcome.path ?? answer.path).")
            }
            return
        }
        let path = try GitCredential.newPath(host: query.host, user: user, in: vault)
        guard tty.confirm("tresor: save the password for \(user)@\(query.host) in the vault as \(path)?") else { return }
        let url = site + (query.path.map { "/" + $0 } ?? "")
        try vault.add(path, fields: ["username": .text(SecretText(user)), "password": .text(password), "urls": .list([url])])
        tty.say("tresor: added \(path).")
    }

    /// The vault unlocked without a prompt, or nil with a warning (git goes on to its other helpers).
    func openQuietly() -> Vault? {
        do { return try options.open(unlock: true, interactive: false) } catch {
            let message = ErrorReport.of(error)?.message ?? "\(error)"
            Output.warning("git credential helper: " + message)
            return nil
        }
    }

    /// `git/HOST/USER` (a port as `HOST-PORT`, characters entry paths cannot hold as `_`), with a number when taken.
    static func newPath(host: String, user: String, in vault: Vault) throws -> EntryPath {
        func clean(_ s: String) -> String {
            var t = String(s.map { "\\:*?\"<>|/".contains($0) || $0.isNewline ? "_" : $0 })
            while t.hasPrefix(".") || t.hasPrefix(" ") { t.removeFirst() }
            while t.hasSuffix(".") || t.hasSuffix(" ") { t.removeLast() }
            return t.isEmpty ? "_" : String(t.prefix(80))
        }
        let stem = "git/" + clean(host.replacingAll(":", with: "-")) + "/" + clean(user)
        for n in 1...100 {
            let p = try Vault.parsePath(n == 1 ? stem : "\(stem) \(n)")
            if !vault.contains(p) { return p }
        }
        return try Vault.parsePath(stem + " " + UUID().uuidString.prefix(8))
    }

    static func isSendable(_ t: SecretText) -> Bool { t.withUTF8 { !$0.contains(0x0A) && !$0.contains(0) } }

    /// git's `key=value` lines up to an empty line or the end of input (at most 1 MiB). Values are not secret
    /// except `password`, which only `store` reads.
    static func readAttributes() throws -> [String: String] {
        let bytes = try Inject.readStandardInput(limit: 1 << 20)
        var attributes: [String: String] = [:]
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard let eq = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: line[line.startIndex..<eq], as: UTF8.self)
            var value = Array(line[(eq + 1)...])
            if value.last == 0x0D { value.removeLast() }
            attributes[key] = String(decoding: value, as: UTF8.self)
        }
        return attributes
    }
}

/// The terminal git runs in (`/dev/tty`), for the question `store` asks: git holds standard input and output.
struct ControllingTerminal {
    let fd: Int32

    static func open() -> ControllingTerminal? {
        (try? FileSystem.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)).map(ControllingTerminal.init)  // (ENXIO: none)
    }

    // The terminal's raw I/O (a question and its answer typed there, nothing read past the line): read(2) and write(2) themselves.
    func say(_ text: String) { _ = (text + "\n").withCString { write(fd, $0, strlen($0)) } }

    /// Asks a yes/no question; no unless the answer starts with y.
    func confirm(_ question: String) -> Bool {
        _ = (question + " [y/N] ").withCString { write(fd, $0, strlen($0)) }
        var answer: [UInt8] = []
        var c: UInt8 = 0
        while true {
            let n = read(fd, &c, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || c == 0x0A { break }
            answer.append(c)
        }
        return answer.first.map { $0 | 0x20 == UInt8(ascii: "y") } ?? false
    }
}
