// The key agent as the CLI uses it: found or started on demand, asked first by every command, told of new keys.
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

enum Agent {
    /// Unlocked keys are dropped after this long without use, and after `defaultTimeout` in any case.
    static let defaultIdleMinutes: Double = 60
    static let defaultTimeoutMinutes: Double = 8 * 60

    /// `TRESOR_AGENT=off` (or `0`, `no`): no command asks or starts the agent.
    static var enabled: Bool {
        let v = ProcessEnvironment.value("TRESOR_AGENT")?.lowercased() ?? ""
        return !["off", "0", "no", "false"].contains(v)
    }

    /// The agent of this user (`KeyAgent.defaultSocketPath`).
    static var client: KeyAgent { KeyAgent(socketPath: KeyAgent.defaultSocketPath(environment: ProcessEnvironment.values)) }

    /// The running agent, started first if none answers: `tresor agent` in a session of its own, with no
    /// terminal and no descriptor of this process. - Throws: `VaultError.agent` when it does not come up.
    static func started() throws -> KeyAgent {
        let agent = client
        if agent.isRunning { return agent }
        try agent.prepareDirectory()
        let null = Spawn.devNull()
        defer { if null >= 0 { FileSystem.close(null) } }
        let pid = try Spawn.start(Spawn.selfExecutable, [AgentCommand.commandName, "--socket", agent.socketPath],
                                  detached: true, stdin: null, stdout: null, stderr: null)
        // It listens within milliseconds; a second agent started at the same moment by another process ends at
        // once (one agent per socket), and this one answers.
        for _ in 0..<300 {
            if agent.isRunning { return agent }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid, agent.isRunning { return agent }
            usleep(10_000)
        }
        throw VaultError.agent(.notRunning(socket: agent.socketPath))
    }

    /// Puts the keys `vault` holds into the agent, starting it if needed.
    /// An agent that was ending as it was reached (it had just dropped its last keys: a `lock`, stale keys dropped
    /// before asking for new ones) closes the connection: once it has ended, a new one is started and given the keys.
    static func put(_ vault: Vault, idleMinutes: Double, timeoutMinutes: Double) throws {
        do {
            try started().put(vault, idle: idleMinutes * 60, timeout: timeoutMinutes * 60)
        } catch VaultError.agent(let e) where e.isLostConnection {
            guard client.waitUntilEnded(timeout: 3) else { throw VaultError.agent(e) }
            try started().put(vault, idle: idleMinutes * 60, timeout: timeoutMinutes * 60)
        }
    }

    /// After a command changed the keys of `vault` (a rekey, `member rm`, a scope made, removed or rekeyed, a sync
    /// that took in a rekey made elsewhere): if the agent held keys for this copy of the vault, they are replaced by
    /// the new ones, same timeouts. An agent that held none gets none. Never fails the command: a problem is a warning.
    static func refreshKeys(of vault: Vault) {
        guard enabled else { return }
        do { try client.replaceKeys(of: vault) }
        catch { Output.warning("the agent could not be given the vault's new keys: \(ErrorReport.of(error)?.message ?? "\(error)")\nhint: run 'tresor unlock' again") }
    }
}

/// `tresor agent --socket PATH` (hidden): the agent process, started by `tresor unlock` (or a passphrase asked
/// through pinentry). It serves until it holds no keys, its socket is removed (logout removes
/// `$XDG_RUNTIME_DIR`), or every key timed out.
struct AgentCommand: ParsableCommand {
    static let commandName = "agent"
    static let configuration = CommandConfiguration(
        commandName: commandName, abstract: "Hold unlocked vaults' keys for this user's commands (internal; see 'tresor unlock').",
        shouldDisplay: false)

    @Option(help: ArgumentHelp("The socket to serve.", valueName: "path")) var socket: String?

    func run() throws {
        // Nothing of the terminal or the directory it was started in is kept.
        _ = chdir("/")  // (a process's own state, not a file: "/" is always there)
        for s in [SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGPIPE] { signal(s, SIG_IGN) }
        do { try KeyAgentServer.serve(socketPath: socket ?? KeyAgent.defaultSocketPath(environment: ProcessEnvironment.values)) }
        catch VaultError.agent(.alreadyRunning) { return }
    }
}

extension AgentProblem {
    /// What an agent ending as it was reached looks like from here: gone, the connection closed or reset, no reply.
    fileprivate var isLostConnection: Bool {
        switch self {
        case .notRunning, .socket, .badReply: return true
        case .directoryNotPrivate, .formatTooOld, .alreadyRunning: return false
        }
    }
}
