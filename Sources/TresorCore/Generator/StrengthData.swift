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

/// Every list and graph, loaded together on first use; or, for one password, only the words its estimate can
/// look up (`forOnePassword`).
final class StrengthData: Sendable {
    /// Lower-case word → dictionary (high byte) and rank (low 24 bits); a word in several lists counts in the
    /// first of them (zxcvbn's order), at its first line there.
    let ranks: WordTable
    /// The longest word in any list, in bytes (all words are ASCII); the longest a password is analysed to
    /// while `queries` records.
    var maxWordLength: Int { queries == nil ? ranks.longest : StrengthEstimator.maxAnalysedLength }
    /// qwerty, dvorak, keypad, mac_keypad (zxcvbn's order).
    let graphs: [KeyboardGraph]
    /// s and d of the qwerty graph (used for qwerty and dvorak) and of the keypad (both keypads).
    let keyboardStarts: Double, keyboardDegree: Double, keypadStarts: Double, keypadDegree: Double
    /// When set, every look-up is recorded here and finds nothing (the first pass of `forOnePassword`).
    private let queries: WordQueries?

    private init(ranks: WordTable, graphs: [KeyboardGraph], queries: WordQueries? = nil) {
        self.ranks = ranks
        self.graphs = graphs
        self.queries = queries
        keyboardStarts = graphs[0].startingPositions
        keyboardDegree = graphs[0].averageDegree
        keypadStarts = graphs[2].startingPositions
        keypadDegree = graphs[2].averageDegree
    }

    /// The shared instance. - Throws: the `GeneratorError` of a missing, unreadable or damaged data file.
    static func shared() throws -> StrengthData { try loaded.get() }

    private static let loaded: Result<StrengthData, Error> = Result { try load() }

    static func load() throws -> StrengthData {
        StrengthData(ranks: WordTable(lists: try readLists()), graphs: try readGraphs())
    }

    /// The lists and graphs as `match` needs them to estimate one password: `match` runs once with every
    /// look-up recorded and finding nothing, which asks for every word any run can ask for (a look-up that
    /// finds a word only ever saves further ones); then only the lists' words that were asked for are put in
    /// the table. The matches of `match` with this data are those with `shared()`, without building a table of
    /// ~95,000 words, most of the cost of a command that estimates one password (Spec/GENERATOR.md §5.4).
    /// - Throws: as `shared()`.
    static func forOnePassword(_ match: (StrengthData) -> Void) throws -> StrengthData {
        let graphs = try readGraphs()
        let queries = WordQueries()
        defer { queries.wipe() }
        match(StrengthData(ranks: WordTable(lists: []), graphs: graphs, queries: queries))
        let filter = queries.filter()
        return StrengthData(ranks: WordTable(lists: try readLists(), keeping: filter.mayContain), graphs: graphs)
    }

    private static func readLists() throws -> [[UInt8]] {
        try StrengthDictionary.allCases.map { try DataFiles.read($0.fileName) }
    }

    private static func readGraphs() throws -> [KeyboardGraph] {
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
        return graphs
    }

    /// The dictionary and rank of `word` (lower case), if it is in a list.
    func lookUp(_ word: String) -> (StrengthDictionary, Int)? {
        var word = word
        return word.withUTF8 { lookUp($0) }
    }

    /// The dictionary and rank of the word whose bytes are `word` (lower case), if it is in a list.
    func lookUp<C: Collection>(_ word: C) -> (StrengthDictionary, Int)? where C.Element == UInt8 {
        if let queries {
            queries.record(WordTable.hash(word))
            return nil
        }
        guard let packed = ranks.value(of: word) else { return nil }
        return (StrengthDictionary(rawValue: Int(packed >> 24))!, Int(packed & 0xFF_FFFF))
    }
}

/// The hashes of the words one estimate looked up. Only the thread running that estimate touches it; the
/// hashes come from the password, so they are wiped after use.
final class WordQueries: @unchecked Sendable {
    private var hashes: [Int] = []

    func record(_ hash: Int) { hashes.append(hash) }

    /// A bit per hash in a table of at least 16 bits per hash: a word whose bit is clear was not asked for
    /// (one whose bit is set may not have been either, and costs only its place in the table).
    func filter() -> WordFilter {
        var size = 4096
        while size < 16 * hashes.count { size <<= 1 }
        var bits = [UInt64](repeating: 0, count: size / 64)
        for h in hashes { bits[(h & (size - 1)) >> 6] |= 1 << UInt64(h & 63) }
        return WordFilter(bits: bits, mask: size - 1)
    }

    func wipe() { for i in hashes.indices { hashes[i] = 0 } }
}

/// `WordQueries.filter()`.
struct WordFilter {
    let bits: [UInt64], mask: Int
    func mayContain(_ hash: Int) -> Bool { bits[(hash & mask) >> 6] & (1 << UInt64(hash & 63)) != 0 }
}

/// The words of every list in one open-addressing hash table over their bytes (FNV-1a, linear probing).
/// A `[String: UInt32]` of the ~95,000 words took ~40 ms to build (a `String` and a SipHash each), more
/// than the rest of an `add`; this table is built in a few milliseconds from the files' bytes as read.
struct WordTable: Sendable {
    /// The words, one after the other.
    private let bytes: [UInt8]
    /// Per word: where it starts in `bytes`, its length, and its value (list << 24 | line number).
    private let starts: [UInt32], lengths: [UInt16], values: [UInt32]
    /// Index of a word + 1, or 0 for an empty slot; the count is a power of two, at least twice the words.
    private let slots: [UInt32]
    /// The longest word, in bytes.
    let longest: Int

    /// The words of `lists` (one word a line; list i's words get value i << 24 | line number, from 1), or only
    /// those whose hash `keeping` accepts. `longest` counts every word of the lists, kept or not.
    init(lists: [[UInt8]], keeping: ((Int) -> Bool)? = nil) {
        // First the words to keep, in the lists' order, then the table: its size follows their count.
        var kept: [(list: Int, start: Int, length: Int, value: UInt32, hash: Int)] = []
        var longest = 0
        if keeping == nil { kept.reserveCapacity(lists.reduce(0) { $0 + $1.count } / 8) }
        for (number, list) in lists.enumerated() {
            list.withUnsafeBufferPointer { all in
                var lineStart = 0, line = 0
                while lineStart < all.count {
                    // One pass over the line: its end and its hash (`hash(_:)`, inlined).
                    var lineEnd = lineStart
                    var h = WordTable.hashBasis
                    while lineEnd < all.count, all[lineEnd] != 10 {
                        h = (h ^ UInt64(all[lineEnd])) &* WordTable.hashPrime
                        lineEnd += 1
                    }
                    line += 1
                    let length = lineEnd - lineStart
                    if length > 0, length <= Int(UInt16.max) {
                        longest = max(longest, length)
                        let hash = Int(truncatingIfNeeded: h ^ (h >> 32))
                        if keeping?(hash) ?? true {
                            kept.append((number, lineStart, length, UInt32(number) << 24 | UInt32(line), hash))
                        }
                    }
                    lineStart = lineEnd + 1
                }
            }
        }
        var capacity = 16
        while capacity < 2 * kept.count { capacity <<= 1 }
        var bytes: [UInt8] = [], starts: [UInt32] = [], lengths: [UInt16] = [], values: [UInt32] = []
        bytes.reserveCapacity(kept.reduce(0) { $0 + $1.length })
        starts.reserveCapacity(kept.count); lengths.reserveCapacity(kept.count); values.reserveCapacity(kept.count)
        var slots = [UInt32](repeating: 0, count: capacity)
        for word in kept {
            lists[word.list].withUnsafeBufferPointer { source in
                let w = UnsafeBufferPointer(rebasing: source[word.start..<word.start + word.length])
                var slot = word.hash & (capacity - 1)
                while slots[slot] != 0 {
                    let other = Int(slots[slot] - 1)
                    // Already there from an earlier list or line: the first counts.
                    if Int(lengths[other]) == word.length, bytes[Int(starts[other])...].starts(with: w) { return }
                    slot = (slot + 1) & (capacity - 1)
                }
                starts.append(UInt32(bytes.count)); bytes += w
                lengths.append(UInt16(word.length)); values.append(word.value)
                slots[slot] = UInt32(starts.count)
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

    static let hashBasis: UInt64 = 0xcbf2_9ce4_8422_2325, hashPrime: UInt64 = 0x0000_0100_0000_01b3

    static func hash<C: Collection>(_ word: C) -> Int where C.Element == UInt8 {
        var h = hashBasis
        for b in word { h = (h ^ UInt64(b)) &* hashPrime }
        return Int(truncatingIfNeeded: h ^ (h >> 32))
    }
}
