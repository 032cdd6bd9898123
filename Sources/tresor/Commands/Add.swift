// `tresor add`: create an entry, with a password from stdin, the generator, or typed at the terminal.
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

struct Add: ParsableCommand, CommitsToGit {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an entry.")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path, e.g. Email/gmail.", completion: Completion.folders) var path: String
    @Option(help: "User name.") var username: String?
    @Option(name: .customLong("url"), help: "A URL (repeatable).") var urls: [String] = []
    @Option(help: "Notes.") var note: String?
    @Option(name: .customLong("field"), help: ArgumentHelp("A custom field (repeatable).", valueName: "name=value")) var fields: [String] = []
    @Option(name: .customLong("field-file"), help: ArgumentHelp("A custom field holding the contents of a file, e.g. ssh-key=~/.ssh/id_ed25519 (repeatable).", valueName: "name=file"),
            completion: .file())
    var fieldFiles: [String] = []
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Flag(help: "Read the password from standard input (up to the end; one final newline is dropped).") var passwordStdin = false
    @Flag(help: "Generate the password (see generator options).") var generate = false
    @Flag(help: "Add the entry without a password.") var noPassword = false
    @Option(help: ArgumentHelp("A one-time code secret as an otpauth://totp/ URI, or - to read it from standard input.", valueName: "uri"))
    var otpUri: String?
    @Flag(name: [.short, .long], help: "Replace an existing entry.") var force = false
    @Flag(help: .jsonReport) var json = false
    @OptionGroup(title: "Generator options") var generator: GeneratorOptions

    func validate() throws {
        if passwordStdin && generate { throw ValidationError("use --password-stdin or --generate, not both") }
        if passwordStdin && generator.isSpecified && generator.policy == nil { throw ValidationError("--password-stdin: generator options (--length, --words, …) need --generate instead") }
        if otpUri == "-" && passwordStdin { throw ValidationError("--password-stdin and --otp-uri - both read standard input") }
        if noPassword && (passwordStdin || generate || generator.isSpecified) { throw ValidationError("--no-password cannot be combined with a password source") }
    }

    func run() throws {
        let entryPath = try Vault.parsePath(path)
        let custom = try fields.map { try parseAssignment($0, option: "--field") }
        let fromFiles = try fieldFiles.map { try readFieldFile($0, option: "--field-file") }
        for (name, _) in fromFiles where Entry.standardFields.contains(name) || custom.contains(where: { $0.0 == name }) {
            throw ValidationError("--field-file: \"\(name)\" is a standard field or is also given to --field")
        }
        for (name, _) in custom where Entry.standardFields.contains(name) {
            throw ValidationError("--field: \"\(name)\" is a standard field: use --\(name == "urls" ? "url" : name == "tags" ? "tag" : name == "notes" ? "note" : name)" +
                                  (name == "password" ? "-stdin or --generate" : ""))
        }
        let otp = try otpUri.map { uri -> String in let u = try OTPURI.read(uri); _ = try OTPURI.parse(u); return u }
        let vault = try options.open(unlock: true)
        try vault.checkNew(entryPath, force: force)
        let policy = try generator.resolve()

        var password: SecretText?
        var entropy: Double?
        if noPassword {
            password = nil
        } else if passwordStdin {
            password = try readPasswordFromStdin()
            warnIfWeak(password!)
        } else if generate || (generator.isSpecified && !Prompt.interactive) {
            let g = try GeneratorOptions.generate(policy)
            password = g.secret
            entropy = g.entropyBits
            if !json { Output.status(String(printf: "Generated a password with %.1f bits of entropy.", g.entropyBits)) }
        } else if Prompt.interactive {
            password = try offerPassword(policy)
        } else {
            throw CLIError("no password for \"\(entryPath)\": standard input is not a terminal to ask at\nhint: use --password-stdin, --generate or --no-password", code: ExitCode.validationFailure.rawValue)
        }

        var fields: [String: FieldValue] = [:]
        if let password { fields["password"] = .text(password) }
        if let username { fields["username"] = .text(SecretText(username)) }
        if !urls.isEmpty { fields["urls"] = .list(urls) }
        if let note { fields["notes"] = .text(SecretText(note)) }
        if !tags.isEmpty { fields["tags"] = .list(tags) }
        if generator.isSpecified { fields["policy"] = .text(SecretText(policy.policyString)) }
        for (name, value) in custom {
            if name == TOTP.fieldName { _ = try OTPURI.parse(value) }
            fields[name] = .text(SecretText(value))
        }
        for (name, value) in fromFiles { fields[name] = .text(value) }
        if let otp { fields[TOTP.fieldName] = .text(SecretText(otp)) }
        let entry = try vault.add(entryPath, fields: fields, force: force)
        // The password itself is never in the report; a generated one is described by its entropy.
        Output.report(json: json, "Added \(entryPath)",
                      .object(["path": .string(entryPath.string), "fields": .array(entry.fields.keys.sorted().map(JSONValue.string)),
                               "generated": .bool(entropy != nil), "entropyBits": entropy.map(jsonEntropy) ?? .null]))
    }

    /// At a terminal: show a generated password; accept, regenerate, or type one's own.
    func offerPassword(_ policy: GeneratorPolicy) throws -> SecretText? {
        var offered = try GeneratorOptions.generate(policy)
        Output.status(String(printf: "Generated password (%.1f bits): ", offered.entropyBits) + offered.value)
        while true {
            guard let answer = Prompt.line("[a]ccept, [r]egenerate, [t]ype your own, [n]o password? ")?.lowercased() else {
                throw CLIError("no answer; nothing was added")
            }
            switch answer.trimming(.whitespaces) {
            case "a", "accept", "": return SecretText(offered.value)
            case "r", "regenerate":
                offered = try GeneratorOptions.generate(policy)
                Output.status(String(printf: "Generated password (%.1f bits): ", offered.entropyBits) + offered.value)
            case "t", "type":
                let typed = try Prompt.secretText("Password: ")
                guard typed == (try Prompt.secretText("Repeat password: ")) else { Output.warning("the passwords do not match"); continue }
                warnIfWeak(typed)
                return typed
            case "n", "no": return nil
            default:
                Output.status("Unknown answer \"\(displayable(answer))\": type a, r, t or n.")
            }
        }
    }
}

/// `name=value` given to `option` (`--field`, `--set`), with the name checked.
func parseAssignment(_ s: String, option: String) throws -> (String, String) {
    guard let eq = s.firstIndex(of: "=") else { throw ValidationError("\(option): \"\(displayable(s))\" is not NAME=VALUE") }
    let name = String(s[..<eq])
    do { try Entry.validateFieldName(name) } catch let e as CoreError { throw ValidationError("\(option): " + e.message) }
    if ["url", "tag"].contains(name) {
        // The view's `url:` and `tag:` lines are the list fields `urls` and `tags`.
        let list = name + "s"
        throw ValidationError("\(option): there is no field \"\(name)\": \(list) is the list of \(name)s\nhint: --set \(list)=VALUE replaces the whole list (repeat it for several), --add \(list)=VALUE adds one, --remove \(list)=VALUE removes one")
    }
    if let why = EditorText.problem(with: name) { throw ValidationError("\(option): field name \"\(displayable(name))\" is not allowed here: \(why)") }
    return (name, String(s[s.index(after: eq)...]))
}

/// `name=file` given to `option` (`--field-file`, `--set-file`): the field name checked, and the file's contents
/// exactly (a regular file or a pipe, at most 1 MiB, UTF-8), read into zeroing memory. - Throws: `ValidationError`,
/// `CLIError` naming the file.
func readFieldFile(_ s: String, option: String) throws -> (String, SecretText) {
    let (name, file) = try parseAssignment(s, option: option)
    let path = file.hasPrefix("~/") ? (ProcessEnvironment.value("HOME") ?? PathName.home()) + file.dropFirst() : file
    func cannotRead(_ code: Int32) -> CLIError { CLIError("\(option): cannot read \(Output.quoted(path)): \(String(cString: strerror(code)))") }
    let fd: Int32
    do { fd = try FileSystem.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC) } catch { throw cannotRead(error.errno) }
    defer { FileSystem.close(fd) }
    let st: stat
    do { st = try FileSystem.status(of: fd, path: path) } catch { throw cannotRead(error.errno) }
    guard st.st_mode & S_IFMT == S_IFREG || st.st_mode & S_IFMT == S_IFIFO else {
        throw CLIError("\(option): \(Output.quoted(path)) is not a regular file or a pipe")
    }
    let limit = 1 << 20
    var out = SecretByteBuilder(capacity: 4096)
    do { while out.count <= limit, try out.append(readingFrom: fd, path: path) > 0 {} } catch { throw cannotRead(error.errno) }
    guard out.count <= limit else { throw CLIError("\(option): \(Output.quoted(path)) is larger than 1 MiB") }
    guard let text = SecretText(validating: out.finish()) else { throw CLIError("\(option): \(Output.quoted(path)) is not UTF-8 text") }
    guard !text.isEmpty else { throw CLIError("\(option): \(Output.quoted(path)) is empty") }
    return (name, text)
}

/// All of standard input as a password; one final newline (LF or CRLF) is dropped. At a terminal,
/// one line typed without echo. Held in zeroing memory from the read on; never a `String`.
func readPasswordFromStdin() throws -> SecretText {
    if Prompt.standardInputIsTerminal {
        var line = try Prompt.secretLine("Password: ", on: Prompt.Channel(fd: STDIN_FILENO, writesPrompt: false))
        defer { SecretBytes.wipe(&line) }
        guard let typed = SecretText(copying: line) else { throw CLIError("what was typed is not UTF-8 text") }
        guard !typed.isEmpty else { throw CLIError("no password was typed") }
        return typed
    }
    let input = try Prompt.secretStandardInput()
    let text = try input.withBytes { all -> SecretText? in
        var n = all.count
        if n > 0 && all[n - 1] == 0x0A { n -= 1; if n > 0 && all[n - 1] == 0x0D { n -= 1 } }
        guard n > 0 else { throw CLIError("no password on standard input") }
        return SecretText(copying: UnsafeRawBufferPointer(rebasing: all[0..<n]))
    }
    guard let text else { throw CLIError("the password on standard input is not valid UTF-8") }
    return text
}
