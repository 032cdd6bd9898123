// Canonical base64, entry paths, timestamps and the envelope version check (Spec/FORMAT.md §1.2, §4, §5.2, §6.2).
import Foundation
import TestSupport
@testable import TresorCore
import XCTest

final class Base64Tests: XCTestCase {
    func testCanonicalTextDecodes() {
        XCTAssertEqual(Base64.decodeCanonical(""), [])
        XCTAssertEqual(Base64.decodeCanonical("AA=="), [0])
        XCTAssertEqual(Base64.decodeCanonical("AAA="), [0, 0])
        XCTAssertEqual(Base64.decodeCanonical("AAAA"), [0, 0, 0])
        XCTAssertEqual(Base64.decodeCanonical("+/8="), [0xFB, 0xFF])
        for n in 0..<40 {
            let b = (0..<n).map { UInt8(($0 * 37 + 11) % 256) }
            XCTAssertEqual(Base64.decodeCanonical(Base64.encode(b)), b)
        }
    }

    func testNonCanonicalTextIsRefused() {
        let bad = [
            "AA", "AAA", "A", "AA=", "AAAA=", "AA==AA==", // padding missing, short or misplaced
            "AB==", "AAB=", "AAF=",                       // non-zero unused bits
            "-_8=", "+/8", "AA AA", "AAAA\n", " AAAA", "AA\r\n==", // URL alphabet, white space
            "AA=A", "====", "A===", "AA*A",
        ]
        for s in bad { XCTAssertNil(Base64.decodeCanonical(s), s) }
    }

    /// The table encoder for public bytes writes what libsodium's writes, for every length up to 100 and random bytes.
    func testThePublicEncoderWritesWhatLibsodiumWrites() {
        var rng = SplitMix64(seed: 0xE64)
        for n in 0...100 {
            for _ in 0..<20 {
                let b = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
                XCTAssertEqual(Base64.encodePublic(b), Base64.encode(b), "\(b)")
            }
        }
    }

    /// Random texts over the alphabet, its padding and a few bytes outside it: a text decodes exactly when
    /// Foundation's decoder reads it and encoding what it read gives the text back, and then to the same bytes.
    func testTextsDecodeExactlyWhenTheyAreCanonical() {
        var rng = SplitMix64(seed: 0xB64)
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let odd = Array("==-_ \n*\u{0}".utf8) + [0xC3, 0xA9]
        var decoded = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...5, using: &rng) * 4 + (Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 1...3, using: &rng) : 0)
            var bytes = (0..<count).map { _ in symbols.randomElement(using: &rng)! }
            // Padding where it belongs often, elsewhere sometimes; a stray byte now and then.
            if count >= 4, Bool.random(using: &rng) { bytes[count - 1] = 0x3D; if Bool.random(using: &rng) { bytes[count - 2] = 0x3D } }
            if count > 0, Int.random(in: 0..<6, using: &rng) == 0 { bytes[Int.random(in: 0..<count, using: &rng)] = odd.randomElement(using: &rng)! }
            let text = String(decoding: bytes, as: UTF8.self)
            let reference = Data(base64Encoded: text).map { [UInt8]($0) }.flatMap { Base64.encode($0) == text ? $0 : nil }
            XCTAssertEqual(Base64.decodeCanonical(text), reference, text)
            if reference != nil { decoded += 1 }
        }
        XCTAssertGreaterThan(decoded, 2_000, "the generator reaches canonical texts")
    }
}

/// "Inside a folder" is one rule, by byte: random paths over an alphabet with combining marks and slashes agree with
/// the definition by components split at every `/` byte.
final class PathInsideFolderTests: XCTestCase {
    func testInsideAFolderIsByComponentsOfBytes() {
        var rng = SplitMix64(seed: 0x1F5)
        let pieces = ["a", "b", "/", "\u{301}", "é", "e\u{301}", "."]
        func random() -> String { (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() }
        var inside = 0
        for _ in 0..<20_000 {
            let folder = random()
            let path = Bool.random(using: &rng) ? folder + "/" + random() : random()
            let (p, f) = (EntryPath.split(path), EntryPath.split(folder))
            // (Components compared as bytes: `==` on strings would take "e\u{301}" for "é".)
            let expected = p.count > f.count && p.prefix(f.count).map { Array($0.utf8) } == f.map { Array($0.utf8) }
            XCTAssertEqual(EntryPath.isInside(path, folder: folder), expected, "\(Array(path.unicodeScalars)) in \(Array(folder.unicodeScalars))")
            if expected { inside += 1 }
        }
        XCTAssertGreaterThan(inside, 2_000)
        XCTAssertTrue(EntryPath.isInside("Zz/\u{301}b/e.json", folder: "Zz"), "a mark after the slash does not hide it")
        XCTAssertFalse(EntryPath.isInside("Zz\u{301}/e.json", folder: "Zz"))
    }
}

final class EntryPathTests: XCTestCase {
    func testGoodPaths() throws {
        let good: [(String, String)] = [
            ("gmail", "gmail"), ("Email/gmail", "Email/gmail"), ("a/b/c/d", "a/b/c/d"),
            ("Bank/Caf\u{E9}", "Bank/Caf\u{E9}"),
            ("Bank/Cafe\u{301}", "Bank/Caf\u{E9}"),         // decomposed é is normalised to NFC
            ("with space/x y", "with space/x y"), ("a.b/c..d", "a.b/c..d"), ("日本/パス", "日本/パス"),
            ("e-mail_(work)+1", "e-mail_(work)+1"), ("x.json", "x.json"),
            (String(repeating: "a", count: 100), String(repeating: "a", count: 100)),
            (Array(repeating: "a", count: 16).joined(separator: "/"), Array(repeating: "a", count: 16).joined(separator: "/")),
        ]
        for (raw, normalised) in good {
            let p = try EntryPath(raw)
            XCTAssertEqual(Array(p.string.utf8), Array(normalised.utf8), raw)
            XCTAssertEqual(p.filePath, normalised + ".json")
        }
        let p = try EntryPath("Email/work/gmail")
        XCTAssertEqual(p.components, ["Email", "work", "gmail"])
        XCTAssertEqual(p.name, "gmail")
        XCTAssertEqual(p.folder, "Email/work")
        XCTAssertEqual(try EntryPath("top").folder, "")
    }

    func testBadPaths() {
        let long = String(repeating: "a", count: 101)
        let bad: [(String, String)] = [
            ("", "empty"), ("/etc/passwd", "absolute"), ("..", "dot-dot"), ("a/../b", "dot-dot inside"),
            ("../a", "leading dot-dot"), ("./a", "dot"), ("a/.", "trailing dot component"),
            (".hidden", "leading dot"), ("a/.git", "leading dot in folder"), (".tresor/vault", "metadata"),
            ("a/", "trailing slash"), ("a//b", "empty component"), ("/", "root"),
            ("a\\b", "backslash"), ("C:x", "colon"), ("a*b", "star"), ("a?b", "question mark"),
            ("a\"b", "quote"), ("a<b", "less"), ("a>b", "greater"), ("a|b", "pipe"),
            ("a\u{0}b", "NUL"), ("a\nb", "line feed"), ("a\tb", "tab"), ("a\u{1F}b", "unit separator"),
            ("a\u{7F}b", "DEL"), ("a\u{85}b", "C1 NEL"), ("a\u{9F}b", "C1"), ("a\u{2028}b", "line separator"),
            ("a\u{2029}b", "paragraph separator"), (" a", "leading space"), ("a ", "trailing space"),
            ("a./b", "component ending in dot"), ("a/b.", "name ending in dot"),
            (long, "component over 100 bytes"), (String(repeating: "é", count: 51), "102 bytes of é"),
            (Array(repeating: "a", count: 17).joined(separator: "/"), "17 levels"),
            (Array(repeating: String(repeating: "a", count: 99), count: 3).joined(separator: "/"), "over 255 bytes"),
            // A combining mark must not hide a separator, dot or forbidden character inside a grapheme.
            ("a/\u{301}b/c/../d", "dot-dot after a combining mark component"),
            (".\u{301}x", "leading dot with combining mark"), ("a\\\u{301}b", "backslash with combining mark"),
            ("/\u{301}etc", "absolute with combining mark"), ("..\u{301}/b", "dot-dot with a combining mark"),
            ("a\u{301}//b", "empty component after combining mark"),
        ]
        for (raw, why) in bad {
            XCTAssertThrowsError(try EntryPath(raw), why) { e in
                XCTAssertEqual((e as? CoreError)?.kind, "invalid-path", why)
            }
        }
        // "a/\u{301}b" is two components, the second starting with a combining mark: allowed, and split at the byte "/".
        XCTAssertEqual(try EntryPath("a/\u{301}b").components.count, 2)
    }

    func testFilePathsMapToEntryPaths() {
        XCTAssertEqual(EntryPath(filePath: "Email/gmail.json")?.string, "Email/gmail")
        XCTAssertEqual(EntryPath(filePath: "x.json.json")?.string, "x.json")
        XCTAssertNil(EntryPath(filePath: "Email/gmail.JSON"))
        XCTAssertNil(EntryPath(filePath: "Email/gmail"))
        XCTAssertNil(EntryPath(filePath: ".json"))
        XCTAssertNil(EntryPath(filePath: "a/.json"))
        XCTAssertNil(EntryPath(filePath: ".hidden.json"))
        // A file name that is not NFC names another file on disk than its NFC form: not an entry file.
        XCTAssertNil(EntryPath(filePath: "Cafe\u{301}.json"))
        XCTAssertEqual(EntryPath(filePath: "Caf\u{E9}.json")?.string, "Caf\u{E9}")
    }

    /// Printable ASCII file names take a quicker way (checked in place): it must agree with the path rules.
    func testFilePathsAgreeWithThePathRulesForRandomASCIINames() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("ab./ .:\\*?\"<>|-json\u{7F}\t".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...12, using: &rng)
            let stem = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            XCTAssertEqual(EntryPath(filePath: stem + ".json")?.string, (try? EntryPath(stem))?.string, stem.debugDescription)
        }
        let hundred = String(repeating: "a", count: 100)
        XCTAssertEqual(EntryPath(filePath: hundred + "/" + hundred + "/" + String(repeating: "b", count: 53) + ".json")?.string.count, 255)
        XCTAssertNil(EntryPath(filePath: hundred + "/" + hundred + "/" + String(repeating: "b", count: 54) + ".json"))
        XCTAssertNil(EntryPath(filePath: hundred + "a.json"))
        XCTAssertNil(EntryPath(filePath: "/abs.json"))
        XCTAssertNil(EntryPath(filePath: "a.json/b.json"))
    }

    func testOrderIsByUTF8Bytes() throws {
        let paths = try ["b", "B", "a/b", "a", "é", "z"].map { try EntryPath($0) }.sorted()
        XCTAssertEqual(paths.map(\.string), ["B", "a", "a/b", "b", "z", "é"])
    }
}

final class TimestampTests: XCTestCase {
    func testFormatAndParse() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (1, "1970-01-01T00:00:00.001Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (1_795_824_000_123, "2026-11-28T00:00:00.123Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"), (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        ]
        for (ms, text) in cases {
            XCTAssertEqual(Timestamp(milliseconds: ms).description, text)
            XCTAssertEqual(Timestamp(parsing: text)?.milliseconds, ms, text)
        }
    }

    func testOnlyTheExactFormIsAccepted() {
        let bad = [
            "2026-11-21T18:40:00Z", "2026-11-21T18:40:00.12Z", "2026-11-21T18:40:00.1234Z", "2026-11-21 18:40:00.000Z",
            "2026-11-21T18:40:00.000z", "2026-11-21t18:40:00.000Z", "2026-11-21T18:40:00.000+00:00", "2026-11-21T18:40:00.000",
            "2026-13-01T00:00:00.000Z", "2026-00-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z", "2025-02-29T00:00:00.000Z",
            "2026-11-31T00:00:00.000Z", "2026-11-21T24:00:00.000Z", "2026-11-21T18:60:00.000Z", "2026-11-21T18:40:60.000Z",
            "+2026-11-21T18:40:00.000Z", "2026-1-21T18:40:00.000Z", "２０26-11-21T18:40:00.000Z", " 2026-11-21T18:40:00.000Z", "",
        ]
        for s in bad { XCTAssertNil(Timestamp(parsing: s), s) }
    }

    /// Days 1 to 31 of every month of common and leap years (1900 and 2100 are not, 2000 is): a date parses
    /// exactly when the C library's timegm keeps it as it is rather than carrying it into the next month.
    func testADayPastItsMonthsEndIsRefused() {
        for year: Int32 in [1600, 1900, 1970, 2000, 2023, 2024, 2100] {
            for month: Int32 in 1...12 {
                for day: Int32 in 1...31 {
                    let text = String(format: "%04d-%02d-%02dT12:34:56.789Z", year, month, day)
                    var fields = tm()
                    fields.tm_year = year - 1900; fields.tm_mon = month - 1; fields.tm_mday = day; fields.tm_hour = 12
                    let secs = timegm(&fields)
                    let real = fields.tm_mday == day && fields.tm_mon == month - 1
                    XCTAssertEqual(Timestamp(parsing: text)?.milliseconds, real ? (Int64(secs) + 34 * 60 + 56) * 1000 + 789 : nil, text)
                }
            }
        }
    }

    /// The calendar arithmetic agrees with the C library's gmtime_r and timegm on every day from year 0 to
    /// 9999 (at a varying time of day), and every text it writes parses back.
    func testCalendarArithmeticAgreesWithTheCLibrary() {
        var secs: Int64 = -62_167_219_200  // 0000-01-01
        var k: Int64 = 0
        while secs < 253_402_300_800 {
            let ms = secs * 1000 + k % 1000
            var t = time_t(secs), fields = tm()
            XCTAssertNotNil(gmtime_r(&t, &fields))
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", fields.tm_year + 1900, fields.tm_mon + 1, fields.tm_mday,
                                  fields.tm_hour, fields.tm_min, fields.tm_sec, Int32(k % 1000))
            let text = Timestamp(milliseconds: ms).description
            if text != expected { XCTFail("\(ms): \(text), the C library says \(expected)"); return }
            if Timestamp(parsing: text)?.milliseconds != ms { XCTFail("\(text) does not parse back to \(ms)"); return }
            k += 1
            secs += 86_400 * 7 + (k * 3_607) % 86_400 - 43_200
        }
    }

    func testTextOrderIsTimeOrder() {
        let ms: [Int64] = [-5000, 0, 999, 1000, 1_700_000_000_000, 1_795_824_000_123]
        let texts = ms.map { Timestamp(milliseconds: $0).description }
        XCTAssertEqual(texts, texts.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}

final class EnvelopeTests: XCTestCase {
    func envelope(version: String) -> [UInt8] {
        Array((#"{"ciphertext":"AAAAAAAAAAAAAAAAAAAAAA==","id":"0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b","#
            + #""nonce":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","version":"# + version + "}\n").utf8)
    }

    /// Spec/FORMAT.md §6.2 step 3, §11.1: a version 5 vault's entry files are of envelope version 2; version 1 is read
    /// only where a conversion asks for it.
    func testVersionIsCheckedAsAnIntegerThenAsAValue() throws {
        XCTAssertEqual(try Envelope.parse(envelope(version: "2")).version, 2)
        XCTAssertEqual(try Envelope.parse(envelope(version: "1"), acceptingVersion1: true).version, 1)
        XCTAssertEqual(try Envelope.parse(envelope(version: "2"), acceptingVersion1: true).version, 2)
        XCTAssertThrowsError(try Envelope.parse(envelope(version: "1"))) { XCTAssertEqual(($0 as? CoreError)?.kind, "unsupported-version") }
        for v in ["0", "3", "18446744073709551615"] {
            XCTAssertThrowsError(try Envelope.parse(envelope(version: v)), v) { XCTAssertEqual(($0 as? CoreError)?.kind, "unsupported-version") }
            XCTAssertThrowsError(try Envelope.parse(envelope(version: v), acceptingVersion1: true), v) {
                XCTAssertEqual(($0 as? CoreError)?.kind, "unsupported-version")
            }
        }
        for v in ["18446744073709551616", "-1", "1.0", "2.0", "1e0", "\"2\"", "null", "true"] {
            XCTAssertThrowsError(try Envelope.parse(envelope(version: v)), v) { XCTAssertEqual(($0 as? CoreError)?.kind, "malformed") }
        }
    }

    func testSerializationIsCanonicalWithOneNewline() throws {
        let bytes = envelope(version: "2")
        XCTAssertEqual(try Envelope.parse(bytes).serialized(), bytes)
        XCTAssertEqual(try Envelope.parse(bytes).associatedData,
                       Array("tresor-entry\u{0}2\u{0}0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b\u{0}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".utf8))
        let old = envelope(version: "1")
        XCTAssertEqual(try Envelope.parse(old, acceptingVersion1: true).serialized(), old)
        XCTAssertEqual(try Envelope.parse(old, acceptingVersion1: true).associatedData,
                       Array("tresor-entry\u{0}1\u{0}0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b\u{0}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".utf8))
    }
}
