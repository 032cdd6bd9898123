// Repository set-up that lets the real git CLI work with a vault: attributes, textconv and merge drivers.
import Foundation
import TresorCore
import TresorGit

enum SyncSetup {
    static let attributesFile = ".gitattributes"
    /// Entry files are diffed and merged by tresor (README "Plain git").
    static let attributes = "*.json diff=tresor merge=tresor\n.tresor/vault.json diff merge=tresor-header\n"

    /// The running tresor binary, quoted for the shell git runs drivers with.
    static var toolCommand: String {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
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
        ]
        for (k, v) in settings { try Vault.git { try repo.setConfig(k, v) } }
    }
}
