// The tags of a version 4 commit: one `tresor-auth` field per key its writer held (Spec/FORMAT.md §3.12.6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Splits a raw commit object into C, its content without every `tresor-auth` and `tresor-auth-<scope id>` header
/// line, and the values of those fields; when a field appears twice or has a continuation line the commit carries no
/// tag at all (nil fields). Every tag also covers the names of the fields (`VaultAuthenticator.commitTag(_:fields:)`).
package enum CommitTags {
    package static let vaultField = VaultAuthenticator.commitField

    /// The field of scope `scopeID`'s tag.
    package static func field(scopeID: String) -> String { vaultField + "-" + scopeID }

    /// - Returns: C and the fields (name → value) found in the commit's header.
    package static func split(_ raw: [UInt8]) -> (content: [UInt8], fields: [String: String]?) {
        var kept: [UInt8] = [], fields: [String: String] = [:], broken = false
        var lineStart = 0, inHeader = true, lastField: String?
        let prefix = Array(vaultField.utf8)
        while lineStart < raw.count {
            let lineEnd = raw[lineStart...].firstIndex(of: 0x0A) ?? raw.count
            let line = raw[lineStart..<lineEnd]
            let next = min(lineEnd + 1, raw.count)
            if inHeader, line.isEmpty { inHeader = false }
            if inHeader, line.starts(with: prefix) {
                let name = line.firstIndex(of: 0x20).map { String(decoding: raw[lineStart..<$0], as: UTF8.self) } ?? ""
                if name == vaultField || name.hasPrefix(vaultField + "-") {
                    if fields[name] != nil { broken = true }
                    fields[name] = String(decoding: raw[(lineStart + name.utf8.count + 1)..<lineEnd], as: UTF8.self)
                    lastField = name
                    lineStart = next
                    continue
                }
            }
            if inHeader, lastField != nil, line.first == 0x20 { broken = true }
            lastField = nil
            kept += raw[lineStart..<next]
            lineStart = next
        }
        return (kept, broken ? nil : fields)
    }
}
