// One environment variable read from `environ` as ProcessInfo reads the whole environment.
import Foundation
import XCTest
@testable import tresor

final class ProcessEnvironmentTests: XCTestCase {
    /// Runs `body` with `environ` pointing at `entries` (the variable itself, found by name: Swift imports it read-only).
    private func with(_ entries: [String], _ body: () -> Void) {
        guard let address = dlsym(nil, "environ") else { return XCTFail("no environ") }
        let variable = address.assumingMemoryBound(to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self)
        let saved = variable.pointee
        var strings = entries.map { strdup($0) }
        strings.append(nil)
        strings.withUnsafeMutableBufferPointer { buffer in
            variable.pointee = buffer.baseAddress
            body()
            variable.pointee = saved
        }
        for s in strings { free(s) }
    }

    func testTheLastOfANameCountsAndOnlyTheWholeNameMatches() {
        with(["TRESOR_VAULT_X=x", "TRESOR_VAUL=y", "TRESOR_VAULT=/first", "PATH=/bin", "TRESOR_VAULT=/last", "EMPTY=", "NOEQUALS"]) {
            XCTAssertEqual(ProcessEnvironment.value("TRESOR_VAULT"), "/last")
            XCTAssertEqual(ProcessEnvironment.value("TRESOR_VAUL"), "y")
            XCTAssertEqual(ProcessEnvironment.value("TRESOR_VAULT_X"), "x")
            XCTAssertEqual(ProcessEnvironment.value("EMPTY"), "")
            XCTAssertNil(ProcessEnvironment.value("TRESOR"))
            XCTAssertNil(ProcessEnvironment.value("NOEQUALS"))
            XCTAssertNil(ProcessEnvironment.value("MISSING"))
        }
        with([]) { XCTAssertNil(ProcessEnvironment.value("PATH")) }
    }

    /// Every variable of the test process's own environment reads as ProcessInfo reads it.
    func testEveryVariableReadsAsProcessInfoReadsIt() {
        let all = ProcessInfo.processInfo.environment
        XCTAssertFalse(all.isEmpty)
        for (name, value) in all { XCTAssertEqual(ProcessEnvironment.value(name), value, name) }
    }
}
