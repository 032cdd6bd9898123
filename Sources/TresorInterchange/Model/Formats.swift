// The formats `tresor import` reads and `tresor export` writes, by name.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Formats Tresor imports (README "Import: formats").
public enum ImportFormat: String, CaseIterable, Sendable {
    case pass, gopass, kdbx
    case keepassXML = "keepass-xml"
    case keepassxcCSV = "keepassxc-csv"
    case bitwarden
    case onePUX = "1pux"
    case onePasswordCSV = "1password-csv"
    case chrome, firefox, json

    /// The format named `name` (a few common spellings are accepted).
    public init?(name: String) {
        let n = name.lowercased()
        switch n {
        case "keepass", "keepassxc": self = .kdbx
        case "bitwarden-json": self = .bitwarden
        case "1password": self = .onePUX
        case "chrome-csv", "chromium": self = .chrome
        case "firefox-csv": self = .firefox
        case "tresor", "tresor-json": self = .json
        default: self.init(rawValue: n)
        }
    }

    /// Whether the format is encrypted with a password the caller must give (`kdbx`).
    public var needsPassword: Bool { self == .kdbx }

    /// What the source is: a directory for pass stores, a file otherwise.
    public var sourceIsDirectory: Bool { self == .pass || self == .gopass }

    /// Reads `source`. `password` and `keyFile` open a KeePass database; `gpg` decrypts pass stores;
    /// `progress` reports (done, total) for sources read item by item.
    public func read(_ source: String, password: SecretBytes? = nil, keyFile: String? = nil, gpg: GPG? = nil,
                     progress: @escaping (Int, Int) -> Void = { _, _ in }) throws -> InterchangeDocument {
        switch self {
        case .pass, .gopass:
            return try PassStore.read(source, gopass: self == .gopass, gpg: try gpg ?? GPG(), progress: progress)
        case .kdbx: return try KeePass.readDatabase(source, password: password, keyFile: keyFile)
        case .keepassXML: return try KeePass.readXML(source)
        case .keepassxcCSV: return try CSVFormats.readKeePassXC(source)
        case .bitwarden: return try Bitwarden.read(source)
        case .onePUX: return try OnePassword.read1PUX(source)
        case .onePasswordCSV: return try CSVFormats.readOnePassword(source)
        case .chrome: return try CSVFormats.readChrome(source)
        case .firefox: return try CSVFormats.readFirefox(source)
        case .json: return try TresorJSON.read(source)
        }
    }
}

/// Formats Tresor exports (README "Export").
public enum ExportFormat: String, CaseIterable, Sendable {
    case json, csv, pass

    /// Whether the output is plaintext (JSON and CSV) rather than encrypted (a pass store).
    public var isPlaintext: Bool { self != .pass }
}
