// FileSystem.folderAndName splits a path as NSString does, with or without its fast way.
import Foundation
@testable import TresorCore
import XCTest

final class FileSystemPathTests: XCTestCase {
    func testFolderAndNameMatchNSStringOnEveryShape() {
        let paths = ["/tmp/v/Email/gmail.json", "/tmp/v/.tresor/vault.json", "/x", "/", "a/b", "a/b/", "/a//b/c.json",
                     "//a", "/tmp/v/Bank/Café.json", "/tmp/v/日本/パス.json", "a/./b", "/tmp/v/a/../b.json", "/a/b//"]
        for p in paths {
            let (folder, name) = FileSystem.folderAndName(p)
            XCTAssertEqual(folder, (p as NSString).deletingLastPathComponent, p)
            XCTAssertEqual(name, (p as NSString).lastPathComponent, p)
        }
        // A name without a folder (Foundation's own split traps on it here).
        XCTAssertTrue(FileSystem.folderAndName("x") == ("", "x"))
    }

    func testAnAtomicWriteLandsBesideItsPlaceAndLeavesNoTemporary() throws {
        let dir = NSTemporaryDirectory() + "fs-path-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/Email", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileSystem.writeAtomically(Array("one".utf8), to: dir + "/Email/gmail.json")
        try FileSystem.writeAtomically(Array("two".utf8), to: dir + "/Email/gmail.json")
        XCTAssertEqual(try String(contentsOfFile: dir + "/Email/gmail.json", encoding: .utf8), "two")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/Email"), ["gmail.json"])
    }
}
