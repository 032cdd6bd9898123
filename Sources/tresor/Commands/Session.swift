// `tresor unlock` and `tresor lock`: keys into the agent (or an env-variable session) and out again.
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

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock",
        abstract: "Unlock the vault for every command of yours until a timeout or 'tresor lock'.",
        discussion: """
            The vault's keys go to your agent (a process of yours, started on demand, listening on \
            $XDG_RUNTIME_DIR/tresor/agent.sock); every tresor command, in any shell, script or git hook, uses them \
            without asking. They are dropped after --idle minutes without use (default \(Int(Agent.defaultIdleMinutes))), \
            after --timeout minutes in any case (default \(Int(Agent.defaultTimeoutMinutes))), by 'tresor lock', and when \
            you log out. Unlocking a vault the agent holds already only sets the timeouts given.
            --env instead prints 'export TRESOR_SESSION_<id>=<token>' for eval (a session of one shell, for \
            machines without an agent); --raw prints just the token, for TRESOR_SESSION.
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("Minutes until the keys are dropped (default: \(Int(Agent.defaultTimeoutMinutes)); with --env or --raw, 15).", valueName: "minutes"))
    var timeout: Double?

    @Option(help: ArgumentHelp("Minutes without use after which the agent drops the keys (default: \(Int(Agent.defaultIdleMinutes)); 0: never for idleness).", valueName: "minutes"))
    var idle: Double?

    @Flag(help: "Start an env-variable session instead: print 'export TRESOR_SESSION_<id>=<token>' for eval.")
    var env = false

    @Flag(help: "Start an env-variable session and print only its token.")
    var raw = false

    @Flag(help: "Print a JSON object: {agent, socket, idleMinutes, timeoutMinutes}; with --env {variable, token, timeoutMinutes}.")
    var json = false

    func validate() throws {
        if raw && json { throw ValidationError("--raw: use --raw or --json, not both") }
        if idle != nil && (env || raw) { throw ValidationError("--idle: an env-variable session has only --timeout") }
    }

    func run() throws {
        let session = env || raw
        let minutes = timeout ?? (session ? 15 : Agent.defaultTimeoutMinutes)
        guard minutes > 0, minutes <= 24 * 60 else { throw CLIError("--timeout must be between 0 and 1440 minutes") }
        let idleMinutes = idle ?? Agent.defaultIdleMinutes
        guard idleMinutes >= 0, idleMinutes <= 24 * 60 else { throw CLIError("--idle must be between 0 and 1440 minutes") }
        if session { try startSession(minutes); return }
        guard Agent.enabled else {
            throw CLIError("the agent is turned off (TRESOR_AGENT=\(Output.escaped(ProcessEnvironment.value("TRESOR_AGENT") ?? "")))\nhint: use 'eval \"$(tresor unlock --env)\"' for a session of this shell")
        }
        let vault = try options.open(unlock: false)
        let name = PassphraseInput.name(of: vault.root)
        // Already held and still good: only timeouts given now change anything.
        if let held = try? Agent.client.keys(for: vault), (try? vault.unlock(session: held.keys)) != nil {
            if timeout != nil || idle != nil {
                try Agent.put(vault, idleMinutes: idle ?? held.idle / 60, timeoutMinutes: timeout ?? held.remaining / 60)
                report(vault, name: name, already: true, idleMinutes: idle ?? held.idle / 60, timeoutMinutes: timeout ?? held.remaining / 60)
            } else {
                report(vault, name: name, already: true, idleMinutes: held.idle / 60, timeoutMinutes: held.remaining / 60)
            }
            return
        }
        try options.unlock(vault)
        try Agent.put(vault, idleMinutes: idleMinutes, timeoutMinutes: minutes)
        report(vault, name: name, already: false, idleMinutes: idleMinutes, timeoutMinutes: minutes)
    }

    private func report(_ vault: Vault, name: String, already: Bool, idleMinutes: Double, timeoutMinutes: Double) {
        if json {
            Output.json(.object(["agent": .bool(true), "socket": .string(Agent.client.socketPath),
                                 "idleMinutes": .number(Clip.format(idleMinutes)), "timeoutMinutes": .number(Clip.format(timeoutMinutes))]))
            return
        }
        let idleText = idleMinutes > 0 ? " (\(Self.describe(seconds: idleMinutes * 60)) without use)" : ""
        Output.status((already ? "\(name) is unlocked already: " : "Unlocked \(name): ")
                      + "every tresor command of yours uses the agent for \(Self.describe(seconds: timeoutMinutes * 60))\(idleText), until 'tresor lock'.")
    }

    /// `--env` / `--raw`: the key in a session file, the token for the shell.
    private func startSession(_ minutes: Double) throws {
        let vault = try options.open(unlock: true, allowSession: false)
        let token = try Session.start(vault: vault, timeout: minutes * 60, directory: Session.directory(environment: ProcessEnvironment.values))
        if json {
            Output.json(.object(["variable": .string(Session.environmentVariable(vaultID: vault.header.vaultID)), "token": .string(token),
                                 "timeoutMinutes": .number(Clip.format(minutes))]))
        } else if raw {
            Output.line(token)
        } else {
            Output.line("export \(Session.environmentVariable(vaultID: vault.header.vaultID))=\(token)")
            Output.status("Unlocked for \(Self.describe(seconds: minutes * 60)). In a shell run: eval \"$(tresor unlock --env)\"")
        }
    }
}

extension Unlock {
    /// A duration as people say it: "3 seconds", "1 hour 30 minutes"; never "0 minutes".
    static func describe(seconds: Double) -> String {
        let total = max(1, Int(seconds.rounded()))
        let parts = [(total / 3600, "hour"), (total / 60 % 60, "minute"), (total % 60, "second")]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " ")
    }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Drop this vault's keys from the agent and end its env-variable session (--all: every vault's).",
        discussion: """
            The agent forgets the keys of this copy of the vault (with --all: every key; the agent then ends). An \
            env-variable session's file is removed, so its token is useless from now on; when the session's variable \
            is set, the 'unset' line for it is printed, so eval "$(tresor lock)" also clears it from the shell.
            """)

    @OptionGroup var options: VaultOptions
    @Flag(help: "Lock every vault: the agent drops all keys and every env-variable session of yours ends.") var all = false
    @Flag(help: .jsonReport) var json = false

    func run() throws {
        if all { try lockAll(); return }
        let vault = try options.open(unlock: false)
        var dropped = false
        if Agent.enabled { dropped = try Agent.client.drop(vault) }
        let ended = try Session.end(vaultID: vault.header.vaultID, directory: Session.directory(environment: ProcessEnvironment.values))
        let variable = Session.environmentVariable(vaultID: vault.header.vaultID)
        if json {
            Output.json(.object(["agentKeysDropped": .bool(dropped), "sessionEnded": .bool(ended), "variable": .string(variable)]))
            return
        }
        if options.environment[variable].map({ !$0.isEmpty }) == true { Output.line("unset \(variable)") }
        let name = PassphraseInput.name(of: vault.root)
        Output.status(dropped || ended ? "Locked \(name)." : "\(name) was not unlocked.")
    }

    private func lockAll() throws {
        let count = Agent.enabled ? try Agent.client.dropAll() : 0
        var sessions = 0
        let dir = Session.directory(environment: ProcessEnvironment.values)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasSuffix(".session") {
            do { if try FileSystem.removeIfPresent(dir + "/" + name) { sessions += 1 } }
            catch { throw CLIError("cannot end the session \(Output.quoted(dir + "/" + name)): \(String(cString: strerror(error.errno)))") }
        }
        if json { Output.json(.object(["agentVaults": .integer(count), "sessionsEnded": .integer(sessions)])); return }
        let vaults = "\(count) vault\(count == 1 ? "" : "s")"
        Output.status(count + sessions == 0 ? "Nothing was unlocked."
                      : "Locked: the agent dropped the keys of \(vaults)" + (sessions > 0 ? " and \(sessions) env-variable session\(sessions == 1 ? "" : "s") ended." : "."))
    }
}
