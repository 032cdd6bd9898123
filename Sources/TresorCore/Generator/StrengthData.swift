// The strength estimator's data: zxcvbn's ranked frequency lists and keyboard graphs, read once from data files.
import Foundation

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
    /// Lower-case word → dictionary (high byte) and rank (low 24 bits). The lists share no word.
    let ranks: [String: UInt32]
    /// The longest word in any list, in bytes (all words are ASCII).
    let maxWordLength: Int
    /// qwerty, dvorak, keypad, mac_keypad (zxcvbn's order).
    let graphs: [KeyboardGraph]
    /// s and d of the qwerty graph (used for qwerty and dvorak) and of the keypad (both keypads).
    let keyboardStarts: Double, keyboardDegree: Double, keypadStarts: Double, keypadDegree: Double

    private init(ranks: [String: UInt32], maxWordLength: Int, graphs: [KeyboardGraph]) {
        self.ranks = ranks
        self.maxWordLength = maxWordLength
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
        var ranks: [String: UInt32] = [:]
        ranks.reserveCapacity(95_000)
        var longest = 0
        for dictionary in StrengthDictionary.allCases {
            for (index, word) in DataFiles.lines(try DataFiles.read(dictionary.fileName)).enumerated() where !word.isEmpty {
                let key = String(word)
                if ranks[key] == nil { ranks[key] = UInt32(dictionary.rawValue) << 24 | UInt32(index + 1) }
                longest = max(longest, word.utf8.count)
            }
        }
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
        return StrengthData(ranks: ranks, maxWordLength: longest, graphs: graphs)
    }

    /// The dictionary and rank of `word` (lower case), if it is in a list.
    func lookUp(_ word: String) -> (StrengthDictionary, Int)? {
        guard let packed = ranks[word] else { return nil }
        return (StrengthDictionary(rawValue: Int(packed >> 24))!, Int(packed & 0xFF_FFFF))
    }
}
