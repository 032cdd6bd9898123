// What README.md and docs/ show, run: the README's first session in bash on a pseudo-terminal, every docs example
// marked `<!-- run by ReadmeTourTests.NAME -->` (by the test NAME), scripts/demo.sh (what `make demo` runs), and every
// `tresor …` command shown anywhere in them checked against the commands' own help.
import Foundation
import XCTest

final class ReadmeTourTests: CLITestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The remote the examples show; the tests put a local bare repository in its place.
    static let exampleRemote = "ssh://git@git.example.com/me/vault.git"

    // MARK: Reading the markdown

    /// A fenced code block: its file, its language, the marker comment right above it (`run by ReadmeTourTests.NAME`)
    /// and its lines.
    struct Block {
        let file: String
        let language: String
        let marker: String?
        let lines: [String]
    }

    /// One command of a block: the machine its prompt names (`laptop$ …`), or nil, and the command without its comment.
    struct Command {
        let machine: String?
        let text: String
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: repository + "/" + file, encoding: .utf8)
    }

    /// README.md, Samples/README.md and every page of docs/.
    static func documents() throws -> [String] {
        let pages = try FileManager.default.contentsOfDirectory(atPath: repository + "/docs").filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md", "Samples/README.md"] + pages.map { "docs/" + $0 }
    }

    static func blocks(in file: String) throws -> [Block] {
        var blocks: [Block] = [], lines: [String] = [], language = "", marker: String?, pending: String?
        var inside = false
        for line in try text(file).components(separatedBy: "\n") {
            if inside {
                if line.hasPrefix("```") {
                    blocks.append(Block(file: file, language: language, marker: marker, lines: lines))
                    inside = false
                } else {
                    lines.append(line)
                }
                continue
            }
            if line.hasPrefix("```") {
                inside = true
                language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                lines = []
                marker = pending
                pending = nil
            } else if line.hasPrefix("<!--"), let r = line.range(of: "run by ReadmeTourTests.") {
                pending = String(line[r.upperBound...].prefix { $0.isLetter || $0.isNumber })
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                pending = nil
            }
        }
        return blocks
    }

    /// The commands of the block of `page` marked for the test `name` (the `index`th such block).
    static func block(_ page: String, _ name: String, _ index: Int = 0) throws -> [Command] {
        let marked = try blocks(in: page).filter { $0.marker == name }
        guard index < marked.count else {
            XCTFail("\(page) has no block \(index + 1) marked \"run by ReadmeTourTests.\(name)\"")
            return []
        }
        return commands(marked[index].lines)
    }

    /// Comments (`  #` and after) dropped, lines that are only a comment dropped; `name$ ` prompts read.
    static func commands(_ lines: [String]) -> [Command] {
        lines.compactMap { line in
            var rest = Substring(line), machine: String?
            if let dollar = rest.range(of: "$ "), !rest[..<dollar.lowerBound].isEmpty,
               rest[..<dollar.lowerBound].allSatisfy({ $0.isLowercase && $0.isLetter }) {
                machine = String(rest[..<dollar.lowerBound])
                rest = rest[dollar.upperBound...]
            }
            let command = rest.components(separatedBy: "  #").first!.trimmingCharacters(in: .whitespaces)
            return command.isEmpty || command.hasPrefix("#") ? nil : Command(machine: machine, text: command)
        }
    }

    /// The commands of README.md's first session.
    static func tourCommands() throws -> [String] {
        guard let section = try text("README.md").components(separatedBy: "## A first session").dropFirst().first,
              let block = section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first else {
            XCTFail("README.md has no first session"); return []
        }
        return commands(block.components(separatedBy: "\n")).map(\.text)
    }

    // MARK: Running

    var binDirectory: String { (CLITestCase.binary as NSString).deletingLastPathComponent }

    /// The environment of a machine of the examples: its own home (so `~/.tresor` is its vault), tresor on the PATH.
    func machine(_ name: String, passphrase: Bool = true) -> [String: String?] {
        try? FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
        return ["HOME": dir + "/" + name, "TRESOR_VAULT": nil, "PATH": binDirectory + ":/usr/bin:/bin",
                "TRESOR_PASSPHRASE_FILE": passphrase ? passphraseFile : nil]
    }

    /// Runs each command with bash in the home of the machine its prompt names (`machines[""]` for lines without a
    /// prompt), after `rewrite`; `after` sees each result. Every command must exit with 0 unless `codes` says otherwise.
    @discardableResult
    func runCommands(_ commands: [Command], machines: [String: [String: String?]], codes: [Int: Int32] = [:],
                     rewrite: (String) -> String = { $0 }, after: (Int, CLIResult) throws -> Void = { _, _ in },
                     file: StaticString = #filePath, line: UInt = #line) throws -> [CLIResult] {
        var results: [CLIResult] = []
        for (i, command) in commands.enumerated() {
            let machineEnv = try XCTUnwrap(machines[command.machine ?? ""], "no machine \(command.machine ?? "(none)")")
            let text = rewrite(command.text.replacingOccurrences(of: ReadmeTourTests.exampleRemote, with: dir + "/remote.git"))
            let r = try run("/bin/bash", ["-c", "cd \"$HOME\" && " + text], stdin: nil, extraEnv: machineEnv)
            XCTAssertEqual(r.code, codes[i] ?? 0, "\(command.machine.map { $0 + "$ " } ?? "")\(text)\n\(r.stdout)\(r.stderr)",
                           file: file, line: line)
            results.append(r)
            try after(i, r)
        }
        return results
    }

    /// A vault in `name`'s ~/.tresor with the test KDF and an entry, and an empty bare repository for the remote.
    func laptop(_ name: String = "laptop") throws -> [String: String?] {
        let m = machine(name)
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try tresor(["add", "Email/gmail", "--username", "alice@gmail.com", "--password-stdin"], stdin: "first-password\n",
                                  extraEnv: m).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", dir + "/remote.git"], stdin: nil, extraEnv: [:]).code, 0)
        return m
    }

    func on(_ m: [String: String?], _ args: String..., stdin: String? = nil) throws -> CLIResult {
        try tresor(args, stdin: stdin, extraEnv: m)
    }

    func newIdentity(_ name: String) throws -> String {
        let r = try tresor(["identity", "new"], extraEnv: machine(name, passphrase: false))
        XCTAssertEqual(r.code, 0, r.stderr)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: README.md

    /// The first session as a person types it: the passphrase comes from a file, the editor is a script, the
    /// generated-password offer is answered at the terminal, the example remote is a local bare repository. Only
    /// `init` gets the test KDF.
    func testEveryCommandOfTheFirstSessionRuns() throws {
        let commands = try ReadmeTourTests.tourCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 8)
        XCTAssertLessThanOrEqual(commands.count, 14, "a first session of about ten lines")
        let editor = dir + "/editor.sh"
        try write("#!/bin/sh\nprintf 'notes: written in the editor\\n' >> \"$1\"\n", to: editor)
        chmod(editor, 0o755)
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", dir + "/remote.git"], stdin: nil, extraEnv: [:]).code, 0)
        var script = "set -e\n"
        for (i, command) in commands.enumerated() {
            var c = command.replacingOccurrences(of: ReadmeTourTests.exampleRemote, with: dir + "/remote.git")
            if c == "tresor init" { c = "tresor init --kdf minimum" }
            script += "\(c)\necho \"step \(i + 1) done\"\n"
        }
        script += "echo SESSION-FINISHED\n"
        try write(script, to: dir + "/session.sh")
        var e = env
        e["PATH"] = binDirectory + ":/usr/bin:/bin"
        e["TRESOR_VAULT"] = nil
        e["EDITOR"] = editor
        e["DISPLAY"] = nil
        e["TRESOR_CLIP_TIME"] = "1"   // the copy goes to the terminal (OSC 52); its keeper ends soon
        let t = try TerminalSession([dir + "/session.sh"], env: e, executable: "/bin/bash")
        t.expect("[n]o password? ")
        t.type("a\n")
        t.expect("SESSION-FINISHED")
        XCTAssertEqual(t.wait(timeout: 30), 0, t.screen)
        XCTAssertTrue(t.screen.contains("\u{1B}]52;c;"), "tresor clip copied through the terminal")

        env["TRESOR_VAULT"] = dir + "/home/.tresor"
        XCTAssertEqual(try ok("ls").stdout, "Bank/ing\nEmail/gmail\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice@gmail.com\n")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "notes").stdout, "written in the editor\n")
        XCTAssertEqual(try ok("show", "Bank/ing", "--field", "password").stdout.split(separator: "-").count, 5, "five words")
        // `tresor unlock`: the agent holds the keys, no passphrase needed.
        let unlocked = try tresor(["show", "Email/gmail", "--field", "username"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(unlocked.code, 0, unlocked.stderr)
        // The sync pushed the vault; "elsewhere: tresor clone URL" opens it.
        let elsewhere = try tresor(["clone", dir + "/remote.git", dir + "/elsewhere"])
        XCTAssertEqual(elsewhere.code, 0, elsewhere.stderr)
        XCTAssertEqual(try tresor(["show", "Email/gmail", "--field", "notes"], extraEnv: ["TRESOR_VAULT": dir + "/elsewhere"]).stdout,
                       "written in the editor\n")
        try ok("lock")
    }

    /// The tour's `--set username=… --unset notes` on an entry without notes: the username changes, the
    /// absent field is a note (docs/entries.md says so).
    func testUnsettingAnAbsentFieldIsANoteNotAFailure() throws {
        try sampleVault()
        let r = try ok("edit", "Email/gmail", "--set", "username=alice.smith", "--unset", "notes")
        XCTAssertTrue(r.stderr.contains("Note: Email/gmail has no field \"notes\"; nothing to unset."), r.stderr)
        XCTAssertTrue(r.stderr.contains("Edited Email/gmail: username"), r.stderr)
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "alice.smith\n")
        let nothing = try ok("edit", "Email/gmail", "--unset", "notes")
        XCTAssertTrue(nothing.stderr.contains("No changes."), nothing.stderr)
        XCTAssertEqual(try git("log", "-1", "--format=%s").stdout, "Edit Email/gmail: username\n")
    }

    /// The README's first screen says what Tresor is, shows a first session and the two commands that work on a fresh
    /// Debian 12 machine; the whole README stays short.
    func testTheFirstScreenShowsTheSessionAndTheTwoCommands() throws {
        let lines = try ReadmeTourTests.text("README.md").components(separatedBy: "\n")
        XCTAssertLessThanOrEqual(lines.count, 200, "README.md is at most ~200 lines")
        func line(_ prefix: String) -> Int? { lines.firstIndex { $0.hasPrefix(prefix) } }
        for needle in ["## A first session", "tresor init", "make demo", "make test"] {
            let at = try XCTUnwrap(line(needle), "README.md shows \(needle)")
            XCTAssertLessThan(at, 50, "\(needle) is on the first screen (line \(at + 1))")
        }
    }

    /// `make demo` builds the release binary and runs scripts/demo.sh with it; here the script runs with the binary
    /// under test.
    func testMakeDemoRuns() throws {
        let makefile = try ReadmeTourTests.text("Makefile")
        let demo = try XCTUnwrap(makefile.components(separatedBy: "\ndemo:").dropFirst().first)
        XCTAssertTrue(demo.components(separatedBy: "\n\n").first!.contains("scripts/demo.sh"), "make demo runs scripts/demo.sh")
        let r = try run("/bin/bash", [ReadmeTourTests.repository + "/scripts/demo.sh", CLITestCase.binary], stdin: nil,
                        extraEnv: ["TRESOR_VAULT": nil, "TRESOR_PASSPHRASE_FILE": nil, "TMPDIR": dir])
        XCTAssertEqual(r.code, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("Merged origin: 1 entry changed: Email/gmail"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Pulled from origin (fast-forward)."), r.stdout)
    }

    // MARK: Every command shown is a real one

    /// The `tresor …` commands of a text: command words after `|`, `;`, `&&`, `$(`, `<(` and variable assignments.
    static func tresorCommands(in text: String) -> [[String]] {
        var t = text
        for separator in ["\"$(", "$(", "<(", "&&", "||", "|", ";", ")"] { t = t.replacingOccurrences(of: separator, with: "\n") }
        return t.components(separatedBy: "\n").compactMap { segment in
            var words = shellWords(segment)
            while let first = words.first, first.contains("="), !first.hasPrefix("-"), first.first?.isLetter == true { words.removeFirst() }
            while let first = words.first, ["eval", "exec", "command"].contains(first) { words.removeFirst() }
            guard words.first == "tresor" else { return nil }
            return Array(words.dropFirst())
        }
    }

    /// Words split at spaces, quotes kept together (quotes removed).
    static func shellWords(_ s: String) -> [String] {
        var words: [String] = [], current = "", quote: Character?, any = false
        for c in s {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c; any = true
            } else if c == " " || c == "\t" {
                if any || !current.isEmpty { words.append(current) }
                current = ""; any = false
            } else {
                current.append(c)
            }
        }
        if any || !current.isEmpty { words.append(current) }
        return words
    }

    /// Inline code spans of the prose (outside fenced blocks).
    static func inlineCode(in file: String) throws -> [String] {
        var spans: [String] = [], inside = false
        for line in try text(file).components(separatedBy: "\n") {
            if line.hasPrefix("```") { inside.toggle(); continue }
            if inside { continue }
            let parts = line.components(separatedBy: "`")
            spans += stride(from: 1, to: parts.count - 1, by: 2).map { parts[$0] }
        }
        return spans
    }

    /// A command of the tree `tresor --experimental-dump-help` prints (swift-argument-parser's own description of the
    /// commands, as the manual page is made from): its subcommands by name and alias, and its option names.
    struct CommandNode {
        var subcommands: [String: CommandNode] = [:]
        var options: Set<String> = []

        init(_ json: [String: Any]) {
            for argument in json["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] {
                    guard let n = name["name"] as? String else { continue }
                    options.insert((name["kind"] as? String == "long" ? "--" : "-") + n)
                }
            }
            for sub in json["subcommands"] as? [[String: Any]] ?? [] {
                let node = CommandNode(sub)
                for n in [sub["commandName"] as? String] + (sub["aliases"] as? [String] ?? []) { if let n { subcommands[n] = node } }
            }
        }

        init(options: Set<String>) { self.options = options }
    }

    /// The command tree; commands it leaves out (hidden ones: the agent, git's drivers) are read from their `--help`.
    func commandTree() throws -> CommandNode {
        let dump = try tresor(["--experimental-dump-help"])
        XCTAssertEqual(dump.code, 0, dump.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        return CommandNode(try XCTUnwrap(json["command"] as? [String: Any]))
    }

    func hiddenCommand(_ name: String) throws -> CommandNode? {
        let r = try tresor([name, "--help"])
        guard r.code == 0, r.stdout.contains("USAGE: tresor \(name) ") || r.stdout.contains("USAGE: tresor \(name)\n") else { return nil }
        let words = r.stdout.components(separatedBy: CharacterSet(charactersIn: " ,[]<>=\n")).filter { $0.hasPrefix("-") && $0.count > 1 }
        return CommandNode(options: Set(words))
    }

    /// Every `tresor …` shown in README.md, Samples/README.md and docs/ (in code blocks and inline) names a real
    /// command, and every option it gives is one that command has.
    func testEveryTresorCommandShownIsARealCommandWithRealOptions() throws {
        let root = try commandTree()
        var checked = 0
        for file in try ReadmeTourTests.documents() {
            var shown: [[String]] = []
            for b in try ReadmeTourTests.blocks(in: file) where b.language == "sh" || b.language == "" {
                for c in ReadmeTourTests.commands(b.lines) { shown += ReadmeTourTests.tresorCommands(in: c.text) }
            }
            for span in try ReadmeTourTests.inlineCode(in: file) { shown += ReadmeTourTests.tresorCommands(in: span) }
            for var words in shown {
                let all = "tresor " + words.joined(separator: " ")
                // Options that may come before the command.
                while let first = words.first, ["--vault", "--passphrase-file", "--identity"].contains(first) { words.removeFirst(min(2, words.count)) }
                guard let first = words.first, !["help", "--generate-completion-script", "--version", "--help"].contains(first) else { continue }
                guard var node = try root.subcommands[first] ?? hiddenCommand(first) else {
                    XCTFail("\(file): \"\(all)\": no command \"tresor \(first)\"")
                    continue
                }
                var rest = words.dropFirst()
                if let next = rest.first, let sub = node.subcommands[next] { node = sub; rest = rest.dropFirst() }
                if !node.subcommands.isEmpty, let next = rest.first, !next.hasPrefix("-") {
                    XCTFail("\(file): \"\(all)\": no subcommand \"\(next)\"")
                }
                for word in rest.prefix(while: { $0 != "--" }) where word.hasPrefix("-") && word != "-" {
                    let option = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
                    XCTAssertTrue(node.options.contains(option), "\(file): \"\(all)\": no option \(option)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// Every relative link of the guide leads to a file, and every #anchor to a heading of that page.
    func testEveryLinkOfTheGuideLeadsSomewhere() throws {
        func anchors(_ file: String) throws -> Set<String> {
            Set(try ReadmeTourTests.text(file).components(separatedBy: "\n").filter { $0.hasPrefix("#") }.map { heading in
                String(heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                    .filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
                    .map { $0 == " " ? "-" : $0 })
            })
        }
        for file in try ReadmeTourTests.documents() {
            let base = (file as NSString).deletingLastPathComponent
            let parts = try ReadmeTourTests.text(file).components(separatedBy: "](").dropFirst()
            for part in parts {
                let target = String(part.prefix { $0 != ")" })
                guard !target.hasPrefix("http"), !target.isEmpty else { continue }
                let pieces = target.components(separatedBy: "#")
                let path = pieces[0].isEmpty ? file : ((base as NSString).appendingPathComponent(pieces[0]) as NSString).standardizingPath
                XCTAssertTrue(FileManager.default.fileExists(atPath: ReadmeTourTests.repository + "/" + path), "\(file): link to \(target)")
                if pieces.count > 1, path.hasSuffix(".md") {
                    XCTAssertTrue(try anchors(path).contains(pieces[1]), "\(file): no heading #\(pieces[1]) in \(path)")
                }
            }
        }
    }

    /// Every marker names a test of this class.
    func testEveryMarkedExampleHasItsTest() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        var markers = 0
        for file in try ReadmeTourTests.documents() {
            for b in try ReadmeTourTests.blocks(in: file) {
                guard let m = b.marker else { continue }
                markers += 1
                XCTAssertTrue(source.contains("func \(m)()"), "\(file): no test \(m)")
            }
        }
        XCTAssertGreaterThan(markers, 10)
    }

    // MARK: docs/sync.md

    func testSyncGuideTwoMachines() throws {
        let laptop = try laptop()
        let r = try runCommands(try ReadmeTourTests.block("docs/sync.md", "testSyncGuideTwoMachines"),
                                machines: ["laptop": laptop, "desktop": machine("desktop")])
        XCTAssertEqual(r.count, 9)
        XCTAssertEqual(r[1].stdout, "Pushed the vault to the empty remote origin.\n")
        XCTAssertEqual(r[6].stdout, "Pushed to origin.\n")
        XCTAssertTrue(r[7].stdout.hasPrefix("Merged origin: 1 entry changed: Email/gmail\n  resolved: field \"password\" of \"Email/gmail\" was changed on both sides: kept the value written by this device at "), r[7].stdout)
        XCTAssertTrue(r[7].stdout.hasSuffix("is in the history\nPushed to origin.\n"), r[7].stdout)
        XCTAssertEqual(r[8].stdout, "Pulled from origin (fast-forward).\n")
        for m in [laptop, machine("desktop")] {
            XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "password").stdout, "from-desktop\n")
            XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "notes").stdout, "new 2FA\n")
            XCTAssertTrue(try on(m, "show", "Email/gmail", "--json").stdout.contains("\"value\": \"from-laptop\""), "the laptop's password is in the history")
        }
    }

    func testSyncGuideHistoryAndRestore() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--password-stdin", stdin: "one\n").code, 0)
        XCTAssertEqual(try on(m, "edit", "Email/gmail", "--password-stdin", stdin: "two\n").code, 0)
        let r = try runCommands(try ReadmeTourTests.block("docs/sync.md", "testSyncGuideHistoryAndRestore"), machines: ["": m])
        XCTAssertTrue(r[0].stdout.contains("\"value\": \"one\""), r[0].stdout)
        XCTAssertTrue(r[1].stdout.contains("changed: password"), r[1].stdout)
        XCTAssertFalse(r[1].stdout.contains("two"), "log never shows values")
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "password").stdout, "two\n")
        let subjects = try run("/usr/bin/git", ["-C", dir + "/home/.tresor", "log", "-3", "--format=%s"], stdin: nil, extraEnv: [:]).stdout
        XCTAssertEqual(subjects.components(separatedBy: "\n").map { $0.components(separatedBy: " ").first ?? "" }, ["Restore", "Restore", "Remove", ""], subjects)
        XCTAssertEqual(try on(m, "fsck").code, 0)
    }

    func testSyncGuideRepairRemote() throws {
        let m = try laptop()
        XCTAssertEqual(try on(m, "remote", "add", "origin", dir + "/remote.git").code, 0)
        XCTAssertEqual(try on(m, "sync").code, 0)
        // Junk pushed with plain git by someone without the key: an entry file removed.
        let junk = dir + "/junk"
        XCTAssertEqual(try run("/usr/bin/git", ["clone", "-q", dir + "/remote.git", junk], stdin: nil, extraEnv: [:]).code, 0)
        try FileManager.default.removeItem(atPath: junk + "/Email/gmail.json")
        XCTAssertEqual(try run("/usr/bin/git", ["-C", junk, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "junk"],
                               stdin: nil, extraEnv: [:]).code, 0)
        XCTAssertEqual(try run("/usr/bin/git", ["-C", junk, "push", "-q", "origin", "main"], stdin: nil, extraEnv: [:]).code, 0)
        let r = try runCommands(try ReadmeTourTests.block("docs/sync.md", "testSyncGuideRepairRemote"), machines: ["": m], codes: [0: 2])
        XCTAssertTrue(r[0].stderr.contains("nothing was taken; the local vault is unchanged"), r[0].stderr)
        XCTAssertTrue(r[0].stderr.contains("--repair-remote"), r[0].stderr)
        XCTAssertTrue(r[1].stderr.contains("discarded"), r[1].stderr)
        XCTAssertEqual(try on(m, "sync").stdout, "Already up to date with origin.\n")
        let clone = try tresor(["clone", dir + "/remote.git", dir + "/check"], extraEnv: m)
        XCTAssertEqual(clone.code, 0, clone.stderr)
        XCTAssertEqual(try tresor(["ls"], extraEnv: ["TRESOR_VAULT": dir + "/check"]).stdout, "Email/gmail\n")
    }

    /// A vault of format 1 (Tests/Fixtures/vault-format1) and its replica: read as it is, changes and sync point to
    /// `tresor upgrade`; upgraded on both, they sync.
    func testSyncGuideUpgrade() throws {
        let m = machine("laptop"), other = machine("desktop")
        let vault = dir + "/laptop/.tresor"
        try FileManager.default.copyItem(atPath: ReadmeTourTests.repository + "/Tests/Fixtures/vault-format1", toPath: vault)
        try write("demo passphrase\n", to: passphraseFile)
        let g = { (args: [String]) throws -> Int32 in try self.run("/usr/bin/git", args, stdin: nil, extraEnv: [:]).code }
        XCTAssertEqual(try g(["-C", vault, "init", "-q", "-b", "main"]), 0)
        XCTAssertEqual(try g(["-C", vault, "add", "-A"]), 0)
        XCTAssertEqual(try g(["-C", vault, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "format 1"]), 0)
        XCTAssertEqual(try g(["clone", "-q", "--bare", vault, dir + "/remote.git"]), 0)
        XCTAssertEqual(try g(["-C", vault, "remote", "add", "origin", dir + "/remote.git"]), 0)
        XCTAssertEqual(try g(["clone", "-q", dir + "/remote.git", dir + "/desktop/.tresor"]), 0)
        XCTAssertEqual(try on(m, "fsck", "--fix-permissions").code, 0)
        XCTAssertEqual(try on(other, "fsck", "--fix-permissions").code, 0)
        // Read as it is.
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "password").stdout, "gmail-Correct-Horse-8\n")
        XCTAssertEqual(try on(m, "grep", "TOTP").code, 0)
        // A change and a sync say to upgrade first.
        for args in [["add", "New/one", "--no-password"], ["sync"]] {
            let r = try tresor(args, extraEnv: m)
            XCTAssertEqual(r.code, 2)
            XCTAssertTrue(r.stderr.contains("tresor upgrade"), r.stderr)
        }
        let commands = try ReadmeTourTests.block("docs/sync.md", "testSyncGuideUpgrade")
        try runCommands(commands, machines: ["": m])
        // "Run it on each replica": the other converts the same commit and syncs.
        try runCommands(commands, machines: ["": other])
        XCTAssertEqual(try on(m, "sync").stdout, "Already up to date with origin.\n")
        XCTAssertEqual(try on(other, "show", "Bank/ing", "--field", "pin").stdout, "4711\n")
        let header = try String(contentsOfFile: vault + "/.tresor/vault.json", encoding: .utf8)
        XCTAssertTrue(header.contains("\"version\":5"), header)
    }

    // MARK: docs/members-and-scopes.md

    func testMembersGuide() throws {
        let laptop = try laptop()
        XCTAssertEqual(try on(laptop, "remote", "add", "origin", dir + "/remote.git").code, 0)
        XCTAssertEqual(try on(laptop, "sync").code, 0)
        let phone = machine("phone", passphrase: false)
        var phoneKey = ""
        let r = try runCommands(try ReadmeTourTests.block("docs/members-and-scopes.md", "testMembersGuide"),
                                machines: ["laptop": laptop, "phone": phone],
                                rewrite: { $0.replacingOccurrences(of: "tresor1…", with: phoneKey) },
                                after: { i, result in if i == 0 { phoneKey = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) } })
        XCTAssertTrue(phoneKey.hasPrefix("tresor1"), phoneKey)
        XCTAssertTrue(r[4].stdout.contains("password: first-password"), r[4].stdout)
        XCTAssertTrue(r[5].stdout.hasPrefix("phone\t"), r[5].stdout)
        XCTAssertTrue(r[5].stdout.contains(phoneKey), r[5].stdout)

        // Removal: the member's key slot goes, the vault key is replaced; the phone's sync says it was removed.
        let removal = try runCommands(try ReadmeTourTests.block("docs/members-and-scopes.md", "testMembersGuide", 1),
                                      machines: ["laptop": laptop, "phone": phone], codes: [2: 6, 3: 3])
        XCTAssertTrue(removal[2].stdout.contains("Email/gmail: password"), removal[2].stdout)
        XCTAssertTrue(removal[3].stderr.contains("you were removed"), removal[3].stderr)
        XCTAssertEqual(try on(laptop, "add", "Email/new", "--password-stdin", stdin: "after-removal\n").code, 0)
        XCTAssertEqual(try on(laptop, "sync").code, 0)
        let clone = try tresor(["clone", dir + "/remote.git", dir + "/phone/again"], extraEnv: phone)
        XCTAssertNotEqual(clone.code, 0, "the removed identity opens nothing written afterwards")
    }

    func testScopesGuide() throws {
        let laptop = try laptop()
        XCTAssertEqual(try on(laptop, "add", "Team/wiki", "--password-stdin", stdin: "team-secret\n").code, 0)
        XCTAssertEqual(try on(laptop, "remote", "add", "origin", dir + "/remote.git").code, 0)
        let carol = machine("carol", passphrase: false)
        let keys = ["carol": try newIdentity("carol"), "dave": try newIdentity("dave")]
        let r = try runCommands(try ReadmeTourTests.block("docs/members-and-scopes.md", "testScopesGuide"),
                                machines: ["laptop": laptop, "carol": carol],
                                rewrite: { line in keys.reduce(line) { $0.replacingOccurrences(of: "\($1.key) tresor1…", with: "\($1.key) \($1.value)") } })
        XCTAssertTrue(r[2].stdout.hasPrefix("Team\topen\t") && r[2].stdout.hasSuffix("\t(held)\n"), r[2].stdout)
        XCTAssertEqual(Set(r[2].stdout.split(separator: "\t")[2].split(separator: ",")), ["carol", "dave"], r[2].stdout)
        XCTAssertTrue(r[4].stderr.contains("2 entries; the one you can open was decrypted and verified"), r[4].stderr)
        XCTAssertTrue(r[5].stdout.contains("password: team-secret"), r[5].stdout)
        XCTAssertEqual(try on(carol, "show", "Email/gmail").code, 3, "carol holds Team only")
        XCTAssertEqual(try on(laptop, "scope", "ls").stdout, "")
        XCTAssertEqual(try on(laptop, "show", "Team/wiki", "--field", "password").stdout, "team-secret\n")
    }

    func testScopesGuideAccept() throws {
        let laptop = try laptop()
        XCTAssertEqual(try on(laptop, "add", "Team/wiki", "--password-stdin", stdin: "team-secret\n").code, 0)
        XCTAssertEqual(try on(laptop, "add", "Ops/db", "--password-stdin", stdin: "ops-secret\n").code, 0)
        XCTAssertEqual(try on(laptop, "remote", "add", "origin", dir + "/remote.git").code, 0)
        let carol = machine("carol", passphrase: false), key = try newIdentity("carol")
        XCTAssertEqual(try on(laptop, "scope", "create", "Team", "--member", "carol", key).code, 0)
        XCTAssertEqual(try on(laptop, "sync").code, 0)
        XCTAssertEqual(try tresor(["clone", dir + "/remote.git"], extraEnv: carol).code, 0)
        XCTAssertEqual(try on(laptop, "scope", "create", "Ops", "--member", "carol", key, "--closed").code, 0)
        XCTAssertEqual(try on(laptop, "sync").code, 0)
        let r = try runCommands(try ReadmeTourTests.block("docs/members-and-scopes.md", "testScopesGuideAccept"), machines: ["carol": carol],
                                after: { i, _ in
                                    if i == 1 { XCTAssertEqual(try self.on(carol, "show", "Ops/db").code, 3, "offered, not accepted: closed") }
                                })
        XCTAssertTrue(r[0].stderr.contains("note: the scope \"Ops\" has a slot for your identity but was not accepted"), r[0].stderr)
        XCTAssertTrue(r[1].stdout.contains("Ops\tclosed\tcarol\t(offered: not accepted)"), r[1].stdout)
        XCTAssertEqual(try on(carol, "show", "Ops/db", "--field", "password").stdout, "ops-secret\n")
    }

    // MARK: docs/sessions.md

    func testSessionsGuide() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum", "--vault", dir + "/home/work-vault"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--password-stdin", stdin: "mail-secret\n").code, 0)
        try runCommands(try ReadmeTourTests.block("docs/sessions.md", "testSessionsGuide"), machines: ["": m])
        var without = m
        without.updateValue(nil, forKey: "TRESOR_PASSPHRASE_FILE")
        XCTAssertEqual(try tresor(["show", "Email/gmail"], extraEnv: without).code, 3, "~/.tresor was locked")
        XCTAssertEqual(try tresor(["fsck", "--vault", dir + "/home/work-vault"], extraEnv: without).code, 0, "the work vault is still unlocked")
        XCTAssertEqual(try tresor(["lock", "--all"], extraEnv: without).code, 0)
    }

    /// The env-variable session, typed as a person would: the passphrase once at the terminal, then no more.
    func testSessionsGuideEnv() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--password-stdin", stdin: "mail-secret\n").code, 0)
        let commands = try ReadmeTourTests.block("docs/sessions.md", "testSessionsGuideEnv")
        XCTAssertEqual(commands.count, 3)
        try write("set -e\n" + commands.map(\.text).joined(separator: "\n") + "\nenv | grep -c '^TRESOR_SESSION_[0-9a-f]' || true\necho ENV-DONE\n",
                  to: dir + "/env.sh")
        var e = env
        e["HOME"] = dir + "/home"
        e["TRESOR_VAULT"] = nil
        e["TRESOR_PASSPHRASE_FILE"] = nil
        e["TRESOR_AGENT"] = "off"
        e["PATH"] = binDirectory + ":/usr/bin:/bin"
        let t = try TerminalSession([dir + "/env.sh"], env: e, executable: "/bin/bash")
        t.expect("Passphrase for ")
        t.type("correct horse battery staple\n")
        t.expect("ENV-DONE")
        XCTAssertEqual(t.wait(timeout: 20), 0, t.screen)
        XCTAssertEqual(t.screen.components(separatedBy: "Passphrase for ").count, 2, "asked once: \(t.screen)")
        XCTAssertTrue(t.screen.contains("mail-secret"), t.screen)
        XCTAssertTrue(t.screen.contains("0\r\nENV-DONE"), "the lock's eval unset the variable: \(t.screen)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/sessions").count, 0, "the session file is gone")
    }

    // MARK: docs/entries.md

    func testEntriesGuideAdding() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        let commands = try ReadmeTourTests.block("docs/entries.md", "testEntriesGuideAdding")
        try write("set -e\n" + commands.map(\.text).joined(separator: "\n") + "\necho ADDED\n", to: dir + "/add.sh")
        var e = env
        e["HOME"] = dir + "/home"
        e["TRESOR_VAULT"] = nil
        e["PATH"] = binDirectory + ":/usr/bin:/bin"
        let t = try TerminalSession([dir + "/add.sh"], env: e, executable: "/bin/bash")
        t.expect("[n]o password? ")
        t.type("a\n")
        t.expect("Bank password: ")
        t.type("bank-secret-typed\n")
        t.expect("ADDED")
        XCTAssertEqual(t.wait(timeout: 20), 0, t.screen)
        XCTAssertFalse(t.screen.contains("bank-secret-typed"), "read without echo")
        XCTAssertEqual(try on(m, "ls").stdout, "Bank/ing\nEmail/gmail\nSocial/github\nWi-Fi/home\n")
        XCTAssertEqual(try on(m, "show", "Bank/ing", "--field", "password").stdout, "bank-secret-typed\n")
        XCTAssertEqual(try on(m, "show", "Bank/ing", "--field", "pin").stdout, "4711\n")
        XCTAssertEqual(try on(m, "show", "Wi-Fi/home", "--field", "password").code, 4, "no password")
        XCTAssertEqual(try on(m, "show", "Social/github", "--field", "password").stdout.split(separator: "-").count, 5)
    }

    func testEntriesGuideEditing() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--username", "alice", "--note", "old note", "--password-stdin", stdin: "pw\n").code, 0)
        XCTAssertEqual(try on(m, "add", "Bank/ing", "--generate", "--length", "30").code, 0)
        XCTAssertEqual(try on(m, "add", "Social/github", "--no-password").code, 0)
        XCTAssertEqual(try on(m, "add", "Wi-Fi/home", "--no-password").code, 0)
        let before = try on(m, "show", "Bank/ing", "--field", "password").stdout
        let editor = dir + "/editor.sh"
        try write("#!/bin/sh\nsed -i 's/^password: .*/password: typed-in-the-editor/' \"$1\"\n", to: editor)
        chmod(editor, 0o755)
        var withEditor = m
        withEditor["EDITOR"] = editor
        try runCommands(try ReadmeTourTests.block("docs/entries.md", "testEntriesGuideEditing"), machines: ["": withEditor])
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "password").stdout, "typed-in-the-editor\n")
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "username").stdout, "alice.smith\n")
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "notes").code, 4)
        XCTAssertEqual(try on(m, "show", "Email/gmail", "--field", "urls").stdout, "https://gmail.com\n")
        let after = try on(m, "show", "Bank/ing", "--field", "password").stdout
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(after.count, 31, "rotated under its policy (30 characters)")
        XCTAssertEqual(try on(m, "ls").stdout, "Bank/ing\nDev/github\nEmail/gmail\n")
    }

    // MARK: docs/integrations.md

    func testIntegrationsGuideReferences() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--password-stdin", stdin: "mail-secret\n").code, 0)
        XCTAssertEqual(try on(m, "add", "Servers/db", "--password-stdin", stdin: "db-secret-42\n").code, 0)
        try write("#!/bin/sh\necho \"deploying with $DB_PASSWORD\"\n", to: dir + "/home/deploy.sh")
        chmod(dir + "/home/deploy.sh", 0o755)
        try write("database:\n  password: {{ tresor://Servers/db/password }}\n", to: dir + "/home/config.yml.tpl")
        let r = try runCommands(try ReadmeTourTests.block("docs/integrations.md", "testIntegrationsGuideReferences"), machines: ["": m])
        XCTAssertEqual(r[0].stdout, "mail-secret\n")
        XCTAssertEqual(r[1].stdout, "deploying with <concealed by tresor>\n")
        XCTAssertEqual(try String(contentsOfFile: dir + "/home/config.yml", encoding: .utf8), "database:\n  password: db-secret-42\n")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/home/config.yml")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    func testIntegrationsGuideSSHAdd() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-agent") else { throw XCTSkip("needs openssh-client") }
        var m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        try FileManager.default.createDirectory(atPath: dir + "/home/.ssh", withIntermediateDirectories: true)
        XCTAssertEqual(try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "web-key", "-f", dir + "/home/.ssh/id_ed25519"],
                               stdin: nil, extraEnv: [:]).code, 0)
        let socket = dir + "/ssh-agent.sock"
        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
        agent.arguments = ["-D", "-a", socket]
        agent.standardOutput = FileHandle.nullDevice
        agent.standardError = FileHandle.nullDevice
        try agent.run()
        defer { agent.terminate(); agent.waitUntilExit() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(10_000) }
        m["SSH_AUTH_SOCK"] = socket
        let listed = { () throws -> String in try self.run("/usr/bin/ssh-add", ["-l"], stdin: nil, extraEnv: ["SSH_AUTH_SOCK": socket]).stdout }
        try runCommands(try ReadmeTourTests.block("docs/integrations.md", "testIntegrationsGuideSSHAdd"), machines: ["": m],
                        after: { i, _ in
                            if i == 1 { XCTAssertTrue(try listed().contains("web-key"), "in the agent") }
                            if i == 2 { XCTAssertFalse(try listed().contains("web-key"), "out again") }
                        })
    }

    // MARK: docs/import-export.md, docs/generator-and-audit.md, docs/library.md, Samples/README.md

    func testImportExportGuide() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Email/gmail", "--username", "alice", "--password-stdin", stdin: "one\n").code, 0)
        XCTAssertEqual(try on(m, "edit", "Email/gmail", "--password-stdin", stdin: "two\n").code, 0)
        XCTAssertEqual(try on(m, "add", "Bank/ing", "--password-stdin", stdin: "bank\n").code, 0)
        let head = { try self.run("/usr/bin/git", ["-C", self.dir + "/home/.tresor", "rev-parse", "HEAD"], stdin: nil, extraEnv: [:]).stdout }
        var beforeDryRun = ""
        try runCommands(try ReadmeTourTests.block("docs/import-export.md", "testImportExportGuide"), machines: ["": m],
                        after: { i, _ in
                            if i == 0 { beforeDryRun = try head() }
                            if i == 1 { XCTAssertEqual(try head(), beforeDryRun, "a dry run writes nothing") }
                        })
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/home/backup.json")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try on(m, "ls", "Restored").stdout, "Restored/Bank/ing\nRestored/Email/gmail\n")
        XCTAssertTrue(try on(m, "show", "Restored/Email/gmail", "--json").stdout.contains("\"value\": \"one\""), "with its history")
        let csv = try String(contentsOfFile: dir + "/home/email.csv", encoding: .utf8)
        XCTAssertTrue(csv.hasPrefix("\"Group\",\"Title\",\"Username\",\"Password\""), csv)
        XCTAssertTrue(csv.contains("\"gmail\"") && !csv.contains("\"ing\""), csv)
    }

    func testGeneratorGuide() throws {
        let m = machine("home")
        XCTAssertEqual(try tresor(["init", "--kdf", "minimum"], extraEnv: m).code, 0)
        XCTAssertEqual(try on(m, "add", "Web/shop", "--url", "http://shop.example", "--password-stdin", stdin: "dragon1987\n").code, 0)
        let r = try runCommands(try ReadmeTourTests.block("docs/generator-and-audit.md", "testGeneratorGuide"), machines: ["": m], codes: [6: 6])
        XCTAssertEqual(r[0].stdout.count, 25)
        XCTAssertEqual(r[1].stdout.split(separator: "-").count, 6)
        XCTAssertEqual(r[2].stdout.split(separator: "\n").count, 3)
        XCTAssertTrue(r[3].stdout.hasPrefix("score "), r[3].stdout)
        XCTAssertTrue(r[6].stdout.contains("Web/shop: weak") && r[6].stdout.contains("Web/shop: insecure url: http:// (shop.example)"), r[6].stdout)
        let rotated = try on(m, "show", "Shop/books", "--field", "password").stdout
        XCTAssertEqual(rotated.count, 21)
        XCTAssertTrue(rotated.dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, rotated)
    }

    /// The Swift code of docs/library.md is Examples/QuickStart's, line for line (LibraryExampleTests builds and runs it).
    func testLibraryGuideQuotesTheExample() throws {
        let block = try XCTUnwrap(try ReadmeTourTests.blocks(in: "docs/library.md").first { $0.language == "swift" })
        let example = try ReadmeTourTests.text("Examples/QuickStart/main.swift").components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var at = 0
        for line in block.lines.map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            guard let found = example[at...].firstIndex(of: line) else { XCTFail("not in Examples/QuickStart/main.swift: \(line)"); return }
            at = found + 1
        }
    }

    func testSamplesReadme() throws {
        try FileManager.default.createDirectory(atPath: dir + "/repo/Samples", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ReadmeTourTests.repository + "/Samples/demo-vault", toPath: dir + "/repo/Samples/demo-vault")
        let block = try XCTUnwrap(try ReadmeTourTests.blocks(in: "Samples/README.md").first { $0.language == "sh" })
        let script = ReadmeTourTests.commands(block.lines).map(\.text).joined(separator: "\n")
            .replacingOccurrences(of: "/tmp/demo-pass", with: dir + "/demo-pass")
        let r = try run("/bin/bash", ["-c", "set -e\ncd \"\(dir)/repo\"\n" + script], stdin: nil,
                        extraEnv: ["PATH": binDirectory + ":/usr/bin:/bin", "TRESOR_VAULT": nil, "TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Email/gmail"), r.stdout)
        XCTAssertTrue(r.stdout.contains("username: alice"), r.stdout)
    }
}
