"""Spec/vectors/*.json: the format vectors of Spec/FORMAT.md §9, made from fixed keys, salts, nonces and ids.

Inputs are built with tresorref's writer; every `expected` and `error` is then computed by running the
test of format_tests on the inputs alone, and a failure vector must fail with the kind it was made for.
"""
from tresorref import canonical_json as cj
from tresorref.encoding import b64encode, hexstr
from tresorref.entry import Entry
from tresorref.envelope import CURRENT as ENTRY_FORMAT, parse_envelope, seal_entry
from tresorref.errors import FormatError
from tresorref.paths import entry_path
from tresorref import primitives
from tresorref.header import HeaderV1 as HEADER_FORMAT, HeaderV2, HeaderV3, LEVELS, PassphraseSlot
from tresorref import recipients as rcp

from . import format_tests
from .writer import VectorSet


def sequence(first, count):
    """`count` bytes first, first+1, ... (mod 256): recognisable fixed inputs."""
    return bytes((first + i) % 256 for i in range(count))


VAULT_KEY = sequence(0x00, 32)
OTHER_KEY = sequence(0x80, 32)
VAULT_ID = "6f1c2e84-3b5a-4c7d-9e2f-0a1b2c3d4e5f"
SLOT_ID = "3d2b1a09-8f7e-4d6c-b5a4-938271605f4e"
ENTRY_ID = "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b"
OTHER_ENTRY_ID = "11111111-2222-4333-8444-555555555555"
PASSPHRASE = "correct horse battery staple"
SALT = sequence(0xa0, 16)
SLOT_NONCE = sequence(0x40, 24)
ENTRY_NONCE = sequence(0xb0, 24)    # its base64 contains "+", used by the URL-alphabet vector
ENTRY_NONCE2 = sequence(0x10, 24)
MIN_OPS, MIN_MEM = LEVELS["minimum"]
T0, T1 = "2026-01-15T09:30:00.000Z", "2026-03-02T18:04:05.678Z"


class FormatVectors(VectorSet):
    def success(self, name, test, description, inputs):
        super().success(name, test, description, inputs, format_tests.TESTS[test](inputs))

    def failure(self, name, test, description, inputs, error):
        try:
            format_tests.TESTS[test](inputs)
        except FormatError as e:
            if e.kind != error:
                raise AssertionError("%s: failed with %s (%s), made for %s" % (name, e.kind, e.reason, error))
        else:
            raise AssertionError("%s: succeeded, made for %s" % (name, error))
        super().failure(name, test, description, inputs, error)


def text(data):
    return data.decode("utf-8")


def kdf_vectors(out):
    for name, passphrase, ops, mem, description in [
        ("kdf-argon2id-minimum", PASSPHRASE, 1, 8192, "Argon2id13 at the minimum level (ops 1, mem 8192 bytes)"),
        ("kdf-argon2id-utf8", "pässwörd ✓ 🔑", 2, 16384,
         "Argon2id13 of a non-ASCII passphrase: the input is its UTF-8 bytes (already NFC)"),
    ]:
        out.success(name, "kdf", description, {"passphrase": passphrase, "passphrase_hex": passphrase.encode().hex(),
                                               "salt": hexstr(SALT), "ops": ops, "mem": mem})
    out.success("entry-key", "entry-key",
                "crypto_kdf_derive_from_key(32, id 1, context \"tresorv1\", vault key): the entry key",
                {"vault_key": hexstr(VAULT_KEY)})


def header_vectors(out):
    slot = PassphraseSlot.wrap(VAULT_KEY, PASSPHRASE.encode(), HEADER_FORMAT.VERSION, VAULT_ID, SLOT_ID,
                               MIN_OPS, MIN_MEM, SALT, SLOT_NONCE)
    header = HEADER_FORMAT(VAULT_ID, [slot])
    header_text = text(header.serialize())
    out.success("keyslot-unwrap-ok", "header",
                "a header with one passphrase slot; the passphrase opens it and yields the vault key",
                {"file": header_text, "passphrase": PASSPHRASE})

    # §2.1: a passphrase typed as text is the UTF-8 of its NFC form, so an NFD spelling opens the same slot.
    nfc_slot = PassphraseSlot.wrap(VAULT_KEY, "p\u00e4ssw\u00f6rd".encode(), HEADER_FORMAT.VERSION, VAULT_ID, SLOT_ID,
                                   MIN_OPS, MIN_MEM, SALT, SLOT_NONCE)
    out.success("keyslot-unwrap-nfd-passphrase", "header",
                "a slot wrapped under the NFC passphrase p\u00e4ssw\u00f6rd opens with its NFD spelling "
                "(pa U+0308 ssw o U+0308 rd): passphrases are NFC-normalised before Argon2id",
                {"file": text(HEADER_FORMAT(VAULT_ID, [nfc_slot]).serialize()), "passphrase": "pa\u0308sswo\u0308rd"})

    future = header.to_json()
    future["comment"] = "a member this version does not know"
    future["keySlots"].append({"type": "hardware-token", "id": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "data": "AAEC"})
    out.success("header-parse-unknown-members", "header",
                "a header with an unknown member and a slot of an unknown type: both are kept, re-serialising "
                "gives the same bytes, and the passphrase slot still opens",
                {"file": text(cj.file_bytes(future)), "passphrase": PASSPHRASE})

    out.failure("keyslot-wrong-passphrase", "header", "the header of keyslot-unwrap-ok with another passphrase",
                {"file": header_text, "passphrase": "correct horse battery stapler"}, "wrong-passphrase")

    def slot_variant(change):
        h = header.to_json()
        change(h["keySlots"][0])
        return text(cj.file_bytes(h))

    def kdf_variant(key, value):
        return slot_variant(lambda s: s["kdf"].__setitem__(key, value))

    for name, key, value, description in [
        ("header-kdf-ops-over-bound", "ops", 17, "kdf ops 17 (> 16): refused while parsing, before any key derivation"),
        ("header-kdf-mem-over-bound", "mem", (1 << 30) + 1,
         "kdf mem 2^30 + 1 bytes: refused while parsing, before any key derivation"),
        ("header-kdf-mem-under-bound", "mem", 8191, "kdf mem 8191 bytes (< 8192)"),
        ("header-kdf-ops-zero", "ops", 0, "kdf ops 0 (< 1)"),
    ]:
        out.failure(name, "header", description, {"file": kdf_variant(key, value), "passphrase": PASSPHRASE},
                    "kdf-out-of-bounds")
    v5 = header.to_json()
    v5["version"] = 5
    out.failure("header-version-5", "header", "a header of format version 5 (newer than this reader)",
                {"file": text(cj.file_bytes(v5))}, "unsupported-version")
    header_v2_vectors(out, slot)
    out.failure("header-salt-short", "header", "a 15-byte salt",
                {"file": kdf_variant("salt", b64encode(SALT[:15]))}, "bad-encoding")
    many = header.to_json()
    many["keySlots"] = many["keySlots"] * 17
    out.failure("header-too-many-slots", "header", "17 passphrase key slots (at most 16 may be tried)",
                {"file": text(cj.file_bytes(many)), "passphrase": PASSPHRASE}, "malformed")


def header_v2_vectors(out, slot):
    """§3.6 and §7.1: the version 2 header's generation and tag, and a commit's tag."""
    v2 = HeaderV2(VAULT_ID, [slot], generation=3).authenticated(VAULT_KEY)
    v2_text = text(v2.serialize())
    out.success("header-v2-authentic", "header",
                "a format version 2 header of generation 3: its tag verifies with the header key derived from the vault key",
                {"file": v2_text, "passphrase": PASSPHRASE})
    attacker = PassphraseSlot.wrap(OTHER_KEY, b"attacker", 1, VAULT_ID, "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee",
                                   MIN_OPS, MIN_MEM, SALT, SLOT_NONCE)
    added = v2.to_json()
    added["keySlots"].append(attacker.to_json())
    out.failure("header-v2-slot-added", "header",
                "the header of header-v2-authentic with a passphrase slot added by someone without the vault key",
                {"file": text(cj.file_bytes(added)), "passphrase": PASSPHRASE}, "header-not-authentic")
    lowered = v2.to_json()
    lowered["generation"] = 2
    out.failure("header-v2-generation-changed", "header",
                "the header of header-v2-authentic with its generation lowered to 2 (a replay in disguise)",
                {"file": text(cj.file_bytes(lowered)), "passphrase": PASSPHRASE}, "header-not-authentic")
    no_auth = v2.to_json()
    del no_auth["auth"]
    out.failure("header-v2-no-auth", "header", "a format version 2 header without \"auth\"",
                {"file": text(cj.file_bytes(no_auth))}, "malformed")
    zero = v2.to_json()
    zero["generation"] = 0
    out.failure("header-v2-generation-zero", "header", "a format version 2 header of generation 0",
                {"file": text(cj.file_bytes(zero))}, "malformed")
    content = ("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
               "author Tresor <tresor@example.com> 1767225600 +0000\n"
               "committer Tresor <tresor@example.com> 1767225600 +0000\n\nAdd Email/gmail\n")
    out.success("commit-auth", "commit-auth",
                "the tag of a commit: keyed BLAKE2b-256 under the commit key over \"tresor-commit\" 0x00 and the "
                "commit's content without its tresor-auth field",
                {"vault_key": hexstr(VAULT_KEY), "content": content})


def passwd_vectors(out):
    # Two passphrase slots wrapping the same vault key (as after MERGE.md §10), the second ours; a slot of
    # an unknown type and an unknown member, which a passphrase change keeps.
    theirs = PassphraseSlot.wrap(VAULT_KEY, b"their passphrase", HEADER_FORMAT.VERSION, VAULT_ID,
                                 "7a1f0c3e-2b4d-4e5f-8a6b-7c8d9e0f1a2b", MIN_OPS, MIN_MEM, sequence(0xc0, 16),
                                 sequence(0x60, 24))
    ours = PassphraseSlot.wrap(VAULT_KEY, PASSPHRASE.encode(), HEADER_FORMAT.VERSION, VAULT_ID, SLOT_ID,
                               MIN_OPS, MIN_MEM, SALT, SLOT_NONCE)
    header = HEADER_FORMAT(VAULT_ID, [theirs, ours],
                           [{"type": "hardware-token", "id": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "data": "AAEC"}],
                           {"comment": "kept"})
    inputs = {"file": text(header.serialize()), "passphrase": PASSPHRASE, "new_passphrase": "new passphrase",
              "slot_id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", "salt": hexstr(sequence(0xd0, 16)),
              "nonce": hexstr(sequence(0x70, 24)), "ops": MIN_OPS, "mem": MIN_MEM}
    out.success("passwd-replaces-every-passphrase-slot", "passwd",
                "changing the passphrase replaces both passphrase slots (the one that opened and another) by one "
                "new slot; the slot of an unknown type and the unknown member stay", inputs)
    out.failure("passwd-wrong-passphrase", "passwd", "the current passphrase given is wrong: nothing is written",
                dict(inputs, passphrase="correct horse battery stapler"), "wrong-passphrase")


def gmail_entry():
    e = Entry(ENTRY_ID, "Email/gmail", T0, T0)
    e.set("username", "alice@example.com", T0, "laptop")
    e.set("password", "hunter2", T0, "laptop")
    e.set("urls", ["https://mail.google.com", "https://accounts.google.com"], T0, "laptop")
    e.set("notes", "recovery codes: in the safe\n\"backup\" phone\tonly", T0, "laptop")
    e.set("tags", ["mail"], T0, "laptop")
    e.set("password", "correct-horse-7", T1, "phone")
    return e


def cafe_entry():
    e = Entry(OTHER_ENTRY_ID, entry_path("Bank/Cafe\u0301"), T0, T0)   # stored in NFC (§5.1)
    e.set("password", "ünïcødé ✓", T0, "laptop")
    e.set("PIN", "0042", T0, "laptop")
    e.set("Kontonummer", "DE00 1234", T1, "phone")
    e.unknown["x-future"] = {"level": cj.Number("1.50"), "list": [None, True]}
    return e


def entry_vectors(out):
    key_hex = hexstr(VAULT_KEY)
    gmail = gmail_entry()
    gmail_file = seal_entry(gmail, ENTRY_NONCE, VAULT_KEY)
    gmail_text = text(gmail_file)
    out.success("entry-ok-basic", "entry", "the entry Email/gmail with the five standard fields and one history item",
                {"vault_key": key_hex, "path": "Email/gmail", "file": gmail_text})
    cafe = cafe_entry()
    out.success("entry-ok-unicode-unknown-member", "entry",
                "entry Bank/Café (NFC), custom fields, and an unknown payload member that a reader keeps verbatim "
                "(note 1.50)",
                {"vault_key": key_hex, "path": "Bank/Caf\u00e9", "file": text(seal_entry(cafe, ENTRY_NONCE2, VAULT_KEY))})

    def failure(name, description, error, file, key=key_hex, path="Email/gmail"):
        out.failure(name, "entry", description, {"vault_key": key, "path": path, "file": file}, error)

    def envelope_variant(change):
        o = cj.loads(gmail_file)
        change(o)
        return text(cj.file_bytes(o))

    def sealed_variant(change):
        p = gmail.payload()
        change(p)
        return text(ENTRY_FORMAT.seal(cj.dumps(p), ENTRY_ID, ENTRY_NONCE, VAULT_KEY))

    ct = parse_envelope(gmail_file)[1].ciphertext
    ct_b64 = b64encode(ct)
    assert ct_b64.endswith("="), "adjust the gmail notes so the ciphertext length is not a multiple of 3"

    def flipped(data, i):
        data = bytearray(data)
        data[i] ^= 1
        return bytes(data)

    failure("entry-wrong-key", "entry-ok-basic opened with another vault key", "authentication-failed", gmail_text,
            key=hexstr(OTHER_KEY))
    failure("entry-flipped-ciphertext-byte", "the low bit of ciphertext byte 0 flipped", "authentication-failed",
            envelope_variant(lambda o: o.__setitem__("ciphertext", b64encode(flipped(ct, 0)))))
    failure("entry-flipped-tag-byte", "the low bit of the last tag byte flipped", "authentication-failed",
            envelope_variant(lambda o: o.__setitem__("ciphertext", b64encode(flipped(ct, len(ct) - 1)))))
    failure("entry-changed-id", "\"id\" replaced by another valid UUID: the additional data no longer matches",
            "authentication-failed", envelope_variant(lambda o: o.__setitem__("id", OTHER_ENTRY_ID)))
    failure("entry-changed-nonce", "the low bit of nonce byte 0 flipped", "authentication-failed",
            envelope_variant(lambda o: o.__setitem__("nonce", b64encode(flipped(ENTRY_NONCE, 0)))))
    failure("entry-version-2", "\"version\": 2", "unsupported-version",
            envelope_variant(lambda o: o.__setitem__("version", 2)))
    failure("entry-version-2-unknown-member", "\"version\": 2 and an unknown member: the version is checked first",
            "unsupported-version", envelope_variant(lambda o: o.update(version=2, padding="")))
    failure("entry-version-string", "\"version\": \"1\" (a string)", "malformed",
            envelope_variant(lambda o: o.__setitem__("version", "1")))
    failure("entry-truncated", "entry-ok-basic cut after half its bytes", "malformed",
            text(gmail_file[:len(gmail_file) // 2]))
    failure("entry-empty", "an empty file", "malformed", "")
    failure("entry-nonce-url-alphabet", "the nonce in the URL-safe alphabet (\"-\" for \"+\")", "bad-encoding",
            envelope_variant(lambda o: o.__setitem__("nonce", b64encode(ENTRY_NONCE).replace("+", "-"))))
    failure("entry-nonce-short", "a 23-byte nonce", "bad-encoding",
            envelope_variant(lambda o: o.__setitem__("nonce", b64encode(ENTRY_NONCE[:23]))))
    failure("entry-ciphertext-missing-padding", "the ciphertext base64 without its \"=\" padding", "bad-encoding",
            envelope_variant(lambda o: o.__setitem__("ciphertext", ct_b64.rstrip("="))))
    # The last character before the padding carries 2 ("=") or 4 ("==") unused bits that must be zero.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    i = ct_b64.index("=") - 1
    pad_bits = ct_b64[:i] + alphabet[alphabet.index(ct_b64[i]) | 1] + ct_b64[i + 1:]
    failure("entry-ciphertext-nonzero-pad-bits", "the ciphertext base64 with a non-zero unused bit before \"=\"",
            "bad-encoding", envelope_variant(lambda o: o.__setitem__("ciphertext", pad_bits)))
    failure("entry-ciphertext-line-break", "a line break inside the ciphertext base64", "bad-encoding",
            envelope_variant(lambda o: o.__setitem__("ciphertext", ct_b64[:76] + "\n" + ct_b64[76:])))
    failure("entry-duplicate-key", "\"id\" twice with the same value", "malformed",
            gmail_text.replace('"id":"%s"' % ENTRY_ID, '"id":"%s","id":"%s"' % (ENTRY_ID, ENTRY_ID)))
    failure("entry-unknown-member", "an envelope member \"padding\" that version 1 does not define", "malformed",
            envelope_variant(lambda o: o.__setitem__("padding", "")))
    failure("entry-id-uppercase", "the id in upper case (ids are lowercase UUIDs)", "malformed",
            envelope_variant(lambda o: o.__setitem__("id", ENTRY_ID.upper())))
    failure("entry-path-mismatch", "entry-ok-basic found at Email/work.json: the inner path is Email/gmail",
            "path-mismatch", gmail_text, path="Email/work")
    failure("entry-invalid-inner-path", "a correctly sealed payload whose path is \"Email/../gmail\"", "invalid-path",
            sealed_variant(lambda p: p.__setitem__("path", "Email/../gmail")))
    failure("entry-inner-path-folder-json",
            "a sealed payload whose path has a folder named \"Email.json\" (FORMAT §4.2 rule 9)", "invalid-path",
            sealed_variant(lambda p: p.__setitem__("path", "Email.json/gmail")), path="Email.json/gmail")
    failure("entry-inner-path-git-short-name",
            "a sealed payload whose path has a folder named \"GIT~1\", git's short name of .git (FORMAT §4.2 rule 10)",
            "invalid-path", sealed_variant(lambda p: p.__setitem__("path", "GIT~1/gmail")), path="GIT~1/gmail")
    failure("entry-list-field-as-text", "a sealed payload where \"urls\" is a string, not a list", "malformed",
            sealed_variant(lambda p: p["fields"].__setitem__(
                "urls", {"value": "https://mail.google.com", "modified": T0, "origin": "laptop"})))


def item(field, value, modified, origin, replaced, reason="edit"):
    return {"field": field, "value": value, "modified": modified, "origin": origin, "replaced": replaced,
            "reason": reason}


def at(minute):
    """2026-04-01 12:00 plus `minute` minutes."""
    return "2026-04-01T%02d:%02d:00.000Z" % (12 + minute // 60, minute % 60)


def payload(path, fields, history, modified=None):
    return {"path": path, "created": at(0), "modified": modified or at(0),
            "fields": {n: {"value": v, "modified": m, "origin": o} for n, (v, m, o) in fields.items()},
            "history": history}


def edit_vectors(out):
    def edit(name, description, entry_payload, edits, error=None):
        inputs = {"entry": {"id": ENTRY_ID, "payload": entry_payload}, "edits": edits}
        if error:
            out.failure(name, "edit", description, inputs, error)
        else:
            out.success(name, "edit", description, inputs)

    def set_(name, value, minute, origin="laptop"):
        return {"set": name, "value": value, "time": at(minute), "origin": origin}

    # Two items equal in replaced, field and modified: only the origins differ, and only in their bytes.
    # NFD "e\u0301" (65 cc 81) sorts before NFC "\u00e9" (c3 a9), although the texts are canonically equivalent
    # and the values would order them the other way round.
    edit("edit-history-order-origin-bytes",
         "a change sorts the history; origins compare by their UTF-8 bytes: \"e\" U+0301 (65 cc 81) before U+00E9 "
         "(c3 a9), although the two are canonically equivalent",
         payload("Email/gmail", {"password": ("p3", at(20), "laptop")},
                 [item("password", "a", at(5), "\u00e9", at(10)), item("password", "b", at(5), "e\u0301", at(10))],
                 at(20)),
         [set_("password", "p4", 30)])
    # 70 items of one field, newest first: a reader keeps them; the first change sorts them and keeps 64.
    long_history = [item("password", "p%d" % i, at(i), "laptop", at(i + 1)) for i in reversed(range(70))]
    long_entry = payload("Email/gmail", {"password": ("p70", at(70), "laptop")}, long_history, at(70))
    edit("edit-history-normalized-on-change",
         "a change that adds no history item (a new field) still sorts the whole history and keeps the newest 64 "
         "items of each field",
         long_entry, [set_("username", "alice", 80)])
    edit("edit-unchanged-keeps-history",
         "setting a field to its current value changes nothing: a history of 70 items in another order stays as it is",
         long_entry, [set_("password", "p70", 80)])
    edit("edit-move-normalizes-history", "moving an entry is a change: its history is sorted",
         payload("Email/gmail", {"password": ("p3", at(30), "laptop")},
                 [item("password", "p2", at(20), "laptop", at(30)), item("password", "p1", at(10), "laptop", at(20))],
                 at(30)),
         [{"move": "Mail/gmail", "time": at(40)}])
    edit("edit-set-nfc-over-nfd",
         "a password \"cafe\" U+0301 set to \"caf\" U+00E9: canonically equivalent, but other bytes, so a change "
         "(the old bytes go to history)",
         payload("Email/gmail", {"password": ("cafe\u0301", at(20), "laptop")}, [], at(20)),
         [set_("password", "caf\u00e9", 30)])
    edit("edit-invalid-field-name", "a field name containing \"=\" is refused",
         payload("Email/gmail", {"password": ("p3", at(20), "laptop")}, [], at(20)),
         [set_("a=b", "x", 30)], error="invalid-field")


ALICE_SECRET = sequence(0x21, 32)
BOB_SECRET = sequence(0x41, 32)
CAROL_SECRET = sequence(0x61, 32)
ALICE_SLOT = "a11ce000-0000-4000-8000-000000000001"
BOB_SLOT = "b0b00000-0000-4000-8000-000000000002"
EPHEMERAL = [sequence(0xe0, 32), sequence(0xf0, 32), sequence(0x90, 32)]


def public(secret):
    import nacl.bindings
    return nacl.bindings.crypto_scalarmult_base(bytes(secret))


def v3_header(generation=4):
    """Version 3: the passphrase slot of keyslot-unwrap-ok and recipient slots for alice and bob."""
    slot = PassphraseSlot.wrap(VAULT_KEY, PASSPHRASE.encode(), 1, VAULT_ID, SLOT_ID, MIN_OPS, MIN_MEM, SALT, SLOT_NONCE)
    alice = rcp.RecipientSlot.seal(VAULT_KEY, public(ALICE_SECRET), "alice", VAULT_ID, ALICE_SLOT, EPHEMERAL[0])
    bob = rcp.RecipientSlot.seal(VAULT_KEY, public(BOB_SECRET), "bob's phone", VAULT_ID, BOB_SLOT, EPHEMERAL[1])
    return HeaderV3(VAULT_ID, [slot], generation=generation, recipients=[alice, bob]).authenticated(VAULT_KEY)


def identity_vectors(out):
    """§3.9 and §3.10: identity files, plain and protected."""
    plain = text(rcp.write_identity(ALICE_SECRET))
    out.success("identity-plain", "identity", "an identity file holding its secret key; the public key text is "
                "tresor1 and base32 of the key and its checksum", {"file": plain})
    protected = text(rcp.write_identity(BOB_SECRET, b"identity passphrase", MIN_OPS, MIN_MEM, sequence(0x30, 16),
                                        sequence(0x50, 24)))
    out.success("identity-protected", "identity", "an identity file whose secret key is wrapped under its own "
                "passphrase (Argon2id, XChaCha20-Poly1305)", {"file": protected, "passphrase": "identity passphrase"})
    out.failure("identity-protected-wrong-passphrase", "identity", "a protected identity with a wrong passphrase",
                {"file": protected, "passphrase": "identity passphrasf"}, "wrong-passphrase")
    mismatch = cj.loads(plain.encode())
    mismatch["publicKey"] = rcp.key_text(public(CAROL_SECRET))
    out.failure("identity-key-mismatch", "identity", "an identity whose secret key does not belong to its public key",
                {"file": text(cj.file_bytes(mismatch))}, "malformed")
    typo = cj.loads(plain.encode())
    t = typo["publicKey"]
    typo["publicKey"] = t[:20] + ("b" if t[20] == "a" else "a") + t[21:]
    out.failure("identity-key-checksum", "identity", "an identity whose public key text was mistyped: its checksum "
                "does not match", {"file": text(cj.file_bytes(typo))}, "bad-encoding")
    v2 = cj.loads(plain.encode())
    v2["version"] = 2
    out.failure("identity-version-2", "identity", "an identity file of version 2", {"file": text(cj.file_bytes(v2))},
                "unsupported-version")


def header_v3_vectors(out):
    """§3.8: recipient key slots."""
    h = v3_header()
    file = text(h.serialize())
    alice = text(rcp.write_identity(ALICE_SECRET))
    bob = text(rcp.write_identity(BOB_SECRET, b"identity passphrase", MIN_OPS, MIN_MEM, sequence(0x30, 16),
                                  sequence(0x50, 24)))
    out.success("header-v3-recipient-unlock", "header",
                "a version 3 header with a passphrase slot and two recipient slots; alice's identity opens hers",
                {"file": file, "identity": alice})
    out.success("header-v3-recipient-unlock-protected-identity", "header",
                "the header of header-v3-recipient-unlock opened with bob's protected identity",
                {"file": file, "identity": bob, "identity_passphrase": "identity passphrase"})
    out.success("header-v3-passphrase", "header", "the header of header-v3-recipient-unlock opened with the passphrase",
                {"file": file, "passphrase": PASSPHRASE})
    carol = text(rcp.write_identity(CAROL_SECRET))
    out.failure("header-v3-not-a-recipient", "header", "an identity that has no recipient slot",
                {"file": file, "identity": carol}, "not-a-recipient")
    swapped = h.to_json()
    swapped["keySlots"][1]["id"], swapped["keySlots"][2]["id"] = BOB_SLOT, ALICE_SLOT
    sw = HeaderV3.parse(cj.loads(cj.file_bytes(swapped)))
    sw.auth = None
    out.failure("header-v3-recipient-slot-id-swapped", "header",
                "alice's and bob's slot ids swapped and the header authenticated again by a key holder: the sealed "
                "key is bound to its slot id and no longer opens", {"file": text(sw.authenticated(VAULT_KEY).serialize()),
                                                                   "identity": alice}, "authentication-failed")
    added = h.to_json()
    added["keySlots"].append(rcp.RecipientSlot.seal(OTHER_KEY, public(CAROL_SECRET), "carol", VAULT_ID,
                                                    "cccccccc-0000-4000-8000-000000000003", EPHEMERAL[2]).to_json())
    out.failure("header-v3-recipient-added", "header",
                "a recipient slot added by someone without the vault key: the header's tag does not verify",
                {"file": text(cj.file_bytes(added)), "identity": alice}, "header-not-authentic")
    dup = h.to_json()
    dup["keySlots"][2]["name"] = "alice"
    out.failure("header-v3-duplicate-member-name", "header", "two recipient slots with one name",
                {"file": text(cj.file_bytes(dup))}, "malformed")
    bad = h.to_json()
    bad["keySlots"][1]["publicKey"] = bad["keySlots"][1]["publicKey"].upper()
    out.failure("header-v3-public-key-uppercase", "header", "a public key text in uppercase",
                {"file": text(cj.file_bytes(bad))}, "bad-encoding")
    in_v2 = h.to_json()
    in_v2["version"] = 2
    v2 = HeaderV2.parse(cj.loads(cj.file_bytes(in_v2)))
    v2.auth = None
    out.success("header-v2-recipient-is-unknown-slot", "header",
                "a recipient slot in a version 2 header is a slot of unknown type: kept, never opened",
                {"file": text(HeaderV2(v2.vault_id, v2.slots, v2.other_slots, v2.unknown, v2.generation)
                              .authenticated(VAULT_KEY).serialize()), "passphrase": PASSPHRASE})
    out.failure("header-v2-identity", "header", "an identity given for a version 2 header (no recipient slots)",
                {"file": text(HeaderV2(v2.vault_id, v2.slots, [], v2.unknown, v2.generation).authenticated(VAULT_KEY).serialize()),
                 "identity": alice}, "not-a-recipient")
    gmail = seal_entry(gmail_entry(), ENTRY_NONCE, VAULT_KEY)
    inputs = {"file": file, "passphrase": PASSPHRASE, "new_vault_key": hexstr(OTHER_KEY), "remove": "bob's phone",
              "slot_id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", "salt": hexstr(sequence(0xd0, 16)),
              "nonce": hexstr(sequence(0x70, 24)), "ops": MIN_OPS, "mem": MIN_MEM,
              "ephemeral_secrets": [hexstr(EPHEMERAL[2])], "entry": text(gmail), "entry_nonce": hexstr(ENTRY_NONCE2),
              "identities": {"alice": alice, "bob's phone": bob}}
    out.success("rekey-removes-member", "rekey",
                "rekey removing bob: a new vault key, one passphrase slot, alice's slot sealed again, the next "
                "generation; the entry re-encrypted under the new key", inputs)
    out.failure("rekey-wrong-passphrase", "rekey", "a rekey needs the passphrase for the new passphrase slot",
                dict(inputs, passphrase="correct horse battery stapler"), "wrong-passphrase")


def search_cache_vectors(out):
    gmail = gmail_entry()
    gmail_file = seal_entry(gmail, ENTRY_NONCE, VAULT_KEY)
    cafe = cafe_entry()
    cafe_file = seal_entry(cafe, sequence(0x90, 24), VAULT_KEY)
    records = [{"path": "Email/gmail.json", "file": text(gmail_file), "id": ENTRY_ID,
                "payload": text(cj.dumps(gmail.payload())), "modified": 1767225600123456789,
                "changed": 1767225600223456789, "inode": 4242},
               {"path": "Bank/Caf\u00e9.json", "file": text(cafe_file), "id": OTHER_ENTRY_ID,
                "payload": text(cj.dumps(cafe.payload())), "modified": 1767225660000000001,
                "changed": 1767225660000000001, "inode": 77}]
    inputs = {"vault_key": hexstr(VAULT_KEY), "vault_id": VAULT_ID, "nonce": hexstr(sequence(0xa0, 24)), "records": records}
    out.success("search-cache", "search-cache",
                "a search cache of two entry files (Spec/FORMAT.md §10): records sorted by path bytes, sealed under "
                "subkey id 5 with the vault id in the additional data", inputs)
    sealed = format_tests.search_cache_file(inputs)["file"]
    out.success("search-cache-open", "search-cache-open", "the cache file of vector search-cache opened",
                {"vault_key": hexstr(VAULT_KEY), "vault_id": VAULT_ID, "file": sealed})
    out.failure("search-cache-other-vault", "search-cache-open",
                "the cache file of vector search-cache opened as another vault's (the vault id is in the additional data)",
                {"vault_key": hexstr(VAULT_KEY), "vault_id": "00000000-0000-4000-8000-000000000000", "file": sealed}, "malformed")
    flipped = bytearray(bytes.fromhex(sealed))
    flipped[-1] ^= 1
    out.failure("search-cache-flipped-byte", "search-cache-open", "the cache file of vector search-cache with its last "
                "byte changed", {"vault_key": hexstr(VAULT_KEY), "vault_id": VAULT_ID, "file": hexstr(bytes(flipped))},
                "malformed")


def vectors():
    out = FormatVectors()
    kdf_vectors(out)
    header_vectors(out)
    passwd_vectors(out)
    entry_vectors(out)
    edit_vectors(out)
    identity_vectors(out)
    header_v3_vectors(out)
    search_cache_vectors(out)
    scope_vectors(out)
    return out


# Scopes (§3.12): an open scope Team (vault slot and carol) and a closed scope Ops (carol only).
TEAM_ID = "7ea70000-0000-4000-8000-00000000000a"
OPS_ID = "0b500000-0000-4000-8000-00000000000b"
TEAM_KEY = sequence(0xc0, 32)
OPS_KEY = sequence(0x60, 32)
NEW_TEAM_KEY = sequence(0xa0, 32)
CAROL_SLOT = "ca201000-0000-4000-8000-000000000003"
DAVE_SECRET = sequence(0x01, 32)
DAVE_SLOT = "da7e0000-0000-4000-8000-000000000004"
TEAM_ENTRY_ID = "7e4e0000-1111-4222-8333-444444444444"


def v4_header(scope_map=None, generation=5):
    from tresorref.scopes import HeaderV4
    base = v3_header()
    return HeaderV4(VAULT_ID, base.slots, generation=generation, recipients=base.recipients,
                    scopes={TEAM_ID: "Team", OPS_ID: "Ops"} if scope_map is None else scope_map).authenticated(VAULT_KEY)


def team_header(folder="Team", scope_id=TEAM_ID, key=TEAM_KEY, vault_key=VAULT_KEY):
    from tresorref import scopes as sc
    carol = sc.ScopeRecipientSlot.seal_scope(key, public(CAROL_SECRET), "carol", VAULT_ID, scope_id, CAROL_SLOT, EPHEMERAL[2])
    dave = sc.ScopeRecipientSlot.seal_scope(key, public(DAVE_SECRET), "dave", VAULT_ID, scope_id, DAVE_SLOT, EPHEMERAL[0])
    vault = sc.VaultSlot.wrap(key, vault_key, VAULT_ID, scope_id, sequence(0x08, 24))
    return sc.ScopeHeader(VAULT_ID, scope_id, folder, [carol, dave], vault, generation=2).authenticated(key)


def ops_header():
    from tresorref import scopes as sc
    carol = sc.ScopeRecipientSlot.seal_scope(OPS_KEY, public(CAROL_SECRET), "carol", VAULT_ID, OPS_ID, CAROL_SLOT, EPHEMERAL[1])
    return sc.ScopeHeader(VAULT_ID, OPS_ID, "Ops", [carol]).authenticated(OPS_KEY)


def team_entry():
    e = Entry(TEAM_ENTRY_ID, "Team/wiki", T0, T0)
    e.set("username", "team", T0, "laptop")
    e.set("password", "shared-secret-1", T0, "laptop")
    return e


def scope_vectors(out):
    from tresorref import scopes as sc
    vault = text(v4_header().serialize())
    team, ops = text(team_header().serialize()), text(ops_header().serialize())
    team_path, ops_path = sc.scope_file(TEAM_ID), sc.scope_file(OPS_ID)
    carol = text(rcp.write_identity(CAROL_SECRET))
    alice = text(rcp.write_identity(ALICE_SECRET))
    key_hex = hexstr(VAULT_KEY)
    out.success("header-v4-scopes", "header", "a version 4 header: version 3 and the scopes Team and Ops (scope id → folder)",
                {"file": vault, "passphrase": PASSPHRASE})
    nested = v4_header({TEAM_ID: "Team", OPS_ID: "Team/Ops"})
    out.failure("header-v4-nested-scopes", "header", "a scope inside another: nested scopes are refused in this version",
                {"file": text(nested.serialize()), "passphrase": PASSPHRASE}, "malformed")
    hidden = v4_header({TEAM_ID: ".team"})
    out.failure("header-v4-scope-folder-invalid", "header", "a scope folder that is no valid entry path",
                {"file": text(hidden.serialize()), "passphrase": PASSPHRASE}, "malformed")
    no_scopes = v4_header().to_json()
    del no_scopes["scopes"]
    out.failure("header-v4-without-scopes", "header", "a version 4 header without the scopes member",
                {"file": text(cj.file_bytes(no_scopes))}, "malformed")
    out.success("scope-vault-slot", "scope", "the open scope Team opened by a holder of the vault key through its vault slot",
                {"vault_header": vault, "path": team_path, "file": team, "vault_key": key_hex})
    out.success("scope-recipient", "scope", "the scope Team opened by carol, a scope-only member, through her recipient slot",
                {"vault_header": vault, "path": team_path, "file": team, "identity": carol})
    out.success("scope-closed-recipient", "scope", "the closed scope Ops (no vault slot) opened by its member carol",
                {"vault_header": vault, "path": ops_path, "file": ops, "identity": carol})
    out.failure("scope-closed-vault-key", "scope", "the vault key does not open a closed scope",
                {"vault_header": vault, "path": ops_path, "file": ops, "vault_key": key_hex}, "not-a-recipient")
    out.failure("scope-closed-other-identity", "scope", "an identity that is a member of the vault but not of the scope",
                {"vault_header": vault, "path": ops_path, "file": ops, "identity": alice}, "not-a-recipient")
    copied = ops_header()
    copied.recipients = [team_header().recipients[0]]
    out.failure("scope-slot-from-other-scope", "scope", "carol's Team slot copied into Ops and Ops authenticated again by "
                "a holder of its key: the sealed key is bound to its scope and does not open",
                {"vault_header": vault, "path": ops_path, "file": text(copied.authenticated(OPS_KEY).serialize()),
                 "identity": carol}, "authentication-failed")
    added = team_header().to_json()
    added["keySlots"].insert(0, sc.ScopeRecipientSlot.seal_scope(OTHER_KEY, public(ALICE_SECRET), "alice", VAULT_ID, TEAM_ID,
                                                                 ALICE_SLOT, EPHEMERAL[1]).to_json())
    out.failure("scope-recipient-added", "scope", "a recipient slot added to Team by someone without its key: the tag does not verify",
                {"vault_header": vault, "path": team_path, "file": text(cj.file_bytes(added)), "identity": carol},
                "header-not-authentic")
    out.failure("scope-folder-mismatch", "scope", "the Team header naming another folder than the vault header lists",
                {"vault_header": vault, "path": team_path, "file": text(team_header(folder="Bank").serialize()),
                 "identity": carol}, "malformed")
    out.failure("scope-file-name-mismatch", "scope", "the Team header under the file name of another scope",
                {"vault_header": vault, "path": ops_path, "file": team, "identity": carol}, "malformed")
    out.failure("scope-vault-slot-other-key", "scope", "a vault slot wrapped under another vault's key",
                {"vault_header": vault, "path": team_path, "file": text(team_header(vault_key=OTHER_KEY).serialize()),
                 "vault_key": key_hex}, "authentication-failed")
    # Which key seals an entry (§3.12.3).
    scopes = {team_path: team, ops_path: ops}
    wiki = seal_entry(team_entry(), ENTRY_NONCE, TEAM_KEY)
    out.success("scoped-entry-team", "scoped-entry", "the entry Team/wiki is sealed under Team's key; carol opens it",
                {"vault_header": vault, "scopes": scopes, "identity": carol, "path": "Team/wiki", "file": text(wiki)})
    out.success("scoped-entry-team-vault-key", "scoped-entry", "the same entry opened by a holder of the vault key through Team's vault slot",
                {"vault_header": vault, "scopes": scopes, "vault_key": key_hex, "path": "Team/wiki", "file": text(wiki)})
    gmail = seal_entry(gmail_entry(), ENTRY_NONCE, VAULT_KEY)
    out.success("scoped-entry-root", "scoped-entry", "an entry in no scope is sealed under the vault key",
                {"vault_header": vault, "scopes": scopes, "vault_key": key_hex, "path": "Email/gmail", "file": text(gmail)})
    out.failure("scoped-entry-root-scope-only", "scoped-entry", "a scope-only member cannot open an entry in no scope",
                {"vault_header": vault, "scopes": scopes, "identity": carol, "path": "Email/gmail", "file": text(gmail)},
                "not-a-recipient")
    under_vault = seal_entry(team_entry(), ENTRY_NONCE, VAULT_KEY)
    out.failure("scoped-entry-under-vault-key", "scoped-entry", "an entry in Team sealed under the vault key (moved in "
                "without re-encryption): Team's key does not open it",
                {"vault_header": vault, "scopes": scopes, "vault_key": key_hex, "path": "Team/wiki", "file": text(under_vault)},
                "authentication-failed")
    # Commit tags (§3.12.6).
    body = ("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 8c1d1f6bd0e4a7b6c0c3f0c8f2a1e9d7b6a5c4d3\n"
            "author alice <alice@example.com> 1768469400 +0000\ncommitter alice <alice@example.com> 1768469400 +0000\n")
    message = "\nEdit Team/wiki: password\n"
    content = (body + message).encode()
    both = ["tresor-auth", "tresor-auth-" + TEAM_ID]
    vault_tag = b64encode(sc.commit_tag_v4(VAULT_KEY, content, both))
    team_tag = b64encode(sc.commit_tag_v4(TEAM_KEY, content, both))
    commit = body + "tresor-auth " + vault_tag + "\ntresor-auth-" + TEAM_ID + " " + team_tag + "\n" + message
    out.success("commit-auth-v4", "commit-auth-v4", "a commit tagged with the vault key and Team's key: C leaves out "
                "both lines, and each tag covers the names of both", {"commit": commit, "vault_key": key_hex,
                                                                      "scope_keys": {TEAM_ID: hexstr(TEAM_KEY)}})
    only = ["tresor-auth-" + TEAM_ID]
    carol_tag = b64encode(sc.commit_tag_v4(TEAM_KEY, content, only))
    out.success("commit-auth-v4-scope-only", "commit-auth-v4", "carol's commit: only Team's tag",
                {"commit": body + "tresor-auth-" + TEAM_ID + " " + carol_tag + "\n" + message,
                 "scope_keys": {TEAM_ID: hexstr(TEAM_KEY)}})
    vault_only = b64encode(sc.commit_tag_v4(VAULT_KEY, content, ["tresor-auth"]))
    out.success("commit-auth-v4-vault-only", "commit-auth-v4", "a commit with the vault tag alone: exactly the tag of §7.1",
                {"commit": body + "tresor-auth " + vault_only + "\n" + message, "vault_key": key_hex})
    out.failure("commit-auth-v4-scope-tag-removed", "commit-auth-v4", "the Team tag line removed from a commit tagged with "
                "both keys (a new commit id): the vault tag no longer verifies",
                {"commit": body + "tresor-auth " + vault_tag + "\n" + message, "vault_key": key_hex}, "authentication-failed")
    out.failure("commit-auth-v4-wrong-scope-key", "commit-auth-v4", "Team's tag made with Ops's key",
                {"commit": body + "tresor-auth-" + TEAM_ID + " " + b64encode(sc.commit_tag_v4(OPS_KEY, content, only)) + "\n" + message,
                 "scope_keys": {TEAM_ID: hexstr(TEAM_KEY)}}, "authentication-failed")
    twice = body + "tresor-auth-" + TEAM_ID + " " + carol_tag + "\ntresor-auth-" + TEAM_ID + " " + carol_tag + "\n" + message
    out.failure("commit-auth-v4-field-twice", "commit-auth-v4", "Team's field twice: the commit carries no tag",
                {"commit": twice, "scope_keys": {TEAM_ID: hexstr(TEAM_KEY)}}, "malformed")
    # Removing a scope member rekeys the scope only (§3.12.5).
    inputs = {"vault_header": vault, "path": team_path, "file": team, "vault_key": key_hex, "remove": "dave",
              "new_scope_key": hexstr(NEW_TEAM_KEY), "ephemeral_secrets": [hexstr(EPHEMERAL[1])],
              "vault_slot_nonce": hexstr(sequence(0x38, 24)), "entry": text(wiki), "entry_nonce": hexstr(ENTRY_NONCE2)}
    out.success("scope-rekey-removes-member", "scope-rekey", "dave removed from Team: a new Team key, carol's slot sealed "
                "again, the vault slot wrapped again, the next generation and a rekey proof; Team/wiki re-encrypted; the "
                "vault key and vault header unchanged", inputs)
    out.failure("scope-rekey-no-such-member", "scope-rekey", "removing a member the scope does not have",
                dict(inputs, remove="erin"), "no-such-member")
    commit_key_rule_vectors(out)


def commit_key_rule_vectors(out):
    """§3.12.6: which files a commit changes and which keys' tags each needs (blob ids stand for the files' bytes)."""
    def blob(n):
        return "100644 " + ("%02x" % n) * 20
    def case(name, description, inputs, expected):
        assert format_tests.TESTS["commit-key-rule"](inputs) == expected, name
        out.success(name, "commit-key-rule", description, inputs)
    team = {TEAM_ID: "Team"}
    scope_file = ".tresor/scopes/" + TEAM_ID + ".json"
    v3 = {".tresor/vault.json": blob(1), "Email/gmail.json": blob(2), "Team/wiki.json": blob(3)}
    tip = {".tresor/vault.json": blob(4), scope_file: blob(5), "Email/gmail.json": blob(2), "Team/wiki.json": blob(7)}
    old = dict(tip, **{"Team/wiki.json": blob(6)})
    case("commit-key-rule-merge-from-before-the-scope",
         "a merge taking Team/wiki's older blob from a branch whose header has no scopes: unchanged against that "
         "branch, but the vault key governed it there, so it is changed and needs the Team tag (and the vault tag)",
         {"scopes": team, "files": old, "parents": [{"scopes": team, "files": tip},
                                                   {"scopes": {}, "files": dict(v3, **{"Team/wiki.json": blob(6)})}]},
         {"changed": {"Team/wiki.json": ["tresor-auth", "tresor-auth-" + TEAM_ID]}})
    gone = {k: v for k, v in tip.items() if k != "Team/wiki.json"}
    case("commit-key-rule-deletion-from-before-the-scope",
         "a merge taking the absence of Team/wiki from a branch whose header has no scopes: changed",
         {"scopes": team, "files": gone, "parents": [{"scopes": team, "files": tip},
                                                    {"scopes": {}, "files": {k: v for k, v in v3.items() if k != "Team/wiki.json"}}]},
         {"changed": {"Team/wiki.json": ["tresor-auth", "tresor-auth-" + TEAM_ID]}})
    theirs = dict(tip, **{"Email/gmail.json": blob(8)})
    ours = dict(tip, **{"Team/wiki.json": blob(9)})
    case("commit-key-rule-merge-taking-each-side",
         "a merge taking Team/wiki from one side and Email/gmail from the other, both under the same scopes: "
         "it changes nothing and needs no tag",
         {"scopes": team, "files": dict(tip, **{"Email/gmail.json": blob(8), "Team/wiki.json": blob(9)}),
          "parents": [{"scopes": team, "files": ours}, {"scopes": team, "files": theirs}]},
         {"changed": {}})
    case("commit-key-rule-header-drops-the-scope",
         "one parent; the vault header no longer lists Team: Team/wiki, whose blob stays, moves from Team's key "
         "to the vault key and needs both tags; Team's header file stays under Team's key, unchanged",
         {"scopes": {}, "files": dict(tip, **{".tresor/vault.json": blob(10)}),
          "parents": [{"scopes": team, "files": tip}]},
         {"changed": {".tresor/vault.json": ["tresor-auth"], "Team/wiki.json": ["tresor-auth", "tresor-auth-" + TEAM_ID]}})
    case("commit-key-rule-scope-removed",
         "one parent; the scope Team removed (Spec/FORMAT.md §3.12.5): the vault header no longer lists it, its header "
         "file is deleted, Team/wiki is sealed anew under the vault key: the removal needs the vault key's tag and Team's",
         {"scopes": {}, "files": {k: v for k, v in dict(tip, **{".tresor/vault.json": blob(10), "Team/wiki.json": blob(11)}).items()
                                  if k != scope_file},
          "parents": [{"scopes": team, "files": tip}]},
         {"changed": {".tresor/vault.json": ["tresor-auth"], scope_file: ["tresor-auth-" + TEAM_ID],
                      "Team/wiki.json": ["tresor-auth", "tresor-auth-" + TEAM_ID]}})
    case("commit-key-rule-root-commit", "a root commit changes every file it holds",
         {"scopes": team, "files": tip, "parents": []},
         {"changed": {".tresor/vault.json": ["tresor-auth"], "Email/gmail.json": ["tresor-auth"],
                      scope_file: ["tresor-auth-" + TEAM_ID], "Team/wiki.json": ["tresor-auth-" + TEAM_ID]}})
