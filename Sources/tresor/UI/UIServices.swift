// Seams for features `tresor ui` uses but does not implement: copying with auto-clear, and one-time codes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// Puts a secret on the clipboard and clears it later (only if it still holds what was put there).
protocol SecretCopier {
    /// Copies `value`; returns what to tell the user ("Copied password; clears in 45 s").
    /// - Throws: why nothing was copied (no clipboard program, no display).
    func copy(_ value: String, describing field: String) throws -> String
}

/// The current one-time code of an entry that has a TOTP secret.
protocol OneTimeCodeSource {
    /// The code valid now and the seconds until it changes, or nil when the entry has no one-time code.
    /// - Throws: when the entry's code secret cannot be used.
    func currentCode(for entry: Entry, at time: Date) throws -> (code: String, secondsLeft: Int)?
}

/// What the UI can use beyond the vault. A nil service leaves its key out of the footer and its row
/// out of the detail view.
struct UIServices {
    var copier: SecretCopier?
    var oneTimeCodes: OneTimeCodeSource?

    /// The services this build has: the clipboard of `tresor clip` and the one-time codes of `tresor otp`.
    static var available: UIServices { UIServices(copier: ClipboardCopier(), oneTimeCodes: TOTPCodes()) }
}

/// `tresor clip`'s clipboard: no trailing newline, cleared after `TRESOR_CLIP_TIME` (45 s) only if it still
/// holds the value, by a keeper that outlives the UI.
struct ClipboardCopier: SecretCopier {
    func copy(_ value: String, describing field: String) throws -> String {
        let delay = try Clipboard.clearDelay(nil)
        _ = try Clipboard.copy(SecretBytes(utf8: value), clearAfter: delay)
        return delay > 0 ? "Copied \(field); the clipboard is cleared in \(Int(delay)) s." : "Copied \(field)."
    }
}

/// The TOTP code of an entry's `otp` field (`tresor otp`).
struct TOTPCodes: OneTimeCodeSource {
    func currentCode(for entry: Entry, at time: Date) throws -> (code: String, secondsLeft: Int)? {
        guard let uri = entry.text(TOTP.fieldName) else { return nil }
        let totp = try TOTP(uri: uri)
        let seconds = Int64(time.timeIntervalSince1970)
        return (totp.code(at: seconds), totp.secondsLeft(at: seconds))
    }
}
