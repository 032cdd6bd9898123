// `tresor run`: start a program with the secrets its environment refers to, concealing them in its output.
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

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program with every environment variable that holds a secret reference resolved.",
        discussion: """
            Every variable whose value is a reference (tresor://ENTRY/PATH/FIELD), in tresor's environment or in an \
            --env-file, is given to COMMAND holding the value instead. All references are resolved before COMMAND \
            starts: a missing entry or field stops here, naming the variable and reference. Secrets never pass \
            through the command line.

            Env files (dotenv syntax: NAME=value lines, optional 'export ', # comments, 'single' or "double" quotes \
            with \\n escapes) are read in order over tresor's environment; a later one wins.

            Masking: COMMAND's standard output and error go through tresor, which replaces each resolved value (and \
            each line of 8 bytes or more of a value of several lines) by <concealed by tresor>, also when a value is \
            split across writes. Bytes that could begin a secret are held until the next bytes show whether they do. \
            So COMMAND writes to pipes, not to the terminal: programs that colour or page their output at a terminal \
            do not, and what COMMAND writes to /dev/tty itself is not filtered. --no-masking starts COMMAND in \
            tresor's place with tresor's own standard output and error.

            The exit status is COMMAND's own; if a signal ends it, tresor ends by the same signal. A signal sent to \
            tresor by another process (kill) is passed on to COMMAND; one the terminal sends (Ctrl-C) reaches both.
            """)

    @OptionGroup var options: VaultOptions
    @Option(name: .customLong("env-file"), help: ArgumentHelp("Read variables from this dotenv file (repeatable; later files win).", valueName: "file"),
            completion: .file())
    var envFiles: [String] = []
    @Flag(help: "Give COMMAND tresor's standard output and error instead of concealing secrets in them.") var noMasking = false
    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("no command: tresor run [--env-file FILE]… -- COMMAND [ARGUMENTS…]") }
    }

    func run() throws {
        // What the program gets: tresor's environment without the ways into the vault, then the env files.
        var plain = ProcessHardening.environmentWithoutSecrets()
        for file in envFiles {
            for (name, value) in try DotEnv.read(file) { plain[name] = value }
        }
        var names: [String] = []
        var refs: [SecretReference] = []
        for (name, value) in plain.sorted(by: { $0.key < $1.key }) where SecretReference.isReference(value) {
            do { refs.append(try SecretReference(parsing: value)) } catch let e as IntegrationError {
                throw CLIError("$\(Output.escaped(name)): \(e.message)", code: e.exitCode)
            }
            names.append(name)
        }
        let values: [SecretText]
        do { values = try References.resolve(refs, options: options) } catch let e as CLIError {
            // Name the variables as well as their references.
            var message = e.message
            for (name, ref) in zip(names, refs) {
                message = message.replacingAll(Output.escaped(ref.text) + ":", with: "$\(Output.escaped(name)) (\(Output.escaped(ref.text))):")
            }
            throw CLIError(message, code: e.code)
        }
        var secret: [String: SecretText] = [:]
        for (name, (ref, value)) in zip(names, zip(refs, values)) {
            if value.withUTF8({ $0.contains(0) }) {
                throw CLIError("$\(Output.escaped(name)): " + IntegrationError.unusableValue(reference: ref.text, problem: .nulByte).message)
            }
            secret[name] = value
            plain[name] = nil
        }
        let environment = ChildEnvironment(plain: plain, secret: secret)
        let program = try ChildProcess.locate(command[0], path: plain["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        if noMasking || secret.isEmpty {
            // Nothing to conceal: COMMAND takes tresor's place (same process, signals and exit status).
            VaultOptions.printWarnings()
            let e = ChildProcess.exec(program, arguments: command, environment: environment)
            throw CLIError("cannot start \(Output.quoted(command[0])): \(String(cString: strerror(e)))", code: 126)
        }
        let masked = SecretMasker.secrets(for: Array(secret.values))
        let status = try ChildProcess.runMasked(program, arguments: command, environment: environment, secrets: masked)
        VaultOptions.printWarnings()
        status.exitTheSameWay()
    }
}

/// A child's environment: `NAME=value` strings, the secret ones built in zeroing memory only.
struct ChildEnvironment {
    let block: SecretBytes
    let offsets: [Int]

    init(plain: [String: String], secret: [String: SecretText]) {
        var b = SecretByteBuilder(capacity: 4096)
        var offsets: [Int] = []
        for (name, value) in plain.sorted(by: { $0.key < $1.key }) {
            offsets.append(b.count)
            b.append(name + "=" + value)
            b.append(0)
        }
        for (name, value) in secret.sorted(by: { $0.key < $1.key }) {
            offsets.append(b.count)
            b.append(name + "=")
            value.withUTF8 { b.append($0) }
            b.append(0)
        }
        block = b.finish()
        self.offsets = offsets
    }

    /// Runs `body` with a NULL-terminated `envp` array pointing into the block.
    func withEnvp<R>(_ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        block.withBytes { raw in
            let base = UnsafeMutableRawPointer(mutating: raw.baseAddress!)
            let envp = offsets.map { (base + $0).assumingMemoryBound(to: CChar.self) as UnsafeMutablePointer<CChar>? } + [nil]
            return body(envp)
        }
    }
}

/// Variables from a dotenv file.
enum DotEnv {
    static let maxBytes = 1 << 20

    /// The `NAME=value` pairs of `path`, in order. - Throws: `CLIError` naming the file and line.
    static func read(_ path: String) throws -> [(String, String)] {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: maxBytes) } catch let e as CoreError {
            throw CLIError("cannot read the env file \(Output.quoted(path)): \(e.message)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CLIError("the env file \(Output.quoted(path)) is not UTF-8 text") }
        do { return try parse(text) } catch let e as Problem {
            throw CLIError("env file \(Output.quoted(path)), line \(e.line): \(e.message)")
        }
    }

    struct Problem: Error { let line: Int; let message: String }

    static func parse(_ text: String) throws -> [(String, String)] {
        var out: [(String, String)] = []
        let chars = Array(text.unicodeScalars)
        var i = 0, line = 1
        func skipBlanks() { while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 } }
        while i < chars.count {
            skipBlanks()
            if i < chars.count, chars[i] == "\n" || chars[i] == "\r" { if chars[i] == "\n" { line += 1 }; i += 1; continue }
            if i < chars.count, chars[i] == "#" { while i < chars.count, chars[i] != "\n" { i += 1 }; continue }
            guard i < chars.count else { break }
            let startLine = line
            var name = ""
            while i < chars.count, chars[i] == "_" || (chars[i].isASCII && chars[i].properties.isAlphabetic) || ("0"..."9").contains(chars[i]) {
                name.unicodeScalars.append(chars[i]); i += 1
            }
            if name == "export", i < chars.count, chars[i] == " " || chars[i] == "\t" {
                skipBlanks()
                name = ""
                while i < chars.count, chars[i] == "_" || (chars[i].isASCII && chars[i].properties.isAlphabetic) || ("0"..."9").contains(chars[i]) {
                    name.unicodeScalars.append(chars[i]); i += 1
                }
            }
            guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else {
                throw Problem(line: startLine, message: "expected NAME=value (a name of letters, digits and _, not starting with a digit)")
            }
            skipBlanks()
            guard i < chars.count, chars[i] == "=" else { throw Problem(line: startLine, message: "expected NAME=value; no = after \"\(name)\"") }
            i += 1
            skipBlanks()
            var value = String.UnicodeScalarView()
            if i < chars.count, chars[i] == "'" || chars[i] == "\"" {
                let quote = chars[i]
                i += 1
                var closed = false
                while i < chars.count {
                    let c = chars[i]
                    if c == quote { closed = true; i += 1; break }
                    if c == "\n" { line += 1 }
                    if quote == "\"", c == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        switch e {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "r": value.append("\r")
                        case "\"", "\\", "$": value.append(e)
                        default: value.append(c); value.append(e)
                        }
                        i += 2
                        continue
                    }
                    value.append(c)
                    i += 1
                }
                guard closed else { throw Problem(line: startLine, message: "the value of \(name) has no closing \(quote)") }
                skipBlanks()
                if i < chars.count, chars[i] == "#" { while i < chars.count, chars[i] != "\n" { i += 1 } }
                guard i >= chars.count || chars[i] == "\n" || chars[i] == "\r" else {
                    throw Problem(line: line, message: "unexpected text after the quoted value of \(name)")
                }
            } else {
                while i < chars.count, chars[i] != "\n", chars[i] != "\r" {
                    // " #" starts a comment.
                    if chars[i] == "#", let last = value.last, last == " " || last == "\t" { while i < chars.count, chars[i] != "\n" { i += 1 }; break }
                    value.append(chars[i]); i += 1
                }
                while let last = value.last, last == " " || last == "\t" { value.removeLast() }
            }
            out.append((name, String(value)))
        }
        return out
    }
}
