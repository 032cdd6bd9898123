// `tresor read`, `tresor run` and `tresor inject` through the binary: references, masking, signals, exit codes, files.
import Foundation
import Tresor
import XCTest
@testable import tresor

final class SecretReferenceTests: CLITestCase {
    func readVault() throws {
        try sampleVault()
        try ok(["add", "Servers/web api", "--no-password", "--field", "api/token=tok-%-123", "--url", "https://a.example", "--url", "https://b.example"])
    }

    func testReadPrintsTheFieldAReferenceNames() throws {
        try readVault()
        XCTAssertEqual(try ok("read", "tresor://Email/gmail/password").stdout, "hunter2-gmail\n")
        XCTAssertEqual(try ok("read", "-n", "tresor://Email/gmail/username").stdout, "alice@gmail.com")
        XCTAssertEqual(try ok("read", "tresor://Social/github/pin").stdout, "4711\n")
        // Escaping: a space may be written as is or as %20, a / in a field name must be %2F, % itself %25.
        XCTAssertEqual(try ok("read", "tresor://Servers/web api/api%2Ftoken").stdout, "tok-%-123\n")
        XCTAssertEqual(try ok("read", "tresor://Servers/web%20api/api%2ftoken").stdout, "tok-%-123\n")
        XCTAssertEqual(try ok("read", "tresor://Servers/web api/urls").stdout, "https://a.example\nhttps://b.example\n")
        XCTAssertEqual(try ok("read", "tresor://Email/gm%61il/password").stdout, "hunter2-gmail\n")

        // Failures name the reference; a missing entry or field exits 4, a malformed reference 2.
        let cases: [(String, Int32, [String])] = [
            ("tresor://Email/gmail/nope", 4, ["tresor://Email/gmail/nope: entry \"Email/gmail\" has no field \"nope\"", "hint: it has password, urls, username"]),
            ("tresor://Email/gmial/password", 4, ["tresor://Email/gmial/password: no entry \"Email/gmial\"", "did you mean \"Email/gmail\"?"]),
            ("tresor://Email", 2, ["invalid reference \"tresor://Email\": a reference names an entry and a field"]),
            ("tresor://Email//password", 2, ["an empty component"]),
            ("tresor://Servers/web api/api/token", 4, ["no entry \"Servers/web api/api\""]),
            ("tresor://Email/gmail/pass%2", 2, ["a % must be followed by two hexadecimal digits"]),
            ("tresor://Email/gmail/%FF", 2, ["not UTF-8"]),
            ("tresor://../x/password", 2, ["the entry path is not valid"]),
            ("tresor://Email/gmail/a=b", 2, ["may not start with \".\" or contain \"=\""]),
            ("op://Email/gmail/password", 2, ["a reference starts with tresor://"]),
        ]
        for (ref, code, messages) in cases {
            let r = try tresor("read", ref)
            XCTAssertEqual(r.code, code, "\(ref): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", ref)
            for m in messages { XCTAssertTrue(r.stderr.contains(m), "\(ref): expected \(m) in \(r.stderr)") }
        }
        // Locked (no passphrase file, no terminal): an error, not a prompt.
        let locked = try tresor(["read", "tresor://Email/gmail/password"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(locked.code, 3, locked.stderr)
    }

    func testReferencesAreBuiltWithTheEscapingTheyAreReadWith() throws {
        let names: [(String, String, String)] = [
            ("Email/gmail", "password", "tresor://Email/gmail/password"),
            ("100%/x y", "a/b%c", "tresor://100%25/x y/a%2Fb%25c"),
            ("日本/パスポート", "番号", "tresor://日本/パスポート/番号"),
        ]
        for (path, field, text) in names {
            XCTAssertEqual(SecretReference(path: try EntryPath(path), field: field).text, text)
            let parsed = try SecretReference(parsing: text)
            XCTAssertEqual(parsed.path.string, path)
            XCTAssertEqual(parsed.field, field)
        }
    }

    func testInjectFillsATemplate() throws {
        try readVault()
        let template = dir + "/config.tpl", out = dir + "/config.yml"
        try write("""
            user: {{ tresor://Email/gmail/username }}
            password: "{{tresor://Email/gmail/password}}"
            token: {{   tresor://Servers/web api/api%2Ftoken   }} and {{ not.a.reference }} {{ tresor://Social/github/pin }}
            unchanged: { { tresor://Email/gmail/password } }

            """, to: template)
        // An existing file readable by others is replaced by a private one.
        try write("old\n", to: out)
        chmod(out, 0o644)
        let r = try ok("inject", "-i", template, "-o", out)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), """
            user: alice@gmail.com
            password: "hunter2-gmail"
            token: tok-%-123 and {{ not.a.reference }} 4711
            unchanged: { { tresor://Email/gmail/password } }

            """)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }, [], "no temporary file left")

        // Standard input to standard output.
        XCTAssertEqual(try ok(["inject"], stdin: "a={{ tresor://Email/work/password }}\n").stdout, "a=work-pass-123\n")

        // Every reference is checked first: nothing is written, and each missing one is named with its line.
        try write("a: {{ tresor://Email/gmail/password }}\nb: {{ tresor://Email/nope/password }}\nc: {{ tresor://Email/gmail/pin }}\n", to: template)
        let missing = try tresor("inject", "-i", template, "-o", out)
        XCTAssertEqual(missing.code, 4, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("tresor://Email/nope/password: no entry \"Email/nope\""), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("tresor://Email/gmail/pin: entry \"Email/gmail\" has no field \"pin\""), missing.stderr)
        XCTAssertTrue(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("user: alice"), "the output is untouched")

        try write("a: ok\nb: {{ tresor://Email/gmail/password\n", to: template)
        let open = try tresor("inject", "-i", template)
        XCTAssertEqual(open.code, 2)
        XCTAssertTrue(open.stderr.contains("line 2: a {{ tresor:// reference is not closed by }} on its line"), open.stderr)
        try write("x: {{ tresor://Email }}\n", to: template)
        let bad = try tresor("inject", "-i", template)
        XCTAssertTrue(bad.stderr.contains("line 1: invalid reference \"tresor://Email\""), bad.stderr)
        let none = try tresor("inject", "-i", dir + "/missing.tpl")
        XCTAssertEqual(none.code, 2)
        XCTAssertTrue(none.stderr.contains("cannot read the template"), none.stderr)
    }

    func testRunGivesTheProgramResolvedVariablesAndConcealsThemInItsOutput() throws {
        try readVault()
        let seen = dir + "/seen"
        let envFile = dir + "/app.env"
        try write("""
            # database
            export DB_PASSWORD=tresor://Email/work/password
            API_TOKEN = "tresor://Servers/web api/api%2Ftoken"   # a comment
            PLAIN='stays as it is'
            MULTI="line one\\nline two"

            """, to: envFile)
        let script = "printf '%s|%s|%s|%s|%s' \"$GMAIL\" \"$DB_PASSWORD\" \"$API_TOKEN\" \"$PLAIN\" \"${TRESOR_PASSPHRASE_FILE-unset}\" > \(seen); "
            + "echo \"out: $GMAIL and $DB_PASSWORD\"; echo \"err: $API_TOKEN\" >&2; echo \"$MULTI\"; exit 3"
        let r = try tresor(["run", "--env-file", envFile, "--", "/bin/sh", "-c", script], extraEnv: ["GMAIL": "tresor://Email/gmail/password"])
        XCTAssertEqual(r.code, 3, "the program's exit status: \(r.stderr)")
        XCTAssertEqual(try String(contentsOfFile: seen, encoding: .utf8), "hunter2-gmail|work-pass-123|tok-%-123|stays as it is|unset",
                       "the program sees values, not references, and no way into the vault")
        XCTAssertEqual(r.stdout, "out: <concealed by tresor> and <concealed by tresor>\nline one\nline two\n")
        XCTAssertEqual(r.stderr, "err: <concealed by tresor>\n")

        // --no-masking: the program's own output, untouched.
        let plain = try tresor(["run", "--no-masking", "--", "/bin/sh", "-c", "echo $GMAIL"], extraEnv: ["GMAIL": "tresor://Email/gmail/password"])
        XCTAssertEqual(plain.code, 0)
        XCTAssertEqual(plain.stdout, "hunter2-gmail\n")

        // No reference: nothing is unlocked (no passphrase needed), the program just runs.
        let noRefs = try tresor(["run", "--", "/bin/sh", "-c", "echo plain; exit 5"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(noRefs.code, 5)
        XCTAssertEqual(noRefs.stdout, "plain\n")
    }

    func testRunStopsBeforeTheProgramWhenAReferenceFails() throws {
        try readVault()
        let marker = dir + "/started"
        let cases: [([String: String?], Int32, String)] = [
            (["A": "tresor://Email/gmail/password", "B": "tresor://Email/nope/password"], 4, "$B (tresor://Email/nope/password): no entry \"Email/nope\""),
            (["B": "tresor://Email/gmail/nope"], 4, "$B (tresor://Email/gmail/nope): entry \"Email/gmail\" has no field \"nope\""),
            (["B": "tresor://Email"], 2, "$B: invalid reference \"tresor://Email\""),
            (["B": "tresor://Email/gmail/password", "TRESOR_PASSPHRASE_FILE": nil], 3, "no session and no passphrase file"),
        ]
        for (vars, code, message) in cases {
            let r = try tresor(["run", "--", "/usr/bin/touch", marker], extraEnv: vars)
            XCTAssertEqual(r.code, code, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "expected \(message) in \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the program must not start: \(vars)")
        }
        try write("GOOD=1\nthis is not an assignment\n", to: dir + "/bad.env")
        let bad = try tresor("run", "--env-file", dir + "/bad.env", "--", "/usr/bin/touch", marker)
        XCTAssertTrue(bad.stderr.contains("bad.env\", line 2: expected NAME=value"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        let notFound = try tresor("run", "--", "no-such-program-here")
        XCTAssertEqual(notFound.code, 127)
        XCTAssertTrue(notFound.stderr.contains("command not found: \"no-such-program-here\""), notFound.stderr)
        let noCommand = try tresor("run")
        XCTAssertNotEqual(noCommand.code, 0)
        XCTAssertTrue(noCommand.stderr.contains("no command"), noCommand.stderr)
    }

    /// A secret written in pieces (one byte per write, and across the 64 KiB a pipe holds) is still concealed.
    func testRunConcealsASecretSplitAcrossWrites() throws {
        try readVault()
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("needs python3") }
        let program = """
            import os, sys, time
            s = os.environ["S"].encode()
            for b in s:
                os.write(1, bytes([b]))
                time.sleep(0.002)
            os.write(1, b"\\n" + b"x" * 65533 + s + b"y\\n")
            os.write(2, s[:3]); os.write(2, s[3:] + b"!" + s[:5])
            """
        let r = try tresor(["run", "--", python, "-c", program], extraEnv: ["S": "tresor://Email/gmail/password"])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("hunter") || r.stderr.contains("hunter2"), "a piece of the secret came through")
        XCTAssertEqual(r.stdout, "<concealed by tresor>\n" + String(repeating: "x", count: 65533) + "<concealed by tresor>y\n")
        // A beginning that is never completed is given out at the end, as written.
        XCTAssertEqual(r.stderr, "<concealed by tresor>!hunte")
    }

    func testRunPassesOnSignalsAndEndsTheWayTheProgramEnds() throws {
        try readVault()
        let ready = dir + "/ready"
        let env = ["S": "tresor://Email/gmail/password"]
        // Killed by a signal: tresor ends by the same signal.
        let killed = try runRaw(["run", "--", "/bin/sh", "-c", "echo $S; kill -KILL $$"], env: env)
        XCTAssertEqual(killed.signal, SIGKILL)
        XCTAssertEqual(killed.stdout, "<concealed by tresor>\n", "output written before the end is not lost")
        // A signal sent to tresor reaches the program, which decides what to do with it.
        for (signal, name) in [(SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP"), (SIGUSR1, "USR1")] {
            try? FileManager.default.removeItem(atPath: ready)
            let script = "trap 'echo got \(name) $S; exit 7' \(name); touch \(ready); while :; do sleep 0.05; done"
            let r = try runRaw(["run", "--", "/bin/sh", "-c", script], env: env) { pid in
                try self.waitFor(ready)
                kill(pid, signal)
            }
            XCTAssertEqual(r.signal, 0, name)
            XCTAssertEqual(r.code, 7, "\(name): \(r.stderr)")
            XCTAssertEqual(r.stdout, "got \(name) <concealed by tresor>\n")
        }
        // A program that does not catch it dies of it, and so does tresor.
        try? FileManager.default.removeItem(atPath: ready)
        let term = try runRaw(["run", "--", "/bin/sh", "-c", "touch \(ready); exec sleep 30"], env: env) { pid in
            try self.waitFor(ready)
            kill(pid, SIGTERM)
        }
        XCTAssertEqual(term.signal, SIGTERM)
    }

    /// Ctrl-C at a terminal reaches the program (tresor runs it in the terminal's foreground group and outlives the
    /// signal itself); the program's status is tresor's.
    func testCtrlCAtATerminalReachesTheProgram() throws {
        try readVault()
        let shell = try TmuxSession(directory: dir, env: env.merging(["S": "tresor://Email/gmail/password"]) { $1 })
        let script = "n=0; trap 'n=$((n+1)); echo INT$n $S' INT; echo ready; i=0; while [ $n -eq 0 ] || [ $i -lt 10 ]; do sleep 0.05; "
            + "[ $n -gt 0 ] && i=$((i+1)); done; exit 9"
        shell.run("\(CLITestCase.binary) run -- /bin/sh -c \(TmuxSession.quote(script)); echo status=$?")
        XCTAssertTrue(shell.waitFor("\nready"), shell.screen)
        shell.keys("C-c")
        XCTAssertTrue(shell.waitFor("status=9"), shell.screen)
        XCTAssertTrue(shell.screen.contains("INT1 <concealed by tresor>"), "its output after Ctrl-C still goes through tresor: \(shell.screen)")
    }

    func waitFor(_ path: String) throws {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { throw XCTSkip("the program did not start") }
            usleep(10_000)
        }
    }

    struct RawResult { var code: Int32; var signal: Int32; var stdout: String; var stderr: String }

    /// Runs tresor with `posix_spawn`, telling an exit status from a signal; `during` gets its pid while it runs.
    func runRaw(_ args: [String], env extra: [String: String], during: ((pid_t) throws -> Void)? = nil) throws -> RawResult {
        let out = dir + "/.raw-out", err = dir + "/.raw-err"
        var e = env
        for (k, v) in extra { e[k] = v }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([CLITestCase.binary] + args).map { strdup($0) } + [nil]
        let envp = e.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, CLITestCase.binary, &actions, nil, argv, envp) == 0 else { throw XCTSkip("cannot start tresor") }
        do { try during?(pid) } catch { kill(pid, SIGKILL); var s: Int32 = 0; waitpid(pid, &s, 0); throw error }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return RawResult(code: (status >> 8) & 0xff, signal: status & 0x7f,
                         stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}

/// The masker on its own: every way of cutting a stream into chunks gives the same output.
final class SecretMaskerTests: XCTestCase {
    func mask(_ input: String, _ secrets: [String], cuts: [Int]) -> String {
        var masker = SecretMasker(secrets: secrets.map { SecretBytes(utf8: $0) })
        var out: [UInt8] = []
        let bytes = Array(input.utf8)
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            bytes[start..<cut].withUnsafeBytes { masker.feed($0) { out.append(contentsOf: $0) } }
            start = cut
        }
        masker.finish { out.append(contentsOf: $0) }
        return String(decoding: out, as: UTF8.self)
    }

    func testEverySplitGivesTheSameOutput() {
        let cases: [(String, [String], String)] = [
            ("the password is hunter2.", ["hunter2"], "the password is <concealed by tresor>."),
            ("hunhunter2hun", ["hunter2"], "hun<concealed by tresor>hun"),
            ("abcabcd", ["abc", "abcd"], "<concealed by tresor><concealed by tresor>"),
            ("aaab", ["aab"], "a<concealed by tresor>"),
            ("xy", ["xyz"], "xy"),
            ("token=s3cr3t&s3cr3t", ["s3cr3t", "token"], "<concealed by tresor>=<concealed by tresor>&<concealed by tresor>"),
            ("nothing to see", [], "nothing to see"),
            ("日本語のパスワード", ["パスワード"], "日本語の<concealed by tresor>"),
        ]
        for (input, secrets, expected) in cases {
            let n = input.utf8.count
            XCTAssertEqual(mask(input, secrets, cuts: []), expected, input)
            for a in 0...n {
                XCTAssertEqual(mask(input, secrets, cuts: [a]), expected, "\(input) cut at \(a)")
                for b in a...n { XCTAssertEqual(mask(input, secrets, cuts: [a, b]), expected, "\(input) cut at \(a), \(b)") }
            }
            XCTAssertEqual(mask(input, secrets, cuts: Array(0...n)), expected, "\(input) byte by byte")
        }
    }

    func testOnlyPossibleBeginningsAreHeldBack() {
        var masker = SecretMasker(secrets: [SecretBytes(utf8: "hunter2")])
        var out: [UInt8] = []
        Array("prompt> hun".utf8).withUnsafeBytes { masker.feed($0) { out.append(contentsOf: $0) } }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "prompt> ", "only what may start the secret waits")
        Array("gry".utf8).withUnsafeBytes { masker.feed($0) { out.append(contentsOf: $0) } }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "prompt> hungry")
    }

    func testLinesOfALongValueAreConcealedToo() {
        let key = SecretText("-----BEGIN KEY-----\r\nAAAABBBBCCCC\nshort\n-----END KEY-----")
        let secrets = SecretMasker.secrets(for: [key]).map { $0.utf8String()! }
        XCTAssertEqual(Set(secrets), ["-----BEGIN KEY-----\r\nAAAABBBBCCCC\nshort\n-----END KEY-----", "-----BEGIN KEY-----", "AAAABBBBCCCC", "-----END KEY-----"])
    }

    func testDotEnvSyntax() throws {
        let parsed = try DotEnv.parse("""
            # comment
            A=1
            export B = two words  # comment
              C='single # not a comment'
            D="double \\"quoted\\"\\nnext"
            E=
            F="spans
            lines"
            G=tresor://Email/gmail/password
            """)
        XCTAssertEqual(parsed.map(\.0), ["A", "B", "C", "D", "E", "F", "G"])
        XCTAssertEqual(parsed.map(\.1), ["1", "two words", "single # not a comment", "double \"quoted\"\nnext", "", "spans\nlines", "tresor://Email/gmail/password"])
        for (text, line) in [("A=1\n1B=2\n", 2), ("A='open\n", 1), ("A=\"x\" y\n", 1), ("=1\n", 1), ("A\n", 1)] {
            XCTAssertThrowsError(try DotEnv.parse(text), text) { XCTAssertEqual(($0 as? DotEnv.Problem)?.line, line, text) }
        }
    }
}
