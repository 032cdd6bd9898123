// Options every vault command shares: where the vault is and where the passphrase comes from.
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

/// Where the vault is and where its passphrase or identity comes from, as typed: `VaultOptions` as ArgumentParser
/// reads them, or `PlainVaultOptions` as `PlainCommandLine` does. What they mean is written once, below, for both.
protocol VaultChoice {
    var vault: String? { get }
    var passphraseFile: String? { get }
    var identity: String? { get }
}

/// The vault options of a command line `PlainCommandLine` reads.
struct PlainVaultOptions: VaultChoice, Equatable {
    var vault: String?
    var passphraseFile: String?
    var identity: String?
}

struct VaultOptions: ParsableArguments, VaultChoice {
    @Option(name: .long, help: ArgumentHelp("Vault directory (default: $TRESOR_VAULT, else ~/.tresor).", valueName: "dir"), completion: .directory)
    var vault: String?

    @Option(name: .long, help: ArgumentHelp("Read the passphrase from the first line of this file (default: $TRESOR_PASSPHRASE_FILE).", valueName: "file"), completion: .file())
    var passphraseFile: String?

    @Option(name: .long, help: ArgumentHelp("Unlock with this identity file instead of the passphrase (default: $TRESOR_IDENTITY).", valueName: "file"))
    var identity: String?
}

/// Vaults this process opened, whose warnings are printed when the command ends.
private enum OpenedVaults {
    nonisolated(unsafe) static var all: [Vault] = []
}

extension VaultChoice {
    var environment: [String: String] { ProcessEnvironment.values }

    /// The identity file in force, if any.
    var identityPath: String? {
        if let identity { return identity }
        if let f = ProcessEnvironment.value("TRESOR_IDENTITY"), !f.isEmpty { return f }
        return nil
    }

    var directory: String {
        if let vault { return vault }
        if let v = ProcessEnvironment.value("TRESOR_VAULT"), !v.isEmpty { return v }
        return (ProcessEnvironment.value("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? PathName.home()) + "/.tresor"
    }

    /// The passphrase file in force, if any.
    var passphraseFilePath: String? {
        if let passphraseFile { return passphraseFile }
        if let f = ProcessEnvironment.value("TRESOR_PASSPHRASE_FILE"), !f.isEmpty { return f }
        return nil
    }

    /// The first line of a passphrase file under the passphrase rules (`PassphraseRules`): read up to
    /// its first line end only, never shortened. `isNew`: a passphrase being set (blank ones refused).
    /// - Throws: `CLIError` (exit 3) naming the file: missing, unreadable, empty, or what rule it breaks.
    static func readPassphraseFile(_ path: String, isNew: Bool = false) throws -> SecretBytes {
        // Unlike vault files, this may be a link or a pipe (`--passphrase-file <(pass show x)`, secret mounts).
        func cannotRead(_ code: Int32) -> CLIError {
            CLIError("cannot read passphrase file \"\(path)\": \(String(cString: strerror(code)))", code: ExitStatus.auth)
        }
        let fd: Int32
        do { fd = try FileSystem.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC) } catch { throw cannotRead(error.errno) }
        defer { FileSystem.close(fd) }
        // Enough to hold the longest accepted line and its CR LF: one byte more is a line too long.
        let cap = PassphraseRules.maximumBytes + 2
        var bytes = [UInt8](repeating: 0, count: cap)
        defer { SecretBytes.wipe(&bytes) }
        var total = 0
        while total < cap, !bytes[..<total].contains(0x0A) {
            let start = total
            let read = bytes.withUnsafeMutableBytes { b in
                Result { () throws(FileSystem.Failure) in try FileSystem.readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[start...]), path: path) }
            }
            let n: Int
            do { n = try read.get() } catch { throw cannotRead(error.errno) }
            if n == 0 { break }
            total += n
        }
        // Without a line end within the cap the line is `cap` bytes long: too long, reported below.
        var end = bytes[..<total].firstIndex(of: 0x0A) ?? total
        if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        var line = Array(bytes[..<end])
        defer { SecretBytes.wipe(&line) }
        guard !line.isEmpty || isNew else { throw CLIError("passphrase file \"\(path)\" is empty", code: ExitStatus.auth) }
        do { return try PassphraseRules.passphrase(line, isNew: isNew) } catch let e as PassphraseError {
            throw CLIError(e.message(source: "passphrase file \"\(displayable(path))\""), code: ExitStatus.auth)
        }
    }

    /// The current passphrase: from the file option, else asked at the terminal (no retry; see `unlock`).
    func passphrase(prompt: String? = nil) throws -> SecretBytes {
        if let f = passphraseFilePath { return try VaultOptions.readPassphraseFile(f) }
        return try PassphraseInput.typed(prompt ?? "Passphrase for \(PassphraseInput.name(of: directory)): ", isNew: false)
    }

    /// Prints what changes could not finish (their commits exist; the next command finishes them).
    static func printWarnings() {
        for vault in OpenedVaults.all {
            for n in vault.notices {
                if case .remoteWentBack = n { Output.warning(n.message) } else { Output.status(n.message) }
            }
            for w in vault.warnings { Output.warning(w.message) }
        }
        OpenedVaults.all.removeAll()
    }

    /// Sets how changes wait for the vault lock: `TRESOR_LOCK_TIMEOUT` seconds (default 20), saying once
    /// which process they wait for.
    func prepare(_ vault: Vault) {
        if let t = ProcessEnvironment.value("TRESOR_LOCK_TIMEOUT").flatMap(Double.init), t >= 0 { vault.lockTimeout = t }
        vault.onLockWait = { holder in Output.status("waiting for \(holder.description) to finish changing the vault…") }
        OpenedVaults.all.append(vault)
    }

    /// Opens the vault, finishing a change an earlier process could not complete; with `unlock`, also obtains the
    /// key: the one unlock path of every command (see `Unlocking.swift`). `interactive: false` never prompts (for
    /// commands git runs). `allowSession: false` skips the agent and the env-variable session (a command that must
    /// see the credential itself). `offeredOnly`: an identity that opens only scopes offered by a sync and not
    /// accepted yet is enough (`scope accept`); every other command says what to do.
    func open(unlock: Bool, allowSession: Bool = true, interactive: Bool = true, offeredOnly: Bool = false) throws -> Vault {
        // A missing libsodium ends the command before it has done anything (it is opened on first use).
        if unlock { Vault.openLibraries(git: .onFirstUse) }
        let vault = try Vault.open(at: directory)
        prepare(vault)
        try vault.recoverIfNeeded()
        guard unlock else { return vault }
        if !interactive { Prompt.neverAsk = true }
        try obtainKeys(vault, allowSession: allowSession, interactive: interactive)
        if !offeredOnly, !vault.isUnlocked, let folder = vault.offeredScopes.values.sorted().first {
            throw CLIError("your identity opens no scope you accepted, only the scope \(Output.quoted(folder)), which a sync brought and you have not accepted\nhint: if you expected to be added: 'tresor scope accept \(Output.escaped(folder)) --identity FILE'", code: ExitStatus.auth)
        }
        return vault
    }
}

// MARK: The one unlock path

extension VaultOptions {
    /// Where the keys came from, when not from the agent or a session.
    enum KeySource { case identity, passphraseFile, terminal, pinentry }
}

extension VaultChoice {
    /// Obtains the vault's keys, first found first: the agent (keys of this copy of the vault, checked against its
    /// header: keys that no longer open it — a rekey elsewhere — are dropped from the agent and asked for again),
    /// the env-variable session, then `unlock(_:)` (identity, passphrase file, the default identity when it is a
    /// member, the terminal, pinentry). Keys asked for again after a rekey go back into the agent with the timeouts
    /// the old ones had; keys asked through pinentry (no terminal: a hook, a helper) go into the agent with the
    /// default timeouts, so the next such program does not ask again.
    /// - Throws: the session's or the credential's error; `CLIError` (exit 3) when nothing can be asked.
    func obtainKeys(_ vault: Vault, allowSession: Bool, interactive: Bool) throws {
        var stale: HeldKeys?
        if allowSession, identity == nil {
            if Agent.enabled, vault.header.version >= 2 {
                do {
                    if let held = try Agent.client.keys(for: vault) {
                        do { try vault.unlock(session: held.keys); return } catch {
                            // The header is authentic under other keys now: rekeyed on another replica, or replaced.
                            _ = try? Agent.client.drop(vault)
                            stale = held
                            Output.status("The keys the agent held for \(PassphraseInput.name(of: vault.root)) no longer open it (was it rekeyed elsewhere?): they were dropped.")
                        }
                    }
                } catch {
                    Output.warning("the agent did not answer as expected: \(ErrorReport.of(error)?.message ?? "\(error)")")
                }
            }
            if let token = Session.token(vaultID: vault.header.vaultID, environment: environment) {
                do {
                    try vault.unlock(session: try Session.keys(token: token, vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values)))
                    return
                } catch let e as VaultError {
                    // Fall back to the passphrase when one can be had; otherwise the session error is the answer.
                    guard passphraseFilePath != nil || (interactive && PassphraseInput.canAsk) else { throw e }
                    Output.warning(e.message.split(separator: "\n").first.map(String.init) ?? "")
                }
            }
        }
        guard interactive || passphraseFilePath != nil || identityPath != nil || defaultIdentity(for: vault) != nil else {
            throw CLIError("no keys in the agent, no session and no passphrase file", code: ExitStatus.auth)
        }
        let source = try unlock(vault)
        guard Agent.enabled else { return }
        do {
            if let stale {
                try Agent.put(vault, idleMinutes: stale.idle / 60, timeoutMinutes: stale.remaining / 60)
                Output.status("The agent holds the new keys.")
            } else if source == .pinentry, vault.header.version >= 2 {
                try Agent.put(vault, idleMinutes: Agent.defaultIdleMinutes, timeoutMinutes: Agent.defaultTimeoutMinutes)
            }
        } catch {
            Output.warning("the agent could not be given the keys: \(ErrorReport.of(error)?.message ?? "\(error)")")
        }
    }

    /// Unlocks with a credential: `--identity`/`$TRESOR_IDENTITY`, the passphrase file, the default identity
    /// (`~/.config/tresor/identity`) when it is a member of this vault or of one of its scopes, else the passphrase
    /// asked at the terminal or, without one, through pinentry: a wrong one asks again, three tries in all.
    /// - Throws: `VaultError.wrongPassphrase` after the last; `CLIError` when nothing can be asked.
    @discardableResult
    func unlock(_ vault: Vault, prompt: String? = nil) throws -> VaultOptions.KeySource {
        if let path = identityPath { try vault.unlock(identity: try IdentityFile.read(path)); return .identity }
        if let f = passphraseFilePath { try vault.unlock(passphrase: try VaultOptions.readPassphraseFile(f)); return .passphraseFile }
        if let path = defaultIdentity(for: vault) { try vault.unlock(identity: try IdentityFile.read(path)); return .identity }
        let name = PassphraseInput.name(of: vault.root)
        let text = prompt ?? "Passphrase for \(name): "
        let pinentry = !Prompt.interactive && Pinentry.program != nil
        var error: String?
        for attempt in 1...PassphraseInput.tries {
            do {
                try vault.unlock(passphrase: try PassphraseInput.typed(text, isNew: false, description: "Tresor needs the passphrase of the vault \(name).", error: error))
                return pinentry ? .pinentry : .terminal
            } catch let e where attempt < PassphraseInput.tries && (Prompt.interactive || pinentry)
                        && ((e as? CLIError)?.retryable == true || (e as? VaultError).map(isWrongPassphrase) == true) {
                let message = (e as? CLIError)?.message ?? "wrong passphrase; try again"
                if pinentry { error = message } else { Output.warning(message) }
            }
        }
        throw VaultError.wrongPassphrase
    }

    private func isWrongPassphrase(_ e: VaultError) -> Bool {
        if case .wrongPassphrase = e { return true }
        return false
    }

    /// The default identity file when no identity is named and its public key is a member of this vault or of one of
    /// its scopes (read without its secret key, so a protected one asks for nothing here); nil otherwise.
    func defaultIdentity(for vault: Vault) -> String? {
        guard identityPath == nil, vault.header.version >= 3, let key = IdentityFile.publicKey(IdentityFile.defaultPath) else { return nil }
        if vault.members.contains(where: { $0.publicKey == key }) { return IdentityFile.defaultPath }
        for scope in (try? vault.scopes()) ?? [] where (try? vault.members(ofScope: scope.folder))?.contains(where: { $0.publicKey == key }) == true {
            return IdentityFile.defaultPath
        }
        return nil
    }
}
