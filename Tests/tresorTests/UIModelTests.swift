// The parts of `tresor ui` that decide what is shown: fuzzy ranking, the folder tree, generator switches, text width.
import Foundation
@testable import TresorCore
import TresorTerminal
import XCTest
@testable import tresor

final class UIModelTests: XCTestCase {
    func rank(_ query: String, _ names: [String]) -> [String] {
        let q = Fuzzy.fold(query)
        return names.compactMap { n in Fuzzy.match(q, in: Fuzzy.foldNormalized(n)).map { (n, $0.score) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    func testFuzzyFindsLettersInOrderAndRanksWordStartsAndRunsFirst() {
        XCTAssertEqual(rank("gml", ["Games/Lemmings", "Email/work", "Email/gmail"]), ["Email/gmail", "Games/Lemmings"])
        XCTAssertEqual(rank("lmg", ["Email/gmail"]), [], "letters out of order do not match")
        XCTAssertEqual(rank("git", ["Social/github", "Work/legit-tools", "Dev/g-i-t"]).first, "Social/github")
        XCTAssertEqual(rank("GMAIL", ["Email/gmail"]), ["Email/gmail"], "case is ignored")
        XCTAssertEqual(rank("パス", ["日本/パス", "Email/gmail"]), ["日本/パス"])
        XCTAssertEqual(rank("re\u{301}s", ["Café/résumé"]), ["Café/résumé"], "a query typed with a combining mark matches")
        let m = Fuzzy.match(Fuzzy.fold("gml"), in: Fuzzy.foldNormalized("Email/gmail"))
        XCTAssertEqual(m?.positions, [6, 7, 10])
    }

    func testTreeFoldsFoldersAndCountsTheirEntries() throws {
        let paths = try ["Email/gmail", "Email/work", "Work/Servers/db", "Work/Servers/web", "top"].map { try EntryPath($0) }
        let tree = EntryTree(paths: paths)
        func describe() -> [String] {
            tree.rows().map { row in
                switch row.kind {
                case .folder(_, let open, let count): return String(repeating: " ", count: row.depth) + (open ? "▾" : "▸") + row.name + "(\(count))"
                case .entry: return String(repeating: " ", count: row.depth) + row.name
                }
            }
        }
        XCTAssertEqual(describe(), ["▾Email(2)", " gmail", " work", "▾Work(2)", " ▾Servers(2)", "  db", "  web", "top"])
        tree.toggle("Work/Servers")
        XCTAssertEqual(describe(), ["▾Email(2)", " gmail", " work", "▾Work(2)", " ▸Servers(2)", "top"])
        tree.collapseAll()
        XCTAssertEqual(describe(), ["▸Email(2)", "▸Work(2)", "top"])
        tree.expandAll()
        XCTAssertEqual(describe().count, 8)
    }

    func testOnlyUppercaseAndTheSlidersOfTheNewEntryForm() throws {
        var form = GeneratorForm()
        form.toggle(.symbols)
        form.setOnlyUppercase(true)
        XCTAssertEqual(form.characters.classes, [.upper])
        form.setOnlyUppercase(false)
        XCTAssertEqual(form.characters.classes, [.lower, .upper, .digits], "switching it off restores the classes before")
        form.changeLength(by: 1000)
        XCTAssertEqual(form.characters.length, 100)
        form.changeLength(by: -1000)
        XCTAssertEqual(form.characters.length, 4)
        form.setOnlyUppercase(true)
        form.changeLength(by: 96)
        let g = try form.generate()
        XCTAssertTrue(g.value.count == 100 && g.value.allSatisfy { $0.isUppercase && $0.isASCII }, g.value)
        XCTAssertEqual(g.entropyBits, 100 * log2(26), accuracy: 1e-9)
        XCTAssertEqual(form.policy.policyString, "length=100,classes=upper")
        form.passphraseMode = true
        form.changeWords(by: -100)
        XCTAssertEqual(form.words.words, 1)
        XCTAssertEqual(form.policy.policyString, "words=1,separator=-")
    }

    func testTextWidthOfWideAndCombiningCharacters() {
        setlocale(LC_CTYPE, "C.UTF-8")
        XCTAssertEqual(TextWidth.width("日本/パス"), 9)
        XCTAssertEqual(TextWidth.width("Spin\u{308}al"), 6)
        XCTAssertEqual(TextWidth.fit("日本語のパス", width: 7).text, "日本語…")
        XCTAssertEqual(TextWidth.fit("日本語のパス", width: 7).width, 7)
        XCTAssertEqual(TextWidth.fit("Spin\u{308}al Tap", width: 6).text, "Spin\u{308}a…")
        XCTAssertEqual(TextWidth.padded("パス", width: 6), "パス  ")
        XCTAssertEqual(TextWidth.sanitized("a\u{1B}[2Jb\tc"), "a?[2Jb c", "escape sequences from names cannot reach the terminal")
        XCTAssertEqual(TextWidth.wrap("one two three four", width: 9), ["one two", "three", "four"])
        XCTAssertEqual(TextWidth.wrap("abcdefghij", width: 4), ["abcd", "efgh", "ij"])
    }
}
