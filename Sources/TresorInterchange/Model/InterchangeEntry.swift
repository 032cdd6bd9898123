// The neutral model of an entry read from another password manager, before it becomes a Tresor entry.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// One custom field of an imported entry.
public struct InterchangeField {
    /// The name as the source spells it (made valid when the entry is converted).
    public var name: String
    public var value: SecretBytes
    public init(name: String, value: SecretBytes) { self.name = name; self.value = value }
}

/// An earlier value of a field, with when it was set and when it was replaced.
public struct InterchangeHistoryItem {
    /// Tresor's name for the field: `password`, `username`, `urls`, `notes`, `tags`, `otp` or a custom name.
    /// Values of `urls` and `tags` are their items joined by newlines.
    public var field: String
    public var value: SecretBytes
    /// When the value was set, if the source knows.
    public var modified: Timestamp?
    /// When it stopped being the current value.
    public var replaced: Timestamp
    /// The device that wrote it, when the source is a Tresor export.
    public var origin: String?
    /// `edit`, `delete` or `merge`, when the source is a Tresor export.
    public var reason: String?
    public init(field: String, value: SecretBytes, modified: Timestamp?, replaced: Timestamp, origin: String? = nil, reason: String? = nil) {
        self.field = field; self.value = value; self.modified = modified; self.replaced = replaced
        self.origin = origin; self.reason = reason
    }
}

/// An entry of another password manager in a neutral form: where it was, what it holds, and its history.
/// Secrets (password, notes, field values, the one-time-password URI, history values) are `SecretBytes`.
public struct InterchangeEntry {
    /// Folder names from the source, outermost first, unescaped.
    public var folder: [String]
    /// The entry's name in its folder, unescaped.
    public var title: String
    /// A path that is already a valid Tresor entry path (a Tresor export): used as it is, without escaping.
    public var vaultPath: String?
    public var username: String?
    public var password: SecretBytes?
    public var urls: [String]
    public var notes: SecretBytes?
    public var tags: [String]
    /// Custom fields in the source's order.
    public var fields: [InterchangeField]
    /// The one-time-password secret as an `otpauth://` URI (OTPAuth converts other forms).
    public var otp: SecretBytes?
    /// A Tresor generator policy (a Tresor export or a pass store Tresor wrote).
    public var policy: String?
    public var history: [InterchangeHistoryItem]
    public var created: Timestamp?
    public var modified: Timestamp?
    /// What the source holds for this entry that is not imported (e.g. `attachment "scan.pdf"`).
    public var omitted: [String] = []

    public init(folder: [String] = [], title: String) {
        self.folder = folder; self.title = title
        username = nil; password = nil; urls = []; notes = nil; tags = []; fields = []; otp = nil; policy = nil
        history = []; created = nil; modified = nil; vaultPath = nil
    }

    /// The entry's place in its source, `Folder/Sub/Title`, for reports (unescaped: print with care).
    public var sourceName: String { vaultPath ?? (folder + [title]).joined(separator: "/") }

    /// Adds a custom field unless its value is empty.
    public mutating func addField(_ name: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        fields.append(InterchangeField(name: name, value: SecretBytes(utf8: value)))
    }
}

/// What a reader returns: the entries, and the source's items it could not turn into entries.
public struct InterchangeDocument {
    public var entries: [InterchangeEntry]
    /// Items left out while reading, each with its name in the source and why.
    public var skipped: [(name: String, reason: SkipReason)]
    public init(entries: [InterchangeEntry] = [], skipped: [(name: String, reason: SkipReason)] = []) {
        self.entries = entries; self.skipped = skipped
    }
}
