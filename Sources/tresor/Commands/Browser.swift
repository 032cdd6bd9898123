// `tresor browser`: the browserpass extension's native host (`host`), and its manifest for the browsers (`install`, `uninstall`).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Fill logins in the browser with the browserpass extension, served from the vault.",
        discussion: """
            'tresor browser install' registers tresor as the extension's native host (com.github.browserpass.native, \
            the name browserpass-native uses: it takes that program's place for the browsers given). The extension then \
            lists the vault's entries under the hosts of their URLs (example.org/Email/alice.gpg) and fills the one it \
            picks. See docs/integrations.md.
            """,
        subcommands: [BrowserInstall.self, BrowserUninstall.self, BrowserHostCommand.self])
}

/// Where each browser looks for native-messaging manifests, and what a manifest for it says.
enum Browser: String, ExpressibleByArgument, CaseIterable {
    case firefox, chromium, chrome

    static let hostName = "com.github.browserpass.native"
    static let description = "Tresor: the browserpass host (tresor browser host)"
    static let firefoxExtension = "browserpass@maximbaz.com"
    /// The extension's ids in the Chrome Web Store and the other Chromium stores, as browserpass-native lists them.
    static let chromiumOrigins = ["chrome-extension://naepdomgkenhinolocfifgehidddafch/", "chrome-extension://pjmbgaakjkbhpopmakjoedenlfdmcdgm/",
                                  "chrome-extension://klfoddkbhleoaabpmiigbmpbjfljimgb/", "chrome-extension://cbfnbkdnigbahbkcikfppmaonggdbcpa/"]

    static var home: String { ProcessEnvironment.value("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? PathName.home() }
    static var configHome: String {
        ProcessEnvironment.value("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
    }
    static var dataHome: String {
        ProcessEnvironment.value("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
    }

    func manifestFolder(user: Bool) -> String {
        switch (self, user) {
        case (.firefox, true): return Browser.home + "/.mozilla/native-messaging-hosts"
        case (.firefox, false): return "/usr/lib/mozilla/native-messaging-hosts"
        case (.chromium, true): return Browser.configHome + "/chromium/NativeMessagingHosts"
        case (.chromium, false): return "/etc/chromium/native-messaging-hosts"
        case (.chrome, true): return Browser.configHome + "/google-chrome/NativeMessagingHosts"
        case (.chrome, false): return "/etc/opt/chrome/native-messaging-hosts"
        }
    }

    func manifestPath(user: Bool) -> String { manifestFolder(user: user) + "/" + Browser.hostName + ".json" }

    func manifest(host: String) -> JSONValue {
        var o: [String: JSONValue] = ["name": .string(Browser.hostName), "description": .string(Browser.description),
                                      "path": .string(host), "type": .string("stdio")]
        if self == .firefox {
            o["allowed_extensions"] = .array([.string(Browser.firefoxExtension)])
        } else {
            o["allowed_origins"] = .array(Browser.chromiumOrigins.map(JSONValue.string))
        }
        return .object(o)
    }

    /// The script the manifest names (browsers give a host no arguments of one's choosing): per user in
    /// $XDG_DATA_HOME/tresor, for everyone in lib/tresor beside tresor's bin folder.
    static func hostScript(user: Bool) -> String {
        if user { return dataHome + "/tresor/browserpass-host" }
        let bin = PathName.deletingLast(Spawn.selfExecutable)
        return PathName.appending(PathName.deletingLast(bin), "lib/tresor/browserpass-host")
    }

    /// The program an existing manifest at `path` names, and whether it is tresor's; nil when there is none.
    static func existing(_ path: String) -> (program: String, ours: Bool)? {
        guard FileSystem.kind(path) != .missing else { return nil }
        guard let bytes = try? FileSystem.read(path, limit: 1 << 20), case .object(let o)? = try? JSONValue.parse(bytes) else {
            return ("(an unreadable manifest)", false)
        }
        let program = o["path"]?.stringValue ?? "(no program)"
        return (program, o["description"]?.stringValue == Browser.description || program.hasSuffix("/tresor/browserpass-host"))
    }
}

/// Options of install and uninstall.
struct BrowserScope: ParsableArguments {
    @Option(name: .customLong("browser"), help: ArgumentHelp("firefox, chromium or chrome (repeatable; default: firefox).", valueName: "browser"))
    var browsers: [Browser] = []
    @Flag(help: "For this user only (~/.mozilla, ~/.config/…) instead of for everyone (/usr/lib/mozilla, /etc/…).") var user = false
    @Flag(help: "Replace (or remove) a manifest of another program, such as browserpass-native's.") var force = false

    var chosen: [Browser] {
        var seen: [Browser] = []
        for b in browsers.isEmpty ? [.firefox] : browsers where !seen.contains(b) { seen.append(b) }
        return seen
    }
}

struct BrowserInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Register tresor as the browserpass extension's native host.",
        discussion: """
            Writes the native-messaging manifest com.github.browserpass.native.json for each browser, naming a small \
            script that runs 'tresor browser host' (with --vault, --passphrase-file and --identity when given here; \
            otherwise the browser's environment decides, as for any tresor command). tresor takes the place of \
            browserpass-native: a manifest of another program is not replaced without --force. With --user, a \
            manifest for everyone that another program installed stays, but this user's browser uses tresor's.
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var scope: BrowserScope

    func run() throws {
        let script = Browser.hostScript(user: scope.user)
        // Refuse before writing anything.
        for browser in scope.chosen {
            let path = browser.manifestPath(user: scope.user)
            if let (program, ours) = Browser.existing(path), !ours, !scope.force {
                throw CLIError("\(Output.quoted(path)) is the browserpass host of another program (\(Output.quoted(program)))"
                               + "\nhint: tresor takes its place for \(browser.rawValue): run again with --force (to go back, reinstall that program)")
            }
        }
        var words = ["exec", shellQuote(Spawn.selfExecutable), "browser", "host"]
        if let v = options.vault { words += ["--vault", shellQuote(absolute(v))] }
        if let f = options.passphraseFile { words += ["--passphrase-file", shellQuote(absolute(f))] }
        if let i = options.identity { words += ["--identity", shellQuote(absolute(i))] }
        let text = "#!/bin/sh\n# The browserpass extension's native host, written by 'tresor browser install'.\n" + words.joined(separator: " ") + " \"$@\"\n"
        try writeFile(text, to: script, mode: 0o755)
        for browser in scope.chosen {
            let path = browser.manifestPath(user: scope.user)
            let replaced = Browser.existing(path).flatMap { $0.ours ? nil : $0.program }
            let bytes = browser.manifest(host: script).prettySecretBytes(trailingNewline: true)
            try writeFile(bytes.utf8String() ?? "", to: path, mode: 0o644)
            Output.status("Installed the browserpass host for \(browser.rawValue): \(path)" + (replaced.map { " (it replaces \(Output.quoted($0)))" } ?? ""))
            if scope.user, let (program, ours) = Browser.existing(browser.manifestPath(user: false)), !ours {
                Output.status("Note: for this user, tresor takes the place of the browserpass host installed for everyone (\(Output.quoted(program))).")
            }
        }
    }

    func absolute(_ p: String) -> String { p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p }

    func shellQuote(_ s: String) -> String { "'" + s.replacingAll("'", with: "'\\''") + "'" }

    func writeFile(_ text: String, to path: String, mode: mode_t) throws {
        let folder = PathName.deletingLast(path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileSystem.writeAtomically(Array(text.utf8), to: path)
        } catch {
            let why = (error as? CoreError)?.message ?? ((error as? CocoaError)?.underlying as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "\(error)"
            throw CLIError("cannot write \(Output.quoted(path)): \(why)" + (scope.user ? "" : "\nhint: run as root, or use --user to install for yourself only"))
        }
        do { try FileSystem.setMode(path, mode) }
        catch { throw CLIError("cannot set the permissions of \(Output.quoted(path)): \(String(cString: strerror(error.errno)))") }
    }
}

struct BrowserUninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove tresor's browserpass manifest (and its host script).",
        discussion: "A manifest of another program is left alone unless --force. Once tresor's per-user manifest is gone, a browserpass host installed for everyone is used again.")

    @OptionGroup var scope: BrowserScope

    func run() throws {
        var removed = 0
        for browser in scope.chosen {
            let path = browser.manifestPath(user: scope.user)
            guard let (program, ours) = Browser.existing(path) else { continue }
            guard ours || scope.force else {
                throw CLIError("\(Output.quoted(path)) is the browserpass host of another program (\(Output.quoted(program))), not tresor's; nothing was removed\nhint: use --force to remove it anyway")
            }
            do { try FileSystem.remove(path) } catch { throw CLIError("cannot remove \(Output.quoted(path)): \(String(cString: strerror(error.errno)))") }
            Output.status("Removed \(path)")
            removed += 1
        }
        // The script goes once no manifest of this scope names it.
        let script = Browser.hostScript(user: scope.user)
        if !Browser.allCases.contains(where: { Browser.existing($0.manifestPath(user: scope.user))?.ours == true }), FileSystem.kind(script) != .missing {
            do { try FileSystem.removeIfPresent(script) }
            catch { throw CLIError("cannot remove \(Output.quoted(script)): \(String(cString: strerror(error.errno)))") }
        }
        if removed == 0 { Output.status("No tresor browserpass manifest to remove.") }
    }
}

struct BrowserHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "The native-messaging host itself: browserpass requests on standard input (the browser starts it).",
        discussion: "Unlocks without a prompt: a session, a passphrase file or an identity, from the browser's environment.")

    @OptionGroup var options: VaultOptions
    /// What browsers add (the manifest's path and the extension's id or origin): not used.
    @Argument(parsing: .allUnrecognized, help: .hidden) var browserArguments: [String] = []

    func run() throws {
        // A browser that goes away must not kill the host half-way through a save: writes then just fail.
        signal(SIGPIPE, SIG_IGN)
        BrowserHost(options: options, input: STDIN_FILENO, output: STDOUT_FILENO).serve()
    }
}
