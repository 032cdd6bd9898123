// Asking for passphrases: the vault named in the prompt, three tries, the rules of PassphraseRules, strength of new ones.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Text from elsewhere (file names, paths) made safe to print: control characters as `\u{…}` escapes.
func displayable(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
        if scalar.properties.generalCategory == .control || scalar == "\u{7F}" {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

extension PassphraseError {
    /// The message for a passphrase from `source` ("passphrase file \"x\"", "the typed passphrase").
    func message(source: String) -> String {
        switch self {
        case .byteOrderMark:
            return "\(source) starts with a byte order mark (EF BB BF), which is not part of a passphrase\nhint: save the file as UTF-8 without a BOM"
        case .nul(let offset):
            return "\(source) contains a NUL byte (at byte \(offset + 1))"
        case .invalidUTF8(let offset, let byte):
            return "\(source) is not UTF-8 text: byte \(offset + 1) is 0x\(String(printf: "%02X", byte))\nhint: passphrases are UTF-8 text; convert the file with iconv"
        case .tooLong(let maximum):
            return "\(source) is longer than \(maximum) bytes, the most tresor accepts\nhint: tresor never shortens a passphrase; use a shorter one"
        case .blank:
            return "\(source) is empty or only white space"
        }
    }
}

enum PassphraseInput {
    /// Tries at the terminal: a wrong passphrase, a mismatched repeat or a refused one asks again.
    static let tries = 3

    /// The vault as prompts name it: its directory, with the home directory as `~`.
    static func name(of directory: String) -> String {
        var path = PathName.standardized(directory)
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        if let home = ProcessEnvironment.value("HOME"), !home.isEmpty, home != "/",
           path == home || path.hasPrefix(home + "/") {
            path = "~" + path.dropFirst(home.count)
        }
        return displayable(path)
    }

    /// One passphrase typed at the terminal, without echo, under the passphrase rules. Without a terminal, a
    /// current passphrase (not a new one) is asked through pinentry, if there is one (`Pinentry.program`);
    /// `description` is then its dialog's text, `error` a line about the try before.
    /// - Throws: `CLIError` (exit 3) for a refused passphrase, a cancelled pinentry, or without a terminal.
    static func typed(_ prompt: String, isNew: Bool, description: String? = nil, error: String? = nil) throws -> SecretBytes {
        var bytes: [UInt8]
        if !isNew, !Prompt.interactive, Pinentry.program != nil {
            let pin: SecretBytes
            do {
                pin = try Pinentry.ask(description: description ?? String(prompt.prefix { $0 != ":" }), prompt: "Passphrase:", error: error)
            } catch let e as Pinentry.Failure {
                if e.cancelled { throw CLIError("no passphrase was given: the pinentry dialog was cancelled", code: ExitStatus.auth) }
                throw CLIError("no terminal to ask for the passphrase, and pinentry could not ask: \(e.message)\n" + Prompt.noTerminalHint, code: ExitStatus.auth)
            }
            bytes = pin.withBytes { Array($0) }
        } else {
            bytes = try Prompt.secretLine(prompt, limit: PassphraseRules.maximumBytes)
        }
        defer { SecretBytes.wipe(&bytes) }
        do { return try PassphraseRules.passphrase(bytes, isNew: isNew) } catch let e as PassphraseError {
            throw CLIError(e.message(source: isNew ? "the new passphrase" : "the typed passphrase"), code: ExitStatus.auth, retryable: true)
        }
    }

    /// Whether a current passphrase can be asked for: at a terminal, or through pinentry.
    static var canAsk: Bool { Prompt.interactive || Pinentry.program != nil }

    /// A new passphrase for the vault at `directory`: from `file` (a weak one gets a warning), or typed
    /// twice at the terminal, where a refused, mismatched or weak one (unless confirmed) asks again.
    /// - Throws: `CLIError` after three tries or for a refused file.
    static func new(file: String?, directory: String) throws -> SecretBytes {
        if let file {
            let passphrase = try VaultOptions.readPassphraseFile(file, isNew: true)
            if let weakness = weakness(of: passphrase) { Output.warning("weak passphrase (\(weakness))") }
            return passphrase
        }
        let vault = name(of: directory)
        for _ in 1...tries {
            let passphrase: SecretBytes
            do { passphrase = try typed("New passphrase for \(vault): ", isNew: true) } catch let e as CLIError where Prompt.interactive {
                Output.warning(e.message)
                continue
            }
            guard passphrase.constantTimeEquals(try typed("Repeat new passphrase: ", isNew: true)) else {
                Output.warning("the passphrases do not match; try again")
                continue
            }
            if let weakness = weakness(of: passphrase) {
                Output.warning("weak passphrase (\(weakness)); anyone who copies the vault can try to guess it")
                guard Prompt.confirm("Use it anyway?") else { continue }
            }
            return passphrase
        }
        throw CLIError("no new passphrase after \(tries) tries; nothing was changed", code: ExitStatus.auth)
    }

    /// Why the passphrase is weak by the same estimate as passwords (score below 3), or nil.
    static func weakness(of passphrase: SecretBytes) -> String? {
        guard let text = passphrase.utf8String() else { return nil }
        guard let e = try? StrengthEstimator.estimate(text) else { return nil }
        guard e.score < 3 else { return nil }
        let why = e.warnings.isEmpty ? "" : ": " + e.warnings.joined(separator: "; ")
        return String(printf: "score %d/4, about 10^%.0f guesses", e.score, e.guessesLog10) + why
    }
}
