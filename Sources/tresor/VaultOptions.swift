// Options every vault command shares: where the vault is and where the passphrase comes from.
import ArgumentParser
import Foundation
import Tresor
import TresorCore

struct VaultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Vault directory (default: $TRESOR_VAULT, else ~/.tresor).", valueName: "dir"))
    var vault: String?

    @Option(name: .long, help: ArgumentHelp("Read the passphrase from the first line of this file (default: $TRESOR_PASSPHRASE_FILE).", valueName: "file"))
    var passphraseFile: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    var directory: String {
        if let vault { return vault }
        if let v = environment["TRESOR_VAULT"], !v.isEmpty { return v }
        return (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.tresor"
    }

    /// The passphrase file in force, if any.
    var passphraseFilePath: String? {
        if let passphraseFile { return passphraseFile }
        if let f = environment["TRESOR_PASSPHRASE_FILE"], !f.isEmpty { return f }
        return nil
    }

    /// The first line of a passphrase file. - Throws: a message naming the file if missing or empty.
    static func readPassphraseFile(_ path: String) throws -> SecretBytes {
        // Unlike vault files, this may be a link or a pipe (`--passphrase-file <(pass show x)`, secret mounts).
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot read passphrase file \"\(path)\": \(String(cString: strerror(errno)))", code: ExitStatus.auth)
        }
        var data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        try? handle.close()
        var bytes = [UInt8](data)
        Sodium.wipe(&data)
        defer { Sodium.wipe(&bytes) }
        let end = bytes.firstIndex(of: 0x0A) ?? bytes.count
        var line = Array(bytes[..<end])
        defer { Sodium.wipe(&line) }
        if line.last == 0x0D { line.removeLast() }
        guard !line.isEmpty else { throw CLIError("passphrase file \"\(path)\" is empty", code: ExitStatus.auth) }
        guard let passphrase = SecretBytes.passphrase(line) else { throw CLIError("passphrase file \"\(path)\" is not UTF-8 text", code: ExitStatus.auth) }
        return passphrase
    }

    /// The current passphrase: from the file option, else asked at the terminal.
    func passphrase(prompt: String = "Passphrase: ") throws -> SecretBytes {
        if let f = passphraseFilePath { return try VaultOptions.readPassphraseFile(f) }
        return try Prompt.secret(prompt)
    }

    /// Vaults this process opened, whose warnings are printed when the command ends.
    nonisolated(unsafe) private static var opened: [Vault] = []

    /// Prints what changes could not finish (their commits exist; the next command finishes them).
    static func printWarnings() {
        for vault in opened {
            for n in vault.notices { Output.status(n.message) }
            for w in vault.warnings { Output.warning(w.message) }
        }
        opened.removeAll()
    }

    /// Sets how changes wait for the vault lock: `TRESOR_LOCK_TIMEOUT` seconds (default 20), saying once
    /// which process they wait for.
    func prepare(_ vault: Vault) {
        if let t = environment["TRESOR_LOCK_TIMEOUT"].flatMap(Double.init), t >= 0 { vault.lockTimeout = t }
        vault.onLockWait = { holder in Output.status("waiting for \(holder.description) to finish changing the vault…") }
        VaultOptions.opened.append(vault)
    }

    /// Opens the vault, finishing a change an earlier process could not complete; with `unlock`, also
    /// obtains the key from the session or the passphrase. `interactive: false` never prompts (for
    /// commands git runs).
    func open(unlock: Bool, allowSession: Bool = true, interactive: Bool = true) throws -> Vault {
        let vault = try Vault.open(at: directory)
        prepare(vault)
        try vault.recoverIfNeeded()
        guard unlock else { return vault }
        if allowSession, let token = environment[Session.environmentVariable], !token.isEmpty {
            do {
                try vault.unlock(vaultKey: try Session.vaultKey(token: token, vaultID: vault.header.vaultID, directory: Session.directory()))
                return vault
            } catch let e as VaultError {
                // Fall back to the passphrase when one can be had; otherwise the session error is the answer.
                guard passphraseFilePath != nil || (interactive && Prompt.interactive) else { throw e }
                Output.warning(e.message.split(separator: "\n").first.map(String.init) ?? "")
            }
        }
        guard interactive || passphraseFilePath != nil else { throw CLIError("no session and no passphrase file", code: ExitStatus.auth) }
        try vault.unlock(passphrase: try passphrase())
        return vault
    }
}
