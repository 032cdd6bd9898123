// Start-up: every command gives its own name. ArgumentParser derives a missing one from the type's name with
// `String(describing:)`, whose first use scans every protocol conformance record of the statically linked binary
// (about 3.4 million instructions of a `show` that costs 40 million in all).
import ArgumentParser
import XCTest
@testable import tresor

final class CommandNameTests: XCTestCase {
    func testEveryCommandNamesItself() {
        var unnamed: [String] = []
        var names: [String] = []
        func visit(_ command: ParsableCommand.Type, path: String) {
            let name = command.configuration.commandName
            if name == nil { unnamed.append("\(path) → \(command)") }
            names.append(path + " " + (name ?? "?"))
            for sub in command.configuration.subcommands { visit(sub, path: path + " " + (name ?? "?")) }
        }
        visit(TresorCommand.self, path: "")
        XCTAssertEqual(unnamed, [], "commands without commandName")
        XCTAssertGreaterThan(names.count, 40)
        XCTAssertEqual(Set(names).count, names.count, "two commands with one name in one place")
    }

    /// The names git's start-up begins for before parsing are those of the top-level commands that commit or sync, or
    /// that hold such a command.
    func testTheCommandsGitStartsEarlyForAreThoseThatCommit() {
        func commits(_ command: ParsableCommand.Type) -> Bool {
            command is CommitsToGit.Type || command.configuration.subcommands.contains(where: commits)
        }
        let named = TresorCommand.configuration.subcommands.filter(commits).flatMap { command in
            [command.configuration.commandName ?? "?"] + command.configuration.aliases
        }
        XCTAssertEqual(Set(TresorCommand.commandsThatCommit), Set(named))
    }
}
