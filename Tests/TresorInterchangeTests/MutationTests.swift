// Damaged input never crashes or hangs a reader: random byte changes and truncations of valid sources.
import Foundation
import TestSupport
@testable import TresorCore
@testable import TresorInterchange
import XCTest

final class MutationTests: ToolTestCase {
    /// Writes `count` damaged copies of `valid` (changed bytes, cut short, bytes removed) and runs `read`
    /// on each: it may throw, it must not crash.
    func mutate(_ valid: [UInt8], name: String, count: Int = 150, keep: Int = 0, read: (String) throws -> Void) {
        // TRESOR_MUTATIONS=N runs N times as many (a longer search, by hand).
        let count = count * (Int(ProcessInfo.processInfo.environment["TRESOR_MUTATIONS"] ?? "") ?? 1)
        var rng = SplitMix64(seed: UInt64(valid.count))
        let path = dir + "/" + name
        for i in 0..<count {
            var b = valid
            switch i % 3 {
            case 0: for _ in 0..<(1 + Int(rng.next() % 4)) { let at = keep + Int(rng.next() % UInt64(max(1, b.count - keep))); if at < b.count { b[at] = UInt8(truncatingIfNeeded: rng.next()) } }
            case 1: b = Array(b.prefix(Int(rng.next() % UInt64(b.count + 1))))
            default: let at = Int(rng.next() % UInt64(b.count)); b.removeSubrange(at..<min(b.count, at + 1 + Int(rng.next() % 16)))
            }
            _ = FileManager.default.createFile(atPath: path, contents: Data(b))
            _ = try? read(path)
        }
    }

    func testTextFormats() throws {
        mutate(Array(VendorTests.bitwarden.utf8), name: "bw.json") { _ = try Bitwarden.read($0) }
        mutate(Array(VendorTests.onePUXData.utf8), name: "data.json") { _ = try OnePassword.document(try JSONFile.read($0), file: $0) }
        let keepass = try FileSystem.read(script("keepass-fixture.xml"), limit: 1 << 20)
        mutate(keepass, name: "kp.xml") { _ = try KeePass.readXML($0) }
        let csv = Array("Group,Title,Username,Password,URL,Notes,TOTP\n\"Root/A\",\"t\",\"u\",\"p\",\"https://x\",\"n\nm\",\"JBSWY3DP\"\n".utf8)
        mutate(csv, name: "kx.csv") { _ = try CSVFormats.readKeePassXC($0) }
        let secret = Array("pw\nlogin: a\nnotes: |\n  x\n---\nk: |\n  v\nlist:\n  - a\n".utf8)
        mutate(secret, name: "secret") { p in
            var item = InterchangeEntry(title: "t")
            try PassText.parse(SecretBytes(copying: try FileSystem.read(p, limit: 1 << 20)), into: &item, yaml: true, file: p)
        }
    }

    /// A KDBX 3.1 file from keepassxc-cli and a KDBX 4 file from pykeepass, damaged after the first bytes
    /// (the KDF parameters are left alone so no copy asks for billions of rounds).
    func testKeePassDatabases() throws {
        let cli = try tool("keepassxc-cli")
        try ok(cli, ["import", "-p", script("keepass-fixture.xml"), dir + "/db3.kdbx"], stdin: "pw\npw\n")
        let r = try run(try tool("python3"), [script("make_kdbx4.py"), dir + "/db4.kdbx", "pw", "argon2id", "chacha20"])
        XCTAssertEqual(r.code, 0, r.stderr)
        for name in ["db3.kdbx", "db4.kdbx"] {
            let valid = try FileSystem.read(dir + "/" + name, limit: 1 << 20)
            mutate(valid, name: "bad-" + name, count: 30, keep: 300) { _ = try KeePass.readDatabase($0, password: SecretBytes(utf8: "pw"), keyFile: nil) }
        }
    }
}
