// tresor-bench: measures the costs that decide how Tresor feels, and prints a table (release build).
import Foundation
import Tresor
import TresorCore
import TresorGit

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func format(_ s: Double) -> String {
    if s < 1e-3 { return String(format: "%.1f µs", s * 1e6) }
    if s < 1 { return String(format: "%.2f ms", s * 1e3) }
    return String(format: "%.2f s", s)
}

var rows: [(String, String, String)] = []
func row(_ what: String, _ per: String, _ value: Double) {
    rows.append((what, per, format(value)))
    FileHandle.standardError.write(Data("  \(what): \(format(value)) \(per)\n".utf8))
}

let pass = SecretBytes(utf8: "benchmark passphrase")

// Helper modes for Benchmarks/compare.py, which builds the same vault for the peers:
//   tresor-bench populate DIR N            a vault of N sample entries in one commit (passphrase below)
//   tresor-bench modify DIR FIRST COUNT TAG  sets the password of entries FIRST..<FIRST+COUNT in one commit
let helperArguments = Array(CommandLine.arguments.dropFirst())
if helperArguments.first == "populate", helperArguments.count == 3, let size = Int(helperArguments[2]) {
    let v = try Vault.create(at: helperArguments[1], passphrase: pass, level: .minimum)
    try v.transaction { txn in
        for i in 0..<size { try txn.put(try sampleEntry(i)) }
        txn.message = "Add \(size) entries"
    }
    exit(0)
}
if helperArguments.first == "modify", helperArguments.count == 5, let first = Int(helperArguments[2]), let n = Int(helperArguments[3]) {
    let v = try Vault.open(at: helperArguments[1])
    try v.unlock(passphrase: pass)
    try v.transaction { txn in
        for i in first..<(first + n) {
            guard var e = try txn.entry(at: try sampleEntry(i).path) else { continue }
            try e.set("password", .text("\(helperArguments[4])-\(i)"), change: txn.change)
            try txn.put(e)
        }
        txn.message = "Change \(n) entries"
    }
    exit(0)
}
let root = NSTemporaryDirectory() + "tresor-bench-" + UUID().uuidString
// TRESOR_BENCH_KEEP=1 keeps the vaults for a closer look (perf, strace).
defer { if ProcessInfo.processInfo.environment["TRESOR_BENCH_KEEP"] == nil { try? FileManager.default.removeItem(atPath: root) } }

// 1. Key derivation at each level users choose (one unlock each).
for level in [KDFLevel.interactive, .moderate] {
    let params = KDFParameters(level: level)
    row("Argon2id \(level.rawValue) (\(level.mem >> 20) MiB, \(level.ops) passes)", "per unlock",
        try seconds { _ = try Sodium.argon2id(passphrase: pass, salt: params.salt, ops: params.ops, mem: params.mem) })
}

// 2. Sealing and opening one typical entry.
let cipher = try EntryCipher(vaultKey: SecretBytes.random(count: 32))
func sampleEntry(_ i: Int) throws -> Entry {
    let change = Change(time: Timestamp.now(), origin: "bench", dot: .placeholder)
    var e = Entry(path: try EntryPath("Folder\(i % 50)/site-\(i)"), change: change)
    try e.set("password", .text("p4ssw0rd-\(i)-Correct-Horse"), change: change)
    try e.set("username", .text("user\(i)@example.com"), change: change)
    try e.set("urls", .list(["https://site-\(i).example.com/login"]), change: change)
    try e.set("notes", .text(SecretText(String(repeating: "note text ", count: 20))), change: change)
    return e
}

let entry = try sampleEntry(1)
let file = try cipher.seal(entry)
let n = 20_000
row("seal one entry (\(file.count) B file)", "per entry", try seconds { for _ in 0..<n { _ = try cipher.seal(entry) } } / Double(n))
row("open + parse one entry", "per entry", try seconds { for _ in 0..<n { _ = try cipher.open(file, expectedPath: entry.path) } } / Double(n))

// Where opening one entry's time goes.
let env = try Envelope.parse(file)
let plaintext = try cipher.openPayload(env)
let payload = try plaintext.withBytes { try JSONValue.parsePayload($0) }
row("  of which: parse envelope (JSON + base64)", "per entry", try seconds { for _ in 0..<n { _ = try Envelope.parse(file) } } / Double(n))
row("  of which: decrypt payload into a locked buffer", "per entry", try seconds { for _ in 0..<n { _ = try cipher.openPayload(env) } } / Double(n))
row("  of which: parse payload JSON (values into zeroing buffers)", "per entry", try seconds { for _ in 0..<n { _ = try plaintext.withBytes { try JSONValue.parsePayload($0) } } } / Double(n))
row("    (the same JSON, every value a String)", "per entry", try seconds { for _ in 0..<n { _ = try plaintext.withBytes { try JSONValue.parse($0) } } } / Double(n))
row("  serialise the payload into zeroing memory (what seal does)", "per entry", seconds { for _ in 0..<n { _ = payload.canonicalSecretBytes() } } / Double(n))
row("    (the same bytes into an ordinary array)", "per entry", seconds { for _ in 0..<n { _ = payload.canonicalBytes() } } / Double(n))
row("  of which: build the Entry", "per entry", try seconds { for _ in 0..<n { _ = try Entry(id: env.id, payload: payload) } } / Double(n))

// 3. A vault with many entries written straight to the store, then searched like `tresor grep`.
let vault = try Vault.create(at: root + "/big", passphrase: pass, level: .minimum)
let count = 10_000
let bigStore = EntryStore(root: vault.root)
let write = try seconds { for i in 0..<count { try bigStore.writeEntryFile(try cipher.seal(try sampleEntry(i)), for: try sampleEntry(i).path) } }
row("write \(count) entry files (atomic, fsync)", "per entry", write / Double(count))
row("list \(count) entries (ls, no key)", "whole vault", seconds { _ = vault.list() })
let big = try Vault.open(at: root + "/big")
let key = try vault.currentVaultKey()
try big.unlock(vaultKey: key)
// The store was written with another key on purpose for write speed; re-seal under the vault's key.
let vaultCipher = try EntryCipher(vaultKey: key)
for i in 0..<count { try bigStore.writeEntryFile(try vaultCipher.seal(try sampleEntry(i)), for: try sampleEntry(i).path) }
var hits = 0
let grep = try seconds {
    for (_, r) in try big.readAll() { if case .success(let e) = r, e.text("username")?.contains("user42@") == true { hits += 1 } }
}
row("grep \(count) entries (decrypt all, in process)", "whole vault", grep)

// 4. Changes through the CLI's path: one commit each.
let small = try Vault.create(at: root + "/small", passphrase: pass, level: .minimum)
let adds = 200
row("add entry + commit (vault of up to \(adds))", "per add", try seconds { for i in 0..<adds { try small.add(try sampleEntry(i)) } } / Double(adds))
let e0 = try small.read(try EntryPath("Folder0/site-0"))
var e1 = e0
try e1.set("password", .text("changed"), change: small.pendingChange)
row("edit entry + commit", "per edit", try seconds { _ = try small.save(e1, basedOn: e0) })

// 4b. One change per process, as a person or script runs them, at two vault sizes: the cost of a change
// must not grow with the vault (the commit is built from the base tree, never from an index walk).
let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tresor").path
func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
/// Runs the CLI once and returns its wall time. posix_spawn and waitpid, not Foundation's Process, whose
/// wait polls every 50 ms.
func timeCLI(_ args: [String], vault: String, stdin: String? = nil) throws -> Double {
    let input = root + "/stdin"
    try (stdin ?? "").write(toFile: input, atomically: true, encoding: .utf8)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([cli] + args + ["--vault", vault]).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var environment = ProcessInfo.processInfo.environment
    environment["TRESOR_PASSPHRASE_FILE"] = root + "/passphrase"
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    precondition(posix_spawn(&pid, cli, &actions, nil, argv, envp) == 0, "cannot start tresor")
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    precondition(status == 0, "tresor \(args) failed")
    return elapsed
}
if FileManager.default.isExecutableFile(atPath: cli) {
    try "benchmark passphrase\n".write(toFile: root + "/passphrase", atomically: true, encoding: .utf8)
    for size in [1_000, 10_000] {
        let v = try Vault.create(at: root + "/cli\(size)", passphrase: pass, level: .minimum)
        try v.transaction { txn in
            for i in 0..<size { try txn.put(try sampleEntry(i)) }
            txn.message = "Add \(size) entries"
        }
        let runs = 15
        var add: [Double] = [], edit: [Double] = [], mv: [Double] = [], rm: [Double] = []
        for i in 0..<runs {
            add.append(try timeCLI(["add", "New/e\(i)", "--password-stdin"], vault: v.root, stdin: "Pw-\(i)-Correct-Horse-Battery\n"))
            edit.append(try timeCLI(["edit", "Folder1/site-1", "--set", "username=u\(i)"], vault: v.root))
            mv.append(try timeCLI(["mv", "New/e\(i)", "Moved/e\(i)"], vault: v.root))
            rm.append(try timeCLI(["rm", "-f", "Moved/e\(i)"], vault: v.root))
        }
        row("`tresor add` + commit, one process (\(size) entries)", "median of \(runs)", median(add))
        row("`tresor edit --set` + commit, one process (\(size) entries)", "median of \(runs)", median(edit))
        row("`tresor mv` + commit, one process (\(size) entries)", "median of \(runs)", median(mv))
        row("`tresor rm` + commit, one process (\(size) entries)", "median of \(runs)", median(rm))
    }
}

// 5. Sync: two replicas of a 1,000-entry vault through a bare repository, 20 entries edited on both.
let syncCount = 1_000, edited = 20
let remotePath = root + "/remote.git"
try GitRepository.createBare(at: remotePath)
let a = try Vault.create(at: root + "/syncA", passphrase: pass, level: .minimum)
try a.transaction { txn in
    for i in 0..<syncCount { try txn.put(try sampleEntry(i)) }
    txn.message = "Add \(syncCount) entries"
}
try a.addRemote(name: "origin", url: remotePath)
row("sync: first push of \(syncCount) entries", "whole vault", try seconds { _ = try a.sync(credentials: .none) })
var b: Vault?
row("clone + check every entry (\(syncCount))", "whole vault", try seconds {
    b = try Vault.clone(url: remotePath, to: root + "/syncB", credentials: .none)
    try b!.unlock(vaultKey: try a.currentVaultKey())
    try b!.completeClone()
})
for i in 0..<edited {
    for (v, value) in [(a, "from-A-\(i)"), (b!, "from-B-\(i)")] {
        let old = try v.read(try sampleEntry(i).path)
        var e = old
        try e.set("password", .text(SecretText(value)), change: v.pendingChange)
        _ = try v.save(e, basedOn: old)
    }
}
row("sync: push \(edited) edits", "whole sync", try seconds { _ = try a.sync(credentials: .none) })
var resolved = 0
row("sync: merge \(edited) conflicting entries of \(syncCount), push", "whole sync", try seconds { resolved = try b!.sync(credentials: .none).resolutions.count })
row("sync: fast-forward the other replica", "whole sync", try seconds { _ = try a.sync(credentials: .none) })
precondition(resolved == edited, "expected one resolution per conflicting entry")

// 6. The strength estimator, `tresor audit`, and an offline Pwned Passwords look-up.
// (Before the table is built: what `tresor add` with a chosen password does, reading the lists for that password alone.)
row("strength estimate of one password alone (`estimateOnce`: the lists read, no table)", "once",
    try seconds { _ = try StrengthEstimator.estimateOnce(SecretText("Pw-1-Correct-Horse-Battery")) })
row("strength estimate: first call (loads the dictionaries)", "once", try seconds { _ = try StrengthEstimator.estimate("warm-up") })
let samples = (try? String(contentsOfFile: "Spec/strength/passwords.txt", encoding: .utf8))?.split(separator: "\n").map(String.init)
    ?? ["Summer2024!", "Tr0ub4dor&3", "correcthorsebatterystaple", "qwerty123", "xK9#mQ2$vL7!wQ"]
row("strength estimate (\(samples.count) passwords of Spec/strength)", "per password",
    try seconds { for p in samples { _ = try StrengthEstimator.estimate(p) } } / Double(samples.count))
let worst = String(repeating: "P4$$w0rd!1|7", count: 9)
row("strength estimate, 100 characters of l33t words", "per password", try seconds { _ = try StrengthEstimator.estimate(worst) })
var auditFindings = 0
row("audit \(count) entries (decrypt, estimate, compare)", "whole vault", try seconds { auditFindings = try big.audit().flagged.count })
let hibpPath = root + "/pwned.txt"
do {
    _ = FileManager.default.createFile(atPath: hibpPath, contents: nil)
    let h = FileHandle(forWritingAtPath: hibpPath)!
    var buffer: [UInt8] = []
    let hex = Array("0123456789ABCDEF".utf8)
    let lines = 4_000_000, step = UInt64.max / UInt64(lines + 1)
    for i in 0..<lines {
        var v = UInt64(i) * step
        var digits = [UInt8](repeating: 48, count: 40)
        for k in (0..<16).reversed() { digits[k] = hex[Int(v & 15)]; v >>= 4 }
        buffer += digits
        buffer += Array(":\(i % 997 + 1)\r\n".utf8)
        if buffer.count > 1 << 20 { h.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
    }
    h.write(Data(buffer))
    try h.close()
}
let pwned = try PwnedPasswords(path: hibpPath)
let lookups = 1_000
let lookupTime = try seconds { for i in 0..<lookups { _ = try pwned.count(password: SecretBytes(utf8: "password \(i)")) } } / Double(lookups)
let hibpSize = try FileManager.default.attributesOfItem(atPath: hibpPath)[.size] as! UInt64
row("Pwned Passwords look-up, 4,000,000-line file (\(hibpSize >> 20) MiB; \(pwned.bytesRead / UInt64(lookups)) bytes read)", "per password", lookupTime)

// 7. Members and rekey on a committed vault of 10,000 entries: adding a member is one key slot; a rekey
// re-encrypts every entry (one AEAD open and seal each), rewraps the slots and commits, as one transaction.
let keyed = try Vault.create(at: root + "/rekey", passphrase: pass, level: .minimum)
try keyed.transaction { txn in
    for i in 0..<count { try txn.put(try sampleEntry(i)) }
    txn.message = "Add \(count) entries"
}
row("member add (vault of \(count) entries)", "per member", try seconds {
    try keyed.addMember("device", publicKey: Identity.generate().publicKey)
})
row("rekey \(count) entries (re-encrypt, rewrap, one commit)", "whole vault", try seconds {
    try keyed.rekey(passphrase: pass, level: .minimum)
})

print("| measurement | per | time |")
print("|---|---|---|")
for (w, p, v) in rows { print("| \(w) | \(p) | \(v) |") }
