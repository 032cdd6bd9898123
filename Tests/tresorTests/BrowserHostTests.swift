// The browserpass host protocol through `tresor browser host`: every action, the entries as the extension sees them, bad messages.
import Foundation
import XCTest

final class BrowserHostTests: CLITestCase {
    struct HostRun {
        var replies: [Any]
        var code: Int32
        var stderr: String
    }

    static func frame(_ object: Any) -> Data {
        let body = try! JSONSerialization.data(withJSONObject: object)
        return frame(raw: body)
    }

    static func frame(raw body: Data) -> Data {
        var length = UInt32(body.count)
        return Data(bytes: &length, count: 4) + body
    }

    /// Runs the host with `input` (frames, or any bytes) on stdin, then closes it; the replies it wrote. Fails if
    /// the host does not end within 30 seconds.
    func host(_ input: Data, extraEnv: [String: String?] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> HostRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLITestCase.binary)
        p.arguments = ["browser", "host", dir + "/home/.mozilla/native-messaging-hosts/com.github.browserpass.native.json", "browserpass@maximbaz.com"]
        var e = env
        for (k, v) in extraEnv { e[k] = v }
        p.environment = e
        let stdin = Pipe(), stdout = dir + "/.host-out", stderr = dir + "/.host-err"
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        p.standardInput = stdin
        p.standardOutput = FileHandle(forWritingAtPath: stdout)
        p.standardError = FileHandle(forWritingAtPath: stderr)
        try p.run()
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(30)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            XCTFail("the host did not end when its input ended", file: file, line: line)
        }
        p.waitUntilExit()
        return HostRun(replies: try BrowserHostTests.replies(Data(contentsOf: URL(fileURLWithPath: stdout))), code: p.terminationStatus,
                       stderr: try String(contentsOfFile: stderr, encoding: .utf8))
    }

    static func replies(_ out: Data) throws -> [Any] {
        var replies: [Any] = []
        var rest = [UInt8](out)[...]
        while rest.count >= 4 {
            let n = Int(rest.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            let body = rest.dropFirst(4).prefix(n)
            XCTAssertEqual(body.count, n, "a reply is cut short")
            replies.append(try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]))
            rest = rest.dropFirst(4 + n)
        }
        XCTAssertTrue(rest.isEmpty, "bytes after the last reply")
        return replies
    }

    func one(_ request: [String: Any], extraEnv: [String: String?] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try host(BrowserHostTests.frame(request), extraEnv: extraEnv, file: file, line: line)
        XCTAssertEqual(r.code, 0, r.stderr, file: file, line: line)
        XCTAssertEqual(r.replies.count, 1, file: file, line: line)
        return r.replies.first as? [String: Any] ?? [:]
    }

    func data(_ reply: [String: Any]) -> [String: Any] { reply["data"] as? [String: Any] ?? [:] }
    func files(_ reply: [String: Any], _ store: String = "default") -> [String] { (data(reply)["files"] as? [String: [String]])?[store] ?? [] }

    /// The settings the extension sends once configured: the default store is the folder `configure` named.
    var settings: [String: Any] { ["stores": ["default": ["id": "default", "name": "pass", "path": vaultDir, "settings": [:]]]] }

    func testEveryActionOfTheProtocol() throws {
        try sampleVault()
        try ok("edit", "Email/gmail", "--set", "urls=https://mail.google.com/mail", "--set", "urls=https://accounts.google.com")

        // configure: the default store is the vault, no settings file; every reply carries a version ≥ 3.0.3.
        let configure = try one(["action": "configure", "settings": ["stores": [:]], "defaultStoreSettings": [:]])
        XCTAssertEqual(configure["status"] as? String, "ok")
        XCTAssertGreaterThanOrEqual(configure["version"] as? Int ?? 0, 3_000_003)
        XCTAssertEqual((data(configure)["defaultStore"] as? [String: String])?["path"], vaultDir)
        XCTAssertEqual((data(configure)["defaultStore"] as? [String: String])?["settings"], "{}")

        // list and tree: each entry under each host of its URLs; Email/work has no URL.
        let list = try one(["action": "list", "settings": settings])
        XCTAssertEqual(files(list), ["(no url)/Email/work.gpg", "(no url)/Social/github.gpg",
                                     "accounts.google.com/Email/gmail.gpg", "mail.google.com/Email/gmail.gpg"])
        let tree = try one(["action": "tree", "settings": settings])
        XCTAssertEqual((data(tree)["directories"] as? [String: [String]])?["default"],
                       ["(no url)", "(no url)/Email", "(no url)/Social", "accounts.google.com", "accounts.google.com/Email",
                        "mail.google.com", "mail.google.com/Email"])

        // fetch: pass's text; the URL of that host.
        let fetch = try one(["action": "fetch", "settings": settings, "storeId": "default", "file": "accounts.google.com/Email/gmail.gpg"])
        XCTAssertEqual(data(fetch)["contents"] as? String, "hunter2-gmail\nlogin: alice@gmail.com\nurl: https://accounts.google.com\n")

        // save: a new entry (a transaction like add), then a change to it (like edit); fetch reads them back.
        let contents = "n3w-p\u{e4}ss \"quoted\"\nlogin: bob\nurl: https://new.example/login\nrecovery code 1234"
        let save = try one(["action": "save", "settings": settings, "storeId": "default", "file": "new.example/Web/new.gpg", "contents": contents])
        XCTAssertEqual(save["status"] as? String, "ok", "\(save)")
        XCTAssertEqual(try ok("read", "tresor://Web/new/password").stdout, "n3w-p\u{e4}ss \"quoted\"\n")
        XCTAssertEqual(try ok("read", "tresor://Web/new/notes").stdout, "recovery code 1234\n")
        XCTAssertEqual(try ok("log", "-n", "1").stdout.contains("Add Web/new"), true)
        _ = try one(["action": "save", "settings": settings, "storeId": "default", "file": "new.example/Web/new.gpg",
                     "contents": "changed\nlogin: bob\nrecovery code 1234\nsecond note"])
        XCTAssertEqual(try ok("read", "tresor://Web/new/password").stdout, "changed\n")
        XCTAssertEqual(try ok("read", "tresor://Web/new/notes").stdout, "recovery code 1234\nsecond note\n")
        XCTAssertTrue(try ok("log", "-n", "1").stdout.contains("Edit Web/new: password, notes"))
        XCTAssertEqual(data(try one(["action": "fetch", "storeId": "default", "file": "new.example/Web/new.gpg"]))["contents"] as? String,
                       "changed\nlogin: bob\nurl: https://new.example/login\n")

        // delete: a transaction that removes the entry.
        let delete = try one(["action": "delete", "settings": settings, "storeId": "default", "file": "new.example/Web/new.gpg"])
        XCTAssertEqual(delete["status"] as? String, "ok", "\(delete)")
        XCTAssertEqual(try tresor("show", "Web/new").code, 4)
        XCTAssertTrue(try ok("log", "-n", "1").stdout.contains("Remove Web/new"))

        // echo: the request's echoResponse, as it is.
        let echo = try host(BrowserHostTests.frame(["action": "echo", "echoResponse": ["a": [1, 2], "b": "x"]]))
        XCTAssertEqual(echo.replies.first as? NSDictionary, ["a": [1, 2], "b": "x"] as NSDictionary)

        // Several requests on one connection, answered in order.
        let many = try host(BrowserHostTests.frame(["action": "configure"]) + BrowserHostTests.frame(["action": "echo", "echoResponse": 7])
                            + BrowserHostTests.frame(["action": "list"]))
        XCTAssertEqual(many.replies.count, 3)
        XCTAssertEqual(many.replies[1] as? Int, 7)
    }

    func testEntriesAreListedUnderTheHostsOfTheirURLs() throws {
        try initVault()
        let entries: [(String, [String], String?)] = [
            ("Web/example.org", ["https://login.example.net"], "pw1"),      // a domain-like name: shown with U+2024
            ("Web/100% done", ["http://intranet:8080/x", "https://intranet"], "pw2"),
            ("Web/ports", ["https://example.com:443/a", "example.com"], "pw3"),
            ("Web/unicode", ["https://bücher.de/login"], "pw4"),
            ("Web/app", ["androidapp://com.example.app"], "pw5"),
            ("Web/nopassword", ["https://nopw.example"], nil),
        ]
        for (path, urls, password) in entries {
            try ok(["add", path] + urls.flatMap { ["--url", $0] } + (password == nil ? ["--no-password"] : ["--password-stdin"]), stdin: (password ?? "") + "\n")
        }
        try ok(["add", "Web/multi", "--url", "https://multi.example", "--password-stdin"], stdin: "line one\nline two\n")
        let listed = files(try one(["action": "list"]))
        XCTAssertEqual(listed, ["(no url)/Web/app.gpg", "example.com/Web/ports.gpg", "intranet/Web/100%25 done.gpg",
                                "intranet:8080/Web/100%25 done.gpg", "login.example.net/Web/example\u{2024}org.gpg",
                                "xn--bcher-kva.de/Web/unicode.gpg"])
        // Each listed name fetches its entry; under another host, or altered, it fetches nothing.
        for file in listed {
            let r = try one(["action": "fetch", "file": file])
            XCTAssertEqual(r["status"] as? String, "ok", "\(file): \(r)")
        }
        XCTAssertEqual(data(try one(["action": "fetch", "file": "intranet:8080/Web/100%25 done.gpg"]))["contents"] as? String,
                       "pw2\nurl: http://intranet:8080/x\n")
        // The name with plain dots is read the same way (only the listing needs the one dot leader).
        XCTAssertEqual(data(try one(["action": "fetch", "file": "login.example.net/Web/example.org.gpg"]))["contents"] as? String,
                       "pw1\nurl: https://login.example.net\n")
        let cases: [(String, Int, String)] = [
            ("example.org/Web/example\u{2024}org.gpg", 24, "has no URL on the host \"example.org\""),
            ("(no url)/Web/ports.gpg", 24, "has no URL on the host"),
            ("nopw.example/Web/nopassword.gpg", 24, "is not given to the browser"),
            ("multi.example/Web/multi.gpg", 24, "is not given to the browser"),
            ("example.com/Web/none.gpg", 24, "no entry \"Web/none\""),
            ("example.com/Web/ports", 23, "Invalid password file extension"),
            ("Web.gpg", 24, "is not a file name tresor lists"),
            ("example.com/../x.gpg", 24, "names no entry"),
        ]
        for (file, code, message) in cases {
            let r = try one(["action": "fetch", "storeId": "default", "file": file])
            XCTAssertEqual(r["status"] as? String, "error", file)
            XCTAssertEqual(r["code"] as? Int, code, "\(file): \(r)")
            XCTAssertTrue(((r["params"] as? [String: String])?["message"] ?? "").contains(message), "\(file): \(r)")
            XCTAssertNotNil(r["version"])
        }
    }

    func testBadMessagesGetAnErrorReplyNeverACrashOrAHang() throws {
        try sampleVault()
        let valid = BrowserHostTests.frame(["action": "echo", "echoResponse": "still here"])
        func code(_ reply: Any?) -> Int? { (reply as? [String: Any])?["code"] as? Int }
        func message(_ reply: Any?) -> String { ((reply as? [String: Any])?["params"] as? [String: String])?["message"] ?? "" }
        // A request that is read whole but wrong: an error reply, and the next request is answered.
        let recoverable: [(Data, Int, String)] = [
            (BrowserHostTests.frame(raw: Data("{\"action\": \"list\"".utf8)), 11, "Unable to parse the browser request"),
            (BrowserHostTests.frame(raw: Data("[1, 2]".utf8)), 11, "Unable to parse"),
            (BrowserHostTests.frame(raw: Data([0xFF, 0xFE, 0x00])), 11, "Unable to parse"),
            (BrowserHostTests.frame(raw: Data("{\"action\":\"list\",\"action\":\"fetch\"}".utf8)), 11, "Unable to parse"),
            (BrowserHostTests.frame(raw: Data()), 11, "Unable to parse"),
            (BrowserHostTests.frame(["settings": [:]]), 12, "names no action"),
            (BrowserHostTests.frame(["action": "rm -rf"]), 12, "Invalid request action"),
            (BrowserHostTests.frame(["action": 5]), 12, "names no action"),
            (BrowserHostTests.frame(["action": "fetch", "storeId": "nope", "file": "a/b.gpg"]), 20, "Invalid password store ID"),
            (BrowserHostTests.frame(["action": "fetch"]), 23, "Invalid password file extension"),
            (BrowserHostTests.frame(["action": "save", "file": "x.example/a.gpg"]), 27, "The entry contents is missing"),
            (BrowserHostTests.frame(["action": "save", "file": "x.example/a.gpg", "contents": 5]), 27, "The entry contents is missing"),
            (BrowserHostTests.frame(["action": "delete", "file": "x.example/none.gpg"]), 30, "no entry"),
            (BrowserHostTests.frame(["action": "list", "settings": ["stores": ["s": ["path": dir + "/not-a-vault"]]]]), 18, "does not exist"),
            (BrowserHostTests.frame(["action": "configure", "settings": ["stores": ["s": ["path": dir + "/not-a-vault"]]]]), 13, "does not exist"),
        ]
        for (request, expected, text) in recoverable {
            let r = try host(request + valid)
            XCTAssertEqual(r.code, 0, r.stderr)
            XCTAssertEqual(r.replies.count, 2, "\(String(decoding: request.dropFirst(4), as: UTF8.self))")
            XCTAssertEqual(code(r.replies.first), expected, "\(r.replies)")
            XCTAssertTrue(message(r.replies.first).contains(text), "expected \(text): \(r.replies)")
            XCTAssertEqual((r.replies.first as? [String: Any])?["status"] as? String, "error")
            XCTAssertEqual(r.replies.last as? String, "still here")
        }
        // A message the host cannot delimit: an error reply, then the host ends (without reading what follows).
        var huge = UInt32.max
        var big = UInt32(2 << 20)
        var hundred = UInt32(100)
        let fatal: [(Data, Int, String)] = [
            (Data(bytes: &huge, count: 4) + valid, 10, "too long"),
            (Data(bytes: &big, count: 4) + Data(count: 64), 10, "too long"),
            (Data(bytes: &hundred, count: 4) + Data("{\"action\":".utf8), 11, "Unable to parse"),
            (Data([7, 0]), 10, "Unable to parse the length"),
        ]
        for (input, expected, text) in fatal {
            let r = try host(input)
            XCTAssertEqual(r.code, 0)
            XCTAssertEqual(r.replies.count, 1, "\(r.replies)")
            XCTAssertEqual(code(r.replies.first), expected, "\(r.replies)")
            let params = (r.replies.first as? [String: Any])?["params"] as? [String: String] ?? [:]
            XCTAssertTrue((params["message"] ?? "").contains(text) || (params["error"] ?? "").contains(text), "\(r.replies)")
        }
        // No input at all: no reply, a clean end.
        let empty = try host(Data())
        XCTAssertEqual(empty.code, 0)
        XCTAssertTrue(empty.replies.isEmpty)

        // Locked (no session, no passphrase file): configure works, list says why it cannot; no prompt, no hang.
        let locked: [String: String?] = ["TRESOR_PASSPHRASE_FILE": nil]
        XCTAssertEqual(try one(["action": "configure"], extraEnv: locked)["status"] as? String, "ok")
        let list = try one(["action": "list"], extraEnv: locked)
        XCTAssertEqual(list["code"] as? Int, 18)
        XCTAssertTrue(message(list).contains("no session and no passphrase file"), "\(list)")
        // No vault where the browser's environment points: configure says so, for the popup to show.
        let none = try one(["action": "configure"], extraEnv: ["TRESOR_VAULT": dir + "/missing"])
        XCTAssertEqual(none["code"] as? Int, 14)
        XCTAssertTrue(message(none).contains("does not exist"), "\(none)")
    }

    /// The host answers as soon as a request arrives and ends as soon as its input closes.
    func testHostEndsWhenItsInputCloses() throws {
        try sampleVault()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLITestCase.binary)
        p.arguments = ["browser", "host"]
        p.environment = env
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        try p.run()
        try stdin.fileHandleForWriting.write(contentsOf: BrowserHostTests.frame(["action": "echo", "echoResponse": "ping"]))
        let head = try XCTUnwrap(try stdout.fileHandleForReading.read(upToCount: 4))
        let n = Int(head.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        XCTAssertEqual(try stdout.fileHandleForReading.read(upToCount: n), Data("\"ping\"".utf8))
        XCTAssertTrue(p.isRunning, "it waits for the next request")
        try stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        XCTAssertFalse(p.isRunning, "the host must end when the browser closes its input")
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }
}
