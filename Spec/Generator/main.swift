// tresor-vectors: writes Spec/vectors/*.json from fixed keys, salts, nonces and ids (Spec/FORMAT.md §9).
// Usage: swift run tresor-vectors Spec/vectors
import Foundation
import TresorCore

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: tresor-vectors <output-directory>\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let out = VectorWriter(directory: directory)

// MARK: Fixed inputs. Nothing below draws randomness, so every run writes the same bytes.

let vaultKeyBytes = sequence(from: 0x00, count: 32)
let vaultKey = SecretBytes(copying: vaultKeyBytes)
let otherKeyBytes = sequence(from: 0x80, count: 32)
let vaultID = "6f1c2e84-3b5a-4c7d-9e2f-0a1b2c3d4e5f"
let slotID = "3d2b1a09-8f7e-4d6c-b5a4-938271605f4e"
let entryID = "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b"
let otherEntryID = "11111111-2222-4333-8444-555555555555"
let passphrase = "correct horse battery staple"
let salt = sequence(from: 0xa0, count: 16)
let slotNonce = sequence(from: 0x40, count: 24)
let entryNonce = sequence(from: 0xb0, count: 24)    // its base64 contains "+", used by the URL-alphabet vector
let entryNonce2 = sequence(from: 0x10, count: 24)
let minimum = KDFParameters(ops: KDFLevel.minimum.ops, mem: KDFLevel.minimum.mem, salt: salt)
let entryKeyContext = "tresorv1"

func time(_ s: String) -> Timestamp { Timestamp(parsing: s)! }

// MARK: KDF and subkey

for (name, pass, ops, mem, description) in [
    ("kdf-argon2id-minimum", passphrase, UInt64(1), UInt64(8192), "Argon2id13 at the minimum level (ops 1, mem 8192 bytes)"),
    ("kdf-argon2id-utf8", "pässwörd ✓ 🔑", UInt64(2), UInt64(16384), "Argon2id13 of a non-ASCII passphrase: the input is its UTF-8 bytes (already NFC)"),
] {
    let key = try Sodium.argon2id(passphrase: SecretBytes(utf8: pass), salt: salt, ops: ops, mem: mem)
    try out.success(name, test: "kdf", description,
                    inputs: ["passphrase": pass, "passphrase_hex": hex(Array(pass.utf8)), "salt": hex(salt), "ops": ops, "mem": mem],
                    expected: ["key": hex(plainBytes(key))])
}

let entryKey = try Sodium.deriveSubkey(from: vaultKey, id: 1, context: entryKeyContext)
try out.success("entry-key", test: "entry-key", "crypto_kdf_derive_from_key(32, id 1, context \"tresorv1\", vault key): the entry key",
                inputs: ["vault_key": hex(vaultKeyBytes)], expected: ["entry_key": hex(plainBytes(entryKey))])

// MARK: Vault header and key slot

let kek = try Sodium.argon2id(passphrase: SecretBytes(utf8: passphrase), salt: salt, ops: minimum.ops, mem: minimum.mem)
let slot = try KeySlot.wrap(vaultKey, passphrase: SecretBytes(utf8: passphrase), kdf: minimum, id: slotID, nonce: slotNonce, vaultID: vaultID)
let slotAD = "tresor-keyslot\u{0}1\u{0}\(vaultID)\u{0}\(slotID)\u{0}argon2id13\u{0}\(minimum.ops)\u{0}\(minimum.mem)\u{0}\(Data(salt).base64EncodedString())"
let header = VaultHeader(version: 1, vaultID: vaultID, keySlots: [slot], otherSlots: [], unknownMembers: [:])
let headerText = String(decoding: header.serialized(), as: UTF8.self)
let slotSummary: [String: Any] = ["id": slotID, "ops": minimum.ops, "mem": minimum.mem, "salt": hex(salt), "nonce": hex(slotNonce),
                                  "wrapped_key": hex(slot.wrappedKey), "kek": hex(plainBytes(kek)), "additional_data": hex(Array(slotAD.utf8))]

try out.success("keyslot-unwrap-ok", test: "header", "a header with one passphrase slot; the passphrase opens it and yields the vault key",
                inputs: ["file": headerText, "passphrase": passphrase],
                expected: ["vault": vaultID, "key_slots": [slotSummary], "other_slots": 0, "vault_key": hex(vaultKeyBytes)])

var futureHeader = parseOwn(headerText)
futureHeader["comment"] = .string("a member this version does not know")
futureHeader["keySlots"] = .array(futureHeader["keySlots"]!.arrayValue! + [
    .object(["type": .string("hardware-token"), "id": .string("aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"), "data": .string("AAEC")]),
])
try out.success("header-parse-unknown-members", test: "header",
                "a header with an unknown member and a slot of an unknown type: both are kept, and re-serialising gives the same bytes",
                inputs: ["file": canonicalText(.object(futureHeader)) + "\n"],
                expected: ["vault": vaultID, "key_slots": [slotSummary], "other_slots": 1])

try out.failure("keyslot-wrong-passphrase", test: "header", "the header of keyslot-unwrap-ok with another passphrase",
                inputs: ["file": headerText, "passphrase": "correct horse battery stapler"], error: "wrong-passphrase")

// Format version 2: the header's generation and authentication tag, and a commit's tag (Spec/FORMAT.md §3.5, §7.1).
let authenticator = try VaultAuthenticator(vaultKey: vaultKey)
let headerKey = try Sodium.deriveSubkey(from: vaultKey, id: 3, context: entryKeyContext)
let commitKey = try Sodium.deriveSubkey(from: vaultKey, id: 2, context: entryKeyContext)
var v2 = header
v2.version = 2
v2.generation = 3
let v2Header = try authenticator.authenticated(v2)
let v2Text = String(decoding: v2Header.serialized(), as: UTF8.self)
try out.success("header-v2-authentic", test: "header",
                "a format version 2 header of generation 3: its tag verifies with the header key derived from the vault key",
                inputs: ["file": v2Text, "passphrase": passphrase],
                expected: ["vault": vaultID, "key_slots": [slotSummary], "other_slots": 0, "vault_key": hex(vaultKeyBytes), "generation": 3,
                           "header_key": hex(plainBytes(headerKey)), "authenticated_bytes": hex(v2.authenticatedBytes),
                           "auth": hex(v2Header.auth!)])
var addedSlot = parseOwn(v2Text)
let foreignSlot = try KeySlot.wrap(SecretBytes.random(count: 32), passphrase: SecretBytes(utf8: "attacker"), kdf: minimum,
                                   id: "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee", nonce: slotNonce, vaultID: vaultID)
addedSlot["keySlots"] = .array(addedSlot["keySlots"]!.arrayValue! + [parseOwn(String(decoding: VaultHeader(version: 1, vaultID: vaultID,
    keySlots: [foreignSlot], otherSlots: [], unknownMembers: [:]).serialized(), as: UTF8.self))["keySlots"]!.arrayValue![0]])
try out.failure("header-v2-slot-added", test: "header", "the header of header-v2-authentic with a passphrase slot added by someone without the vault key",
                inputs: ["file": canonicalText(.object(addedSlot)) + "\n", "passphrase": passphrase], error: "header-not-authentic")
var lowered = parseOwn(v2Text)
lowered["generation"] = .integer(2)
try out.failure("header-v2-generation-changed", test: "header", "the header of header-v2-authentic with its generation lowered to 2 (a replay in disguise)",
                inputs: ["file": canonicalText(.object(lowered)) + "\n", "passphrase": passphrase], error: "header-not-authentic")
var noAuth = parseOwn(v2Text)
noAuth["auth"] = nil
try out.failure("header-v2-no-auth", test: "header", "a format version 2 header without \"auth\"",
                inputs: ["file": canonicalText(.object(noAuth)) + "\n"], error: "malformed")
var zeroGeneration = parseOwn(v2Text)
zeroGeneration["generation"] = .integer(0)
try out.failure("header-v2-generation-zero", test: "header", "a format version 2 header of generation 0",
                inputs: ["file": canonicalText(.object(zeroGeneration)) + "\n"], error: "malformed")
let commitContent = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor Tresor <tresor@example.com> 1767225600 +0000\ncommitter Tresor <tresor@example.com> 1767225600 +0000\n\nAdd Email/gmail\n"
try out.success("commit-auth", test: "commit-auth",
                "the tag of a commit: keyed BLAKE2b-256 under the commit key over \"tresor-commit\" 0x00 and the commit's content without its tresor-auth field",
                inputs: ["vault_key": hex(vaultKeyBytes), "content": commitContent],
                expected: ["commit_key": hex(plainBytes(commitKey)), "tag": try authenticator.commitTag(Array(commitContent.utf8))])

func headerVariant(_ change: (inout [String: JSONValue]) -> Void) -> String {
    var h = parseOwn(headerText)
    var s = h["keySlots"]!.arrayValue![0].objectValue!
    change(&s)
    h["keySlots"] = .array([.object(s)])
    return canonicalText(.object(h)) + "\n"
}
func kdfVariant(_ key: String, _ value: UInt64) -> String {
    headerVariant { s in
        var k = s["kdf"]!.objectValue!
        k[key] = .integer(value)
        s["kdf"] = .object(k)
    }
}
try out.failure("header-kdf-ops-over-bound", test: "header", "kdf ops 17 (> 16): refused while parsing, before any key derivation",
                inputs: ["file": kdfVariant("ops", 17), "passphrase": passphrase], error: "kdf-out-of-bounds")
try out.failure("header-kdf-mem-over-bound", test: "header", "kdf mem 2^30 + 1 bytes: refused while parsing, before any key derivation",
                inputs: ["file": kdfVariant("mem", (1 << 30) + 1), "passphrase": passphrase], error: "kdf-out-of-bounds")
try out.failure("header-kdf-mem-under-bound", test: "header", "kdf mem 8191 bytes (< 8192)",
                inputs: ["file": kdfVariant("mem", 8191), "passphrase": passphrase], error: "kdf-out-of-bounds")
try out.failure("header-kdf-ops-zero", test: "header", "kdf ops 0 (< 1)",
                inputs: ["file": kdfVariant("ops", 0), "passphrase": passphrase], error: "kdf-out-of-bounds")
var v3Header = parseOwn(headerText)
v3Header["version"] = .integer(3)
try out.failure("header-version-3", test: "header", "a header of format version 3 (newer than this reader)",
                inputs: ["file": canonicalText(.object(v3Header)) + "\n"], error: "unsupported-version")
try out.failure("header-salt-short", test: "header", "a 15-byte salt",
                inputs: ["file": headerVariant { s in
                    var k = s["kdf"]!.objectValue!
                    k["salt"] = .string(Data(salt.prefix(15)).base64EncodedString())
                    s["kdf"] = .object(k)
                }], error: "bad-encoding")
var manySlots = parseOwn(headerText)
manySlots["keySlots"] = .array(Array(repeating: manySlots["keySlots"]!.arrayValue![0], count: 17))
try out.failure("header-too-many-slots", test: "header", "17 passphrase key slots (at most 16 may be tried)",
                inputs: ["file": canonicalText(.object(manySlots)) + "\n", "passphrase": passphrase], error: "malformed")

// MARK: Entries

let cipher = try EntryCipher(vaultKey: vaultKey)
let t0 = time("2026-01-15T09:30:00.000Z"), t1 = time("2026-03-02T18:04:05.678Z")
var gmail = Entry(id: entryID, path: try EntryPath("Email/gmail"), created: t0, modified: t0, fields: [:], history: [], unknownMembers: [:])
try gmail.set("username", .text("alice@example.com"), at: t0, origin: "laptop")
try gmail.set("password", .text("hunter2"), at: t0, origin: "laptop")
try gmail.set("urls", .list(["https://mail.google.com", "https://accounts.google.com"]), at: t0, origin: "laptop")
try gmail.set("notes", .text("recovery codes: in the safe\n\"backup\" phone\tonly"), at: t0, origin: "laptop")
try gmail.set("tags", .list(["mail"]), at: t0, origin: "laptop")
try gmail.set("password", .text("correct-horse-7"), at: t1, origin: "phone")

var cafe = Entry(id: otherEntryID, path: try EntryPath("Bank/Cafe\u{301}"), created: t0, modified: t0, fields: [:], history: [], unknownMembers: [:])
try cafe.set("password", .text("ünïcødé ✓"), at: t0, origin: "laptop")
try cafe.set("PIN", .text("0042"), at: t0, origin: "laptop")
try cafe.set("Kontonummer", .text("DE00 1234"), at: t1, origin: "phone")
cafe.unknownMembers = ["x-future": .object(["level": .number("1.50"), "list": .array([.null, .bool(true)])])]

/// Expected values of a success vector for `entry`, sealed under `nonce`.
func entryExpected(_ entry: Entry, nonce: [UInt8], file: [UInt8]) -> [String: Any] {
    let plaintext = entry.payloadJSON().canonicalBytes()
    let ad = "tresor-entry\u{0}1\u{0}\(entry.id)\u{0}\(Data(nonce).base64EncodedString())"
    var fields: [String: Any] = [:]
    for (name, f) in entry.fields {
        switch f.value {
        case .text(let t): fields[name] = t
        case .list(let l): fields[name] = l
        }
    }
    return ["entry_key": hex(plainBytes(entryKey)), "id": entry.id, "nonce": hex(nonce), "additional_data": hex(Array(ad.utf8)),
            "ciphertext_bytes": Envelope.parseOrDie(file).ciphertext.count, "plaintext": String(decoding: plaintext, as: UTF8.self),
            "path": entry.path.string, "created": entry.created.description, "modified": entry.modified.description,
            "fields": fields, "history_items": entry.history.count]
}

extension Envelope {
    static func parseOrDie(_ b: [UInt8]) -> Envelope { try! Envelope.parse(b) }
}

let gmailFile = try cipher.sealPayload(gmail.payloadJSON().canonicalBytes(), id: gmail.id, nonce: entryNonce)
let gmailText = String(decoding: gmailFile, as: UTF8.self)
let cafeFile = try cipher.sealPayload(cafe.payloadJSON().canonicalBytes(), id: cafe.id, nonce: entryNonce2)
let keyHex = hex(vaultKeyBytes)

try out.success("entry-ok-basic", test: "entry", "the entry Email/gmail with the five standard fields and one history item",
                inputs: ["vault_key": keyHex, "path": "Email/gmail", "file": gmailText],
                expected: entryExpected(gmail, nonce: entryNonce, file: gmailFile))
try out.success("entry-ok-unicode-unknown-member", test: "entry",
                "entry Bank/Café (NFC), custom fields, and an unknown payload member that a reader keeps verbatim (note 1.50)",
                inputs: ["vault_key": keyHex, "path": "Bank/Caf\u{e9}", "file": String(decoding: cafeFile, as: UTF8.self)],
                expected: entryExpected(cafe, nonce: entryNonce2, file: cafeFile))

/// Failure vector over the gmail file after `change`.
func entryFailure(_ name: String, _ description: String, _ error: String, key: String = keyHex, path: String = "Email/gmail",
                  _ file: String) throws {
    try out.failure(name, test: "entry", description, inputs: ["vault_key": key, "path": path, "file": file], error: error)
}
func envelopeVariant(_ change: (inout [String: JSONValue]) -> Void) -> String {
    var o = parseOwn(gmailText)
    change(&o)
    return canonicalText(.object(o)) + "\n"
}
let ct = Envelope.parseOrDie(gmailFile).ciphertext
let ctB64 = Data(ct).base64EncodedString()
precondition(ctB64.hasSuffix("="), "adjust the gmail notes so the ciphertext length is not a multiple of 3")

try entryFailure("entry-wrong-key", "entry-ok-basic opened with another vault key", "authentication-failed", key: hex(otherKeyBytes), gmailText)
try entryFailure("entry-flipped-ciphertext-byte", "the low bit of ciphertext byte 0 flipped", "authentication-failed",
                 envelopeVariant { var c = ct; c[0] ^= 1; $0["ciphertext"] = .string(Data(c).base64EncodedString()) })
try entryFailure("entry-flipped-tag-byte", "the low bit of the last tag byte flipped", "authentication-failed",
                 envelopeVariant { var c = ct; c[c.count - 1] ^= 1; $0["ciphertext"] = .string(Data(c).base64EncodedString()) })
try entryFailure("entry-changed-id", "\"id\" replaced by another valid UUID: the additional data no longer matches", "authentication-failed",
                 envelopeVariant { $0["id"] = .string(otherEntryID) })
try entryFailure("entry-changed-nonce", "the low bit of nonce byte 0 flipped", "authentication-failed",
                 envelopeVariant { var n = entryNonce; n[0] ^= 1; $0["nonce"] = .string(Data(n).base64EncodedString()) })
try entryFailure("entry-version-2", "\"version\": 2", "unsupported-version", envelopeVariant { $0["version"] = .integer(2) })
try entryFailure("entry-version-2-unknown-member", "\"version\": 2 and an unknown member: the version is checked first",
                 "unsupported-version", envelopeVariant { $0["version"] = .integer(2); $0["padding"] = .string("") })
try entryFailure("entry-version-string", "\"version\": \"1\" (a string)", "malformed", envelopeVariant { $0["version"] = .string("1") })
try entryFailure("entry-truncated", "entry-ok-basic cut after half its bytes", "malformed", String(gmailText.prefix(gmailText.utf8.count / 2)))
try entryFailure("entry-empty", "an empty file", "malformed", "")
try entryFailure("entry-nonce-url-alphabet", "the nonce in the URL-safe alphabet (\"-\" for \"+\")", "bad-encoding",
                 envelopeVariant { $0["nonce"] = .string(Data(entryNonce).base64EncodedString().replacingOccurrences(of: "+", with: "-")) })
try entryFailure("entry-nonce-short", "a 23-byte nonce", "bad-encoding",
                 envelopeVariant { $0["nonce"] = .string(Data(entryNonce.prefix(23)).base64EncodedString()) })
try entryFailure("entry-ciphertext-missing-padding", "the ciphertext base64 without its \"=\" padding", "bad-encoding",
                 envelopeVariant { $0["ciphertext"] = .string(String(ctB64.prefix { $0 != "=" })) })
let padBitsB64: String = {
    // The last character before the padding carries 2 ("=") or 4 ("==") unused bits that must be zero.
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    var chars = Array(ctB64)
    let i = chars.firstIndex(of: "=")! - 1
    chars[i] = alphabet[alphabet.firstIndex(of: chars[i])! | 1]
    return String(chars)
}()
try entryFailure("entry-ciphertext-nonzero-pad-bits", "the ciphertext base64 with a non-zero unused bit before \"=\"", "bad-encoding",
                 envelopeVariant { $0["ciphertext"] = .string(padBitsB64) })
try entryFailure("entry-ciphertext-line-break", "a line break inside the ciphertext base64", "bad-encoding",
                 envelopeVariant { $0["ciphertext"] = .string(String(ctB64.prefix(76)) + "\n" + String(ctB64.dropFirst(76))) })
try entryFailure("entry-duplicate-key", "\"id\" twice with the same value", "malformed",
                 gmailText.replacingOccurrences(of: "\"id\":\"\(entryID)\"", with: "\"id\":\"\(entryID)\",\"id\":\"\(entryID)\""))
try entryFailure("entry-unknown-member", "an envelope member \"padding\" that version 1 does not define", "malformed",
                 envelopeVariant { $0["padding"] = .string("") })
try entryFailure("entry-id-uppercase", "the id in upper case (ids are lowercase UUIDs)", "malformed",
                 envelopeVariant { $0["id"] = .string(entryID.uppercased()) })
try entryFailure("entry-path-mismatch", "entry-ok-basic found at Email/work.json: the inner path is Email/gmail", "path-mismatch",
                 path: "Email/work", gmailText)
var badInner = gmail.payloadJSON().objectValue!
badInner["path"] = .string("Email/../gmail")
try entryFailure("entry-invalid-inner-path", "a correctly sealed payload whose path is \"Email/../gmail\"", "invalid-path",
                 String(decoding: try cipher.sealPayload(JSONValue.object(badInner).canonicalBytes(), id: entryID, nonce: entryNonce), as: UTF8.self))
var folderJSON = gmail.payloadJSON().objectValue!
folderJSON["path"] = .string("Email.json/gmail")
try entryFailure("entry-inner-path-folder-json", "a sealed payload whose path has a folder named \"Email.json\" (FORMAT §4.2 rule 9)",
                 "invalid-path", path: "Email.json/gmail",
                 String(decoding: try cipher.sealPayload(JSONValue.object(folderJSON).canonicalBytes(), id: entryID, nonce: entryNonce), as: UTF8.self))
var badField = gmail.payloadJSON().objectValue!
var badFields = badField["fields"]!.objectValue!
badFields["urls"] = .object(["value": .string("https://mail.google.com"), "modified": .string(t0.description), "origin": .string("laptop")])
badField["fields"] = .object(badFields)
try entryFailure("entry-list-field-as-text", "a sealed payload where \"urls\" is a string, not a list", "malformed",
                 String(decoding: try cipher.sealPayload(JSONValue.object(badField).canonicalBytes(), id: entryID, nonce: entryNonce), as: UTF8.self))

try out.removeStale()
print("wrote \(out.names.count) vectors to \(directory.path)")
