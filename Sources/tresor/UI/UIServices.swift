// Seams for features `tresor ui` uses but does not implement: copying with auto-clear, and one-time codes.
import Foundation
import TresorCore

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

    /// The services this build has. The clipboard and TOTP code of `tresor` plug in here.
    static var available: UIServices { UIServices(copier: nil, oneTimeCodes: nil) }
}
