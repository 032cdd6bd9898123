// Test helpers: throwaway directories, and a runner for the real git CLI to check results with.
import Foundation
import XCTest
@testable import TresorGit

/// A temp directory, removed when the object goes away.
final class TempDir {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tresor-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func sub(_ name: String) -> String { path + "/" + name }
}

/// Writes `text` to `dir/relative`, creating parent directories.
func write(_ text: String, to relative: String, in dir: String) throws {
    let url = URL(fileURLWithPath: dir + "/" + relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real git CLI (tests only) with a fixed identity; does not throw on a non-zero exit.
@discardableResult
func runGit(_ arguments: [String], in dir: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    process.arguments = (dir.map { ["-C", $0] } ?? [])
        + ["-c", "user.name=Test Git", "-c", "user.email=test@example.org", "-c", "init.defaultBranch=main"]
        + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs git, failing the test unless it exits 0; returns stdout without its final newline.
@discardableResult
func git(_ arguments: String..., in dir: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let result = try runGit(arguments, in: dir)
    XCTAssertEqual(result.status, 0, "git \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
    var text = result.stdout
    if text.hasSuffix("\n") { text.removeLast() }
    return text
}

/// Asserts that `git fsck --strict` finds nothing to report.
func assertFsck(_ dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let result = try runGit(["fsck", "--strict", "--no-dangling"], in: dir)
    XCTAssertEqual(result.status, 0, result.stderr + result.stdout, file: file, line: line)
    XCTAssertEqual(result.stderr + result.stdout, "", file: file, line: line)
}

/// Asserts that `body` throws exactly `expected`.
func assertGitError<T>(_ expected: GitError, _ body: @autoclosure () throws -> T,
                       file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
        XCTAssertEqual(error as? GitError, expected, file: file, line: line)
    }
}
