// The tests of Spec/FORMAT.md §9.1 for the local search cache (§10).
import Foundation
import Testing
@testable import TresorCore

extension FormatVectorTests {
    /// §10: the cache key, each entry file's blob id, and the cache file sealed from the records; opening it
    /// gives the records back.
    func searchCache(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let vaultID = try str(i, "vault_id")
        var records: [SearchCache.Record] = []
        for r in i["records"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            let file = Array(try str(r, "file").utf8)
            records.append(SearchCache.Record(
                filePath: try str(r, "path"), blobID: SearchCache.blobID(of: file), size: UInt64(file.count),
                modified: Int64(try int(r, "modified")), changed: Int64(try int(r, "changed")), inode: try int(r, "inode"),
                id: try str(r, "id"), payload: SecretBytes(copying: Array(try str(r, "payload").utf8))))
        }
        let key = try SearchCache.key(vaultKey: vaultKey)
        let sealed = try SearchCache.seal(records, key: key, vaultID: vaultID, nonce: try bytes(i, "nonce"))
        guard let e else { return }
        #expect(hex(key) == (try str(e, "cache_key")))
        #expect(records.map { hex($0.blobID) } == (e["blob_ids"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        #expect(hex(sealed) == (try str(e, "file")))
        let opened = try SearchCache.open(sealed, key: key, vaultID: vaultID)
        for r in records {
            let back = try #require(opened.records[r.filePath])
            #expect(back.blobID == r.blobID && back.size == r.size && back.modified == r.modified && back.changed == r.changed
                    && back.inode == r.inode && back.id == r.id)
            #expect(back.withPayload { Array($0) } == r.withPayload { Array($0) })
        }
    }

    /// §10: a cache file opened with a vault key and vault id gives its records' paths, in file order.
    func searchCacheOpen(_ i: [String: JSONValue], _ e: [String: JSONValue]?) throws {
        let vaultKey = SecretBytes(copying: try bytes(i, "vault_key"))
        let opened = try SearchCache.open(try bytes(i, "file"), key: try SearchCache.key(vaultKey: vaultKey), vaultID: try str(i, "vault_id"))
        guard let e else { return }
        let paths = e["paths"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(opened.records.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } == paths)
    }
}
