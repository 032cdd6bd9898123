// `tresor scope`: folders with a key and members of their own (Spec/FORMAT.md §3.12).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

struct ScopeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scope", abstract: "Make, list and remove scopes: folders with a key and members of their own.",
        discussion: """
            Every entry below a scope's folder is encrypted under the scope's key, so the folder can be shared with \
            members who cannot open the rest ('tresor member add --scope FOLDER NAME KEY').
            """,
        subcommands: [Create.self, List.self, Remove.self, Accept.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a scope of a folder: a new key, the folder's entries re-encrypted under it, one commit.")
        @OptionGroup var options: VaultOptions
        @Argument(help: ArgumentHelp("The folder (an entry path such as Team).", valueName: "folder")) var folder: String
        @Option(parsing: .upToNextOption, help: ArgumentHelp("A member: NAME and PUBLIC-KEY (repeat the option for more).", valueName: "name public-key"))
        var member: [String] = []
        @Flag(help: "Closed: holders of the vault key do not get the scope's key; only its members do.")
        var closed = false

        func validate() throws {
            guard member.count % 2 == 0 else { throw ValidationError("--member takes a name and a public key") }
        }

        func run() throws {
            let path = try Vault.parsePath(folder)
            var members: [(name: String, key: RecipientKey)] = []
            for i in stride(from: 0, to: member.count, by: 2) {
                guard RecipientSlot.isValidName(member[i]) else {
                    throw CLIError("member name \(Output.quoted(member[i])) is not 1 to 64 bytes of printable NFC text without leading or trailing spaces")
                }
                do { members.append((member[i], try RecipientKey(text: member[i + 1]))) }
                catch let e as CoreError { throw CLIError("bad public key: \(e.message)") }
            }
            if closed, members.isEmpty { throw CLIError("a closed scope needs a member (--member NAME PUBLIC-KEY): no one could open it") }
            let vault = try options.open(unlock: true)
            let count = try vault.createScope(path, members: members, closed: closed)
            Agent.refreshKeys(of: vault)
            Output.status("Created the scope \(Output.quoted(path.string))\(members.isEmpty ? "" : " with \(members.count) member\(members.count == 1 ? "" : "s")")"
                          + (count > 0 ? ": \(count) entr\(count == 1 ? "y" : "ies") re-encrypted under its key." : "."))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a scope: its entries re-encrypted under the vault key, its header deleted, one commit.",
            discussion: """
                Needs the vault key and the scope's key. The entries stay where they are and are readable by every \
                holder of the vault key from then on; the scope's members who hold only its key cannot open them any \
                more. What they copied, and the old versions in git history, stay readable with the scope's key.
                """)
        @OptionGroup var options: VaultOptions
        @Argument(help: ArgumentHelp("The scope's folder.", valueName: "folder"), completion: Completion.folders)
        var folder: String

        func run() throws {
            let vault = try options.open(unlock: true)
            let count = try vault.removeScope(folder)
            Agent.refreshKeys(of: vault)
            Output.status("Removed the scope \(Output.quoted(folder))" + (count > 0 ? ": \(count) entr\(count == 1 ? "y" : "ies") re-encrypted under the vault key." : ".")
                          + " Its members who hold only its key can no longer open what is written from now on.")
        }
    }

    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a scope that a sync brought with a slot for your identity (members without the vault key).",
            discussion: """
                Without the vault key, tresor cannot tell a scope a holder of the vault key made from one anyone who can \
                push to the remote made, so a sync does not take a scope new to this replica: 'tresor sync' names it and \
                its entries stay closed. Accept it only if you expected to be added: what you then write in it is \
                encrypted under its key. The history is checked with the scope's key from its creation onward first.
                """)
        @OptionGroup var options: VaultOptions
        @Argument(help: ArgumentHelp("The scope's folder.", valueName: "folder"), completion: Completion.folders)
        var folder: String

        func run() throws {
            let vault = try options.open(unlock: true, offeredOnly: true)
            if vault.holdsVaultKey {
                Output.status("You hold the vault key: every scope it opens is yours already; nothing to accept.")
                return
            }
            guard case .identity = vault.credential else {
                throw CLIError("accepting a scope opens its key with your identity: run it with --identity FILE (a session does not hold the identity)")
            }
            try vault.acceptScope(folder)
            Agent.refreshKeys(of: vault)
            Output.status("Accepted the scope \(Output.quoted(folder)): you read and write its entries from now on.")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the scopes: folder, members, open or closed, and whether you hold it.")
        @OptionGroup var options: VaultOptions

        func run() throws {
            let vault = try options.open(unlock: options.identityPath != nil || options.passphraseFilePath != nil, offeredOnly: true)
            let scopes = try vault.scopes()
            if scopes.isEmpty { Output.status("No scopes: 'tresor scope create FOLDER' makes one."); return }
            for s in scopes {
                let members = s.members.map(Output.escaped).joined(separator: ",")
                Output.line("\(Output.escaped(s.folder))\t\(s.isOpen ? "open" : "closed")\t\(members.isEmpty ? "-" : members)\(s.isHeld ? "\t(held)" : s.isOffered ? "\t(offered: not accepted)" : "")")
            }
        }
    }
}
