// `tresor identity`, `tresor member`, `tresor rekey`: keys for people and devices, and revoking them.
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

/// Reading and writing identity files (Spec/FORMAT.md §3.10).
enum IdentityFile {
    /// `$XDG_CONFIG_HOME/tresor/identity`, else `~/.config/tresor/identity`.
    static var defaultPath: String {
        let env = ProcessEnvironment.values
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? PathName.home()) + "/.config"
        return config + "/tresor/identity"
    }

    /// The public key of the identity file at `path`, read without its secret key (no passphrase needed); nil when
    /// there is no such file or it is not an identity.
    static func publicKey(_ path: String) -> RecipientKey? {
        guard FileSystem.kind(path) == .file, let bytes = try? FileSystem.read(path, limit: 64 << 10),
              let o = (try? JSONValue.parse(bytes))?.objectValue, let text = o["publicKey"]?.stringValue else { return nil }
        return try? RecipientKey(text: text)
    }

    /// Reads an identity; a protected one asks for its passphrase (or reads $TRESOR_IDENTITY_PASSPHRASE_FILE).
    static func read(_ path: String) throws -> Identity {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: 64 << 10) }
        catch { throw CLIError("cannot read identity file \(Output.quoted(path))\nhint: 'tresor identity new' makes one", code: ExitStatus.auth) }
        var passphrase: SecretBytes?
        if Identity.isProtected(bytes) {
            if let f = ProcessEnvironment.value("TRESOR_IDENTITY_PASSPHRASE_FILE"), !f.isEmpty {
                passphrase = try VaultOptions.readPassphraseFile(f)
            } else {
                passphrase = try PassphraseInput.typed("Passphrase for identity \(Output.escaped(path)): ", isNew: false)
            }
        }
        do { return try Identity.parse(bytes, passphrase: passphrase) }
        catch CoreError.wrongPassphrase { throw CLIError("wrong passphrase for identity file \(Output.quoted(path))", code: ExitStatus.auth) }
        catch let e as CoreError { throw CLIError("identity file \(Output.quoted(path)): \(e.message)", code: ExitStatus.auth) }
    }
}

struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity", abstract: "Make or show an identity: a key pair that unlocks vaults it is a member of.",
        subcommands: [New.self, Show.self])

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Make a new identity file (mode 0600) and print its public key.",
            discussion: "Give the public key (tresor1…) to a vault's member to run 'tresor member add NAME KEY'.")
        @Argument(help: ArgumentHelp("Where to write it (default: ~/.config/tresor/identity).", valueName: "file"))
        var file: String?
        @Flag(help: "Protect the secret key with a passphrase of its own (Argon2id).")
        var protect = false
        @Option(help: ArgumentHelp("Read the identity's passphrase from the first line of this file (implies --protect).", valueName: "file"))
        var newPassphraseFile: String?
        @Option(help: ArgumentHelp("Argon2id cost of the identity's passphrase.", valueName: "level"))
        var kdf: KDFLevel = .moderate

        func run() throws {
            let path = file ?? IdentityFile.defaultPath
            if FileSystem.kind(path) != .missing { throw CLIError("\(Output.quoted(path)) already exists; an identity is never overwritten", code: ExitStatus.exists) }
            let identity = Identity.generate()
            var passphrase: SecretBytes?
            if protect || newPassphraseFile != nil {
                passphrase = try PassphraseInput.new(file: newPassphraseFile, directory: path)
                warnIfTestCost(kdf)
            }
            let dir = PathName.deletingLast(path)
            if !dir.isEmpty, FileSystem.kind(dir) == .missing {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            do { try FileSystem.writeAtomically(try identity.serialized(passphrase: passphrase, level: kdf), to: path) }
            catch let e as CoreError { throw CLIError("cannot write \(Output.quoted(path)): \(e.message)") }
            do { try FileSystem.setMode(path, 0o600) }
            catch { throw CLIError("cannot make \(Output.quoted(path)) private: \(String(cString: strerror(error.errno)))") }
            Output.line(identity.publicKey.text)
            Output.status("Wrote identity \(path)\(passphrase == nil ? "" : " (protected by its passphrase)"). Its public key is above.")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print an identity's public key.")
        @Argument(help: ArgumentHelp("The identity file (default: ~/.config/tresor/identity).", valueName: "file"))
        var file: String?

        func run() throws {
            let path = file ?? IdentityFile.defaultPath
            guard FileSystem.kind(path) != .missing else {
                throw CLIError("no identity file \(Output.quoted(path))\nhint: 'tresor identity new' makes one")
            }
            guard let key = IdentityFile.publicKey(path) else { throw CLIError("\(Output.quoted(path)) is not an identity file") }
            Output.line(key.text)
        }
    }
}

struct MemberCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "member", abstract: "Add, list and remove the members (identities) that can unlock the vault.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a member: one key slot sealed to their public key (no entry is re-encrypted).")
        @OptionGroup var options: VaultOptions
        @Option(help: ArgumentHelp("Add them to this scope (a folder with its own key) instead of the whole vault.", valueName: "folder"))
        var scope: String?
        @Argument(help: "The member's name (a person or a device).") var name: String
        @Argument(help: ArgumentHelp("Their public key (tresor1…), from 'tresor identity new'.", valueName: "public-key")) var publicKey: String

        func run() throws {
            let key: RecipientKey
            do { key = try RecipientKey(text: publicKey) } catch let e as CoreError { throw CLIError("bad public key: \(e.message)") }
            guard RecipientSlot.isValidName(name) else {
                throw CLIError("member name \(Output.quoted(name)) is not 1 to 64 bytes of printable NFC text without leading or trailing spaces")
            }
            let vault = try options.open(unlock: true)
            if let scope {
                try vault.addMember(name, publicKey: key, toScope: scope)
                Output.status("Added member \(Output.quoted(name)) (\(key.fingerprint)) to the scope \(Output.quoted(scope)): their identity now opens the entries in it, and nothing else.")
                return
            }
            try vault.addMember(name, publicKey: key)
            Output.status("Added member \(Output.quoted(name)) (\(key.fingerprint)): their identity now unlocks the vault.")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the members: name, key fingerprint, and which is this device.",
            discussion: "This device is the identity in force: --identity FILE, else $TRESOR_IDENTITY, else ~/.config/tresor/identity (only its public key is read).")
        @OptionGroup var options: VaultOptions
        @Option(help: ArgumentHelp("List the members of this scope.", valueName: "folder")) var scope: String?

        func run() throws {
            let vault = try options.open(unlock: false)
            // This device is the identity in force: --identity, $TRESOR_IDENTITY, else the default identity file.
            // Only its public key is read (a protected identity asks for nothing).
            let path = options.identityPath ?? IdentityFile.defaultPath
            let mine = IdentityFile.publicKey(path)
            if options.identityPath != nil, mine == nil {
                throw CLIError("cannot read identity file \(Output.quoted(path))\nhint: 'tresor identity new' makes one", code: ExitStatus.auth)
            }
            let members = try scope.map { try vault.members(ofScope: $0) } ?? vault.members
            if scope == nil, members.isEmpty { Output.status("No members: only the passphrase opens the vault. 'tresor member add NAME KEY' adds one.") }
            for m in members {
                Output.line("\(Output.escaped(m.name))\t\(m.publicKey.fingerprint)\t\(m.publicKey.text)\(m.publicKey == mine ? "\t(this device)" : "")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a member and rekey: nothing written afterwards opens with their identity.",
            discussion: "Values they could read before may have been copied: 'tresor audit --removed NAME' lists them to rotate.")
        @OptionGroup var options: VaultOptions
        @Option(help: ArgumentHelp("Remove them from this scope and rekey that scope only.", valueName: "folder")) var scope: String?
        @Argument(help: "The member's name.") var name: String
        @OptionGroup var rekeyOptions: RekeyOptions

        func run() throws {
            let vault = try options.open(unlock: true)
            if let scope {
                let outcome = try vault.removeMember(name, fromScope: scope)
                Agent.refreshKeys(of: vault)
                Output.status("Removed member \(Output.quoted(name)) from the scope \(Output.quoted(scope)) and rekeyed it: \(outcome.entries) entr\(outcome.entries == 1 ? "y" : "ies") re-encrypted under a new scope key; nothing outside the scope changed.")
                return
            }
            guard vault.header.member(named: name) != nil else { throw VaultError.header(.noSuchMember(name)) }
            let (passphrase, level) = try rekeyOptions.passphrase(for: vault, options: options)
            let outcome = try vault.removeMember(name, passphrase: passphrase, level: level)
            try rekeyOptions.refreshSession(vault, options: options)
            Output.status("Removed member \(Output.quoted(name)) and rekeyed: \(outcome.entries) entr\(outcome.entries == 1 ? "y" : "ies") re-encrypted under a new vault key.")
            Output.status("hint: what they could read before may have been copied; 'tresor audit --removed \(Output.escaped(name))' lists the entries to rotate")
        }
    }
}

/// The passphrase the rekeyed vault's passphrase slot gets, and its cost.
struct RekeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read a new passphrase for the vault from the first line of this file (default: keep the current one).", valueName: "file"))
    var newPassphraseFile: String?
    @Flag(help: "Also change the passphrase (asked for), so the old one opens nothing written afterwards.")
    var newPassphrase = false
    @Option(help: ArgumentHelp("Argon2id cost of the new passphrase slot (default: the current one's).", valueName: "level"))
    var kdf: KDFLevel?

    func passphrase(for vault: Vault, options: VaultOptions) throws -> (SecretBytes, KDFLevel) {
        let level = kdf ?? vault.header.strongestLevel
        warnIfTestCost(level)
        if newPassphrase || newPassphraseFile != nil { return (try PassphraseInput.new(file: newPassphraseFile, directory: vault.root), level) }
        if case .passphrase(let p) = vault.credential { return (p, level) }
        // Unlocked by an identity or a session: the passphrase slot needs the passphrase itself.
        let p = try options.passphrase(prompt: "Current passphrase for \(PassphraseInput.name(of: vault.root)) (kept for the new key): ")
        guard (try? vault.header.unlock(passphrase: p)) != nil else { throw VaultError.wrongPassphrase }
        return (p, level)
    }

    /// After the keys changed: the agent's keys of this vault are replaced by the new ones (`Agent.refreshKeys`), and an
    /// env-variable session of it, which holds the old key, is ended.
    func refreshSession(_ vault: Vault, options: VaultOptions) throws {
        Agent.refreshKeys(of: vault)
        if Session.token(vaultID: vault.header.vaultID, environment: options.environment) != nil {
            try Session.end(vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values))
            Output.status("The env-variable session of this vault ended (it held the old key): run 'tresor unlock --env' again.")
        }
    }
}

struct Rekey: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Change the vault key: every entry re-encrypted, every key slot rewrapped, one commit.",
        discussion: """
            Afterwards an old passphrase, a removed member's identity or an old header from git history opens nothing \
            written afterwards. Git history keeps the old entries readable with the old key; that cannot be revoked.
            """)
    @OptionGroup var options: VaultOptions
    @OptionGroup var rekeyOptions: RekeyOptions

    func run() throws {
        let vault = try options.open(unlock: true)
        let (passphrase, level) = try rekeyOptions.passphrase(for: vault, options: options)
        let outcome = try vault.rekey(passphrase: passphrase, level: level)
        try rekeyOptions.refreshSession(vault, options: options)
        Output.status("Rekeyed: \(outcome.entries) entr\(outcome.entries == 1 ? "y" : "ies") re-encrypted, \(outcome.members) member slot\(outcome.members == 1 ? "" : "s") rewrapped (header generation \(outcome.generation)).")
        if outcome.droppedOtherSlots > 0 { Output.warning("\(outcome.droppedOtherSlots) key slot\(outcome.droppedOtherSlots == 1 ? "" : "s") of unknown type could not be rewrapped and were dropped") }
    }
}
