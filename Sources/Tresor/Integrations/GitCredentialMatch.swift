// git's credential helper protocol: which entry answers a `get` (README "git's credential helper").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// What git asks for: the attributes of `git credential` (protocol, host with `:port`, path with
/// `credential.useHttpPath`, username).
package struct GitCredentialQuery: Equatable, Sendable {
    package var scheme: String
    package var host: String
    package var path: String?
    package var username: String?

    /// From git's `key=value` lines; nil without protocol and host. Unknown keys are ignored, as git asks of helpers.
    package init?(attributes: [String: String]) {
        guard let p = attributes["protocol"], let h = attributes["host"], !p.isEmpty, !h.isEmpty else { return nil }
        scheme = p.lowercased()
        // git writes the port only when the URL has one; the default port is the same site.
        var host = h.lowercased()
        for (s, port) in [("https", ":443"), ("http", ":80")] where scheme == s && host.hasSuffix(port) { host.removeLast(port.count) }
        self.host = host
        path = attributes["path"].map { $0.trimming(ScalarSet(charactersIn: "/")) }.flatMap { $0.isEmpty ? nil : $0 }
        username = attributes["username"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How well `url` matches: nil when it does not; otherwise higher is better (a URL path that matches more of
    /// git's path; without a path from git, a URL for the whole host first).
    package func score(_ url: SiteURL) -> Int? {
        guard url.scheme == scheme, url.hostAndPort == host else { return nil }
        func strip(_ p: String) -> String { p.hasSuffix(".git") ? String(p.dropLast(4)) : p }
        let urlPath = strip(url.path)
        guard let path else { return urlPath.isEmpty ? 1 : 0 }
        if urlPath.isEmpty { return 1 }
        let asked = strip(path)
        guard asked == urlPath || asked.hasPrefix(urlPath + "/") else { return nil }
        return 1 + urlPath.split(separator: "/").count
    }
}

/// An entry that answers a query: its user name and password.
package struct GitCredentialAnswer: Sendable {
    package var path: EntryPath
    package var username: SecretText?
    package var password: SecretText
}

extension Vault {
    /// The best entry for `query`, among those with a password and a URL of the same scheme and host (and a path
    /// that contains git's, with `credential.useHttpPath`) and, when git names one, the same user name. Ties go to
    /// the first path. Entries that cannot be read are skipped.
    /// - Throws: `VaultError.vaultLocked`.
    package func gitCredential(for query: GitCredentialQuery) throws -> GitCredentialAnswer? {
        var best: (score: Int, answer: GitCredentialAnswer)?
        // Entries whose decrypted text does not contain the host need not be parsed.
        for candidate in try searchCandidates(lowercasedNeedle: query.host).candidates {
            guard case .success(let entry)? = candidate.entry, let password = entry.secret("password") else { continue }
            let username = entry.secret("username")
            if let wanted = query.username, username != SecretText(wanted) { continue }
            guard let score = entry.list("urls").compactMap({ SiteURL($0).flatMap(query.score) }).max() else { continue }
            if best == nil || score > best!.score {
                best = (score, GitCredentialAnswer(path: entry.path, username: username, password: password))
            }
        }
        return best?.answer
    }
}
