// Repository set-up that lets the real git CLI work with a vault: attributes, textconv and merge drivers.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TresorCore
import TresorGit

enum SyncSetup {
    static let attributesFile = ".gitattributes"
    /// Entry files are diffed and merged by tresor (README "Plain git").
    static let attributes = "*.json diff=tresor merge=tresor\n.tresor/vault.json diff merge=tresor-header\n.tresor/scopes/*.json diff merge=tresor-header\n.tresor/state/*.json diff merge=tresor-state\n"

    /// The running tresor binary, quoted for the shell git runs drivers with.
    static var toolCommand: String {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return "'" + path.replacingAll("'", with: "'\\''") + "'"
    }

    /// Repository-local git config: `git diff`/`git log -p` decrypt through textconv, and `git merge`/`git pull`
    /// merge entries and the header through tresor. Git runs these from the top of the work tree.
    static func configure(_ repo: GitRepository) throws {
        let tool = toolCommand
        let settings = [
            ("diff.tresor.textconv", "\(tool) textconv --vault ."),
            ("diff.tresor.cachetextconv", "false"),
            ("merge.tresor.name", "tresor field-level merge of entries"),
            ("merge.tresor.driver", "\(tool) merge-driver --vault . %O %A %B %P"),
            ("merge.tresor-header.name", "tresor merge of vault headers"),
            ("merge.tresor-header.driver", "\(tool) merge-driver --vault . --header %O %A %B %P"),
            // State records are written anew by `tresor adopt` after git's merge (Spec/MERGE.md §12): git keeps its side.
            ("merge.tresor-state.name", "tresor state records (written again by tresor adopt)"),
            ("merge.tresor-state.driver", "true"),
        ]
        for (k, v) in settings { try Vault.git { try repo.setConfig(k, v) } }
        try installHooks(repo, tool: tool)
    }

    /// Hooks that let commits made with plain git (`git commit`, `git pull` through the drivers) be checked
    /// and authenticated right away, so other replicas accept them (Spec/MERGE.md §13.4). The repository's
    /// own hooks folder is used whatever `core.hooksPath` says elsewhere.
    static func installHooks(_ repo: GitRepository, tool: String) throws {
        let dir = repo.workdir + "/.git/hooks"
        do {
            try FileSystem.makeDirectories(".git/hooks", under: repo.workdir)
            for hook in ["post-commit", "post-merge", "post-checkout"] {
                let script = "#!/bin/sh\n# Written by tresor: commits made with git are checked and authenticated (README \"Plain git\").\nexec \(tool) adopt --vault . </dev/null\n"
                try FileSystem.writeAtomically(Array(script.utf8), to: dir + "/" + hook)
                try Vault.io { try FileSystem.setMode(dir + "/" + hook, 0o700) }
            }
        } catch let e as CoreError { throw VaultError.file(path: dir, e) }
        // Relative: git runs hooks from the top of the work tree, so this stays right when the vault folder
        // moves, and never points at a path someone else could create.
        try Vault.git { try repo.setConfig("core.hooksPath", ".git/hooks") }
    }
}
