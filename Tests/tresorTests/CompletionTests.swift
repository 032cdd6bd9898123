// Shell completion typed for real: bash, zsh and fish in tmux, Tab pressed, the command line read back.
import Foundation
import XCTest

final class CompletionTests: CLITestCase {
    /// The completion scripts: the installed ones when `make test` gives an installed tree, else generated.
    func scripts() throws -> (bash: String, zshDirectory: String, fish: String) {
        if let root = ProcessInfo.processInfo.environment["TRESOR_INSTALLED"] {
            return (root + "/share/bash-completion/completions/tresor", root + "/share/zsh/site-functions",
                    root + "/share/fish/vendor_completions.d/tresor.fish")
        }
        let out = dir + "/completions"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (shell, file) in [("bash", "tresor.bash"), ("zsh", "_tresor"), ("fish", "tresor.fish")] {
            let r = try ok("--generate-completion-script", shell)
            try write(r.stdout, to: out + "/" + file)
        }
        return (out + "/tresor.bash", out, out + "/tresor.fish")
    }

    /// A vault with entries in folders (one with a space), a remote, and a second vault elsewhere.
    func prepare() throws -> [String: String] {
        try initVault()
        try ok("add", "Email/gmail", "--no-password")
        try ok("add", "Social/github", "--no-password")
        try ok("add", "Work/My Bank", "--no-password")
        try ok("remote", "add", "origin", dir + "/remote.git")
        try ok(["init", "--kdf", "minimum", "--vault", dir + "/otherv"])
        try ok(["add", "Other/entry", "--no-password", "--vault", dir + "/otherv"])
        // `tresor` on PATH, as after `make install`.
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/bin/tresor", withDestinationPath: CLITestCase.binary)
        var e = env
        e["PATH"] = dir + "/bin:/usr/bin:/bin"
        e["TERM"] = "screen"
        // No passphrase anywhere: completion never needs one.
        e["TRESOR_PASSPHRASE_FILE"] = nil
        return e
    }

    /// What each shell must complete: the typed text, and the command line after Tab.
    let cases: [(typed: String, completed: String)] = [
        ("tresor sh", "tresor show "),                                  // a command
        ("tresor show Em", "tresor show Email/gmail "),                 // an entry path (`Em<Tab>`)
        ("tresor show Wo", "tresor show Work/My\\ Bank "),             // a name with a space, escaped
        ("tresor edit Soc", "tresor edit Social/github "),
        ("tresor rm Soc", "tresor rm Social/github "),
        ("tresor otp Em", "tresor otp Email/gmail "),
        ("tresor ls So", "tresor ls Social/"),                          // a folder
        ("tresor show --fie", "tresor show --field "),                  // a flag
        ("tresor sync or", "tresor sync origin "),                      // a remote
        ("tresor remote remove or", "tresor remote remove origin "),
    ]

    /// `--vault` completes directories, and the entries of the vault it names.
    var vaultCases: [(typed: String, completed: String)] {
        [("tresor show --vault \(dir)/oth", "tresor show --vault \(dir)/otherv/"),
         ("tresor show --vault \(dir)/otherv Ot", "tresor show --vault \(dir)/otherv Other/entry ")]
    }

    /// Types each case, presses Tab, and checks the prompt line; Ctrl-C starts a fresh line.
    func check(_ pane: TmuxPane, shell: String, file: StaticString = #filePath, line: UInt = #line) {
        for (typed, completed) in cases + vaultCases {
            pane.type(typed)
            pane.wait("\(shell): \(typed)", file: file, line: line) { self.promptLine($0) == "> " + typed }
            pane.press("Tab")
            pane.wait("\(shell): \(typed)<Tab> to become \(completed)", file: file, line: line) {
                self.promptLine($0).trimmingTrailingSpace == ("> " + completed).trimmingTrailingSpace
            }
            // A trailing space (a finished word) is not kept by capture-pane: type a mark to see it. A folder gets no
            // space, so the next Tab goes into it.
            if completed.hasSuffix(" ") || completed.hasSuffix("/") {
                pane.type("#")
                pane.wait("\(shell): a space after \(completed)", file: file, line: line) { self.promptLine($0) == "> " + completed + "#" }
            }
            pane.press("C-c")
            pane.wait("\(shell): a fresh prompt", file: file, line: line) { self.promptLine($0) == ">" }
        }
        // Hidden internal commands are not offered.
        pane.type("tresor clipboard-k")
        // (Under load the shell may not have drawn what was typed yet: wait for it, so the check below is Tab's.)
        pane.wait("\(shell): the typed line", file: file, line: line) { self.promptLine($0) == "> tresor clipboard-k" }
        pane.press("Tab")
        usleep(500_000)
        XCTAssertEqual(promptLine(pane.screen), "> tresor clipboard-k", "\(shell) offered a hidden command", file: file, line: line)
        pane.press("C-c")
    }

    /// The last non-empty line of the screen (where the prompt is).
    func promptLine(_ screen: String) -> String {
        screen.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }).map(String.init) ?? ""
    }

    func testBash() throws {
        let e = try prepare()
        let script = try scripts().bash
        let pane = try TmuxPane(["bash", "--norc", "--noprofile", "-i"], environment: e.merging(["PS1": "> "]) { $1 }, directory: dir, width: 200)
        pane.wait(for: ">")
        pane.type("source \(script); clear")
        pane.press("Enter")
        pane.wait("bash ready") { self.promptLine($0) == ">" && !$0.contains("source") }
        check(pane, shell: "bash")
    }

    /// Tab-Tab in bash lists one folder at a time, as pass's completion does: the top level's folders and entries,
    /// then, in a folder, its entries by name.
    func testBashListsFolderByFolder() throws {
        var e = try prepare()
        try ok("add", "Email/work", "--no-password")
        try ok("add", "Top", "--no-password")
        e["PS1"] = "> "
        let pane = try TmuxPane(["bash", "--norc", "--noprofile", "-i"], environment: e, directory: dir, width: 200)
        pane.wait(for: ">")
        pane.type("source \(try scripts().bash); clear")
        pane.press("Enter")
        pane.wait("bash ready") { self.promptLine($0) == ">" && !$0.contains("source") }
        pane.type("tresor show ")
        pane.press("Tab")
        pane.press("Tab")
        var screen = pane.wait("the top level") { $0.contains("Social/") && $0.contains("Top") }
        var listing = screen.split(separator: "\n").filter { !$0.hasPrefix(">") }.joined(separator: " ")
        XCTAssertTrue(listing.contains("Email/") && listing.contains("Work/"), screen)
        XCTAssertFalse(listing.contains("gmail") || listing.contains("github") || listing.contains("My Bank"), "only the top level: \(screen)")
        // Each key once bash is ready for it: the line redrawn under the listing, then the empty prompt after Ctrl-C
        // (keys typed while the completion still runs are taken by it, on a loaded machine).
        pane.wait("the line redrawn") { self.promptLine($0).trimmingCharacters(in: .whitespaces) == "> tresor show" }
        pane.press("C-c")
        pane.wait("an empty prompt") { self.promptLine($0).trimmingCharacters(in: .whitespaces) == ">" }
        pane.type("clear")
        pane.press("Enter")
        pane.wait("a fresh prompt") { self.promptLine($0) == ">" && !$0.contains("Social/") }
        pane.type("tresor show Em")
        pane.press("Tab")
        pane.wait("Email/ completed") { self.promptLine($0) == "> tresor show Email/" }
        pane.press("Tab")
        pane.press("Tab")
        screen = pane.wait("Email's entries") { $0.contains("gmail") && $0.contains("work") }
        listing = screen.split(separator: "\n").filter { !$0.hasPrefix(">") }.joined(separator: " ")
        XCTAssertFalse(listing.contains("Social") || listing.contains("Top"), screen)
    }

    func testZsh() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else { throw XCTSkip("zsh is not installed (make test-deps)") }
        let e = try prepare()
        let directory = try scripts().zshDirectory
        let pane = try TmuxPane(["zsh", "-f", "-i"], environment: e, directory: dir, width: 200)
        pane.type("PROMPT='> '; fpath=(\(directory) $fpath); autoload -Uz compinit; compinit -u; clear")
        pane.press("Enter")
        pane.wait("zsh ready") { self.promptLine($0) == ">" && !$0.contains("compinit") }
        check(pane, shell: "zsh")
    }

    func testFish() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") else { throw XCTSkip("fish is not installed (make test-deps)") }
        let e = try prepare()
        let script = try scripts().fish
        let pane = try TmuxPane(["fish", "--no-config", "-i"], environment: e, directory: dir, width: 200)
        pane.type("function fish_prompt; echo -n '> '; end; set -g fish_autosuggestion_enabled 0; source \(script); clear")
        pane.press("Enter")
        pane.wait("fish ready") { self.promptLine($0) == ">" && !$0.contains("source") }
        check(pane, shell: "fish")
    }

    /// The completion helper reads names only: it works without a passphrase and on a vault it cannot
    /// open prints nothing and exits 0.
    func testCompletionNeedsNoPassphraseAndFailsQuietly() throws {
        try initVault()
        try ok("add", "Email/gmail", "--no-password")
        let r = try tresor(["---completion", "show", "--", "positional@0", "2", "2", "tresor", "show", "Em"], extraEnv: ["TRESOR_PASSPHRASE_FILE": nil])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n"), ["Email/gmail"])
        // Without --vault or $TRESOR_VAULT: the default vault, ~/.tresor.
        try ok(["init", "--kdf", "minimum", "--vault", dir + "/home/.tresor"])
        try ok(["add", "Home/entry", "--no-password", "--vault", dir + "/home/.tresor"])
        let home = try tresor(["---completion", "show", "--", "positional@0", "2", "0", "tresor", "show", ""], extraEnv: ["TRESOR_VAULT": nil])
        XCTAssertEqual(home.stdout.split(separator: "\n"), ["Home/entry"], home.stderr)
        let none = try tresor(["---completion", "show", "--", "positional@0", "2", "0", "tresor", "show", ""], extraEnv: ["TRESOR_VAULT": dir + "/nothing"])
        XCTAssertEqual(none.code, 0, none.stderr)
        XCTAssertEqual(none.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "")
        XCTAssertEqual(none.stderr, "")
    }
}

private extension String {
    var trimmingTrailingSpace: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
