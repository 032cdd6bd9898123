// The one rule for the bytes of a passphrase, typed or read from a file: what is refused, and the longest accepted.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why bytes offered as a passphrase were refused.
public enum PassphraseError: Error, Equatable, Sendable {
    /// The bytes start with a UTF-8 byte order mark (EF BB BF), which an editor added, not the person.
    case byteOrderMark
    /// A NUL byte at this offset (0-based).
    case nul(offset: Int)
    /// Not UTF-8: the byte at this offset starts no valid sequence.
    case invalidUTF8(offset: Int, byte: UInt8)
    /// Longer than `maximum` bytes.
    case tooLong(maximum: Int)
    /// A new passphrase that is empty or only white space (or invisible characters such as U+FEFF).
    case blank
}

/// Spec/FORMAT.md §2.1 turns a passphrase into bytes (UTF-8 of its NFC form); these rules decide which
/// text is accepted at all, so that the same passphrase always gives the same bytes: nothing is
/// stripped or shortened silently.
public enum PassphraseRules {
    /// The longest passphrase accepted, in UTF-8 bytes (before NFC). Below a terminal's line limit
    /// (4,095 bytes), so a typed passphrase is never cut by the terminal either.
    public static let maximumBytes = 1024

    /// The first problem in `bytes`, or nil. `isNew`: also refuse a blank passphrase (for one being set).
    public static func problem(in bytes: [UInt8], isNew: Bool) -> PassphraseError? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return .byteOrderMark }
        if bytes.count > maximumBytes { return .tooLong(maximum: maximumBytes) }
        if let i = bytes.firstIndex(of: 0) { return .nul(offset: i) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var blank = true
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if !(scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint) { blank = false }
                offset += encoded.count
            case .error:
                return .invalidUTF8(offset: offset, byte: bytes[offset])
            case .emptyInput:
                break loop
            }
        }
        return isNew && blank ? .blank : nil
    }

    /// The passphrase as key material (NFC, Spec/FORMAT.md §2.1).
    /// - Throws: `PassphraseError` when `bytes` break a rule.
    public static func passphrase(_ bytes: [UInt8], isNew: Bool) throws -> SecretBytes {
        if let problem = problem(in: bytes, isNew: isNew) { throw problem }
        guard let secret = SecretBytes.passphrase(bytes) else { throw PassphraseError.invalidUTF8(offset: 0, byte: bytes.first ?? 0) }
        return secret
    }
}
