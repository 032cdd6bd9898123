// The CLI words the library's errors: the data a library error carries becomes a message and `hint:` lines here.
import Foundation
import Tresor
import XCTest
@testable import tresor

final class ErrorMessageTests: CLITestCase {
    /// Lowercase start (or a quoted name), no final period, later lines are `hint:` lines (STYLE.md "Errors").
    func assertHouseStyle(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines[0].first.map { $0.isLowercase || $0 == "\"" } ?? false, text, file: file, line: line)
        XCTAssertFalse(lines.contains { $0.hasSuffix(".") }, text, file: file, line: line)
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix("hint: ") }, text, file: file, line: line)
    }

    /// A damaged vault header: the library's error names the kind of file and the member; the CLI prints the message
    /// for it, naming the file, and exits 2 with nothing changed.
    func testADamagedHeaderIsNamedByTheLibraryAndWordedByTheCLI() throws {
        try initVault()
        let header = vaultDir + "/" + VaultHeader.relativePath
        let original = try String(contentsOfFile: header, encoding: .utf8)
        XCTAssertTrue(original.contains("\"epoch\":1"), original)
        let damaged = original.replacingOccurrences(of: "\"epoch\":1", with: "\"epoch\":0")
        try write(damaged, to: header)

        XCTAssertThrowsError(try VaultHeader.parse(Array(damaged.utf8))) { error in
            XCTAssertEqual(error as? CoreError, .malformed(.member(.vaultHeader, name: "epoch", expected: .positiveInteger)))
        }
        let expected = "vault header .tresor/vault.json: not a valid Tresor file: \"epoch\" is not a positive integer"
        XCTAssertEqual(VaultError.header(.malformed(.member(.vaultHeader, name: "epoch", expected: .positiveInteger))).message, expected)
        let r = try tresor("ls")
        XCTAssertEqual(r.code, 2)
        XCTAssertEqual(r.stderr, "tresor: error: " + expected + "\n")
        XCTAssertEqual(try String(contentsOfFile: header, encoding: .utf8), damaged, "nothing was written")
    }

    func testCoreErrorsAreWordedFromTheirData() {
        let cases: [(CoreError, String)] = [
            (.malformed(.member(.recipientSlot, name: "id", expected: .lowercaseUUID)),
             "not a valid Tresor file: recipient key slot member \"id\" missing or not a lowercase UUID"),
            (.malformed(.member(.payload, name: "fields", expected: .object)),
             "not a valid Tresor file: payload member \"fields\" missing or not an object"),
            (.malformed(.notJSON(.envelope, JSONValue.ParseError(offset: 7, problem: .unexpectedEnd))),
             "not a valid Tresor file: not JSON (unexpected end of input at byte 7); the file may be truncated"),
            (.malformed(.tooLarge(.vaultHeader, limit: 1 << 20)), "not a valid Tresor file: vault header larger than 1 MiB"),
            (.malformed(.tooMany(.recipientSlot, limit: 1024)), "not a valid Tresor file: more than 1024 recipient key slots"),
            (.malformed(.mismatch(.scopesNest("Team", "Team/ops"))),
             "not a valid Tresor file: scopes \"Team\" and \"Team/ops\" nest (nested scopes are refused)"),
            (.badEncoding(.notBase64(.vaultHeader, member: "auth", bytes: 32)), "bad encoding: \"auth\" is not canonical base64 of 32 bytes"),
            (.badEncoding(.wrongLength(.passphraseSlot, member: "nonce", bytes: 24)),
             "bad encoding: passphrase key slot \"nonce\" is not 24 bytes"),
            (.kdfOutOfBounds(.mem(1, allowed: 8192...1_073_741_824)), "key derivation parameters refused: mem 1 outside 8192...1073741824 bytes"),
            (.invalidPath("a//b", rule: .emptyComponent), "invalid entry path \"a//b\": empty path component"),
            (.invalidPath("x\u{1b}", rule: .controlCharacter), "invalid entry path \"x\\x1b\": control characters are not allowed"),
            (.invalidField(name: "=x", rule: .nameDotOrEquals), "invalid field: field name \"=x\" may not start with \".\" or contain \"=\""),
            (.io(.failed(.read, path: "/v/a.json", errno: EACCES)), "cannot read \"/v/a.json\": Permission denied"),
            (.io(.notRegularFile(path: "/v/.tresor/vault.json", type: .fifo)), "\"/v/.tresor/vault.json\" is a FIFO, not a regular file"),
            (.io(.failed(.write, path: "/v/x", errno: ENOSPC)), "cannot write \"/v/x\": No space left on device"),
        ]
        for (error, text) in cases {
            XCTAssertEqual(error.message, text)
            assertHouseStyle(error.message)
        }
        for e in [CoreError.unsupportedVersion(9), .pathMismatch(inner: "a", outer: "b"), .differentVault(ours: "a", theirs: "b"),
                  .headerReplayed(generation: 1, minimum: 2), .symlink("l"), .malformed(.missing(.passphraseSlot)),
                  .malformed(.dotNotCovered(.payload)), .badEncoding(.publicKeyChecksum), .malformed(.missingFile(path: ".tresor/vault.json"))] {
            assertHouseStyle(e.message)
        }
    }

    /// The git layer's errors carry libgit2's code and text and what was being done; the words and hints are here.
    func testGitErrorsAreWordedInTheHouseStyle() {
        let errors: [GitError] = [
            .notARepository(path: "p"), .alreadyExists(path: "p"), .destinationNotEmpty(path: "p"), .notOwned(path: "p"),
            .fileNotFound(path: "p"), .invalidPath("p"), .nothingToCommit, .unknownRevision("r"),
            .uncommittedChanges(paths: ["a", "b", "c", "d", "e", "f", "g"]), .unresolvedConflicts(paths: ["a"]),
            .remoteNotFound("o"), .remoteExists("o"), .notFastForward("r"),
            .unreachable(url: "u", message: "down", optionsNotFollowed: ["ProxyJump"]), .unreachable(url: "u", message: nil, optionsNotFollowed: []),
            .authenticationFailed(url: "u", message: "no"), .unsupportedSSHKey(url: "u"), .hostKeyRejected(url: "u"),
            .unusableSSHKeys(url: "u", keys: [.init(path: "k", kind: .dsa)]), .pushRejected(remote: "o", reason: .notFastForward),
            .pushRejected(remote: "o", reason: .refused([.init(ref: "refs/heads/main", status: "denied")])),
            .malformedTree(id: "abc", reason: .truncatedEntry), .detachedHead,
            .libgit2(code: -1, message: "broken", operation: .stage(path: "a.json")), .libgit2(code: -3, message: nil, operation: .readHead),
            .system(errno: ENOSPC, operation: .takeInObjects(path: "/v/.git/tresor/incoming-1")),
        ]
        for error in errors { assertHouseStyle(error.message) }
        XCTAssertTrue(GitError.uncommittedChanges(paths: ["a", "b", "c", "d", "e", "f", "g"]).message.contains("and 2 more"))
        XCTAssertEqual(GitError.libgit2(code: -1, message: "broken", operation: .stage(path: "a.json")).message, "staging \"a.json\": broken")
        XCTAssertEqual(GitError.libgit2(code: -3, message: nil, operation: .readHead).message, "reading HEAD: libgit2 error -3")
        XCTAssertEqual(GitError.system(errno: ENOSPC, operation: .takeInObjects(path: "/q")).message,
                       "taking in the objects received in \"/q\": No space left on device")
        XCTAssertTrue(GitError.unreachable(url: "git://h/v", message: "down", optionsNotFollowed: ["ProxyJump"]).message
            .hasPrefix("cannot reach \"git://h/v\": down (tresor connects directly: ProxyJump in ~/.ssh/config is not followed)"))
        let rsa = GitError.unsupportedSSHKey(url: "u").message
        XCTAssertTrue(rsa.contains("SHA-1") && rsa.contains("OpenSSH 8.8") && rsa.contains("hint: use an ed25519 key"), rsa)
        XCTAssertEqual(GitError.unusableSSHKeys(url: "u", keys: [.init(path: "/k", kind: .fido)]).message.split(separator: "\n").first,
                       "no usable ssh key for \"u\": \"/k\" (FIDO) cannot be used (libssh2 supports ed25519, ECDSA and RSA keys, not DSA or FIDO security keys)")
    }

    func testGeneratorErrorsAreWordedInTheHouseStyle() {
        let errors: [GeneratorError] = [
            .badPolicy(part: "lenght=5", problem: .unknownKey("lenght", known: ["length"])), .lengthOutOfRange(0), .wordCountOutOfRange(0),
            .emptyCharacterSet, .emptyClass("digits"), .lengthBelowClassCount(length: 2, classes: 4),
            .badCharacters(field: .include, characters: " "), .dataFileMissing(name: "w.txt", searched: ["/a"]),
        ]
        for error in errors {
            assertHouseStyle(error.message)
            XCTAssertTrue(error.message.contains("\nhint: "), error.message)
        }
        XCTAssertEqual(GeneratorError.lengthBelowClassCount(length: 2, classes: 4).message,
                       "every-class needs 4 characters but the length is 2\nhint: use a length of at least 4 or fewer classes")
        XCTAssertEqual(GeneratorError.badPolicy(part: "length", problem: .valueMissing("length")).message,
                       "bad policy \"length\": \"length\" needs a value, as in length=…\nhint: see Spec/GENERATOR.md §1 for the policy syntax")
        XCTAssertTrue(GeneratorError.dataFileMissing(name: "w.txt", searched: ["/a"]).message.contains("TRESOR_DATA_DIR"))
    }

    /// A refusal of the acceptance rule carries the rule, the file and what was found; the CLI words all three.
    func testRefusalsAreWordedFromTheRuleAndTheFinding() {
        XCTAssertEqual(AcceptanceRefusal(.treeShape, path: "Email/link.json", .symbolicLink).message,
                       "its tree is not one a vault has (\"Email/link.json\") [tree-shape: a symbolic link]")
        XCTAssertEqual(AcceptanceRefusal(.epochReplaced, path: ".tresor/vault.json", .epochReplaced(epoch: 1, published: 2)).message,
                       "it was written under a key that has been replaced (after a member was removed, or a rekey) (\".tresor/vault.json\")"
                       + " [epoch-replaced: epoch 1, while epoch 2 has been published]")
        let header = AcceptanceRefusal(.vaultHeader, path: ".tresor/vault.json", .unparsable(.malformed(.notAnObject(.vaultHeader))))
        XCTAssertTrue(header.message.hasSuffix("[vault-header: not a valid Tresor file: vault header is not a JSON object]"), header.message)
        let refused = VaultError.refusedRemote(remote: "origin", AcceptanceRefusal(.stateFiles, path: ".tresor/state/vault.json", .filesDiffer))
        assertHouseStyle(refused.message.replacingOccurrences(of: "unchanged.", with: "unchanged"))
    }

    func testImportErrorsAreWordedFromTheirData() {
        let cases: [(InterchangeError, String)] = [
            (.malformed(path: "/x.json", .notJSON(JSONValue.ParseError(offset: 1, problem: .unexpectedEnd))),
             "cannot import \"/x.json\": not JSON: unexpected end of input at byte 1\nhint: check the format name ('tresor import --help' lists them)"),
            (.malformed(path: "/x.csv", .missingColumn("name", columns: ["a", "b"])),
             "cannot import \"/x.csv\": no column \"name\" (the columns are a, b)\nhint: check the format name ('tresor import --help' lists them)"),
            (.cannotRead(path: "/s", .noSuchDirectory), "cannot read \"/s\": no such directory"),
            (.cannotWrite(path: "/o.csv", .errno(EEXIST)), "cannot write \"/o.csv\": File exists"),
            (.unsupported(path: "/k.kdbx", feature: .kdbxVersion(5)), "\"/k.kdbx\" uses KDBX version 5, which tresor cannot import"),
            (.toolFailed(program: "gpg", path: "", status: 127, message: ""),
             "gpg: gpg was not found on PATH\nhint: install GnuPG (Debian: apt-get install gnupg)"),
        ]
        for (error, text) in cases { XCTAssertEqual(error.message, text) }
        XCTAssertEqual(SkipReason.invalidPath(.rule(.folderEndsInJSON)).text, "no valid entry path: a folder name may not end in \".json\"")
        XCTAssertEqual(SkipReason.unreadable(.toolFailed(program: "gpg", path: "a.gpg", status: 2, message: "")).text,
                       "could not be read: gpg exited with status 2")
        XCTAssertEqual(SkipReason.unsupported(.ageSecret).text, "not imported: age-encrypted secret")
    }
}
