// The options that keep each editor from writing the decrypted view elsewhere: swap, backup, undo and history files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// How tresor starts the editors it knows so that nothing of the view outlives it (README "Editing"): options added
/// after the editor's own words in `$VISUAL`/`$EDITOR`, and a warning for an editor it cannot set up.
enum EditorSetup {
    enum Kind: Equatable {
        case vim, neovim, nano, emacs, micro, helix
        /// Editors whose copies tresor cannot turn off from the command line: run, with a warning.
        case vscode, emacsClient
        case unknown
    }

    /// What runs, and what to tell the person first.
    struct Launch {
        /// Shell words added after the editor's own (already quoted for `sh -c`).
        var arguments: [String]
        var warning: String?
    }

    /// The editor program `editor` (the text of `$VISUAL`/`$EDITOR`) starts: its first word, found on `$PATH` and
    /// followed through links (Debian's `vi` and `editor` are links to vim, nano or another).
    static func kind(of editor: String) -> (Kind, name: String) {
        let first = Completion.unquoted(editor.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? "")
        let typed = PathName.last(first)
        let path = first.contains("/") ? first : Clipboard.find(first)
        var resolved = typed
        if let path {
            // realpath(3), not a system call of its own: a name to recognise; one that cannot be resolved is known as typed.
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if realpath(path, &buffer) != nil { resolved = PathName.last(String(cString: buffer)) }
        }
        for name in [resolved, typed] {
            switch name {
            case "nvim": return (.neovim, typed)
            case "gvim", "rvim", "vimx", "view", "rview", "gview": return (.vim, typed)
            case _ where name.hasPrefix("vim"): return (.vim, typed)
            case "nano", "rnano": return (.nano, typed)
            case "emacsclient": return (.emacsClient, typed)
            case _ where name.hasPrefix("emacs"): return (.emacs, typed)
            case "micro": return (.micro, typed)
            case "hx", "helix": return (.helix, typed)
            case "code", "codium", "code-insiders", "code-oss", "vscodium": return (.vscode, typed)
            default: continue
            }
        }
        return (.unknown, typed)
    }

    /// The options for `editor` working on a view in `viewDirectory` (a private folder in memory).
    static func launch(_ editor: String, viewDirectory: String) -> Launch {
        let (kind, name) = kind(of: editor)
        let q = ShellQuote.quote
        switch kind {
        case .vim:
            // -n: no swap file; -i NONE: no viminfo (command, search and register history, marks). After the vimrc,
            // -c turns off what a vimrc may have turned on: backups, undo files, swap, viminfo.
            return Launch(arguments: ["-n", "-i", "NONE", "--cmd", q("set nomodeline"),
                                      "-c", q("silent! set nobackup nowritebackup noundofile noswapfile viminfo= viminfofile=NONE nomodeline")])
        case .neovim:
            return Launch(arguments: ["-n", "-i", "NONE", "--cmd", q("set nomodeline"),
                                      "-c", q("silent! set nobackup nowritebackup noundofile noswapfile shada= shadafile=NONE nomodeline")])
        case .nano:
            // Restricted mode: no history files (search, positions), no backups, whatever the nanorc says.
            return Launch(arguments: ["--restricted"])
        case .emacs:
            // No init file (it could turn on backups, auto-save, recentf, savehist, desktop, undo history files), and
            // the built-in defaults turned off as well.
            return Launch(arguments: ["-Q", "--eval", q("(setq make-backup-files nil backup-inhibited t auto-save-default nil create-lockfiles nil auto-save-list-file-prefix nil)")])
        case .micro:
            // Its backups, cursor positions and command history live in its config folder: a fresh one inside the view.
            let config = viewDirectory + "/micro"
            prepareMicroConfig(config)
            return Launch(arguments: ["-config-dir", q(config), "-backup", "false", "-savecursor", "false", "-savehistory", "false"])
        case .helix:
            // Helix keeps no swap, backup, undo or history files.
            return Launch(arguments: [])
        case .vscode:
            return Launch(arguments: [], warning: "\(Output.quoted(name)) keeps copies of the files it saves (its local history) and of unsaved ones in its user data folder, which tresor cannot turn off: the entry's values may stay there\nhint: set workbench.localHistory.enabled and files.hotExit off in its settings, or use vim or nano (docs/entries.md)")
        case .emacsClient:
            return Launch(arguments: [], warning: "\(Output.quoted(name)) edits in a running Emacs, whose own settings decide backups, auto-save and lock files: tresor cannot turn them off\nhint: use 'emacs -nw' (tresor starts it without them), vim or nano (docs/entries.md)")
        case .unknown:
            return Launch(arguments: [], warning: "tresor does not know the editor \(Output.quoted(name)) and cannot keep it from writing backup, swap or history files with the entry's values\nhint: use vim, neovim, nano, emacs, micro or helix, which tresor starts without them (docs/entries.md), or check the editor's settings")
        }
    }

    /// A micro config folder of its own, with the person's settings and key bindings copied in (command-line options
    /// override the settings); plugins and history stay behind.
    private static func prepareMicroConfig(_ folder: String) {
        // (Best effort: the settings copied are a comfort; backups and history are turned off on micro's command line.)
        guard (try? FileSystem.makeDirectory(folder)) != nil else { return }
        let env = ProcessEnvironment.values
        let home = env["HOME"] ?? PathName.home()
        let own = env["MICRO_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/micro"
        for file in ["settings.json", "bindings.json"] {
            guard let bytes = try? FileSystem.read(own + "/" + file, limit: 1 << 20) else { continue }
            try? FileSystem.writeAtomically(bytes, to: folder + "/" + file)
        }
    }
}

/// Single quotes for `sh -c`.
enum ShellQuote {
    static func quote(_ s: String) -> String { "'" + s.replacingAll("'", with: "'\\''") + "'" }
}
