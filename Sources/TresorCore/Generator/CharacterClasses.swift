// The character classes a password policy draws from, and the fixed character sets behind them.

/// The built-in character classes of a password policy. Spec/GENERATOR.md §2.
public struct CharacterClasses: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    /// Creates a class set from its raw bits (lower 1, upper 2, digits 4, symbols 8).
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `a`–`z`.
    public static let lower = CharacterClasses(rawValue: 1)
    /// `A`–`Z`.
    public static let upper = CharacterClasses(rawValue: 2)
    /// `0`–`9`.
    public static let digits = CharacterClasses(rawValue: 4)
    /// `CharacterSets.defaultSymbols`, or the policy's own `symbols`.
    public static let symbols = CharacterClasses(rawValue: 8)
    /// All four classes.
    public static let all: CharacterClasses = [.lower, .upper, .digits, .symbols]

    /// The classes in their fixed order with their policy-string names.
    static let named: [(CharacterClasses, String)] = [
        (.lower, "lower"), (.upper, "upper"), (.digits, "digits"), (.symbols, "symbols"),
    ]
}

/// The fixed character sets of Spec/GENERATOR.md §2.
package enum CharacterSets {
    /// `a`–`z`.
    package static let lower = "abcdefghijklmnopqrstuvwxyz"
    /// `A`–`Z`.
    package static let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    /// `0`–`9`.
    package static let digits = "0123456789"
    /// All 32 printable ASCII punctuation characters (U+0021–U+007E minus letters and digits), no space.
    static let defaultSymbols = ##"!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"##
    /// Look-alikes removed by exclude-similar; the same six as KeePassXC's "exclude look-alike characters".
    package static let similar = "01IOl|"

    /// Whether a character may appear in `include` or `symbols`: visible ASCII (U+0021–U+007E) or
    /// visible Latin-1 (U+00A1–U+00FF except the soft hyphen). These never combine with a neighbour
    /// into one grapheme, so a password of n characters always has n `Character`s.
    static func isAllowedCustom(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x21...0x7E: return true
        case 0xA1...0xFF: return scalar.value != 0xAD
        default: return false
        }
    }

    /// ASCII letters and digits, which `symbols` may not contain (the classes must stay disjoint).
    static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }
}
