// Auditing a vault's passwords: weak, reused, old, breached, missing, and urls without https.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TresorCore

/// What `Vault.audit` checks.
package struct AuditOptions {
    /// A password unchanged for this many days or more is old.
    package var maxAgeDays: Int
    /// Offline Pwned Passwords data; nil skips the breach check.
    package var pwnedPasswords: PwnedPasswords?
    /// A password scoring below this (0–4) is weak.
    package var minimumScore: Int
    /// The time ages are measured to.
    package var now: Timestamp

    package init(maxAgeDays: Int = 365, pwnedPasswords: PwnedPasswords? = nil, minimumScore: Int = 3, now: Timestamp = .now()) {
        self.maxAgeDays = maxAgeDays; self.pwnedPasswords = pwnedPasswords; self.minimumScore = minimumScore; self.now = now
    }
}

/// One reason an entry needs attention. None of them holds a password or anything derived from one
/// that outlives the audit.
package enum AuditFinding: Equatable, Sendable {
    /// The estimator's score is below the minimum; the weaknesses name kinds, never password text.
    case weak(score: Int, guessesLog10: Double, weaknesses: [StrengthWeakness])
    /// The same password is the password of these other entries too.
    case reused(others: [EntryPath])
    /// The password field was last changed this many whole days ago.
    case old(days: Int, modified: Timestamp)
    /// The password is in the Pwned Passwords data, seen this many times.
    case breached(count: UInt64)
    /// The entry has no password.
    case noPassword
    /// A url whose scheme is not https (`http`, `ftp`, or none); `host` is its host without any
    /// user name or password, or nil when it has none.
    case insecureURL(scheme: String?, host: String?)

    /// A stable name for scripts: `weak`, `reused`, `old`, `breached`, `no-password`, `insecure-url`.
    package var reason: String {
        switch self {
        case .weak: return "weak"
        case .reused: return "reused"
        case .old: return "old"
        case .breached: return "breached"
        case .noPassword: return "no-password"
        case .insecureURL: return "insecure-url"
        }
    }
}

/// One audited entry and what was found (nothing, when `findings` is empty).
package struct AuditedEntry: Sendable {
    package let path: EntryPath
    package internal(set) var findings: [AuditFinding]
}

/// The result of `Vault.audit`: findings per entry in path order, and entries that could not be read.
package struct AuditReport {
    /// Every entry audited, in path order.
    package internal(set) var entries: [AuditedEntry]
    /// Entries that could not be decrypted, with why; they were not audited.
    package internal(set) var failures: [(path: EntryPath, error: VaultError)]

    /// Entries with at least one finding.
    package var flagged: [AuditedEntry] { entries.filter { !$0.findings.isEmpty } }

    /// How many findings there are of each reason (`AuditFinding.reason`).
    package var totals: [String: Int] {
        var t: [String: Int] = [:]
        for entry in entries { for f in entry.findings { t[f.reason, default: 0] += 1 } }
        return t
    }
}

extension Vault {
    /// Audits every entry below `prefix` (all entries when nil). Reuse is found by comparing an
    /// HMAC-SHA-256 of each password under a key drawn at random for this call and then dropped, so no
    /// password or stable hash of one is kept, printed or stored. Breaches are looked up by the SHA-1 of
    /// the password's UTF-8 bytes in the offline data. Ages come from the password field's own
    /// `modified` time (Spec/FORMAT.md §5.3).
    /// - Throws: `VaultError.session` when locked, `VaultError.pwnedPasswords` for unusable breach data,
    ///   the `GeneratorError` of missing estimator data.
    package func audit(prefix: String? = nil, options: AuditOptions = AuditOptions()) throws -> AuditReport {
        let decrypted = try readAll(prefix: prefix)
        // (An entry that did not open has no estimate: it is listed among the failures below.)
        let estimates = try estimateAll(decrypted.map { try? $0.result.get() })
        let key = SecretBytes.random(count: 32)
        var report = AuditReport(entries: [], failures: [])
        var keyed: [[UInt8]: [EntryPath]] = [:]
        var keyOf: [EntryPath: [UInt8]] = [:]
        for (index, (path, result)) in decrypted.enumerated() {
            let entry: Entry
            switch result {
            case .success(let e): entry = e
            case .failure(let error): report.failures.append((path, error)); continue
            }
            var findings: [AuditFinding] = []
            if let field = entry.fields["password"], case .text(let text) = field.value, !text.isEmpty {
                let password = text.bytes
                if let estimate = estimates[index], estimate.score < options.minimumScore {
                    findings.append(.weak(score: estimate.score, guessesLog10: estimate.guessesLog10, weaknesses: estimate.weaknesses))
                }
                let hash = LibCrypto.hmac(.sha256, key: key, secret: password).withBytes { Array($0) }
                keyed[hash, default: []].append(path)
                keyOf[path] = hash
                let days = Int((options.now.milliseconds - field.modified.milliseconds) / 86_400_000)
                if days >= options.maxAgeDays { findings.append(.old(days: days, modified: field.modified)) }
                if let pwned = options.pwnedPasswords {
                    let count = try pwned.count(password: password)
                    if count > 0 { findings.append(.breached(count: count)) }
                }
            } else {
                findings.append(.noPassword)
            }
            for url in entry.list("urls") {
                if let insecure = Vault.insecureURL(url) { findings.append(insecure) }
            }
            report.entries.append(AuditedEntry(path: path, findings: findings))
        }
        for i in report.entries.indices {
            guard let hash = keyOf[report.entries[i].path], let group = keyed[hash], group.count > 1 else { continue }
            let others = group.filter { $0 != report.entries[i].path }
            // Reuse goes right after weak, before age and breach: it is the next most urgent.
            let position = report.entries[i].findings.firstIndex { if case .weak = $0 { return false } else { return true } } ?? report.entries[i].findings.count
            report.entries[i].findings.insert(.reused(others: others), at: position)
        }
        return report
    }

    /// The strength of each entry's password (nil without one), on all cores: the estimate is most of
    /// an audit's time. - Throws: the `GeneratorError` of missing estimator data.
    func estimateAll(_ entries: [Entry?]) throws -> [StrengthEstimate?] {
        _ = try StrengthEstimator.estimate("")  // loads the data once, and reports its absence
        var results = [StrengthEstimate?](repeating: nil, count: entries.count)
        let lock = ThreadLock()
        let chunks = max(1, min(entries.count, ProcessInfo.processInfo.activeProcessorCount * 4))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for i in stride(from: chunk, to: entries.count, by: chunks) {
                guard case .text(let text)? = entries[i]?.fields["password"]?.value, !text.isEmpty,
                      let estimate = try? StrengthEstimator.estimate(text) else { continue }
                lock.lock(); results[i] = estimate; lock.unlock()
            }
        }
        return results
    }

    /// The finding for a url that is not https, or nil. A url without a scheme counts as insecure (a
    /// browser would try http); schemes other than http and ftp (ssh, app links) are not web logins.
    static func insecureURL(_ url: String) -> AuditFinding? {
        let trimmed = url.trimming(.whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let range = trimmed.firstRange(of: "://") {
            let scheme = trimmed[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "ftp" else { return nil }
            return .insecureURL(scheme: scheme, host: URLComponents(string: trimmed)?.host)
        }
        return .insecureURL(scheme: nil, host: URLComponents(string: "http://" + trimmed)?.host)
    }
}
