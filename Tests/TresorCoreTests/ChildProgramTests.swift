// Helper programs (gpg) run with pipes: their output in full, their exit status, and a program that ends without
// reading its input never ends the process that started it, also with several run at once.
import Foundation
@testable import TresorCore
import XCTest

final class ChildProgramTests: XCTestCase {
    func testOutputStatusAndInputGoThrough() throws {
        let input = SecretBytes(copying: Array(repeating: UInt8(ascii: "x"), count: 300_000))
        let r = try ChildProgram.run("/bin/sh", ["-c", "wc -c; echo oops >&2; exit 3"], environment: ["PATH": "/usr/bin:/bin"], input: input)
        XCTAssertEqual(r.status, 3)
        XCTAssertEqual(r.output.withBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines), "300000")
        XCTAssertEqual(String(decoding: r.errorOutput, as: UTF8.self), "oops\n")
    }

    /// A program that writes more than a pipe holds before it reads its input: neither side waits for the other.
    func testALargeInputAndALargeOutputDoNotWaitForEachOther() throws {
        let input = SecretBytes(copying: Array(repeating: UInt8(ascii: "y"), count: 1 << 20))
        let r = try ChildProgram.run("/bin/sh", ["-c", "head -c 1000000 /dev/zero; cat >/dev/null; echo done >&2"],
                                     environment: ["PATH": "/usr/bin:/bin"], input: input)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.output.count, 1_000_000)
        XCTAssertEqual(String(decoding: r.errorOutput, as: UTF8.self), "done\n")
    }

    /// Programs that end without reading a large input, four at a time: each write fails with EPIPE inside the run
    /// (the test process is still here), and SIGPIPE is neither left blocked nor left ignored afterwards.
    func testProgramsThatDoNotReadTheirInputNeverEndTheCaller() throws {
        let input = SecretBytes(copying: Array(repeating: UInt8(ascii: "z"), count: 4 << 20))
        var statuses = [Int32](repeating: -1, count: 32)
        statuses.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress!
            DispatchQueue.concurrentPerform(iterations: 32) { i in
                base[i] = (try? ChildProgram.run("/bin/true", [], environment: [:], input: input))?.status ?? -2
            }
        }
        XCTAssertEqual(statuses, [Int32](repeating: 0, count: 32))
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        XCTAssertEqual(sigismember(&mask, SIGPIPE), 0, "SIGPIPE left blocked")
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        XCTAssertNotEqual(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self), unsafeBitCast(SIG_IGN, to: Int.self), "SIGPIPE left ignored")
    }
}
