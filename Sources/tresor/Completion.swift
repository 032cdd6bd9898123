// Shell completion of entry paths, folders and remote names: names only, never a passphrase.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// What the generated bash, zsh and fish scripts ask the binary for while a person presses Tab.
/// Everything here reads file names and git config only (no key, no lock, no recovery, no writes),
/// and a vault that cannot be read simply completes nothing. The vault is the one the command line
/// names with `--vault`, else `$TRESOR_VAULT`, else the default, as for the command itself.
enum Completion {
    /// Entry paths, folder by folder as pass completes them: the entries and folders (ending in "/") of the folder
    /// typed so far, and a folder that is the only match and holds one thing is opened at once (`Em<Tab>` →
    /// `Email/gmail`; with two entries in Email, `Email/`, and Tab-Tab lists them).
    static let entries = CompletionKind.custom { words, _, prefix in
        level(entryPaths(vault(in: words)), prefix, folders: true, entries: true)
    }

    /// Folders, each ending in "/" (where an entry goes: `add`, `ls`, `grep --prefix`, `audit`), folder by folder.
    static let folders = CompletionKind.custom { words, _, prefix in
        level(entryPaths(vault(in: words)), prefix, folders: true, entries: false)
    }

    /// Entry paths and folders (a destination of `mv` and `cp`), folder by folder.
    static let destinations = CompletionKind.custom { words, _, prefix in
        level(entryPaths(vault(in: words)), prefix, folders: true, entries: true)
    }

    /// What one level of the tree offers below the folder part of `typed`: the entries there and the folders (with
    /// their "/") that start with the rest. A single folder offered is opened as long as it holds exactly one thing.
    static func level(_ paths: [String], _ typed: String, folders: Bool, entries: Bool) -> [String] {
        func items(_ typed: String) -> [String] {
            let base = typed.lastIndex(of: "/").map { String(typed[...$0]) } ?? ""
            var seen = Set<String>(), out: [String] = []
            for p in paths where p.hasPrefix(typed) {
                let rest = p.dropFirst(base.count)
                let item: String
                if let slash = rest.firstIndex(of: "/") {
                    guard folders else { continue }
                    item = base + rest[..<slash] + "/"
                } else {
                    guard entries else { continue }
                    item = p
                }
                if seen.insert(item).inserted { out.append(item) }
            }
            return out
        }
        var offered = items(unquoted(typed))
        while offered.count == 1, offered[0].hasSuffix("/") {
            let inside = items(offered[0])
            guard inside.count == 1 else { break }
            offered = inside
        }
        return offered
    }

    /// `tresor --generate-completion-script SHELL`: argument-parser's script, with one change for bash and zsh: a
    /// folder completed alone ("Email/") gets no space after it, so the next Tab goes on into the folder, as pass's
    /// completion does (fish adds none after a "/" of its own accord). nil for a shell argument-parser does not know.
    static func script(for shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let script = TresorCommand.completionScript(for: kind)
        switch kind {
        case .bash:
            return script + """

                # tresor: a folder completed alone gets no space after it, so the next Tab goes into it (as with pass).
                _tresor_folder_by_folder() {
                    _tresor "$@"
                    local status=$?
                    if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == */ ]]; then compopt -o nospace; fi
                    return $status
                }
                complete -o filenames -F _tresor_folder_by_folder tresor

                """
        case .zsh:
            let override = """
                # tresor: folders (ending in "/") are offered without a space after them, so Tab goes on into the folder.
                __tresor_custom_complete() {
                    local -a completions folders others
                    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
                    if [[ "${#completions[@]}" -gt 1 ]]; then
                        completions=("${completions[@]:0:-1}")
                        folders=("${(M)completions[@]:#*/}")
                        others=("${completions[@]:#*/}")
                        (( ${#folders} )) && compadd -S '' -- "${folders[@]}"
                        (( ${#others} )) && __tresor_complete "${others[@]}"
                    fi
                }


                """
            guard let end = script.ranges(of: "if [[ \"${funcstack[1]}\" = _tresor ]]").last else { return script }
            return String(script[..<end.lowerBound]) + override + String(script[end.lowerBound...])
        default:
            return script
        }
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

    /// The vault directory the command line being completed names: `--vault DIR` or `--vault=DIR`,
    /// else `$TRESOR_VAULT`, else `~/.tresor` (VaultOptions.directory).
    static func vault(in words: [String], environment: [String: String] = ProcessEnvironment.values) -> String {
        var named: String?
        for (i, word) in words.enumerated() {
            if word == "--vault", i + 1 < words.count { named = words[i + 1] }
            else if word.hasPrefix("--vault=") { named = String(word.dropFirst("--vault=".count)) }
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? PathName.home()
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
