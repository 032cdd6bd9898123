// The core's errors carry data, not prose: the kind of file, the member and what was expected, the rule, the errno.
import Foundation
@testable import TresorCore
import XCTest

final class FormatProblemTests: XCTestCase {
    let uuid = "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b"

    func error(_ body: () throws -> Any) -> CoreError? {
        do { _ = try body(); return nil } catch { return error as? CoreError }
    }

    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A damaged header names the kind of file and the member, and what the member should have been.
    func testMalformedHeadersNameTheFileKindAndTheMember() {
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes("[]")) }, .malformed(.notAnObject(.vaultHeader)))
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes("{")) },
                       .malformed(.notJSON(.vaultHeader, JSONValue.ParseError(offset: 1, problem: .expectedKey))))
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes(#"{"format":"tresor-scope"}"#)) },
                       .malformed(.member(.vaultHeader, name: "format", expected: .value("tresor-vault"))))
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes(#"{"format":"tresor-vault","version":5,"vault":"\#(self.uuid)","keySlots":[],"epoch":0}"#)) },
                       .malformed(.member(.vaultHeader, name: "epoch", expected: .positiveInteger)))
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes(#"{"format":"tresor-vault","version":5,"vault":"\#(self.uuid)","keySlots":[],"epoch":1,"clock":[]}"#)) },
                       .malformed(.member(.vaultHeader, name: "clock", expected: .clock)))
        XCTAssertEqual(error { try VaultHeader.parse(self.bytes(String(repeating: " ", count: (1 << 20) + 1))) },
                       .malformed(.tooLarge(.vaultHeader, limit: 1 << 20)))
        XCTAssertEqual(error { try ScopeHeader.parse(self.bytes(#"{"format":"tresor-scope","version":2,"vault":"\#(self.uuid)","scope":"Team"}"#)) },
                       .malformed(.member(.scopeHeader, name: "scope", expected: .lowercaseUUID)))
        XCTAssertEqual(error { try StateRecord.parse(self.bytes(#"{"format":"tresor-state","version":1,"vault":"\#(self.uuid)","domain":"Team"}"#)) },
                       .malformed(.member(.stateRecord, name: "domain", expected: .domain)))
        XCTAssertEqual(error { try Identity.parse(self.bytes(#"{"format":"tresor-identity","version":1}"#)) },
                       .malformed(.member(.identity, name: "publicKey", expected: .string)))
        XCTAssertEqual(CoreError.malformed(.notAnObject(.vaultHeader)).kind, "malformed", "the kind scripts and vectors see")
    }

    func testEntryFilesNameTheMemberAndTheEncoding() {
        let nonce = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        XCTAssertEqual(error { try Envelope.parse([]) }, .malformed(.empty(.envelope)))
        XCTAssertEqual(error { try Envelope.parse(self.bytes(#"{"version":2,"id":"\#(self.uuid)","extra":1}"#)) },
                       .malformed(.unexpectedMember(.envelope, name: "extra")))
        XCTAssertEqual(error { try Envelope.parse(self.bytes(#"{"version":2,"id":"\#(self.uuid)","nonce":"AA"}"#)) },
                       .badEncoding(.notBase64(.envelope, member: "nonce", bytes: nil)))
        XCTAssertEqual(error { try Envelope.parse(self.bytes(#"{"version":2,"id":"\#(self.uuid)","nonce":"\#(nonce)","ciphertext":"AAAA"}"#)) },
                       .badEncoding(.tooShort(.envelope, member: "ciphertext", minimum: Sodium.tagBytes)))
        XCTAssertEqual(error { try Entry(id: self.uuid, payload: .object(["path": .string("a")])) },
                       .malformed(.member(.payload, name: "fields", expected: .object)))
        XCTAssertEqual(error { try Entry(id: self.uuid, payload: .object(["path": .string("a"), "fields": .object(["notes": .string("x")])])) },
                       .malformed(.notAnObject(.field("notes"))))
        XCTAssertEqual(error { try RecipientKey(text: "age1xyz") }, .badEncoding(.publicKeyPrefix("tresor1")))
    }

    func testPathsFieldsAndKeyDerivationNameTheRuleBroken() {
        XCTAssertEqual(error { try EntryPath("a//b") }, .invalidPath("a//b", rule: .emptyComponent))
        XCTAssertEqual(error { try EntryPath("Team/GIT~1/x") }, .invalidPath("Team/GIT~1/x", rule: .gitShortName("GIT~1")))
        XCTAssertEqual(error { try EntryPath("x.json/y") }, .invalidPath("x.json/y", rule: .folderEndsInJSON))
        XCTAssertEqual(error { try EntryPath("a:b") }, .invalidPath("a:b", rule: .forbiddenCharacter(":")))
        XCTAssertEqual(error { try EntryPath(String(repeating: "a/", count: 16) + "a") }, .invalidPath(String(repeating: "a/", count: 16) + "a", rule: .tooDeep(maxDepth: 16)))
        XCTAssertEqual(error { try Entry.validateFieldName("=x") }, .invalidField(name: "=x", rule: .nameDotOrEquals))
        XCTAssertEqual(error { try KDFParameters(ops: 99, mem: 8192, salt: Array(repeating: 0, count: 16)).validate() },
                       .kdfOutOfBounds(.ops(99, allowed: Sodium.minOps...16)))
        XCTAssertEqual(error { try KDFParameters(ops: 1, mem: 8192, salt: [1]).validate() }, .kdfOutOfBounds(.saltLength(1, expected: 16)))
    }

    func testFileFailuresCarryTheCallThePathAndTheErrno() throws {
        let dir = NSTemporaryDirectory() + "format-problem-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(error { try FileSystem.read(dir + "/missing", limit: 10) }, .io(.failed(.read, path: dir + "/missing", errno: ENOENT)))
        XCTAssertEqual(error { try FileSystem.read(dir, limit: 10) }, .io(.notRegularFile(path: dir, type: .directory)))
        XCTAssertTrue(mkfifo(dir + "/fifo", 0o600) == 0)
        XCTAssertEqual(error { try FileSystem.read(dir + "/fifo", limit: 10) }, .io(.notRegularFile(path: dir + "/fifo", type: .fifo)))
        try Data(repeating: 0x41, count: 11).write(to: URL(fileURLWithPath: dir + "/big"))
        XCTAssertEqual(error { try FileSystem.read(dir + "/big", limit: 10) }, .malformed(.fileTooLarge(path: dir + "/big", limit: 10)))
        try Data().write(to: URL(fileURLWithPath: dir + "/file"))
        XCTAssertEqual(error { try FileSystem.makeDirectories("file/sub", under: dir) }, .io(.notADirectory(path: dir + "/file")))
    }
}
