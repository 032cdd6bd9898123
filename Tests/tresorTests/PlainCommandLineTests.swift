// The plain command lines read without ArgumentParser make the commands ArgumentParser makes (Benchmarks/README.md,
// start-up).
import ArgumentParser
import XCTest
@testable import tresor

final class PlainCommandLineTests: XCTestCase {
    /// A command value as text, every stored property included: a property wrapper ArgumentParser filled reads as its
    /// value, one left as declared reads as its definition, so a property the plain reading forgot differs.
    private func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard let style = mirror.displayStyle, [.struct, .enum, .class, .optional].contains(style), !mirror.children.isEmpty else {
            return String(reflecting: value)
        }
        let children = mirror.children.map { "\($0.label ?? "_"): \(describe($0.value))" }
        return "\(mirror.subjectType)(\(children.joined(separator: ", ")))"
    }

    func testTheCommonFormsAreReadWithoutArgumentParser() {
        let lines = [["show", "Email/gmail"], ["show", "--field", "password", "--json", "Email/gmail"],
                     ["show", "--field=username", "Email/gmail", "--vault", "/tmp/v"], ["ls"], ["ls", "Email"],
                     ["ls", "--flat", "--json", "--passphrase-file=pf", "--identity", "id"]]
        for line in lines { XCTAssertNotNil(PlainCommandLine.command(line), "\(line)") }
        let others = [["show"], ["show", "a", "b"], ["show", "-c", "a"], ["show", "--clip", "a"], ["show", "--help"],
                      ["show", "--", "-a"], ["show", "--field", "--json", "a"], ["show", "--json", "--json", "a"],
                      ["ls", "a", "b"], ["ls", "--vault", "x", "--vault", "y"], ["ls", "--vault="], ["edit", "a"],
                      ["ls", "--flat=1"], ["show", "", "--json"], ["ls", "-h"], []]
        for line in others { XCTAssertNil(PlainCommandLine.command(line), "\(line)") }
    }

    /// Generated command lines: whenever the plain reading takes one, ArgumentParser parses the same words (after the
    /// vault options typed before the command are moved behind it, as `main` does) into the same command.
    func testEveryCommandReadPlainlyIsTheOneArgumentParserMakes() throws {
        let words = ["Email/gmail", "Work", "a=b", "x y", "-", "--", "-c", "-h", "--help", "--json", "--flat", "--clip",
                     "--field", "--field=password", "--field=", "password", "--vault", "--vault=/tmp/v", "/tmp/v",
                     "--passphrase-file", "pf", "--identity", "id", "--identity=id", "--bogus", "--json=1", "",
                     "--Vault", "--clear-after", "5", "show", "ls", "help", "--version", "--experimental-dump-help"]
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &generator)
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
            guard let plain = PlainCommandLine.command(arguments) else { continue }
            taken += 1
            let parsed: ParsableCommand
            do { parsed = try TresorCommand.parseAsRoot(arguments) } catch {
                XCTFail("read plainly but ArgumentParser refuses \(line) (seed \(start)): \(error)")
                continue
            }
            XCTAssertEqual(describe(plain), describe(parsed), "\(line) (seed \(start))")
        }
        XCTAssertGreaterThan(taken, 300, "too few generated lines were plain to test anything")
    }
}
