// ~/.ssh/config as far as Tresor follows it: Host blocks with HostName, User, Port, IdentityFile, IdentitiesOnly, Include.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The parts of an OpenSSH client configuration that decide where an ssh remote really is and which keys to
/// offer. `Host` patterns (`*`, `?`, `!`) select blocks; for each keyword the first value found wins, except
/// `IdentityFile`, whose values add up. `Match` blocks are skipped; `ProxyJump` and `ProxyCommand` are not
/// followed (libssh2 connects directly).
package struct SSHConfig: Sendable, Equatable {
    struct Option: Sendable, Equatable {
        var keyword: String   // lowercased
        var value: String
    }

    struct Block: Sendable, Equatable {
        var patterns: [String]
        var options: [Option] = []
        /// A `Match` block: never applied.
        var skipped = false
    }

    var blocks: [Block] = []
    /// The home directory for `~` and `%d`, and the local user name for `%u`.
    var home: String
    var localUser: String

    /// What the configuration says about one host.
    package struct Host: Sendable, Equatable {
        /// The name to connect to (`HostName`, with `%h` replaced), or the alias itself.
        package var hostName: String
        package var user: String?
        package var port: Int?
        /// `IdentityFile` values, with `~` and `%d %h %r %u` expanded, in the order given.
        package var identityFiles: [String]
        /// `IdentitiesOnly yes`: offer only `identityFiles`, not the agent or the default keys.
        package var identitiesOnly: Bool
        /// Keywords set for the host that are not followed (`ProxyJump`, `ProxyCommand`), as written in the file.
        package var notFollowed: [String] = []
    }

    /// An empty configuration (nothing rewritten).
    package init(home: String = GitStrings.homeDirectory(), localUser: String = SSHConfig.currentUser) {
        self.home = home
        self.localUser = localUser
    }

    /// Parses configuration text; `Include` names files relative to `home/.ssh`.
    package init(text: String, home: String, localUser: String = SSHConfig.currentUser) {
        self.init(home: home, localUser: localUser)
        blocks = [Block(patterns: ["*"])]
        parse(text, depth: 0)
    }

    /// `home/.ssh/config`, or an empty configuration when there is none or it cannot be read.
    package static func load(home: String) -> SSHConfig {
        guard let text = try? String(contentsOfFile: home + "/.ssh/config", encoding: .utf8) else { return SSHConfig(home: home) }
        return SSHConfig(text: text, home: home)
    }

    package static var currentUser: String {
        if let pw = getpwuid(getuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? ""
    }

    private mutating func parse(_ text: String, depth: Int) {
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let words = Self.words(String(rawLine))
            guard let first = words.first else { continue }
            let keyword = first.lowercased(), arguments = Array(words.dropFirst())
            switch keyword {
            case "host":
                blocks.append(Block(patterns: arguments))
            case "match":
                blocks.append(Block(patterns: [], skipped: true))
            case "include":
                // ssh stops following includes at a depth of 16 (a file that includes itself).
                guard depth < 16 else { continue }
                for pattern in arguments {
                    for file in expandInclude(pattern) {
                        guard let included = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                        parse(included, depth: depth + 1)
                    }
                }
            default:
                guard let value = arguments.first else { continue }
                blocks[blocks.count - 1].options.append(Option(keyword: keyword, value: value))
            }
        }
    }

    /// The files an `Include` pattern names: relative to `~/.ssh`, `~` expanded, shell globs sorted.
    private func expandInclude(_ pattern: String) -> [String] {
        var path = expandTilde(pattern)
        if !path.hasPrefix("/") { path = home + "/.ssh/" + path }
        var matches = glob_t()
        defer { globfree(&matches) }
        guard glob(path, 0, nil, &matches) == 0 else { return [] }
        return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }
    }

    private func expandTilde(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path
    }

    /// Splits a line into keyword and arguments: `Keyword value` or `Keyword=value`; double quotes group
    /// words; a line starting with `#` is a comment.
    static func words(_ line: String) -> [String] {
        var rest = Substring(line).drop { $0 == " " || $0 == "\t" }
        guard !rest.isEmpty, !rest.hasPrefix("#") else { return [] }
        let keyword = rest.prefix { $0 != " " && $0 != "\t" && $0 != "=" }
        rest = rest.dropFirst(keyword.count).drop { $0 == " " || $0 == "\t" }
        if rest.hasPrefix("=") { rest = rest.dropFirst() }
        var words = [String(keyword)], current = "", quoted = false, hasWord = false
        for c in rest {
            if quoted {
                if c == "\"" { quoted = false } else { current.append(c) }
            } else if c == "\"" {
                quoted = true; hasWord = true
            } else if c == " " || c == "\t" {
                if hasWord { words.append(current); current = ""; hasWord = false }
            } else {
                current.append(c); hasWord = true
            }
        }
        if hasWord { words.append(current) }
        return words
    }

    /// Whether `host` matches a `Host` line: some pattern matches and no negated (`!`) one does.
    static func matches(_ host: String, patterns: [String]) -> Bool {
        var matched = false
        for pattern in patterns {
            if pattern.hasPrefix("!") {
                if wildcard(String(pattern.dropFirst()).lowercased(), host.lowercased()) { return false }
            } else if wildcard(pattern.lowercased(), host.lowercased()) {
                matched = true
            }
        }
        return matched
    }

    /// `*` any run of characters, `?` one character (ssh's `match_pattern`).
    static func wildcard(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1; ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi; mark = ti; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// The settings for `host` (an alias or a real name), first value winning.
    package func host(_ host: String) -> Host {
        var values: [String: String] = [:]
        var identities: [String] = []
        for block in blocks where !block.skipped && Self.matches(host, patterns: block.patterns) {
            for option in block.options {
                if option.keyword == "identityfile" {
                    identities.append(option.value)
                } else if values[option.keyword] == nil {
                    values[option.keyword] = option.value
                }
            }
        }
        let hostName = values["hostname"].map { Self.expand($0, ["h": host]) } ?? host
        let user = values["user"].map { Self.expand($0, ["u": localUser]) }
        let port = values["port"].flatMap(Int.init).flatMap { (1...65535).contains($0) ? $0 : nil }
        let tokens = ["d": home, "h": hostName, "r": user ?? localUser, "u": localUser]
        let files = identities.filter { $0.lowercased() != "none" }.map { expandTilde(Self.expand($0, tokens)) }
        let proxies = [("proxyjump", "ProxyJump"), ("proxycommand", "ProxyCommand")]
            .filter { values[$0.0].map { $0.lowercased() != "none" } ?? false }.map(\.1)
        return Host(hostName: hostName, user: user, port: port, identityFiles: files,
                    identitiesOnly: values["identitiesonly"]?.lowercased() == "yes", notFollowed: proxies)
    }

    /// Replaces `%x` tokens from `tokens` and `%%` with `%`; unknown tokens stay as written.
    static func expand(_ value: String, _ tokens: [String: String]) -> String {
        var out = "", percent = false
        for c in value {
            if percent {
                percent = false
                if c == "%" { out.append("%") } else if let v = tokens[String(c)] { out += v } else { out += "%" + String(c) }
            } else if c == "%" {
                percent = true
            } else {
                out.append(c)
            }
        }
        if percent { out.append("%") }
        return out
    }

    /// An ssh remote URL (`ssh://[user@]host[:port]/path` or scp-like `[user@]host:path`) with the host's
    /// configuration applied, as a `ssh://` URL libgit2 can use, and the host's settings; `nil` for other URLs.
    package func resolve(url: String) -> (url: String, host: Host)? {
        guard let target = SSHTarget(url) else { return nil }
        let settings = host(target.host)
        let user = target.user ?? settings.user
        let port = target.port ?? settings.port
        var rewritten = "ssh://"
        if let user { rewritten += Self.percentEncodedUser(user) + "@" }
        rewritten += settings.hostName.contains(":") ? "[\(settings.hostName)]" : settings.hostName
        if let port { rewritten += ":\(port)" }
        // scp-like paths are relative to the login directory; git and libgit2 read `/~/` that way.
        rewritten += target.path.hasPrefix("/") ? target.path : target.path.hasPrefix("~") ? "/" + target.path : "/~/" + target.path
        // Leave URLs the configuration says nothing about exactly as they were.
        let unchanged = settings.hostName == target.host && user == target.user && port == target.port
        return (unchanged ? url : rewritten, settings)
    }

    private static func percentEncodedUser(_ user: String) -> String {
        // `CharacterSet.urlUserAllowed` without "@" and ":".
        let allowed = Set("!$&'()*+,-.0123456789;=ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~".utf8)
        return GitStrings.percentEncoded(user, allowed: allowed)
    }
}

/// The parts of an ssh remote URL.
struct SSHTarget: Equatable {
    var user: String?
    var host: String
    var port: Int?
    var path: String

    init?(_ url: String) {
        for scheme in ["ssh://", "ssh+git://", "git+ssh://"] where url.hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            var authority = rest[..<slash]
            path = String(rest[slash...])
            if let at = authority.lastIndex(of: "@") {
                user = GitStrings.percentDecoded(String(authority[..<at]))
                authority = authority[authority.index(after: at)...]
            }
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { port = Int(after.dropFirst()) }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = Int(authority[authority.index(after: colon)...])
            } else {
                host = String(authority)
            }
            // git's `ssh://host/~/path` means a path below the login directory.
            if path.hasPrefix("/~") { path = String(path.dropFirst()) }
            guard !host.isEmpty else { return nil }
            return
        }
        // scp-like: `[user@]host:path`, where the part before the first colon has no slash.
        guard !url.contains("://"), let colon = url.firstIndex(of: ":") else { return nil }
        var authority = url[..<colon]
        guard !authority.contains("/"), !authority.isEmpty else { return nil }
        if let at = authority.lastIndex(of: "@") {
            user = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        host = String(authority)
        path = String(url[url.index(after: colon)...])
        guard !host.isEmpty, !path.isEmpty else { return nil }
    }
}
