// The entries as a tree of collapsible folders, flattened into the rows the list shows.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tresor

/// One visible row of the tree.
struct TreeRow {
    enum Kind {
        /// A folder (its path, as in `Email/Work`), whether it is open, and how many entries it holds.
        case folder(String, expanded: Bool, count: Int)
        case entry(EntryPath)
    }
    let kind: Kind
    let depth: Int
    let name: String
}

/// Folders before the entries beside them, each in path order (as `tresor ls` draws the tree).
final class EntryTree {
    private final class Node {
        let path: String
        var folders: [Node] = []
        var folderIndex: [String: Int] = [:]
        var entries: [EntryPath] = []
        var count = 0
        init(path: String) { self.path = path }
    }

    private let root = Node(path: "")
    private(set) var collapsed: Set<String>

    init(paths: [EntryPath], collapsed: Set<String> = []) {
        self.collapsed = collapsed
        // Paths come sorted, so neighbours mostly share their folder: walk from the root only when it changes.
        var lastFolder: Substring?
        var chain: [Node] = []
        for p in paths {
            let s = p.string
            let folder = s.utf8.lastIndex(of: 0x2F).map { s[..<$0] } ?? ""
            if folder != lastFolder {
                chain = [root]
                var node = root
                for part in folder.isEmpty ? [] : folder.split(separator: "/").map(String.init) {
                    if let i = node.folderIndex[part] {
                        node = node.folders[i]
                    } else {
                        let child = Node(path: node.path.isEmpty ? part : node.path + "/" + part)
                        node.folderIndex[part] = node.folders.count
                        node.folders.append(child)
                        node = child
                    }
                    chain.append(node)
                }
                lastFolder = folder
            }
            for n in chain { n.count += 1 }
            chain.last!.entries.append(p)
        }
    }

    /// The rows with collapsed folders' contents left out.
    func rows() -> [TreeRow] {
        var out: [TreeRow] = []
        out.reserveCapacity(root.count + root.folders.count)
        func walk(_ node: Node, depth: Int) {
            for f in node.folders {
                let open = !collapsed.contains(f.path)
                let name = f.path.split(separator: "/").last.map(String.init) ?? f.path
                out.append(TreeRow(kind: .folder(f.path, expanded: open, count: f.count), depth: depth, name: name))
                if open { walk(f, depth: depth + 1) }
            }
            for e in node.entries { out.append(TreeRow(kind: .entry(e), depth: depth, name: e.name)) }
        }
        walk(root, depth: 0)
        return out
    }

    func toggle(_ folder: String) {
        if collapsed.contains(folder) { collapsed.remove(folder) } else { collapsed.insert(folder) }
    }

    func setExpanded(_ folder: String, _ open: Bool) {
        if open { collapsed.remove(folder) } else { collapsed.insert(folder) }
    }

    func collapseAll() {
        var all: Set<String> = []
        func walk(_ n: Node) { for f in n.folders { all.insert(f.path); walk(f) } }
        walk(root)
        collapsed = all
    }

    func expandAll() { collapsed = [] }
}
