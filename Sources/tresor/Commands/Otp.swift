// `tresor otp`: the current one-time code (TOTP) of an entry, printed or copied; and checking otpauth:// URIs before they are stored.
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

struct Otp: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "otp", 
        abstract: "Print the current one-time code (TOTP) of an entry.",
        discussion: "The entry's \"otp\" field holds an otpauth://totp/ URI (add it with --otp-uri on add or edit, or as the otp: line in the editor).")

    @OptionGroup var options: VaultOptions
    @Argument(help: "Entry path.", completion: Completion.entries) var path: String
    @Flag(help: "Print a JSON object: code, secondsLeft, period, digits, algorithm (with --clip: what was copied, not the code).") var json = false
    @Flag(name: [.customShort("c"), .customLong("clip")], help: "Copy the code to the clipboard instead of printing it.") var clip = false
    @OptionGroup var clipOptions: ClipOptions

    func run() throws {
        let vault = try options.open(unlock: true)
        let entry = try vault.read(try vault.existingPath(path))
        guard let uri = entry.text(TOTP.fieldName) else {
            throw CLIError("entry \"\(entry.path)\" has no one-time code (no field \"\(TOTP.fieldName)\")\nhint: tresor edit \(entry.path) --otp-uri 'otpauth://totp/…'",
                           code: ExitStatus.notFound)
        }
        let totp = try OTPURI.parse(uri, entry: entry.path.string)
        let now = Int64(Date().timeIntervalSince1970)
        let code = totp.code(at: now)
        if clip {
            try clipOptions.copy(SecretBytes(utf8: code), field: TOTP.fieldName, of: entry.path, json: json)
        } else if json {
            Output.json(.object(["code": .string(code), "secondsLeft": .integer(totp.secondsLeft(at: now)),
                                 "period": .integer(totp.period), "digits": .integer(totp.digits),
                                 "algorithm": .string(totp.algorithm.rawValue)]))
        } else {
            Output.line(code)
        }
    }
}

/// otpauth:// URIs from the command line, the editor or an entry, checked with TresorCore's `TOTP`.
enum OTPURI {
    /// The parsed URI. - Throws: `CLIError` saying what is wrong, naming the entry when given.
    static func parse(_ uri: String, entry: String? = nil) throws -> TOTP {
        do { return try TOTP(uri: uri) } catch let e as OTPError {
            throw CLIError("\(entry.map { "the one-time code of \"\($0)\": " } ?? "")\(e.message)\nhint: the form is otpauth://totp/LABEL?secret=BASE32[&algorithm=SHA1|SHA256|SHA512][&digits=6..8][&period=SECONDS]")
        }
    }

    /// `--otp-uri VALUE`: the URI itself, or `-` for one line of standard input (without echo at a terminal).
    static func read(_ value: String) throws -> String {
        guard value == "-" else {
            Output.warning("a one-time code secret on the command line is visible to other users (ps, /proc) and kept in shell history\nhint: use --otp-uri - and give it on standard input")
            return value
        }
        if Prompt.standardInputIsTerminal {
            var line = try Prompt.secretLine("otpauth URI: ", on: Prompt.Channel(fd: STDIN_FILENO, writesPrompt: false))
            defer { SecretBytes.wipe(&line) }
            guard let s = String(validating: line, as: UTF8.self) else { throw CLIError("the URI is not UTF-8 text") }
            return s
        }
        guard let line = readLine(strippingNewline: true) else { throw CLIError("no otpauth URI on standard input") }
        return line
    }
}

extension OTPError {
    /// What is wrong, in words.
    var message: String {
        switch self {
        case .notAnOTPAuthURI: return "not an otpauth:// URI"
        case .unsupportedType(let t): return "\"\(displayable(t))\" codes are not supported, only totp"
        case .missingSecret: return "the URI has no secret= parameter"
        case .badSecret(let why): return "the secret is not base32: \(why.message)"
        case .badAlgorithm(let a): return "unknown algorithm \"\(displayable(a))\" (use SHA1, SHA256 or SHA512)"
        case .badDigits(let d): return "digits=\(displayable(d)) is not 6, 7 or 8"
        case .badPeriod(let p): return "period=\(displayable(p)) is not a whole number of seconds from 1 to 86400"
        }
    }
}

extension OTPError.SecretProblem {
    var message: String {
        switch self {
        case .paddingInTheMiddle: return "\"=\" padding in the middle"
        case .notBase32(let c): return "\"\(displayable(String(Character(c))))\" is not a base32 character"
        case .empty: return "it is empty"
        case .length(let n): return "\(n) characters is not a valid base32 length"
        case .wrongPadding: return "wrong padding"
        }
    }
}
