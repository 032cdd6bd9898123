// The strength estimator's data: zxcvbn's ranked frequency lists and keyboard graphs, read once from data files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// zxcvbn's frequency lists, in zxcvbn's order (which decides ties). Spec/GENERATOR.md §5.4.
enum StrengthDictionary: Int, CaseIterable, Sendable {
    case passwords, englishWikipedia, femaleNames, surnames, usTVAndFilm, maleNames

    /// The data file holding the list, one word a line, most frequent first (rank = line number).
    var fileName: String {
        switch self {
        case .passwords: return "zxcvbn/passwords.txt"
        case .englishWikipedia: return "zxcvbn/english_wikipedia.txt"
        case .femaleNames: return "zxcvbn/female_names.txt"
        case .surnames: return "zxcvbn/surnames.txt"
        case .usTVAndFilm: return "zxcvbn/us_tv_and_film.txt"
        case .maleNames: return "zxcvbn/male_names.txt"
        }
    }
}

/// A keyboard's adjacency graph: for each character, the keys around it in a fixed order of directions
/// (each key as its characters, unshifted first), nil where there is no key.
struct KeyboardGraph: Sendable {
    /// `qwerty`, `dvorak`, `keypad` or `mac_keypad`.
    let name: String
    let neighbours: [Unicode.Scalar: [[Unicode.Scalar]?]]

    /// Keyboards with a shift key: a shifted character counts as a variation.
    var hasShift: Bool { name == "qwerty" || name == "dvorak" }
    /// zxcvbn's s: the number of characters on the layout.
    var startingPositions: Double { Double(neighbours.count) }
    /// zxcvbn's d: the mean number of neighbouring keys per character.
    var averageDegree: Double {
        Double(neighbours.values.reduce(0) { $0 + $1.filter { $0 != nil }.count }) / Double(neighbours.count)
    }
}

/// Every list and graph, loaded together on first use.
final class StrengthData: Sendable {
    /// Lower-case word → dictionary (high byte) and rank (low 24 bits); a word in several lists counts in the
    /// first of them (zxcvbn's order), at its first line there.
    let ranks: WordTable
    /// The longest word in any list, in bytes (all words are ASCII).
    var maxWordLength: Int { ranks.longest }
    /// qwerty, dvorak, keypad, mac_keypad (zxcvbn's order).
    let graphs: [KeyboardGraph]
    /// s and d of the qwerty graph (used for qwerty and dvorak) and of the keypad (both keypads).
    let keyboardStarts: Double, keyboardDegree: Double, keypadStarts: Double, keypadDegree: Double

    private init(ranks: WordTable, graphs: [KeyboardGraph]) {
        self.ranks = ranks
        self.graphs = graphs
        keyboardStarts = graphs[0].startingPositions
        keyboardDegree = graphs[0].averageDegree
        keypadStarts = graphs[2].startingPositions
        keypadDegree = graphs[2].averageDegree
    }

    /// The shared instance. - Throws: the `GeneratorError` of a missing, unreadable or damaged data file.
    static func shared() throws -> StrengthData { try loaded.get() }

    private static let loaded: Result<StrengthData, Error> = Result { try load() }

    static func load() throws -> StrengthData {
        let ranks = WordTable(lists: try StrengthDictionary.allCases.map { try DataFiles.read($0.fileName) })
        let name = "zxcvbn/adjacency_graphs.json"
        guard let json = try? JSONValue.parse(try DataFiles.read(name)), let object = json.objectValue else {
            throw GeneratorError.dataFileDamaged(path: name)
        }
        var graphs: [KeyboardGraph] = []
        for graphName in ["qwerty", "dvorak", "keypad", "mac_keypad"] {
            guard let table = object[graphName]?.objectValue else { throw GeneratorError.dataFileDamaged(path: name) }
            var neighbours: [Unicode.Scalar: [[Unicode.Scalar]?]] = [:]
            for (key, value) in table {
                guard let c = key.unicodeScalars.first, key.unicodeScalars.count == 1, let list = value.arrayValue else {
                    throw GeneratorError.dataFileDamaged(path: name)
                }
                neighbours[c] = list.map { $0.stringValue.map { Array($0.unicodeScalars) } }
            }
            graphs.append(KeyboardGraph(name: graphName, neighbours: neighbours))
        }
        return StrengthData(ranks: ranks, graphs: graphs)
    }

    /// The dictionary and rank of `word` (lower case), if it is in a list.
    func lookUp(_ word: String) -> (StrengthDictionary, Int)? {
        var word = word
        return word.withUTF8 { lookUp($0) }
    }

    /// The dictionary and rank of the word whose bytes are `word` (lower case), if it is in a list.
    func lookUp<C: Collection>(_ word: C) -> (StrengthDictionary, Int)? where C.Element == UInt8 {
        guard let packed = ranks.value(of: word) else { return nil }
        return (StrengthDictionary(rawValue: Int(packed >> 24))!, Int(packed & 0xFF_FFFF))
    }
}

/// The words of every list in one open-addressing hash table over their bytes (FNV-1a, linear probing).
/// A `[String: UInt32]` of the ~95,000 words took ~40 ms to build (a `String` and a SipHash each), more
/// than the rest of an `add`; this table is built in a few milliseconds from the files' bytes as read.
struct WordTable: Sendable {
    /// The lists' files, one after the other.
    private let bytes: [UInt8]
    /// Per word: where it starts in `bytes`, its length, and its value (list << 24 | line number).
    private let starts: [UInt32], lengths: [UInt16], values: [UInt32]
    /// Index of a word + 1, or 0 for an empty slot; the count is a power of two, at least twice the words.
    private let slots: [UInt32]
    /// The longest word, in bytes.
    let longest: Int

    /// The words of `lists` (one word a line; list i's words get value i << 24 | line number, from 1).
    init(lists: [[UInt8]]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        for list in lists { bytes += list }
        let lineCount = bytes.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } + lists.count
        var capacity = 1
        while capacity < 2 * lineCount { capacity <<= 1 }
        var starts: [UInt32] = [], lengths: [UInt16] = [], values: [UInt32] = []
        starts.reserveCapacity(lineCount); lengths.reserveCapacity(lineCount); values.reserveCapacity(lineCount)
        var slots = [UInt32](repeating: 0, count: capacity)
        var longest = 0
        var offset = 0
        bytes.withUnsafeBufferPointer { all in
            for (number, list) in lists.enumerated() {
                let end = offset + list.count
                var lineStart = offset, line = 0
                while lineStart < end {
                    var lineEnd = lineStart
                    while lineEnd < end, all[lineEnd] != 10 { lineEnd += 1 }
                    line += 1
                    let word = UnsafeBufferPointer(rebasing: all[lineStart..<lineEnd])
                    if !word.isEmpty, word.count <= Int(UInt16.max) {
                        var slot = WordTable.hash(word) & (capacity - 1)
                        var present = false
                        while slots[slot] != 0 {
                            let w = Int(slots[slot] - 1)
                            if Int(lengths[w]) == word.count, memcmp(all.baseAddress! + Int(starts[w]), word.baseAddress!, word.count) == 0 {
                                present = true
                                break
                            }
                            slot = (slot + 1) & (capacity - 1)
                        }
                        if !present {
                            starts.append(UInt32(lineStart)); lengths.append(UInt16(word.count))
                            values.append(UInt32(number) << 24 | UInt32(line))
                            slots[slot] = UInt32(starts.count)
                            longest = max(longest, word.count)
                        }
                    }
                    lineStart = lineEnd + 1
                }
                offset = end
            }
        }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        self.values = values
        self.slots = slots
        self.longest = longest
    }

    /// The value of `word`, if it is in a list.
    func value<C: Collection>(of word: C) -> UInt32? where C.Element == UInt8 {
        guard !word.isEmpty, word.count <= longest else { return nil }
        let mask = slots.count - 1
        var slot = WordTable.hash(word) & mask
        while slots[slot] != 0 {
            let w = Int(slots[slot] - 1)
            if Int(lengths[w]) == word.count, bytes[Int(starts[w])...].starts(with: word) { return values[w] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    static func hash<C: Collection>(_ word: C) -> Int where C.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in word { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 32))
    }
}
