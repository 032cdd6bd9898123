// The pure parts of the integrations: URLs as sites, browserpass requests and texts, git's queries, OpenSSH keys.
import Foundation
@testable import Tresor
@testable import TresorCore
import XCTest

final class IntegrationTests: XCTestCase {
    func testSiteURLs() {
        let cases: [(String, String?, String)] = [
            ("https://Example.ORG/login", "example.org", "login"),
            ("example.org", "example.org", ""),
            ("https://example.org:443/", "example.org", ""),
            ("http://example.org:80", "example.org", ""),
            ("https://example.org:8443/a/b/", "example.org:8443", "a/b"),
            ("http://localhost:8080", "localhost:8080", ""),
            ("https://bücher.de/x", "xn--bcher-kva.de", "x"),
            ("https://münchen.example", "xn--mnchen-3ya.example", ""),
            ("https://[::1]:8080/", "::1:8080", ""),
            ("not a url", nil, ""),
            ("https://", nil, ""),
        ]
        for (text, host, path) in cases {
            let url = SiteURL(text)
            XCTAssertEqual(url?.hostAndPort, host, text)
            if host != nil { XCTAssertEqual(url?.path, path, text) }
        }
        // RFC 3492's sample strings.
        XCTAssertEqual(Punycode.encode("bücher"), "bcher-kva")
        XCTAssertEqual(Punycode.encode("他们为什么不说中文"), "ihqwcrb4cv8a8dqg056pqjye")
        XCTAssertEqual(Punycode.encode("Pročprostěnemluvíčesky").map { $0.lowercased() }, "proprostnemluvesky-uyb24dma41a")
    }

    func testGitQueriesScoreURLs() throws {
        let q = try XCTUnwrap(GitCredentialQuery(attributes: ["protocol": "https", "host": "git.example.org:443", "path": "org/repo.git"]))
        XCTAssertEqual(q.host, "git.example.org")
        XCTAssertEqual(q.score(SiteURL("https://git.example.org")!), 1)
        XCTAssertEqual(q.score(SiteURL("https://git.example.org/org")!), 2)
        XCTAssertEqual(q.score(SiteURL("https://git.example.org/org/repo")!), 3)
        XCTAssertNil(q.score(SiteURL("https://git.example.org/org/other")!))
        XCTAssertNil(q.score(SiteURL("https://git.example.org/or")!), "a path matches by whole components")
        XCTAssertNil(q.score(SiteURL("http://git.example.org")!))
        XCTAssertNil(q.score(SiteURL("https://git.example.org:8443")!))
        let noPath = try XCTUnwrap(GitCredentialQuery(attributes: ["protocol": "https", "host": "git.example.org"]))
        XCTAssertEqual(noPath.score(SiteURL("https://git.example.org")!), 1)
        XCTAssertEqual(noPath.score(SiteURL("https://git.example.org/org/repo")!), 0)
        XCTAssertNil(GitCredentialQuery(attributes: ["host": "x"]))
    }

    func testTheContentsOfASaveNeverBecomeAString() throws {
        let json = #"{"settings": {"contents": "nested"}, "action": "save", "file": "a.example/x.gpg", "contents": "p\u00e4ss\n\"q\"\\ \ud83d\ude00\nlogin: me"}"#
        var bytes = Array(json.utf8)
        let request = try BrowserRequest(parsing: &bytes)
        XCTAssertEqual(request.action, "save")
        XCTAssertEqual(request.file, "a.example/x.gpg")
        XCTAssertEqual(request.contents?.makeString(), "päss\n\"q\"\\ 😀\nlogin: me")
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("login: me"), "the secret is overwritten in the buffer")
        XCTAssertEqual(request.object["contents"]?.stringValue?.trimmingCharacters(in: .whitespaces), "", "and blank in the parsed object")
        XCTAssertEqual((request.object["settings"]?.objectValue?["contents"])?.stringValue, "nested", "only the top-level member")
        for bad in [#"{"action": "save", "contents": "\ud83d"}"#, #"{"action": "save", "contents": "\x"}"#] {
            var b = Array(bad.utf8)
            XCTAssertThrowsError(try BrowserRequest(parsing: &b), bad)
        }
    }

    func testSavedTextsAreTakenApartLikeTheExtensionDoes() {
        let saved = BrowserStore.parse(contents: "pw: with colon\r\nUser: bob\nurl:  https://a.example  \notpauth://totp/x?secret=JBSWY3DPEHPK3PXP\nfree text\n\n")
        XCTAssertEqual(saved.password?.makeString(), "pw: with colon")
        XCTAssertEqual(saved.username?.makeString(), "bob")
        XCTAssertEqual(saved.urls, ["https://a.example"])
        XCTAssertEqual(saved.otp?.makeString(), "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP")
        XCTAssertEqual(saved.other, ["free text"])
    }

    func testBrowserFileNamesGoBackToTheirEntries() throws {
        for path in ["Email/gmail", "Web/example.org", "100%/a.b", "x\u{2024}y/z", "日本/パスポート"] {
            let p = try EntryPath(path)
            let file = "host.example/" + BrowserStore.encode(p) + ".gpg"
            XCTAssertFalse(file.dropFirst("host.example/".count).dropLast(4).contains("."), "\(file): a dot in the entry's part")
            let parsed = try BrowserStore.parse(file: file)
            XCTAssertEqual(parsed.path, p)
            XCTAssertEqual(parsed.host, "host.example")
        }
        XCTAssertNil(try BrowserStore.parse(file: "(no url)/a.gpg").host)
    }
}
