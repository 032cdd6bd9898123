// fsck, audit and grep on a vault with scopes, for a holder of some of its keys: what it cannot open is not damage.
import Foundation
import Tresor
@testable import TresorCore
import XCTest

extension ScopeTests {
    func testFsckOfAHolderOfTheVaultKeyOnlyReportsAClosedScopeAsNotCheckedNotAsDamage() throws {
        try teamVault(closed: true)
        let fsck = try tresor("fsck")
        XCTAssertEqual(fsck.code, 0, fsck.stdout + fsck.stderr)
        XCTAssertEqual(fsck.stdout, "", "no problem listed")
        XCTAssertTrue(fsck.stderr.contains("1 entry not checked (no key for scope \"Team\")"), fsck.stderr)
        XCTAssertTrue(fsck.stderr.contains("checked 1 entries: no problems"), fsck.stderr)
        let json = try JSONValue.parse(Array(try tresor("fsck", "--json").stdout.utf8)).objectValue!
        XCTAssertEqual(json["entriesChecked"], .integer(1))
        XCTAssertEqual(json["problems"], .array([]))
        XCTAssertEqual(json["notChecked"], .array([.object(["file": .string("Team/wiki.json"), "scope": .string("Team")])]))
        // A scope-only member: the root entry is under the vault key, which she does not hold.
        let carols = try withIdentity("carol", "fsck")
        XCTAssertEqual(carols.code, 0, carols.stdout + carols.stderr)
        XCTAssertTrue(carols.stderr.contains("1 entry not checked (the vault key is not held)"), carols.stderr)
        // What can be checked still is: a damaged envelope, and a copy of the file (same id) made outside tresor.
        let wiki = entryFile("Team/wiki")
        let sealed = try String(contentsOfFile: wiki, encoding: .utf8)
        try write(sealed.replacingOccurrences(of: "\"version\":1", with: "\"version\":1,\"extra\":1"), to: wiki)
        let damaged = try tresor("fsck")
        XCTAssertEqual(damaged.code, 6, damaged.stderr)
        XCTAssertTrue(damaged.stdout.contains("Team/wiki.json: ") && damaged.stdout.contains("unknown envelope member \"extra\""), damaged.stdout)
        XCTAssertFalse(damaged.stderr.contains("not checked"), damaged.stderr)
        try write(sealed, to: wiki)
        try write(sealed, to: entryFile("Team/copy"))
        let copied = try tresor("fsck")
        XCTAssertEqual(copied.code, 6, copied.stderr)
        XCTAssertTrue(copied.stdout.contains("Team/copy.json: same entry id") || copied.stdout.contains("Team/wiki.json: same entry id"), copied.stdout)
        XCTAssertTrue(copied.stderr.contains("2 entries not checked (no key for scope \"Team\")"), copied.stderr)
        try FileManager.default.removeItem(atPath: entryFile("Team/copy"))
        XCTAssertEqual(try tresor("fsck").code, 0)
        // audit and grep skip what they cannot open and say so; neither calls it damage.
        let audit = try tresor("audit")
        XCTAssertTrue(audit.stdout.contains("1 skipped (sealed under keys you do not hold)"), audit.stdout)
        XCTAssertFalse(audit.stdout.contains("Team/wiki"), audit.stdout)
        let grep = try tresor("grep", "secret")
        XCTAssertEqual(grep.code, 0, grep.stderr)
        XCTAssertTrue(grep.stdout.contains("Email/gmail") && !grep.stdout.contains("Team/wiki"), grep.stdout)
        XCTAssertTrue(grep.stderr.contains("skipped 1 entry sealed under keys you do not hold"), grep.stderr)
    }
}
