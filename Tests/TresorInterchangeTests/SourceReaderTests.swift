// The importers' own XML, CSV and zip readers against the libraries they replace (Foundation's XMLParser, CSV.swift,
// ZIPFoundation), which the tests still have, and against hostile input.
import CSV
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import TresorCore
import TestSupport
@testable import TresorInterchange
import XCTest
import ZIPFoundation

final class SourceReaderTests: ToolTestCase {
    // MARK: XML

    /// The tree Foundation's XMLParser builds (the importer's former builder: CDATA is not text to it).
    final class FoundationTree: NSObject, XMLParserDelegate {
        var stack: [TresorInterchange.XMLElement] = []
        var root: TresorInterchange.XMLElement?
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let e = TresorInterchange.XMLElement(name: elementName, attributes: attributeDict)
            if let parent = stack.last { parent.children.append(e) } else if root == nil { root = e }
            stack.append(e)
        }
        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) { _ = stack.popLast() }
        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }

        static func parse(_ text: String) -> TresorInterchange.XMLElement? {
            let parser = XMLParser(data: Data(text.utf8))
            parser.shouldResolveExternalEntities = false
            let tree = FoundationTree()
            parser.delegate = tree
            return parser.parse() ? tree.root : nil
        }
    }

    func describe(_ e: TresorInterchange.XMLElement) -> String {
        let attributes = e.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.debugDescription)" }.joined(separator: " ")
        return "<\(e.name) \(attributes)>\(e.text.debugDescription)[" + e.children.map(describe).joined(separator: ",") + "]"
    }

    func ours(_ text: String) throws -> TresorInterchange.XMLElement {
        try Array(text.utf8).withUnsafeBytes { try TresorInterchange.XMLElement.parse($0, file: "test.xml") }
    }

    func testXMLTreesMatchFoundationsParser() throws {
        let documents = [
            "<KeePassFile/>",
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<!-- made by hand -->\n<KeePassFile>\n\t<Meta><Generator>KeePassXC</Generator></Meta>\n</KeePassFile>\n",
            "<a x='1' y=\"two words\" z=\"&lt;&amp;&gt;&quot;&apos;\">text &amp; more<b/>tail&#x1F600;&#233;</a>",
            "<r><v Protected=\"True\">c2VjcmV0</v><v>  spaced  </v><v></v><v>line1\r\nline2\rline3</v></r>",
            "<r a=\"tab\there\nnew&#10;line&#9;tab\"/>",
            "<!DOCTYPE KeePassFile><KeePassFile><?pi data?><Root><Group><Name>Caf\u{E9} \u{65E5}\u{672C}</Name></Group></Root></KeePassFile>",
            "<a>x<!-- c -->y<b>1</b>z</a>",
            "<ns:a xmlns:ns=\"urn:x\"><ns:b>v</ns:b></ns:a>",
        ]
        for text in documents {
            guard let expected = FoundationTree.parse(text) else { return XCTFail("Foundation refuses \(text.debugDescription)") }
            XCTAssertEqual(describe(try ours(text)), describe(expected), text.debugDescription)
        }
        // A CDATA section is text here (Foundation's parser reported it elsewhere and the old builder dropped it).
        XCTAssertEqual(try ours("<v><![CDATA[a<b&c]]>d</v>").text, "a<b&cd")
    }

    /// Documents mutated at random (a range cut out or repeated, markup and bytes put in): the reader never traps,
    /// and whenever both it and Foundation's XMLParser accept a mutant, they build the same tree (CDATA aside, which
    /// Foundation's builder dropped). Seeded: a failure names the seed and the mutant.
    func testMutatedDocumentsAreReadAsFoundationReadsThemOrRefused() throws {
        let seeds = ["<KeePassFile><Meta><Generator>KeePassXC</Generator></Meta><Root><Group><Name>G</Name>"
                     + "<Entry><String><Key>Password</Key><Value Protected=\"True\">c2VjcmV0</Value></String></Entry></Group></Root></KeePassFile>",
                     "<?xml version=\"1.0\"?>\n<!-- c --><r a='1' b=\"&lt;&#233;\">t&amp;u<x/><y>z</y></r>\n"]
        let pieces = ["<", ">", "/>", "</", "&", "&amp;", "&#", ";", "\"", "'", "=", "<!--", "-->", "<?", "?>", "<![CDATA[", "]]>",
                      "<!DOCTYPE a>", "<!DOCTYPE a [<!ENTITY e \"x\">]>", "&e;", " ", "\n", "\u{0}", "\u{1}", "\u{FFFF}", "\u{E9}"]
        var random = SplitMix64(seed: 2026_11_28)
        var bothAccepted = 0
        for round in 0..<3000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let i = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...8, using: &random)))
                case 1: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + Int.random(in: 1...12, using: &random))], at: i)
                case 2: bytes.insert(contentsOf: Array(pieces.randomElement(using: &random)!.utf8), at: i)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: i)
                }
            }
            let mine = try? bytes.withUnsafeBytes { try XMLReader.parse($0) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let mine, !text.contains("CDATA"), Array(text.utf8) == bytes, let theirs = FoundationTree.parse(text) else { continue }
            bothAccepted += 1
            XCTAssertEqual(describe(mine), describe(theirs), "round \(round): \(text.debugDescription)")
        }
        XCTAssertGreaterThan(bothAccepted, 100, "too few mutants both readers accept to compare them")
    }

    func testMalformedAndHostileXMLIsRefusedWithItsLine() throws {
        let cases: [(String, InterchangeError.XMLProblem)] = [
            ("<!DOCTYPE a [<!ENTITY x \"xxxxxxxx\"><!ENTITY y \"&x;&x;&x;&x;\">]><a>&y;</a>", .internalSubset),
            ("<a>&nbsp;</a>", .undefinedReference("nbsp")),
            ("<a>\n<b></a>", .mismatchedEndTag(start: "b", end: "a")),
            ("<a>", .elementNotClosed("a")),
            ("<a/><b/>", .extraContent),
            ("<a>\u{1}</a>", .characterNotAllowed(1)),
            ("<a>&#1;</a>", .undefinedReference("#1")),
            ("<a>&#x+41;</a>", .undefinedReference("#x+41")),
            ("<a>&#x;</a>", .undefinedReference("#x")),
            ("<a x=\"1\" x=\"2\"/>", .duplicateAttribute("x", element: "a")),
            ("<a x=\"<\"/>", .lessThanInAttribute("x")),
            ("<a/>text", .extraContent),
            ("", .noRootElement),
            ("<a>&amp</a>", .ampersandWithoutReference),
            ("<a><!-- open</a>", .notClosed(.comment)),
            ("<a>\u{FFFF}</a>", .characterNotAllowed(0xFFFF)),
            (String(repeating: "<g>", count: 257) + String(repeating: "</g>", count: 257), .tooDeep(limit: 256)),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ours(text), text.debugDescription) { error in
                guard case InterchangeError.malformed("test.xml", .xml(_, let problem)) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(problem, expected, text.debugDescription)
            }
        }
        XCTAssertThrowsError(try ours("<a>\n\n<b></c></a>")) { error in
            guard case InterchangeError.malformed(_, .xml(let line, let problem)) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 3)
            XCTAssertEqual(problem, .mismatchedEndTag(start: "b", end: "c"))
        }
        XCTAssertThrowsError(try [UInt8]([0x3C, 0x61, 0x3E, 0xFF, 0x3C, 0x2F, 0x61, 0x3E]).withUnsafeBytes { try TresorInterchange.XMLElement.parse($0, file: "x") })
    }

    // MARK: CSV

    func csvSwiftRows(_ text: String) throws -> [[String]] {
        let reader = try CSVReader(string: text, hasHeaderRow: false)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return rows
    }

    func testCSVRowsMatchCSVSwiftOnRandomText() throws {
        let pieces = ["a", "b", ",", "\"", "\"\"", "\n", "\r", "\r\n", " ", "é", "e\u{301}", "\t"]
        var generator = SystemRandomNumberGenerator()
        var samples = ["Title,Url\nx,\"a,b\"\n", "\"unclosed", "a,\"b\"c,d\n", "\n\n", ",", "\"\"", "a\r\rb", "x,\"y\"\r\nz"]
        for _ in 0..<5000 { samples.append((0..<Int.random(in: 0...24, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()) }
        for text in samples {
            XCTAssertEqual(CSVText.rows(text), try csvSwiftRows(text), text.debugDescription)
        }
    }

    func testCSVExportIsWhatCSVSwiftWroteAndReadsBack() throws {
        let rows = [CSVExport.header, ["Root/Web", "a \"quoted\" title", "user", "pa,ss\nword", "", "notes\r\nmore", "", "0", "", ""]]
        var built = SecretByteBuilder()
        for (i, row) in rows.enumerated() { CSVText.appendRow(row, to: &built, first: i == 0) }
        let stream = OutputStream.toMemory()
        let writer = try CSVWriter(stream: stream)
        for row in rows { try writer.write(row: row, quotedAtIndex: { _ in true }) }
        writer.stream.close()
        let expected = try XCTUnwrap(stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data)
        XCTAssertEqual(built.finish().withBytes { [UInt8]($0) }, [UInt8](expected))
        XCTAssertEqual(CSVText.rows(String(decoding: expected, as: UTF8.self)), rows)
        // A quote before a combining mark is doubled too (CSV.swift's search matched whole characters and left it).
        var mark = SecretByteBuilder()
        CSVText.appendRow(["a\"\u{301}b"], to: &mark, first: true)
        XCTAssertEqual(String(decoding: mark.finish().withBytes { [UInt8]($0) }, as: UTF8.self), "\"a\"\"\u{301}b\"")
    }

    // MARK: zip

    func zipBytes(_ members: [(String, String, ZIPFoundation.CompressionMethod)]) throws -> [UInt8] {
        let path = dir + "/t-\(UUID().uuidString).zip"
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, text, method) in members {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: method) { pos, size in
                data.subdata(in: Int(pos)..<Int(pos) + size)
            }
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testZipMembersStoredAndDeflatedAreReadAndChecked() throws {
        let long = String(repeating: "export data line with some repetition\n", count: 2000)
        let bytes = try zipBytes([("export.attributes", "{}", .none), ("export.data", long, .deflate), ("files/a.txt", "stored", .none)])
        let zip = try ZipArchive(bytes)
        XCTAssertEqual(zip.members.map(\.name), ["export.attributes", "export.data", "files/a.txt"])
        XCTAssertEqual(String(decoding: try zip.extract(XCTUnwrap(zip["export.data"]), limit: 1 << 20).withBytes { [UInt8]($0) }, as: UTF8.self), long)
        XCTAssertEqual(String(decoding: try zip.extract(XCTUnwrap(zip["files/a.txt"]), limit: 1 << 20).withBytes { [UInt8]($0) }, as: UTF8.self), "stored")
        XCTAssertThrowsError(try zip.extract(XCTUnwrap(zip["export.data"]), limit: 1000)) { XCTAssertEqual($0 as? ZipArchive.Failure, .tooLarge) }

        // A flipped byte in the deflated data, or in a stored member: the CRC-32 (or zlib) says so.
        let member = try XCTUnwrap(zip["files/a.txt"])
        var damaged = bytes
        let start = Int(member.localHeaderOffset) + 30 + "files/a.txt".utf8.count
        damaged[start] ^= 0x01
        XCTAssertThrowsError(try ZipArchive(damaged).extract(member, limit: 1 << 20)) {
            XCTAssertEqual($0 as? ZipArchive.Failure, .damaged(.checksumMismatch))
        }
        // Cut short, or not a zip at all.
        XCTAssertThrowsError(try ZipArchive(Array(bytes.prefix(bytes.count - 10)))) { XCTAssertEqual($0 as? ZipArchive.Failure, .notAZip) }
        XCTAssertThrowsError(try ZipArchive(Array("not a zip".utf8))) { XCTAssertEqual($0 as? ZipArchive.Failure, .notAZip) }
        XCTAssertThrowsError(try ZipArchive([])) { XCTAssertEqual($0 as? ZipArchive.Failure, .notAZip) }
    }

    /// A ZIP64 archive (sizes and offsets in the ZIP64 extra field and end record), built byte by byte.
    func zip64Sample() -> [UInt8] {
        let content = Array("zip64 member".utf8)
        var crcTable = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 { var c = UInt32(i); for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }; crcTable[i] = c }
        let crc = ~content.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        let name = Array("export.data".utf8)
        let size = UInt64(content.count)
        var out: [UInt8] = []
        let localExtra = le(1, 2) + le(16, 2) + le(size, 8) + le(size, 8)
        out += le(0x0403_4B50, 4) + le(45, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(UInt64(crc), 4) + le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4)
        out += le(UInt64(name.count), 2) + le(UInt64(localExtra.count), 2) + name + localExtra + content
        let directory = out.count
        let centralExtra = le(1, 2) + le(24, 2) + le(size, 8) + le(size, 8) + le(0, 8)
        out += le(0x0201_4B50, 4) + le(45, 2) + le(45, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(UInt64(crc), 4)
        out += le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) + le(UInt64(name.count), 2) + le(UInt64(centralExtra.count), 2) + le(0, 2) + le(0, 2)
        out += le(0, 2) + le(0, 4) + le(0xFFFF_FFFF, 4) + name + centralExtra
        let directorySize = out.count - directory
        let record = out.count
        out += le(0x0606_4B50, 4) + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + le(1, 8) + le(1, 8)
        out += le(UInt64(directorySize), 8) + le(UInt64(directory), 8)
        out += le(0x0706_4B50, 4) + le(0, 4) + le(UInt64(record), 8) + le(1, 4)
        out += le(0x0605_4B50, 4) + le(0, 2) + le(0, 2) + le(0xFFFF, 2) + le(0xFFFF, 2) + le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) + le(0, 2)
        return out
    }

    /// Every prefix of an archive and every byte of it changed are read without a crash (refused, or read and
    /// checked by the CRC-32), and so are inputs shorter than a ZIP64 end record that hold the end records'
    /// signatures (the reader trapped on those).
    func testDamagedArchivesAreRefusedNotCrashedOn() throws {
        let archive = zip64Sample()
        for n in 0...archive.count {
            if let zip = try? ZipArchive(Array(archive.prefix(n))) { for m in zip.members { _ = try? zip.extract(m, limit: 1 << 20) } }
        }
        for i in archive.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = archive
                damaged[i] ^= flip
                if let zip = try? ZipArchive(damaged) { for m in zip.members { _ = try? zip.extract(m, limit: 1 << 20) } }
            }
        }
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        for pad in 0..<14 {
            let short = [UInt8](repeating: 0, count: pad) + le(0x0706_4B50, 4) + le(0, 4) + le(0, 8) + le(1, 4)
                + le(0x0605_4B50, 4) + le(0, 2) + le(0, 2) + le(0xFFFF, 2) + le(0xFFFF, 2) + le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) + le(0, 2)
            XCTAssertLessThan(short.count, 56)
            XCTAssertThrowsError(try ZipArchive(short)) { XCTAssertEqual($0 as? ZipArchive.Failure, .notAZip) }
        }
    }

    func testZip64SizesAndOffsetsAreRead() throws {
        let content = Array("zip64 member".utf8)
        let zip = try ZipArchive(zip64Sample())
        let member = try XCTUnwrap(zip["export.data"])
        XCTAssertEqual(member.uncompressedSize, UInt64(content.count))
        XCTAssertEqual(try zip.extract(member, limit: 1 << 20).withBytes { [UInt8]($0) }, content)
    }
}
