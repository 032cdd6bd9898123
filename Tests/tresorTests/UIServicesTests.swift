// tresor ui with the real clipboard (xclip under Xvfb), one-time codes checked against oathtool, and a real vi.
import Foundation
import XCTest

final class UIServicesTests: UITestCase {
    func testCopyWithAutoClearAndTheOneTimeCodeInTheDetailView() throws {
        for program in ["/usr/bin/xclip", "/usr/bin/oathtool"] where !FileManager.default.isExecutableFile(atPath: program) {
            throw XCTSkip("\(program) is not installed (make test-deps installs it)")
        }
        let x = try XvfbServer()
        try sampleVault()
        try ok(["edit", "Email/gmail", "--otp-uri", "-"], stdin: "otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME\n")
        let ui = try startUI(env: ["DISPLAY": x.display, "TRESOR_CLIP_TIME": "2"])
        ui.press("j", "Enter")
        unlock(ui)
        let screen = ui.wait(for: "s left")
        let oath = try run("/usr/bin/oathtool", ["--totp", "-b", "JBSWY3DPEHPK3PXP", "-w", "2", "-N", "now - 30 seconds"], stdin: nil, extraEnv: [:])
        let codes = Set(oath.stdout.split(separator: "\n").map(String.init))
        XCTAssertTrue(codes.contains { screen.contains($0) }, "the code shown is oathtool's: \(codes)\n\(screen)")
        ui.press("c")
        ui.wait(for: "clipboard is cleared in 2 s")
        setenv("DISPLAY", x.display, 1)
        defer { unsetenv("DISPLAY") }
        func clipboard() -> String { SpawnHelper.run("/usr/bin/xclip", ["-selection", "clipboard", "-out"]).output }
        XCTAssertEqual(clipboard(), "hunter2-gmail", "the password, with no newline")
        let deadline = Date().addingTimeInterval(10)
        while clipboard() == "hunter2-gmail", Date() < deadline { usleep(100_000) }
        XCTAssertEqual(clipboard(), "", "cleared after the delay")
        ui.press("Escape")
        quit(ui)
    }

    /// `E` hands the terminal to a real vi in the same pane and takes it back.
    func testARealViEditsTheWholeEntryFromTheDetailView() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vi") else { throw XCTSkip("vi is not installed (make test-deps installs it)") }
        try sampleVault()
        let ui = try startUI(env: ["EDITOR": "vi", "VISUAL": nil])
        ui.press("j", "Enter")
        unlock(ui)
        ui.wait(for: "alice@gmail.com")
        ui.press("E")
        ui.wait(for: "username: alice@gmail.com")
        ui.type(":%s/^username: .*/username: typed-in-vi/")
        ui.press("Enter")
        ui.type(":wq")
        ui.press("Enter")
        ui.wait(for: "Edited Email/gmail")
        let screen = ui.wait(for: "typed-in-vi")
        XCTAssertFalse(screen.contains("~"), "the UI took the screen back:\n\(screen)")
        XCTAssertEqual(try ok("show", "Email/gmail", "--field", "username").stdout, "typed-in-vi\n")
        ui.press("Escape")
        quit(ui)
    }
}
