// Repository set-up that lets the real git CLI work with a vault: attributes for entry files.
import Foundation
import TresorCore
import TresorGit

enum SyncSetup {
    static let attributesFile = ".gitattributes"
    /// Entry files are diffed and merged by tresor when git is configured for it (README: "Plain git").
    static let attributes = "*.json diff=tresor merge=tresor\n.tresor/vault.json diff merge=tresor-header\n"

    static func writeAttributes(root: String, repo: GitRepository) throws {
        do { try FileSystem.writeAtomically(Array(attributes.utf8), to: root + "/" + attributesFile) }
        catch let e as CoreError { throw VaultError.io(e.errorDescription ?? "\(e)") }
    }
}
