// Shell completion of entry paths, folders and remote names: names only, never a passphrase.
import ArgumentParser
import Foundation
import Tresor

/// What the generated bash, zsh and fish scripts ask the binary for while a person presses Tab.
/// Everything here reads file names and git config only (no key, no lock, no recovery, no writes),
/// and a vault that cannot be read simply completes nothing. The vault is the one the command line
/// names with `--vault`, else `$TRESOR_VAULT`, else the default, as for the command itself.
enum Completion {
    /// Entry paths (`Em<Tab>` → `Email/gmail`).
    static let entries = CompletionKind.custom { words, _, prefix in
        candidates(entryPaths(vault(in: words)), prefix)
    }

    /// Folders, each ending in "/" (where an entry goes: `add`, `ls`, `grep --prefix`, `audit`).
    static let folders = CompletionKind.custom { words, _, prefix in
        candidates(folderPaths(entryPaths(vault(in: words))), prefix)
    }

    /// Entry paths and folders (a destination of `mv` and `cp`).
    static let destinations = CompletionKind.custom { words, _, prefix in
        let paths = entryPaths(vault(in: words))
        return candidates(folderPaths(paths) + paths, prefix)
    }

    /// The vault's git remotes.
    static let remotes = CompletionKind.custom { words, _, prefix in
        guard let vault = try? Vault.open(at: vault(in: words)), let remotes = try? vault.remotes() else { return [] }
        return candidates(remotes.map(\.name), prefix)
    }

    /// The candidates that start with what is typed (the shells filter too; this keeps the list short).
    static func candidates(_ all: [String], _ prefix: String) -> [String] {
        let typed = unquoted(prefix)
        return all.filter { $0.hasPrefix(typed) }
    }

    /// Entry paths of the vault at `directory`, or none when it is not a readable vault.
    static func entryPaths(_ directory: String) -> [String] {
        guard let vault = try? Vault.open(at: directory) else { return [] }
        return vault.list().paths.map(\.string)
    }

    /// Every folder that holds an entry, with its trailing "/", in order.
    static func folderPaths(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        var folders: [String] = []
        for path in paths {
            var parts = path.split(separator: "/").dropLast()
            var chain: [String] = []
            while !parts.isEmpty {
                chain.insert(parts.map(String.init).joined(separator: "/") + "/", at: 0)
                parts = parts.dropLast()
            }
            for f in chain where seen.insert(f).inserted { folders.append(f) }
        }
        return folders
    }

    /// The vault directory the command line being completed names: `--vault DIR` or `--vault=DIR`,
    /// else `$TRESOR_VAULT`, else `~/.tresor` (VaultOptions.directory).
    static func vault(in words: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var named: String?
        for (i, word) in words.enumerated() {
            if word == "--vault", i + 1 < words.count { named = words[i + 1] }
            else if word.hasPrefix("--vault=") { named = String(word.dropFirst("--vault=".count)) }
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        if let named {
            let dir = unquoted(named)
            if dir == "~" { return home }
            if dir.hasPrefix("~/") { return home + dir.dropFirst() }
            return dir
        }
        if let v = environment["TRESOR_VAULT"], !v.isEmpty { return v }
        return home + "/.tresor"
    }

    /// A shell word as typed, without its quotes and backslash escapes (the shells pass words verbatim).
    static func unquoted(_ word: String) -> String {
        var out = ""
        var quote: Character?
        var escaped = false
        for c in word {
            if escaped { out.append(c); escaped = false; continue }
            switch (quote, c) {
            case (nil, "\\"), ("\"", "\\"): escaped = true
            case (nil, "'"), (nil, "\""): quote = c
            case (let q?, _) where c == q: quote = nil
            default: out.append(c)
            }
        }
        return out
    }
}
