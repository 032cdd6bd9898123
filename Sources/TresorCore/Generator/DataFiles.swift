// Finds and checks Tresor's data files (word list, strength dictionaries) without crashing when they are absent.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tresor's read-only data files: the EFF word list and the strength estimator's dictionaries and
/// keyboard graphs (Spec/GENERATOR.md §5.4). They are SwiftPM resources of the TresorData target, which the
/// tests and benchmarks link (tresor does not: the bundle accessor SwiftPM generates imports the full Foundation),
/// and are installed as a plain directory (`share/tresor`) next to the binary.
///
/// SwiftPM's generated `Bundle.module` stops the process when its bundle is missing (a binary copied
/// elsewhere), so the files are looked up by hand, in this order:
/// 1. the SwiftPM resource bundle next to the executable (`Tresor_TresorData.resources`, or
///    `Tresor_TresorData.bundle` on macOS), there when the tests or benchmarks were built;
/// 2. the directory in `$TRESOR_DATA_DIR`;
/// 3. `<directory of the executable>/../share/tresor`.
/// The first directory holding the file wins. Every file's SHA-256 is checked against the digest
/// compiled in, so a damaged or substituted list is an error, not a silently weaker estimate.
package enum DataFiles {
    /// The environment variable naming a data directory.
    package static let environmentVariable = "TRESOR_DATA_DIR"

    /// SHA-256 of each file Tresor reads, by its path relative to the data directory.
    static let digests: [String: String] = [
        "eff_large_wordlist.txt": "6d557f0693958fb5e650b68b5bee585eb82cf4da32965505c789e924743bc522",
        "zxcvbn/passwords.txt": "a9746c337c6c07a0e439d492a5e15238e799eff05ec52d60f6a4b3dfdc893265",
        "zxcvbn/english_wikipedia.txt": "b29af10c62218f948eb299e0c68b176ab1c5ecdfe9813bd957bf2c434e90813e",
        "zxcvbn/female_names.txt": "08346ad80d8d829fda1064485420da1e0771ba1e0dcd954252d43b61c5116aaf",
        "zxcvbn/surnames.txt": "87be6d1c0ab405012ae1a23d5552ed2da29d792bdfb0f898c2e806768ec33d65",
        "zxcvbn/us_tv_and_film.txt": "f146e15ecba3f37adcd7aa4fb23797555d1ab55489fbb0b989c60073f638aaa0",
        "zxcvbn/male_names.txt": "5035ab3871a0dd421c960731bb5a77d6c5de784c554dcf67cdc2f01b3a0260da",
        "zxcvbn/adjacency_graphs.json": "a67cdd8f46fc29590fcb7cb9d30de38561256516f758f2e9829ba6aa1ce201bb",
        "libgit2/config": "c4f7cb1e0c8ba348b4e52b609e534b880bc9caf986ce3d7f63f26e9e0b3a71b4",
    ]

    /// The directories searched, in order (some may not exist).
    package static func searchPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var dirs: [String] = []
        let exeDir = executableDirectory()
        if let exeDir {
            dirs.append(exeDir + "/Tresor_TresorData.resources")
            dirs.append(exeDir + "/Tresor_TresorData.bundle/Contents/Resources")
            dirs.append(exeDir + "/Tresor_TresorData.bundle")
        }
        if let dir = environment[environmentVariable], !dir.isEmpty { dirs.append(dir) }
        if let exeDir { dirs.append(PathName.deletingLast(exeDir) + "/share/tresor") }
        return dirs
    }

    /// The directory of the running executable, with symbolic links resolved.
    static func executableDirectory() -> String? {
        #if os(Linux)
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return PathName.deletingLast(target)
        }
        #endif
        #if canImport(FoundationEssentials)
        return nil
        #else
        guard let url = Bundle.main.executableURL else { return nil }
        return url.resolvingSymlinksInPath().deletingLastPathComponent().path
        #endif
    }

    /// The bytes of data file `name` (e.g. `zxcvbn/passwords.txt`) from the first directory that has it.
    /// - Throws: `GeneratorError.dataFileMissing` (with the directories searched),
    ///   `.dataFileUnreadable`, `.dataFileDamaged` when its digest is not the expected one.
    package static func read(_ name: String, searchPath dirs: [String] = searchPath()) throws -> [UInt8] {
        for dir in dirs {
            let path = dir + "/" + name
            switch FileSystem.kind(path) {
            case .missing, .directory: continue
            default: break
            }
            let bytes: [UInt8]
            do { bytes = try FileSystem.read(path, limit: 16 << 20) }
            catch { throw GeneratorError.dataFileUnreadable(path: path) }
            if let expected = digests[name], !expected.isEmpty {
                let actual = bytes.withUnsafeBytes { LibCrypto.digest(.sha256, $0) }
                guard hex(actual) == expected else { throw GeneratorError.dataFileDamaged(path: path) }
            }
            return bytes
        }
        throw GeneratorError.dataFileMissing(name: name, searched: dirs)
    }

    /// The folder holding data file `name` (e.g. `libgit2/config`) in the first directory that has it, once its digest
    /// was checked: for a file another library reads itself. `nil` when no directory has it or it is damaged.
    package static func folder(holding name: String, searchPath dirs: [String] = searchPath()) -> String? {
        for dir in dirs {
            switch FileSystem.kind(dir + "/" + name) {
            case .missing, .directory: continue
            default: break
            }
            guard (try? read(name, searchPath: [dir])) != nil else { return nil }
            return PathName.deletingLast(dir + "/" + name)
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(bytes.count * 2)
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
        return s
    }

    /// The lines of a data file, without their line ends (a final empty line is dropped).
    static func lines(_ bytes: [UInt8]) -> [Substring] {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if bytes.last == 10 { lines.removeLast() }
        return lines
    }
}
