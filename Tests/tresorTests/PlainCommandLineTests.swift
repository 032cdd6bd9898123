// The plain command lines read without ArgumentParser make the commands ArgumentParser makes (Benchmarks/README.md,
// start-up).
import ArgumentParser
import XCTest
@testable import tresor

final class PlainCommandLineTests: XCTestCase {
    /// What a command ArgumentParser parsed would run with, in the plain reading's terms; nil when it is not one the
    /// plain reading makes.
    private func plainForm(of command: ParsableCommand) -> PlainCommandLine? {
        func options(_ o: VaultOptions) -> PlainVaultOptions {
            PlainVaultOptions(vault: o.vault, passphraseFile: o.passphraseFile, identity: o.identity)
        }
        switch command {
        case let show as Show:
            guard !show.clip, show.clipOptions.clearAfter == nil else { return nil }
            return .show(path: show.path, field: show.field, json: show.json, options: options(show.options))
        case let list as List:
            return .list(prefix: list.prefix, json: list.json, flat: list.flat, options: options(list.options))
        default:
            return nil
        }
    }

    private func storedProperties(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }

    /// The plain reading knows every option of the commands it reads: a new one fails this until it is taught.
    func testTheCommandsReadPlainlyHaveNoOtherOption() {
        XCTAssertEqual(storedProperties(Show()), ["_options", "_path", "_field", "_json", "_clip", "_clipOptions"])
        XCTAssertEqual(storedProperties(List()), ["_options", "_prefix", "_json", "_flat"])
        XCTAssertEqual(storedProperties(VaultOptions()), ["_vault", "_passphraseFile", "_identity"])
        XCTAssertEqual(storedProperties(ClipOptions()), ["_clearAfter"])
    }

    func testTheCommonFormsAreReadWithoutArgumentParser() {
        let lines = [["show", "Email/gmail"], ["show", "--field", "password", "--json", "Email/gmail"],
                     ["show", "--field=username", "Email/gmail", "--vault", "/tmp/v"], ["ls"], ["ls", "Email"],
                     ["ls", "--flat", "--json", "--passphrase-file=pf", "--identity", "id"]]
        for line in lines { XCTAssertNotNil(PlainCommandLine.read(line), "\(line)") }
        XCTAssertEqual(PlainCommandLine.read(["show", "--field=a=b", "E", "--vault", "/v"]),
                       .show(path: "E", field: "a=b", json: false, options: PlainVaultOptions(vault: "/v")))
        let others = [["show"], ["show", "a", "b"], ["show", "-c", "a"], ["show", "--clip", "a"], ["show", "--help"],
                      ["show", "--", "-a"], ["show", "--field", "--json", "a"], ["show", "--json", "--json", "a"],
                      ["ls", "a", "b"], ["ls", "--vault", "x", "--vault", "y"], ["ls", "--vault="], ["edit", "a"],
                      ["ls", "--flat=1"], ["show", "", "--json"], ["ls", "-h"], []]
        for line in others { XCTAssertNil(PlainCommandLine.read(line), "\(line)") }
    }

    /// Generated command lines: whenever the plain reading takes one, ArgumentParser parses the same words (after the
    /// vault options typed before the command are moved behind it, as `main` does) into the same command and values.
    /// The lines of seed 1 by default; TRESOR_FIRST_SEED chooses others (a failure names its seed).
    func testEveryCommandReadPlainlyIsTheOneArgumentParserReads() throws {
        let words = ["Email/gmail", "Work", "a=b", "x y", "-", "--", "-c", "-h", "--help", "--json", "--flat", "--clip",
                     "--field", "--field=password", "--field=", "password", "--vault", "--vault=/tmp/v", "/tmp/v",
                     "--passphrase-file", "pf", "--identity", "id", "--identity=id", "--bogus", "--json=1", "",
                     "--Vault", "--clear-after", "5", "show", "ls", "help", "--version", "--experimental-dump-help"]
        var seed = UInt64(ProcessInfo.processInfo.environment["TRESOR_FIRST_SEED"] ?? "") ?? 1
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let start = seed
        var taken = 0
        for _ in 0..<6000 {
            var line = [["show", "ls", "--vault", "--identity=id", "find"][next(5)]]
            if line[0] == "--vault" { line += ["/tmp/w", ["show", "ls"][next(2)]] }
            for _ in 0..<next(7) { line.append(words[next(words.count)]) }
            let arguments = UsageErrors.hoistingVaultOptions(line)
            guard let plain = PlainCommandLine.read(arguments) else { continue }
            taken += 1
            let parsed: ParsableCommand
            do { parsed = try TresorCommand.parseAsRoot(arguments) } catch {
                XCTFail("read plainly but ArgumentParser refuses \(line) (seed \(start)): \(error)")
                continue
            }
            XCTAssertEqual(plain, plainForm(of: parsed), "\(line) (seed \(start))")
        }
        XCTAssertGreaterThan(taken, 300, "too few generated lines were plain to test anything")
    }
}
