// An app's first steps with the Tresor library: create (or open) a vault, unlock it, add an entry in a
// transaction, sync with a remote, and print what the sync decided.
//
//   tresor-example VAULT-DIRECTORY [REMOTE-URL]
//
// The passphrase comes from $TRESOR_EXAMPLE_PASSPHRASE (an app would ask its user, or its key store).
import Foundation
import Tresor

let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first else {
    FileHandle.standardError.write(Data("usage: tresor-example VAULT-DIRECTORY [REMOTE-URL]\n".utf8))
    exit(64)
}
let passphrase = SecretBytes(utf8: ProcessInfo.processInfo.environment["TRESOR_EXAMPLE_PASSPHRASE"] ?? "")

do {
    // Open the vault, or create it (the cheapest key derivation is for demonstrations only).
    let vault: Vault
    do { vault = try Vault.open(at: directory) } catch VaultError.notAVault {
        vault = try Vault.create(at: directory, passphrase: passphrase, level: .minimum)
    }
    try vault.unlock(passphrase: passphrase)

    // One change, one commit: a new entry with a generated password.
    let path = try EntryPath("Example/entry-\(vault.list().paths.count + 1)")
    var random = SystemRandomSource()
    let password = try Generator.generate(.characters(PasswordPolicy()), using: &random)
    try vault.transaction { txn in
        var entry = Entry(path: path, change: txn.change)
        try entry.set("username", .text("example"), change: txn.change)
        try entry.set("password", .text(SecretText(password.value)), change: txn.change)
        try txn.checkNew(path)
        try txn.put(entry)
        txn.message = "Add \(path)"
    }
    print("added \(path)")

    // Sync: fetch, check, merge field by field, push.
    if let url = arguments.dropFirst().first {
        if try !vault.remotes().contains(where: { $0.name == "origin" }) { try vault.addRemote(name: "origin", url: url) }
        let outcome = try vault.sync(remote: "origin", credentials: .standard())
        print("synced with \(outcome.remote): pulled \(outcome.pulled), pushed \(outcome.pushed), merged \(outcome.mergedEntries.count)")
        for decision in outcome.resolutions { print("  \(decision)") }
    }
    print("\(vault.list().paths.count) entries")
} catch {
    FileHandle.standardError.write(Data("tresor-example: \(error)\n".utf8))
    exit(1)
}
