// The package's own string and path operations (it links FoundationEssentials, not Foundation) give what the full
// Foundation gave: compared here with Foundation itself, which the tests still import.
import Foundation
@testable import TresorCore
import XCTest

final class FoundationEquivalenceTests: XCTestCase {
    /// Code points Foundation's ICU (Unicode 15.1) knows: the standard library knows later versions, whose new
    /// combining marks ICU leaves unordered.
    static func knownToICU(_ s: Unicode.Scalar) -> Bool {
        guard let age = s.properties.age else { return false }
        return age.major < 15 || (age.major == 15 && age.minor <= 1)
    }

    func testNFCMatchesFoundationOnEveryAssignedCodePointAndOnMarkSequences() {
        var scalars: [Unicode.Scalar] = []
        for v in 0...0x10FFFF { if let u = Unicode.Scalar(v), Self.knownToICU(u) { scalars.append(u) } }
        for u in scalars {
            let s = String(u)
            XCTAssertEqual(Array(s.nfc.utf8), Array(s.precomposedStringWithCanonicalMapping.utf8), "U+\(String(u.value, radix: 16))")
        }
        // Decomposed letters with extra combining marks in every order, Hangul jamo, and paths (Spec/FORMAT.md §4.2).
        // U+11F41 (Kawi) is left out: ICU 74 gets its reordering wrong (it turns U+0345 U+11F41 U+0300 into
        // U+1F43 U+0345), the standard library gets it right.
        let marks = scalars.filter { $0.properties.canonicalCombiningClass.rawValue != 0 && $0.value != 0x11F41 }
        let composed = scalars.filter { String($0).decomposedStringWithCanonicalMapping.unicodeScalars.count > 1 }
        var generator = SystemRandomNumberGenerator()
        var samples = ["Bank/Cafe\u{301}", "Bank/Café", "日本/パス", "\u{1100}\u{1161}\u{11A8}", "e\u{301}\u{323}", "e\u{323}\u{301}",
                       "A\u{30A}\u{301}", "\u{212B}", "\u{FB01}", "\u{1E9B}\u{323}", "\u{0F73}"]
        for c in composed.shuffled(using: &generator).prefix(4000) {
            var s = String(c).decomposedStringWithCanonicalMapping
            for _ in 0..<Int.random(in: 0...3, using: &generator) { s.unicodeScalars.append(marks.randomElement(using: &generator)!) }
            samples.append(s)
            samples.append(String(String.UnicodeScalarView(s.unicodeScalars.reversed())))
        }
        for s in samples {
            XCTAssertEqual(Array(s.nfc.utf8), Array(s.precomposedStringWithCanonicalMapping.utf8), s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
    }

    func testTrimmingMatchesFoundationScalarByScalar() {
        let spaces: [Unicode.Scalar] = ["\t", "\n", "\r", "\u{0B}", "\u{0C}", " ", "\u{85}", "\u{A0}", "\u{1680}", "\u{180E}", "\u{2000}",
                                        "\u{200A}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "\u{301}"]
        var generator = SystemRandomNumberGenerator()
        var samples = ["", " ", "  a b  ", " \u{301}x ", "\u{A0}é\u{3000}", "\n\tvalue\r\n", "/Email/", "..-a-.", "x"]
        for _ in 0..<2000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                s.append(Bool.random(using: &generator) ? spaces.randomElement(using: &generator)! : "ab/.-".unicodeScalars.randomElement(using: &generator)!)
            }
            samples.append(String(s))
        }
        for s in samples {
            let codes = s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
            XCTAssertEqual(s.trimming(.whitespaces), s.trimmingCharacters(in: .whitespaces), codes)
            XCTAssertEqual(s.trimming(.whitespacesAndNewlines), s.trimmingCharacters(in: .whitespacesAndNewlines), codes)
            XCTAssertEqual(s.trimming(ScalarSet(charactersIn: "/")), s.trimmingCharacters(in: CharacterSet(charactersIn: "/")), codes)
            XCTAssertEqual(s.trimming(ScalarSet(charactersIn: ".-")), s.trimmingCharacters(in: CharacterSet(charactersIn: ".-")), codes)
        }
    }

    func testScalarSetsHaveFoundationsMembers() {
        for v in 0...0x10FFFF {
            guard let u = Unicode.Scalar(v), FoundationEquivalenceTests.knownToICU(u) else { continue }
            XCTAssertEqual(ScalarSet.whitespaces.contains(u), CharacterSet.whitespaces.contains(u), "U+\(String(v, radix: 16))")
            XCTAssertEqual(ScalarSet.whitespacesAndNewlines.contains(u), CharacterSet.whitespacesAndNewlines.contains(u), "U+\(String(v, radix: 16))")
            if v < 0x80 {
                XCTAssertEqual(ScalarSet.asciiAlphanumerics.contains(u), CharacterSet.alphanumerics.contains(u), "U+\(String(v, radix: 16))")
                XCTAssertEqual(ScalarSet.urlUserAllowed.contains(u), CharacterSet.urlUserAllowed.contains(u), "U+\(String(v, radix: 16))")
            }
        }
    }

    func testReplacingMatchesFoundationAndEscapesEveryQuote() {
        let cases: [(String, String, String)] = [("it's", "'", "'\\''"), ("a-b-c", "-", ""), ("line\nnext\r\nlast", "\n", "\n  "),
                                                 ("HMAC-SHA-256", "HMAC-", ""), ("aaa", "aa", "b"), ("Café ☕", "é", "e"), ("", "x", "y")]
        for (s, target, replacement) in cases {
            XCTAssertEqual(s.replacingAll(target, with: replacement), s.replacingOccurrences(of: target, with: replacement), s)
        }
        // Foundation leaves a quote followed by a combining mark alone; a shell would still end its quoted word there.
        XCTAssertEqual("a'\u{301}b".replacingAll("'", with: "'\\''"), "a'\\''\u{301}b")
    }

    func testPercentEncodingMatchesFoundation() {
        let allowed = ScalarSet.asciiAlphanumerics.union(ScalarSet(charactersIn: "-._~@"))
        let foundationAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
        let user = ScalarSet.urlUserAllowed.subtracting(ScalarSet(charactersIn: "@:"))
        var foundationUser = CharacterSet.urlUserAllowed
        foundationUser.remove(charactersIn: "@:")
        for s in ["GitHub:me@example.com", "é x/ü", "a b%c", "日本", "~._-", "user:pass@host", "\u{0}\u{7F}", ""] {
            XCTAssertEqual(s.percentEncoded(allowing: allowed), s.addingPercentEncoding(withAllowedCharacters: foundationAllowed), s)
            XCTAssertEqual(s.percentEncoded(allowing: user), s.addingPercentEncoding(withAllowedCharacters: foundationUser), s)
        }
        for s in ["%zz", "%4", "%C3%A9x", "%FF", "a%2fb%2F", "%00", "plain", "%", "100%", "%e6%97%A5", ""] {
            XCTAssertEqual(s.percentDecoded, s.removingPercentEncoding, s)
        }
    }

    func testPrintfMatchesStringFormat() {
        for x in [0.0, 0.05, 0.25, 3.25, 64.0, 77.54999, 1e30, 123456.789, -2.5] {
            for f in ["%.0f", "%.1f", "%.2f"] { XCTAssertEqual(String(printf: f, x), String(format: f, x), "\(f) \(x)") }
        }
        XCTAssertEqual(String(printf: "score %d/4, about 10^%.1f guesses", 3, 11.04), String(format: "score %d/4, about 10^%.1f guesses", 3, 11.04))
        XCTAssertEqual(String(printf: "%o %04o", 0o644, 0o600), String(format: "%o %04o", 0o644, 0o600))
        XCTAssertEqual(String(printf: "\\x%02x \\u{%04x}", 7, 0x2028), String(format: "\\x%02x \\u{%04x}", 7, 0x2028))
        XCTAssertEqual(String(printf: "%0300d", 1).count, 300)
        XCTAssertEqual(Hex.lower([0, 0xAB, 0x7F]), [0, 0xAB, 0x7F].map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Hex.upper([0, 0xAB, 0x7F]), [0, 0xAB, 0x7F].map { String(format: "%02X", $0) }.joined())
    }

    func testPathNamesMatchNSString() throws {
        let paths = ["/tmp/v/Email/gmail.json", "/", "", "a", "a/", "/a", "/a/", "a/b", "/a//b/c.json", "//a", "//", "///", "a//",
                     "/tmp/v/Bank/Café.json", "a/./b", "/a/../b", "~", "~/x", "~/x/", "~root/x", "~nosuchuserhere/x", "/a/b//", "."]
        for p in paths {
            XCTAssertEqual(PathName.last(p), (p as NSString).lastPathComponent, p)
            // (NSString traps on a one-character relative name, "a" or "a/": its parent is "".)
            let oneCharacter = PathName.fixingSlashes(p).count == 1 && !p.hasPrefix("/")
            XCTAssertEqual(PathName.deletingLast(p), oneCharacter ? "" : (p as NSString).deletingLastPathComponent, p)
            XCTAssertEqual(PathName.expandingTilde(p), (p as NSString).expandingTildeInPath, p)
            for c in ["", "x", "x/y", "/x"] { XCTAssertEqual(PathName.appending(p, c), (p as NSString).appendingPathComponent(c), "\(p) + \(c)") }
        }
        // A combining mark after a slash makes one Character of the two, but the slash still separates, for the kernel
        // as for Darwin's NSString (by UTF-16 unit); swift-corelibs-foundation's NSString goes by Character there.
        for (p, last, parent) in [("a/\u{301}b", "\u{301}b", "a"), ("/a//\u{301}b/", "\u{301}b", "/a"), ("x/../\u{301}y", "\u{301}y", "x/.."),
                                  ("\u{301}/b", "b", "\u{301}"), ("a/\u{301}/", "\u{301}", "a")] {
            XCTAssertEqual(PathName.last(p).unicodeScalars.map(\.value), last.unicodeScalars.map(\.value), p)
            XCTAssertEqual(PathName.deletingLast(p).unicodeScalars.map(\.value), parent.unicodeScalars.map(\.value), p)
        }
        // "~" is the password database's home directory, also when HOME says otherwise.
        let home = getenv("HOME").map { String(cString: $0) }
        setenv("HOME", "/tmp/elsewhere", 1)
        defer { if let home { setenv("HOME", home, 1) } else { unsetenv("HOME") } }
        for p in ["~", "~/x", "~root"] { XCTAssertEqual(PathName.expandingTilde(p), (p as NSString).expandingTildeInPath, p) }
        // Standardising resolves symbolic links (absolute and relative targets, chains, links that lead nowhere).
        let dir = NSTemporaryDirectory() + "path-names-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/real/inner", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        try fm.createSymbolicLink(atPath: dir + "/absolute", withDestinationPath: dir + "/real")
        try fm.createSymbolicLink(atPath: dir + "/chain", withDestinationPath: dir + "/absolute")
        try fm.createSymbolicLink(atPath: dir + "/nowhere", withDestinationPath: dir + "/missing")
        let cwd = fm.currentDirectoryPath
        XCTAssertTrue(fm.changeCurrentDirectoryPath(dir))
        defer { _ = fm.changeCurrentDirectoryPath(cwd) }
        try fm.createSymbolicLink(atPath: dir + "/relative", withDestinationPath: "real")
        for p in [dir, dir + "/", dir + "/real/inner", dir + "/absolute", dir + "/absolute/inner/", dir + "/chain/inner", dir + "/relative/inner",
                  dir + "/nowhere", dir + "/nowhere/x", dir + "/real/../absolute/./inner", dir + "/real/inner/../..", dir + "//real///inner",
                  "real/inner", "./absolute", "/", "/tmp", "~", "~/", "/no/such/path/../x"] {
            XCTAssertEqual(PathName.standardized(p), (p as NSString).standardizingPath, p)
        }
    }
}
