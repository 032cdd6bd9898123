"""Spec/vectors/v5-*.json: the vectors of Spec/FORMAT.md §11.12 (tests v5-header, v5-scope, v5-entry, v5-edit,
v5-state, v5-rekey, v5-convert), made from the fixed vault of v5_world. Every `expected` and `error` is computed by
running the test of v5_tests on the inputs alone; a failure vector must fail with the kind it was made for."""
from tresorref import canonical_json as cj
from tresorref import entry5, primitives
from tresorref.clock import clock_json
from tresorref.encoding import b64encode, hexstr
from tresorref.errors import FormatError
from tresorref.header5 import VaultHeaderV5, ScopeHeaderV2, VAULT_DOMAIN, header_key
from tresorref.recipients import write_identity
from tresorref.scopes import scope_file
from tresorref.state import VAULT_HEADER, state_file, StateRecord
from tresorref import vault5

from . import v5_tests
from .v5_world import *  # noqa: F401,F403
from .writer import VectorSet


class V5Vectors(VectorSet):
    def success(self, name, test, description, inputs):
        VectorSet.success(self, name, test, description, inputs, v5_tests.TESTS[test](inputs))

    def failure(self, name, test, description, inputs, error):
        try:
            v5_tests.TESTS[test](inputs)
        except FormatError as e:
            if e.kind != error:
                raise AssertionError("%s: failed with %s (%s), made for %s" % (name, e.kind, e.reason, error))
        else:
            raise AssertionError("%s: succeeded, made for %s" % (name, error))
        VectorSet.failure(self, name, test, description, inputs, error)


def raw(obj, key=None, label=b"tresor-header", member="auth"):
    """A file of `obj` tagged under `key` (or left as it is): a header or record that may break a reader check."""
    obj = cj.loads(cj.dumps({k: v for k, v in obj.items() if k != member}))
    if key is not None:
        sub = primitives.subkey(key, 6 if label == b"tresor-state" else 3)
        obj[member] = b64encode(primitives.keyed_hash(sub, label + b"\x00" + cj.dumps(obj)))
    else:
        obj[member] = b64encode(bytes(32))
    return cj.file_bytes(obj).decode()


def changed(h, fn, key=VAULT_KEY, label=b"tresor-header"):
    """The header (or record) JSON of `h` changed by fn(obj), tagged again under `key` (None: the old tag kept)."""
    obj = cj.loads(h.serialize())
    old_auth = obj["auth"]
    fn(obj)
    if key is None:
        obj["auth"] = old_auth
        return cj.file_bytes(obj).decode()
    return raw(obj, key, label)


ALICE_ID_FILE = text(write_identity(ALICE_SECRET))
CAROL_ID_FILE = text(write_identity(CAROL_SECRET))


def rekeyed_tree(times=1, remove=None):
    """The base tree after `times` vault rekeys by R2 (events 1, 2, …): epoch 1 + times."""
    tree = base_tree()
    key = VAULT_KEY
    for i in range(times):
        new = sequence(0x80 + 16 * i, 32)
        r = rekey_randomness(i, tree, vault_recipients=0 if (remove and i == 0) else None)
        tree = vault5.rekey_vault(tree, key, new, PASSPHRASE_BYTES, (R2, i + 1), r, remove if i == 0 else None)
        key = new
    return tree, key


def rekey_slot_id(i):
    """The id of the passphrase slot the (i+1)-th vault rekey writes (epoch i + 2)."""
    return "2e4e0000-0000-4000-8000-%012d" % (i + 2)


def rekey_randomness(i, tree, hexed=False, vault_recipients=None, team_recipients=1):
    h = VaultHeaderV5.parse(tree[VAULT_HEADER])
    if vault_recipients is None:
        vault_recipients = len(h.recipients)
    f = (lambda x: x.hex()) if hexed else (lambda x: x)
    vault_entries = vault5.domain_entries(tree, h, VAULT_DOMAIN)
    team_entries = vault5.domain_entries(tree, h, TEAM_ID)
    return {"rekey_nonce": f(sequence(0x10 + i, 24)),
            "recipient_secrets": [f(sequence(0x70 + i + k, 32)) for k in range(vault_recipients)],
            "passphrase_slot": {"id": rekey_slot_id(i), "ops": MIN_OPS, "mem": MIN_MEM,
                                "salt": f(sequence(0x20 + i, 16)), "nonce": f(sequence(0x30 + i, 24))},
            "entry_nonces": {p: f(sequence(0xd0 + i, 24)) for p in vault_entries},
            "scopes": {TEAM_ID: {"new_key": f(sequence(0xa0 + 16 * i, 32)), "rekey_nonce": f(sequence(0x11 + i, 24)),
                                 "recipient_secrets": [f(sequence(0x78 + i + k, 32)) for k in range(team_recipients)],
                                 "vault_slot_nonce": f(sequence(0x51 + i, 24)),
                                 "entry_nonces": {p: f(sequence(0xd8 + i, 24)) for p in team_entries}}}}


def tree_text(tree):
    return {p: tree[p].decode() for p in sorted(tree, key=lambda p: p.encode())}


# ---- v5-header ----

def header_vectors(out):
    vh = vault_header()
    file = text(vh.serialize())
    out.success("v5-header-ok", "v5-header",
                "the vault header version 5 of the base vault (events 1-4 of replica a1a1…): dots on both slots and "
                "both scopes, clock, epoch 1; the passphrase opens it and its tag verifies (§11.4)",
                {"file": file, "passphrase": PASSPHRASE})
    out.success("v5-header-identity", "v5-header", "the same header opened by alice's identity (§3.8)",
                {"file": file, "identity": ALICE_ID_FILE})
    out.success("v5-header-parse-only", "v5-header", "the same header parsed without a key: shape only",
                {"file": file})
    unknown = vault_header(unknown={"generation": 7, "zFuture": {"a": [cj.Number("1.50"), True]}},
                           others=[{"type": "hardware-token", "id": "x", "note": "kept verbatim"}])
    with_unknown = text(unknown.serialize())
    out.success("v5-header-unknown-members", "v5-header",
                "unknown members of the header (`generation` is one in version 5, and an object with the number "
                "1.50) and a slot of an unknown type: kept verbatim and covered by the tag, which is computed over the "
                "header as parsed (§11.4)", {"file": with_unknown, "passphrase": PASSPHRASE})
    u = cj.loads(with_unknown.encode())
    u["zFuture"]["a"][1] = False
    out.failure("v5-header-unknown-member-changed", "v5-header",
                "an unknown member of the header changed without the key: the tag covers it [header-not-authentic]",
                {"file": cj.file_bytes(u).decode(), "passphrase": PASSPHRASE}, "header-not-authentic")
    u = cj.loads(with_unknown.encode())
    u["keySlots"][2]["note"] = "changed"
    out.failure("v5-header-unknown-slot-changed", "v5-header",
                "a slot of an unknown type changed without the key [header-not-authentic]",
                {"file": cj.file_bytes(u).decode(), "passphrase": PASSPHRASE}, "header-not-authentic")
    for name, what, fn in [
            ("passphrase-slot-member", "a member zNew in a passphrase slot", lambda o: o["keySlots"][0].update(zNew=1)),
            ("kdf-member", "a member zNew in a passphrase slot's kdf", lambda o: o["keySlots"][0]["kdf"].update(zNew=1)),
            ("recipient-slot-member", "a member zNew in a recipient slot", lambda o: o["keySlots"][1].update(zNew=1)),
            ("scope-member", "a member zNew in a scopes value", lambda o: o["scopes"][TEAM_ID].update(zNew=1))]:
        out.failure("v5-header-unknown-" + name, "v5-header",
                    what + ", tagged with the key: version 5 accepts no member there but those it names [malformed]",
                    {"file": changed(vh, fn), "passphrase": PASSPHRASE}, "malformed")
    out.failure("v5-header-slot-added-without-key", "v5-header",
                "a passphrase slot added (wrapping a key of someone else's) without the vault key [header-not-authentic]",
                {"file": changed(vh, lambda o: o["keySlots"].insert(1, dict(slot_json_of(
                    passphrase_slot(FORGED_KEY, id="f0f0f0f0-0000-4000-8000-000000000000"), (R1, 4)))), None),
                 "passphrase": PASSPHRASE}, "header-not-authentic")
    out.failure("v5-header-wrong-passphrase", "v5-header", "a wrong passphrase [wrong-passphrase]",
                {"file": file, "passphrase": "Correct horse battery staple"}, "wrong-passphrase")
    out.failure("v5-header-version-6", "v5-header", "version 6 [unsupported-version]",
                {"file": changed(vh, lambda o: o.update(version=6))}, "unsupported-version")
    out.failure("v5-header-version-4-shape", "v5-header",
                "a version 4 header is no version 5 header [unsupported-version]",
                {"file": changed(vh, lambda o: o.update(version=4))}, "unsupported-version")
    cases = [
        ("no-epoch", "no epoch", lambda o: o.pop("epoch"), "malformed"),
        ("epoch-0", "epoch 0", lambda o: o.update(epoch=0), "malformed"),
        ("no-clock", "no clock", lambda o: o.pop("clock"), "malformed"),
        ("clock-uppercase-replica", "a clock member named by uppercase hex",
         lambda o: o.update(clock={"A1A1A1A1A1A1A1A1": 4}), "malformed"),
        ("clock-zero", "a clock value 0", lambda o: o.update(clock={R1: 4, R2: 0}), "malformed"),
        ("slot-without-dot", "a passphrase slot without a dot", lambda o: o["keySlots"][0].pop("dot"), "malformed"),
        ("recipient-without-dot", "a recipient slot without a dot", lambda o: o["keySlots"][1].pop("dot"),
         "malformed"),
        ("dot-not-covered", "alice's slot has the dot (a1a1…, 5), the clock says a1a1… 4: every dot must be covered",
         lambda o: o["keySlots"][1].update(dot=[R1, 5]), "malformed"),
        ("dot-other-replica", "a dot of a replica the clock does not name",
         lambda o: o["keySlots"][1].update(dot=[R2, 1]), "malformed"),
        ("dot-zero", "a dot with the number 0", lambda o: o["keySlots"][1].update(dot=[R1, 0]), "malformed"),
        ("dot-three-members", "a dot of three members", lambda o: o["keySlots"][1].update(dot=[R1, 2, 0]),
         "malformed"),
        ("scope-folder-string", "a scope given as a folder string (version 4's form)",
         lambda o: o["scopes"].update({TEAM_ID: "Team"}), "malformed"),
        ("scope-without-dot", "a scope without a dot", lambda o: o["scopes"][TEAM_ID].pop("dot"), "malformed"),
        ("scope-dot-not-covered", "a scope's dot not covered by the clock",
         lambda o: o["scopes"][TEAM_ID].update(dot=[R1, 9]), "malformed"),
        ("scopes-nested", "scopes Team and Team/Ops nest", lambda o: o["scopes"][OPS_ID].update(folder="Team/Ops"),
         "malformed"),
        ("no-scopes", "no scopes member (a vault without scopes has an empty object)", lambda o: o.pop("scopes"),
         "malformed"),
        ("rekey-at-epoch-1", "a rekey member at epoch 1",
         lambda o: o.update(rekey={"proofs": {}, "nonce": b64encode(bytes(24)), "keys": b64encode(bytes(16))}),
         "malformed"),
        ("epoch-2-without-rekey", "epoch 2 without rekey", lambda o: o.update(epoch=2), "malformed"),
    ]
    for name, what, fn, kind in cases:
        out.failure("v5-header-" + name, "v5-header", what + " [%s]" % kind,
                    {"file": changed(vh, fn), "passphrase": PASSPHRASE}, kind)
    short = cj.loads(vh.serialize())
    short["auth"] = b64encode(bytes(31))
    out.failure("v5-header-auth-short", "v5-header", "auth of 31 bytes [bad-encoding]",
                {"file": cj.file_bytes(short).decode(), "passphrase": PASSPHRASE}, "bad-encoding")
    tree2, key2 = rekeyed_tree(1)
    h2 = VaultHeaderV5.parse(tree2[VAULT_HEADER])
    out.success("v5-header-epoch-2", "v5-header",
                "the header after one vault rekey (epoch 2): rekey.proofs from epoch 1, rekey.keys holds hk_1 under the "
                "chain key (subkey 7) of the new key", {"file": text(tree2[VAULT_HEADER]), "passphrase": PASSPHRASE})
    tree3, key3 = rekeyed_tree(2)
    h3 = VaultHeaderV5.parse(tree3[VAULT_HEADER])
    out.success("v5-header-epoch-3", "v5-header",
                "the header after two vault rekeys (epoch 3): proofs from epochs 1 and 2; rekey.keys holds hk_1 || hk_2",
                {"file": text(tree3[VAULT_HEADER]), "passphrase": PASSPHRASE})
    out.failure("v5-header-proofs-missing-epoch", "v5-header",
                "an epoch 3 header whose rekey.proofs lacks epoch 1 [malformed]",
                {"file": changed(h3, lambda o: o["rekey"]["proofs"].pop("1"), key3), "passphrase": PASSPHRASE},
                "malformed")
    out.failure("v5-header-proof-short", "v5-header", "a rekey proof of 31 bytes [bad-encoding]",
                {"file": changed(h2, lambda o: o["rekey"]["proofs"].update({"1": b64encode(bytes(31))}), key2),
                 "passphrase": PASSPHRASE}, "bad-encoding")
    out.failure("v5-header-rekey-member", "v5-header", "a member zNew in rekey [malformed]",
                {"file": changed(h2, lambda o: o["rekey"].update(zNew=1), key2), "passphrase": PASSPHRASE},
                "malformed")
    out.failure("v5-header-keys-wrong-length", "v5-header",
                "rekey.keys of an epoch 2 header must be 32 + 16 bytes [bad-encoding]",
                {"file": changed(h2, lambda o: o["rekey"].update(keys=b64encode(bytes(80))), key2),
                 "passphrase": PASSPHRASE}, "bad-encoding")


def order_vectors(out):
    """§11.4's reader checks in their order: each vector breaks two rules whose failure kinds differ; its name says
    which rule must win (v5-header-order-<first>-before-<second>) and its error is the first rule's kind. The
    generator checks that each change alone fails with its own kind."""
    vh = vault_header()
    tree2, _ = rekeyed_tree(1)
    h2 = VaultHeaderV5.parse(tree2[VAULT_HEADER])
    short_auth = lambda o: o.update(auth=b64encode(bytes(31)))  # noqa: E731
    short_proof = lambda o: o["rekey"]["proofs"].update({"1": b64encode(bytes(31))})  # noqa: E731
    short_salt = lambda i: lambda o: o["keySlots"][i]["kdf"].update(salt=b64encode(bytes(15)))  # noqa: E731

    def seventeen_passphrase_slots(o):
        """17 passphrase slots: the first and 16 copies of it with other ids (after it, before alice's)."""
        first = o["keySlots"][0]
        o["keySlots"][1:1] = [dict(cj.loads(cj.dumps(first)), id="%08x-0000-4000-8000-000000000000" % (0xf0000000 + k))
                              for k in range(1, 17)]

    def salt_of_last_passphrase_slot(o):
        short_salt(sum(1 for x in o["keySlots"] if x["type"] == "passphrase") - 1)(o)

    cases = [
        ("version-before-auth", vh, lambda o: o.update(version=6), "unsupported-version", "version 6",
         short_auth, "bad-encoding", "an auth of 31 bytes"),
        ("vault-before-auth", vh, lambda o: o.update(vault=VAULT_ID.upper()), "malformed", "a vault id in uppercase",
         short_auth, "bad-encoding", "an auth of 31 bytes"),
        ("clock-before-auth", vh, lambda o: o.update(clock={R1: 4, R2: 0}), "malformed", "a clock value 0",
         short_auth, "bad-encoding", "an auth of 31 bytes"),
        ("auth-before-rekey", vh, short_auth, "bad-encoding", "an auth of 31 bytes",
         lambda o: o.update(epoch=2), "malformed", "epoch 2 without rekey"),
        ("rekey-members-before-proofs", h2, lambda o: o["rekey"].update(zNew=1), "malformed", "a member zNew in rekey",
         short_proof, "bad-encoding", "a rekey proof of 31 bytes"),
        ("proofs-names-before-nonce", h2, lambda o: o["rekey"]["proofs"].update({"2": o["rekey"]["proofs"]["1"]}),
         "malformed", "rekey.proofs of an epoch 2 header naming epochs 1 and 2",
         lambda o: o["rekey"].update(nonce=b64encode(bytes(23))), "bad-encoding", "a rekey.nonce of 23 bytes"),
        ("rekey-before-scopes", h2, short_proof, "bad-encoding", "a rekey proof of 31 bytes",
         lambda o: o.pop("scopes"), "malformed", "no scopes"),
        ("scopes-before-slots", vh, lambda o: o["scopes"][OPS_ID].update(folder="Team/Ops"), "malformed",
         "scopes Team and Team/Ops nest", short_salt(0), "bad-encoding", "the passphrase slot's salt of 15 bytes"),
        ("slot-fields-before-slot-members", vh, short_salt(0), "bad-encoding",
         "the passphrase slot's salt of 15 bytes (§3.4 step 6)", lambda o: o["keySlots"][0].update(zNew=1),
         "malformed", "a member zNew in the same slot"),
        ("slot-kdf-before-slot-dot", vh, lambda o: o["keySlots"][0]["kdf"].update(ops=17), "kdf-out-of-bounds",
         "the passphrase slot's kdf.ops 17 (§3.4 step 6)", lambda o: o["keySlots"][0].pop("dot"), "malformed",
         "no dot in the same slot"),
        ("slots-before-slot-count", vh, salt_of_last_passphrase_slot, "bad-encoding",
         "a salt of 15 bytes in the last passphrase slot (§3.4 step 6)", seventeen_passphrase_slots, "malformed",
         "17 passphrase slots (§3.4 step 7)"),
        ("slots-before-dots-covered", vh, lambda o: o["keySlots"][1].update(publicKey="x"), "bad-encoding",
         "alice's public key text x (§3.4 step 6)", lambda o: o["keySlots"][0].update(dot=[R1, 9]), "malformed",
         "the dot (a1a1…, 9) of the passphrase slot before it, which the clock does not cover (checked last)"),
    ]

    def file_of(h, *fns):
        """The header changed by fns (its `auth` as they leave it: every check here fails before the tag)."""
        obj = cj.loads(h.serialize())
        for fn in fns:
            fn(obj)
        return cj.file_bytes(obj).decode()

    for name, h, first, first_kind, first_what, second, second_kind, second_what in cases:
        assert first_kind != second_kind, name
        for fn, kind in ((first, first_kind), (second, second_kind)):
            try:
                v5_tests.v5_header({"file": file_of(h, fn)})
                raise AssertionError("%s: a change alone passes" % name)
            except FormatError as e:
                assert e.kind == kind, "%s: one change alone fails with %s, not %s" % (name, e.kind, kind)
        out.failure("v5-header-order-" + name, "v5-header",
                    "%s [%s] and %s [%s]: the first in §11.4's order decides [%s]"
                    % (first_what, first_kind, second_what, second_kind, first_kind),
                    {"file": file_of(h, second, first), "passphrase": PASSPHRASE}, first_kind)


def slot_json_of(slot, dot):
    j = slot.to_json()
    j["dot"] = [dot[0], dot[1]]
    return j


# ---- v5-scope ----

def scope_vectors(out):
    vh = text(vault_header().serialize())
    th, oh = team_header(), ops_header()
    team_path, ops_path = scope_file(TEAM_ID), scope_file(OPS_ID)
    out.success("v5-scope-vault-slot", "v5-scope",
                "the open scope Team (version 2) opened through its vault slot with the vault key",
                {"vault_header": vh, "path": team_path, "file": text(th.serialize()), "vault_key": hexstr(VAULT_KEY)})
    out.success("v5-scope-recipient", "v5-scope", "the open scope Team opened by carol's identity (a scope-only member)",
                {"vault_header": vh, "path": team_path, "file": text(th.serialize()), "identity": CAROL_ID_FILE})
    out.success("v5-scope-closed-recipient", "v5-scope", "the closed scope Ops opened by carol",
                {"vault_header": vh, "path": ops_path, "file": text(oh.serialize()), "identity": CAROL_ID_FILE})
    out.failure("v5-scope-closed-vault-key", "v5-scope", "the vault key does not open a closed scope [not-a-recipient]",
                {"vault_header": vh, "path": ops_path, "file": text(oh.serialize()), "vault_key": hexstr(VAULT_KEY)},
                "not-a-recipient")
    out.failure("v5-scope-version-1", "v5-scope", "a scope header of version 1 in a version 5 vault [unsupported-version]",
                {"vault_header": vh, "path": team_path,
                 "file": changed(th, lambda o: o.update(version=1), TEAM_KEY, b"tresor-scope"),
                 "vault_key": hexstr(VAULT_KEY)}, "unsupported-version")
    out.failure("v5-scope-vault-slot-without-dot", "v5-scope", "a vault slot without a dot [malformed]",
                {"vault_header": vh, "path": team_path,
                 "file": changed(th, lambda o: o["keySlots"][1].pop("dot"), TEAM_KEY, b"tresor-scope"),
                 "vault_key": hexstr(VAULT_KEY)}, "malformed")
    out.failure("v5-scope-vault-slot-member", "v5-scope", "a member zNew in the vault slot [malformed]",
                {"vault_header": vh, "path": team_path,
                 "file": changed(th, lambda o: o["keySlots"][1].update(zNew=1), TEAM_KEY, b"tresor-scope"),
                 "vault_key": hexstr(VAULT_KEY)}, "malformed")
    out.failure("v5-scope-dot-not-covered", "v5-scope", "carol's slot has a dot the scope header's clock does not cover "
                "[malformed]", {"vault_header": vh, "path": team_path,
                                "file": changed(th, lambda o: o["keySlots"][0].update(dot=[R1, 4]), TEAM_KEY,
                                                b"tresor-scope"), "vault_key": hexstr(VAULT_KEY)}, "malformed")
    out.failure("v5-scope-other-folder", "v5-scope",
                "a scope header naming another folder than the vault header gives it [malformed]",
                {"vault_header": vh, "path": team_path,
                 "file": changed(th, lambda o: o.update(folder="Staff"), TEAM_KEY, b"tresor-scope"),
                 "vault_key": hexstr(VAULT_KEY)}, "malformed")
    out.failure("v5-scope-slot-added-without-key", "v5-scope",
                "a recipient slot added to the scope header without the scope key [header-not-authentic]",
                {"vault_header": vh, "path": team_path,
                 "file": changed(th, lambda o: o["keySlots"].insert(0, slot_json_of(
                     carol_scope_slot(TEAM_ID, FORGED_KEY, sequence(0x35, 32)).__class__(
                         "f0f0f0f0-0000-4000-8000-000000000001", "mallory", public(sequence(0x61, 32)),
                         carol_scope_slot(TEAM_ID, FORGED_KEY, sequence(0x35, 32)).sealed_key), (R1, 3))), None),
                 "vault_key": hexstr(VAULT_KEY)}, "header-not-authentic")


# ---- v5-entry ----

def entry_vectors(out):
    tree = base_tree()
    out.success("v5-entry-ok", "v5-entry",
                "Email/gmail (vault domain): envelope version 2 (additional data \"tresor-entry\" 0x00 \"2\" …), a "
                "payload with clock, moved and a dot on every field (§11.8)",
                {"key": hexstr(VAULT_KEY), "path": "Email/gmail", "file": text(tree["Email/gmail.json"])})
    out.success("v5-entry-scope", "v5-entry", "Team/wiki, sealed with the entry key of the Team scope key",
                {"key": hexstr(TEAM_KEY), "path": "Team/wiki", "file": text(tree["Team/wiki.json"])})
    p = gmail_payload()
    entry5.set_field(p, "password", "hunter3", T(20), "phone", (R2, 1))
    entry5.set_field(p, "notes", "x", T(21), "phone", (R2, 2))
    entry5.set_field(p, "notes", None, T(22), "phone", (R2, 3))
    p["zFuture"] = cj.Number("1.50")
    p["fields"]["password"]["zFieldMember"] = "kept"
    out.success("v5-entry-history-unknown", "v5-entry",
                "an edited entry: history items with the dots of the values they held; an unknown member of the "
                "payload (kept) and of a field object (accepted; a writer that rewrites the entry drops it, §11.8)",
                {"key": hexstr(VAULT_KEY), "path": "Email/gmail",
                 "file": text(entry5.seal_entry_v5(GMAIL_ID, p, sequence(0xb4, 24), VAULT_KEY))})

    def sealed(fn, nonce=sequence(0xb5, 24)):
        q = gmail_payload()
        entry5.set_field(q, "password", "hunter3", T(20), "phone", (R2, 1))
        fn(q)
        return text(entry5.EntryFormatV2.seal(cj.dumps(q), GMAIL_ID, nonce, VAULT_KEY))

    fails = [
        ("no-clock", "a payload without clock", lambda q: q.pop("clock"), "malformed"),
        ("no-moved", "a payload without moved", lambda q: q.pop("moved"), "malformed"),
        ("moved-origin-number", "moved.origin a number", lambda q: q["moved"].update(origin=1), "malformed"),
        ("moved-without-dot", "moved without a dot", lambda q: q["moved"].pop("dot"), "malformed"),
        ("field-without-dot", "a field without a dot", lambda q: q["fields"]["username"].pop("dot"), "malformed"),
        ("history-without-dot", "a history item without a dot", lambda q: q["history"][0].pop("dot"), "malformed"),
        ("field-dot-not-covered", "a field whose dot (b2b2…, 2) the entry's clock {a1a1…: 5, b2b2…: 1} does not "
         "cover", lambda q: q["fields"]["password"].update(dot=[R2, 2]), "malformed"),
        ("history-dot-not-covered", "a history item whose dot the clock does not cover",
         lambda q: q["history"][0].update(dot=[R3, 1]), "malformed"),
        ("moved-dot-not-covered", "moved's dot not covered", lambda q: q["moved"].update(dot=[R1, 6]), "malformed"),
        ("clock-too-many", "a clock of 4097 members",
         lambda q: q["clock"].update({"%016x" % (i + 1 << 8): 1 for i in range(4095)}), "malformed"),
    ]
    for name, what, fn, kind in fails:
        out.failure("v5-entry-" + name, "v5-entry", what + " [%s]" % kind,
                    {"key": hexstr(VAULT_KEY), "path": "Email/gmail", "file": sealed(fn)}, kind)
    v1 = text(EntryV1seal(gmail_payload()))
    out.failure("v5-entry-envelope-version-1", "v5-entry",
                "an entry file of envelope version 1 in a version 5 vault [unsupported-version]",
                {"key": hexstr(VAULT_KEY), "path": "Email/gmail", "file": v1}, "unsupported-version")
    out.failure("v5-entry-wrong-key", "v5-entry", "Team/wiki opened with the vault key [authentication-failed]",
                {"key": hexstr(VAULT_KEY), "path": "Team/wiki", "file": text(tree["Team/wiki.json"])},
                "authentication-failed")
    out.failure("v5-entry-path-mismatch", "v5-entry", "Email/gmail's file at Email/other [path-mismatch]",
                {"key": hexstr(VAULT_KEY), "path": "Email/other", "file": text(tree["Email/gmail.json"])},
                "path-mismatch")


def EntryV1seal(payload):
    from tresorref.envelope import EntryFormatV1
    return EntryFormatV1.seal(cj.dumps(payload), GMAIL_ID, sequence(0xb6, 24), VAULT_KEY)


# ---- v5-edit ----

def F(value, t, origin, dot):
    return {"value": value, "modified": T(t), "origin": origin, "dot": list(dot)}


def HI(field, value, t, origin, dot, replaced, reason="edit"):
    return {"field": field, "value": value, "modified": T(t), "origin": origin, "dot": list(dot),
            "replaced": T(replaced), "reason": reason}


def P(path, fields, history, clock, moved, created=0, modified=None, **unknown):
    p = dict(unknown)
    mods = [f["modified"] for f in fields.values()] + [T(moved[1])]
    p.update({"path": path, "created": T(created), "modified": T(modified) if modified is not None else max(mods),
              "fields": fields, "history": history, "clock": clock,
              "moved": {"dot": list(moved[0]), "modified": T(moved[1]), "origin": moved[2]}})
    return p


def edit_vectors(out):
    base = {"id": GMAIL_ID, "payload": gmail_payload()}
    out.success("v5-edit-create", "v5-edit",
                "create: clock {r: n}, moved and every field with the event's dot; empty values are not written",
                {"edits": [{"create": "Email/gmail", "fields": {"username": "me@example.com", "password": "hunter2",
                                                                 "notes": ""},
                            "time": T(5), "origin": "laptop", "dot": [R1, 5]}]})
    out.success("v5-edit-set", "v5-edit",
                "set by replica b2b2… event 1: the old value goes to history with its own dot (a1a1…, 5), the new one "
                "gets (b2b2…, 1), clock[b2b2…] = 1; then removing the username (reason delete), then setting the "
                "password to its current value (nothing changes)",
                {"entry": base, "edits": [
                    {"set": "password", "value": "hunter3", "time": T(20), "origin": "phone", "dot": [R2, 1]},
                    {"set": "username", "value": None, "time": T(21), "origin": "phone", "dot": [R2, 2]},
                    {"set": "password", "value": "hunter3", "time": T(22), "origin": "phone", "dot": [R2, 3]}]})
    out.success("v5-edit-move", "v5-edit",
                "move: path and moved (dot, modified, origin) change, clock[r] = n; a move to the same path (NFC) "
                "changes nothing",
                {"entry": base, "edits": [
                    {"move": "Mail/gmail", "time": T(30), "origin": "phone", "dot": [R2, 1]},
                    {"move": "Mail/gmail", "time": T(31), "origin": "phone", "dot": [R2, 2]}]})
    dup = P("Email/gmail", {"password": F("p3", 30, "phone", (R2, 2))},
            [HI("password", "p1", 0, "laptop", (R1, 1), 10),
             HI("password", "p1", 0, "laptop", (R1, 1), 12, "merge"),
             HI("password", "p1", 0, "laptop", (R2, 1), 11),
             HI("password", "p1", 15, "phone", (R1, 3), 20),
             HI("password", "p2", 20, "tablet", (R1, 2), 30)],
            {R1: 3, R2: 2}, ((R1, 1), 0, "laptop"))
    out.success("v5-edit-history-one-item-per-value", "v5-edit",
                "the payload's history holds laptop's write of p1 at 0 three times (replaced at 10 and 12 with the dot "
                "(a1a1…, 1), replaced at 11 with the dot (b2b2…, 1), as two conversions of one vault give): one value "
                "(field, modified, origin and value equal; the dot does not count), so the first change keeps only the "
                "greatest of them in history order (dot last), the one replaced at 12; phone's write of p1 at 15 is "
                "another write of that value and stays (§11.8)",
                {"entry": {"id": GMAIL_ID, "payload": dup}, "edits": [
                    {"set": "notes", "value": "n", "time": T(40), "origin": "phone", "dot": [R2, 3]}]})
    many = [HI("password", "v%02d" % i, i, "laptop", (R1, i + 1), i + 1) for i in range(70)]
    capped = P("Email/gmail", {"password": F("v70", 70, "laptop", (R1, 71))}, list(reversed(many)), {R1: 71},
               ((R1, 1), 0, "laptop"))
    out.success("v5-edit-history-cap", "v5-edit",
                "70 history items of one field in reverse order: a change sorts them (dot last) and keeps the newest 64",
                {"entry": {"id": GMAIL_ID, "payload": capped}, "edits": [
                    {"set": "notes", "value": "n", "time": T(80), "origin": "phone", "dot": [R2, 1]}]})
    extra = entry5.normalized(gmail_payload())
    extra["fields"]["username"]["zNew"] = "dropped"
    extra["moved"]["zNew"] = "dropped"
    extra["zTop"] = "kept"
    out.success("v5-edit-drops-unknown-inner-members", "v5-edit",
                "a payload with unknown members in a field object, in moved and at the top level: a change drops the "
                "first two and keeps the last (§11.8)",
                {"entry": {"id": GMAIL_ID, "payload": extra}, "edits": [
                    {"set": "notes", "value": "n", "time": T(20), "origin": "phone", "dot": [R2, 1]}]})
    out.success("v5-edit-unchanged", "v5-edit", "an edit that changes nothing leaves the history as it is (unsorted)",
                {"entry": {"id": GMAIL_ID, "payload": capped}, "edits": [
                    {"set": "password", "value": "v70", "time": T(80), "origin": "phone", "dot": [R2, 1]}]})
    out.failure("v5-edit-invalid-field", "v5-edit", "a field name with `=` [invalid-field]",
                {"entry": base, "edits": [{"set": "a=b", "value": "x", "time": T(20), "origin": "phone",
                                           "dot": [R2, 1]}]}, "invalid-field")
    # restore (MERGE §7): issue 21 cause B. r0 edited the username (u1-NEWER) and deleted; r1 deleted the version it
    # had (u0-original). Restoring joins both deleted versions.
    created = P("X", {"username": F("u0-original", 0, "r0", (R1, 1))}, [], {R1: 1}, ((R1, 1), 0, "r0"))
    r0_deleted = P("X", {"username": F("u1-NEWER", 10, "r0", (R1, 2))},
                   [HI("username", "u0-original", 0, "r0", (R1, 1), 10)], {R1: 2}, ((R1, 1), 0, "r0"))
    out.success("v5-edit-restore-both-deleted", "v5-edit",
                "issue 21 cause B: r0 (a1a1…) set username u1-NEWER and deleted X; r1 deleted the version it had "
                "(u0-original). `restore` joins both deleted versions (MERGE §7) and writes the result as r0's event 4 "
                "(clock[a1a1…] = 4): u1-NEWER is current, u0-original in history",
                {"edits": [{"restore": [created, r0_deleted], "id": GMAIL_ID, "dot": [R1, 4]}]})


# ---- v5-state ----

def state_vectors(out):
    tree = base_tree()
    t = tree_text(tree)
    out.success("v5-state-vault", "v5-state",
                "the vault domain's state record: `tree` is the id of the commit's root tree without .tresor/state, "
                ".tresor/scopes and the scopes' folders Team and Ops (so .gitattributes, .tresor/vault.json and "
                "Email/gmail.json), tagged with the state key (subkey 6) of the vault key",
                {"tree": t, "domain": VAULT_DOMAIN, "key": hexstr(VAULT_KEY)})
    out.success("v5-state-scope", "v5-state", "the Team domain: `tree` is the id of the tree {entries: the tree of the folder Team, header: the "
                "blob of Team's scope header}, under Team's key",
                {"tree": t, "domain": TEAM_ID, "key": hexstr(TEAM_KEY)})
    out.success("v5-state-unkeyed", "v5-state",
                "the closed scope Ops checked without its key: the record parses, names its vault, domain and epoch, "
                "and the domain's tree id matches (what a replica without the key checks)", {"tree": t, "domain": OPS_ID})
    moved = dict(tree)
    moved["Email/wiki.json"] = moved.pop("Team/wiki.json")
    out.failure("v5-state-file-moved-across-domains", "v5-state",
                "Team/wiki.json's file moved to the vault domain unchanged: the vault domain's tree differs "
                "[state-files]", {"tree": tree_text(moved), "domain": VAULT_DOMAIN}, "state-files")
    old = base_tree(entries={"Email/gmail.json": (GMAIL_ID, gmail_payload(), VAULT_DOMAIN),
                             "Team/wiki.json": (WIKI_ID, wiki_payload(), TEAM_ID),
                             "Ops/root.json": (ROOT_ID, root_payload(), OPS_ID)})
    p = gmail_payload()
    entry5.set_field(p, "password", "hunter3", T(20), "laptop", (R1, 8))
    newer = base_tree(entries={"Email/gmail.json": (GMAIL_ID, p, VAULT_DOMAIN),
                               "Team/wiki.json": (WIKI_ID, wiki_payload(), TEAM_ID),
                               "Ops/root.json": (ROOT_ID, root_payload(), OPS_ID)}, clocks={VAULT_DOMAIN: {R1: 8}})
    rolled = dict(newer)
    rolled["Email/gmail.json"] = old["Email/gmail.json"]
    out.failure("v5-state-file-rolled-back", "v5-state",
                "one entry file put back to its older version under the newer state record [state-files]",
                {"tree": tree_text(rolled), "domain": VAULT_DOMAIN, "key": hexstr(VAULT_KEY)}, "state-files")
    added = dict(tree)
    added["Email/extra.json"] = tree["Email/gmail.json"]
    out.failure("v5-state-file-added", "v5-state", "a file added to the vault domain [state-files]",
                {"tree": tree_text(added), "domain": VAULT_DOMAIN}, "state-files")
    rec = StateRecord.parse(tree[state_file(VAULT_DOMAIN)])
    for name, what, fn, key, kind in [
        ("clock-changed", "the clock raised without the key", lambda o: o["clock"].update({R1: 9}), None,
         "not-authentic"),
        ("epoch-not-header", "epoch 2 while the vault header is of epoch 1", lambda o: o.update(epoch=2), VAULT_KEY,
         "malformed"),
        ("other-domain", "the vault's record naming the domain of Ops", lambda o: o.update(domain=OPS_ID), VAULT_KEY,
         "malformed"),
        ("other-vault", "a record naming another vault", lambda o: o.update(vault=OTHER_VAULT_ID), VAULT_KEY,
         "malformed"),
        ("version-2", "state record version 2", lambda o: o.update(version=2), VAULT_KEY, "unsupported-version"),
        ("tree-uppercase", "tree in uppercase hex", lambda o: o.update(tree=o["tree"].upper()), VAULT_KEY,
         "malformed"),
        ("tree-short", "tree of 39 hex digits", lambda o: o.update(tree=o["tree"][:39]), VAULT_KEY, "malformed"),
        ("domain-uppercase", "a domain that is neither vault nor an id", lambda o: o.update(domain="Vault"),
         VAULT_KEY, "malformed"),
    ]:
        t2 = dict(tree)
        t2[state_file(VAULT_DOMAIN)] = changed(rec, fn, key, b"tresor-state").encode()
        out.failure("v5-state-" + name, "v5-state", what + " [%s]" % kind,
                    {"tree": tree_text(t2), "domain": VAULT_DOMAIN, "key": hexstr(VAULT_KEY)}, kind)
    t2 = dict(tree)
    obj = cj.loads(tree[state_file(VAULT_DOMAIN)])
    obj["auth"] = obj["auth"].replace("+", "-").replace("/", "_")
    assert obj["auth"] != cj.loads(tree[state_file(VAULT_DOMAIN)])["auth"]
    t2[state_file(VAULT_DOMAIN)] = cj.file_bytes(obj)
    out.failure("v5-state-auth-url-alphabet", "v5-state", "auth in the URL-safe base64 alphabet [bad-encoding]",
                {"tree": tree_text(t2), "domain": VAULT_DOMAIN, "key": hexstr(VAULT_KEY)}, "bad-encoding")


# ---- v5-rekey ----

def rekey_vectors(out):
    tree = base_tree()
    out.success("v5-rekey-vault-removes-alice", "v5-rekey",
                "replica b2b2… (event 1) removes alice from the vault: the vault key is replaced (epoch 2, proof from "
                "epoch 1, hk_1 sealed in rekey.keys), the passphrase slot replaced by one new slot of the new key (the "
                "writer's passphrase; the new slot id, KDF parameters, salt and nonce given; the event's dot), "
                "Email/gmail resealed; the open scope Team is rekeyed in the same change (new scope key, carol sealed "
                "again, the vault slot under the new vault key, Team/wiki resealed); the closed scope Ops stays as it "
                "is; the state records of the vault and Team get clock[b2b2…] = 1 (§11.5)",
                {"rekey": "vault", "tree": tree_text(tree), "vault_key": hexstr(VAULT_KEY),
                 "new_vault_key": hexstr(NEW_VAULT_KEY), "passphrase": PASSPHRASE, "remove": "alice", "dot": [R2, 1],
                 "randomness": rekey_randomness(0, tree, True, vault_recipients=0)})
    from tresorref.header import PassphraseSlot
    other = PassphraseSlot.wrap(VAULT_KEY, b"another passphrase", 1, VAULT_ID, "0717e000-0000-4000-8000-000000000006",
                                MIN_OPS, MIN_MEM, sequence(0xa8, 16), sequence(0x48, 24))
    two = base_tree(vh=vault_header(clock={R1: 8}, extra_slots=[(other, (R1, 8))]), clocks={VAULT_DOMAIN: {R1: 8}})
    out.success("v5-rekey-vault-two-passphrase-slots", "v5-rekey",
                "a vault with two passphrase slots (the writer's and one of another passphrase, added as event 8 of "
                "a1a1…) rekeyed by b2b2… (event 1): both are replaced by one new passphrase slot of the new key under "
                "the writer's passphrase (a writer cannot wrap a key under a passphrase it does not know); alice "
                "sealed again with her slot id, the event's dot on every slot (§11.5 step 3)",
                {"rekey": "vault", "tree": tree_text(two), "vault_key": hexstr(VAULT_KEY),
                 "new_vault_key": hexstr(NEW_VAULT_KEY), "passphrase": PASSPHRASE, "dot": [R2, 1],
                 "randomness": rekey_randomness(0, two, True)})
    tree2, key2 = rekeyed_tree(1)
    out.success("v5-rekey-vault-second", "v5-rekey",
                "a second vault rekey (epoch 2 to 3, event 2 of b2b2…): proofs from epochs 1 and 2, the hk_1 the writer "
                "opened from the epoch 2 header's rekey.keys and hk_2 sealed under the new chain key",
                {"rekey": "vault", "tree": tree_text(tree2), "vault_key": hexstr(key2),
                 "new_vault_key": hexstr(sequence(0x90, 32)), "passphrase": PASSPHRASE, "dot": [R2, 2],
                 "randomness": rekey_randomness(1, tree2, True)})
    out.success("v5-rekey-scope-removes-carol", "v5-rekey",
                "removing carol from Team rekeys Team only: epoch 2, the vault slot wrapped again, Team/wiki resealed, "
                "Team's state record; the vault header, the vault domain and Ops stay as they are",
                {"rekey": "scope", "tree": tree_text(tree), "vault_key": hexstr(VAULT_KEY), "scope": TEAM_ID,
                 "scope_key": hexstr(TEAM_KEY), "new_scope_key": hexstr(NEW_TEAM_KEY), "remove": "carol",
                 "dot": [R2, 1], "randomness": {"rekey_nonce": sequence(0x12, 24).hex(), "recipient_secrets": [],
                                                "vault_slot_nonce": sequence(0x52, 24).hex(),
                                                "entry_nonces": {"Team/wiki.json": sequence(0xd9, 24).hex()}}})
    out.failure("v5-rekey-scope-no-such-member", "v5-rekey", "removing a member the scope does not have [no-such-member]",
                {"rekey": "scope", "tree": tree_text(tree), "vault_key": hexstr(VAULT_KEY), "scope": TEAM_ID,
                 "scope_key": hexstr(TEAM_KEY), "new_scope_key": hexstr(NEW_TEAM_KEY), "remove": "dave",
                 "dot": [R2, 1], "randomness": {"rekey_nonce": sequence(0x12, 24).hex(), "recipient_secrets": [],
                                                "vault_slot_nonce": sequence(0x52, 24).hex(),
                                                "entry_nonces": {"Team/wiki.json": sequence(0xd9, 24).hex()}}},
                "no-such-member")
    tree3, key3 = rekeyed_tree(2)
    out.success("v5-rekey-follow", "v5-rekey",
                "a replica holding the epoch 1 vault key meets the epoch 2 header: its passphrase opens the new key, the "
                "tag verifies under it and rekey.proofs[\"1\"] under the held key's header key (§11.5)",
                {"rekey": "follow", "file": text(tree2[VAULT_HEADER]), "passphrase": PASSPHRASE,
                 "held_key": hexstr(VAULT_KEY), "held_epoch": 1})
    out.success("v5-rekey-follow-two-epochs", "v5-rekey",
                "a replica that missed two rekeys (holds epoch 1) follows the epoch 3 header by its proof from epoch 1",
                {"rekey": "follow", "file": text(tree3[VAULT_HEADER]), "passphrase": PASSPHRASE,
                 "held_key": hexstr(VAULT_KEY), "held_epoch": 1})
    out.success("v5-rekey-follow-scope", "v5-rekey",
                "carol, holding Team's epoch 1 key, follows Team's epoch 2 header (rekeyed with the vault) by her identity",
                {"rekey": "follow", "domain": TEAM_ID, "file": text(tree2[scope_file(TEAM_ID)]),
                 "identity": CAROL_ID_FILE, "held_key": hexstr(TEAM_KEY), "held_epoch": 1})
    forged_base = VaultHeaderV5.parse(tree[VAULT_HEADER])
    from tresorref.header5 import make_rekey
    forged = VaultHeaderV5.build(VAULT_ID, FORGED_KEY, 2, {R1: 4, R3: 1},
                                 [(passphrase_slot(FORGED_KEY, nonce=sequence(0x41, 24)), (R3, 1))],
                                 [(alice_slot(FORGED_KEY), (R3, 1))], [], forged_base.scopes,
                                 make_rekey(VAULT_ID, VAULT_DOMAIN, 2, [header_key(sequence(0x01, 32))], FORGED_KEY,
                                            sequence(0x13, 24)))
    out.failure("v5-rekey-follow-forged", "v5-rekey",
                "a header of epoch 2 made by someone who knows the passphrase (or a member's public key) but not the "
                "epoch 1 key: it opens and its tag verifies under its own key, but its proof from epoch 1 does not "
                "verify under the held key [not-authentic]",
                {"rekey": "follow", "file": text(forged.serialize()), "passphrase": PASSPHRASE,
                 "held_key": hexstr(VAULT_KEY), "held_epoch": 1}, "not-authentic")
    out.failure("v5-rekey-follow-no-proof-for-epoch", "v5-rekey",
                "a replica holding the epoch 3 key meets the epoch 2 header: there is no proof to follow backwards "
                "[not-authentic]", {"rekey": "follow", "file": text(tree2[VAULT_HEADER]), "passphrase": PASSPHRASE,
                                    "held_key": hexstr(key3), "held_epoch": 3}, "not-authentic")


# ---- v5-convert ----

def v4_tree():
    """A version 4 vault: the passphrase slot, alice, the open scope Team (carol and the vault slot, generation 2), a
    root entry whose history holds one value twice, an entry in Team."""
    from tresorref.entry import Entry
    from tresorref.envelope import seal_entry
    from tresorref.header import HeaderV3
    from tresorref.scopes import HeaderV4, ScopeHeader, VaultSlot as VS
    v3 = HeaderV3(VAULT_ID, [passphrase_slot()], generation=4, recipients=[alice_slot()],
                  unknown={"zFuture": "kept"})
    v4 = HeaderV4(VAULT_ID, v3.slots, generation=5, recipients=v3.recipients, unknown=v3.unknown,
                  scopes={TEAM_ID: "Team"}).authenticated(VAULT_KEY)
    team = ScopeHeader(VAULT_ID, TEAM_ID, "Team", [carol_scope_slot(TEAM_ID, TEAM_KEY, sequence(0x33, 32))],
                       VS.wrap(TEAM_KEY, VAULT_KEY, VAULT_ID, TEAM_ID, sequence(0x50, 24)), generation=2
                       ).authenticated(TEAM_KEY)
    gmail = Entry(GMAIL_ID, "Email/gmail", T(0), T(0))
    gmail.set("password", "p1", T(0), "laptop")
    gmail.set("username", "me", T(0), "laptop")
    gmail.set("password", "p2", T(10), "laptop")
    gmail.set("password", "p1", T(20), "phone")
    gmail.set("password", "p3", T(30), "phone")
    gmail.unknown["zPayload"] = cj.Number("1.50")
    wiki = Entry(WIKI_ID, "Team/wiki", T(1), T(1))
    wiki.set("password", "w1k1", T(1), "laptop")
    return {".gitattributes": b"*.json merge=tresor\n.tresor/vault.json merge=tresor-header\n",
            VAULT_HEADER: v4.serialize(), scope_file(TEAM_ID): team.serialize(),
            "Email/gmail.json": seal_entry(gmail, sequence(0xe0, 24), VAULT_KEY),
            "Team/wiki.json": seal_entry(wiki, sequence(0xe1, 24), TEAM_KEY)}


def convert_vectors(out):
    t = v4_tree()
    nonces = {"Email/gmail.json": sequence(0xf0, 24).hex(), "Team/wiki.json": sequence(0xf1, 24).hex()}
    out.success("v5-convert", "v5-convert",
                "a version 4 vault (generation 5, alice, the open scope Team, two entries) converted at the tree "
                "0123…: the conversion replica id from the vault id and the tree id, dot (u, 1) on every slot, scope, "
                "field and history item, every clock {u: 1}; Email/gmail's history held p1 twice (laptop's write at "
                "0, replaced at 10, and phone's at 20, replaced at 30), each with the one dot (u, 1): two writes of p1 "
                "(their modified and origin differ), so both items stay (§11.8); `generation` dropped, the unknown "
                "member kept; .gitattributes as §11.7; state records of both domains (§11.10)",
                {"tree": tree_text(t), "vault_key": hexstr(VAULT_KEY),
                 "tree_id": "0123456789abcdef0123456789abcdef01234567", "entry_nonces": nonces})
    out.success("v5-convert-other-tree", "v5-convert",
                "the same vault converted at another tree id: another conversion replica id, so the payloads differ "
                "only in the dots and clocks", {"tree": tree_text(t), "vault_key": hexstr(VAULT_KEY),
                                                "tree_id": "89abcdef0123456789abcdef0123456789abcdef",
                                                "entry_nonces": nonces})
    from tresorref.entry import Entry
    from tresorref.envelope import seal_entry
    from tresorref.header import HeaderV1
    e = Entry(GMAIL_ID, "Email/gmail", T(0), T(0))
    e.set("password", "p1", T(0), "laptop")
    v1 = {VAULT_HEADER: HeaderV1(VAULT_ID, [passphrase_slot()]).serialize(),
          "Email/gmail.json": seal_entry(e, sequence(0xe0, 24), VAULT_KEY)}
    out.success("v5-convert-version-1", "v5-convert", "a version 1 vault (no tag, no scopes) converted",
                {"tree": tree_text(v1), "vault_key": hexstr(VAULT_KEY),
                 "tree_id": "0123456789abcdef0123456789abcdef01234567",
                 "entry_nonces": {"Email/gmail.json": sequence(0xf0, 24).hex()}})
    out.failure("v5-convert-wrong-key", "v5-convert", "the version 4 vault converted with another key "
                "[header-not-authentic]", {"tree": tree_text(t), "vault_key": hexstr(FORGED_KEY),
                                           "tree_id": "0123456789abcdef0123456789abcdef01234567",
                                           "entry_nonces": nonces}, "header-not-authentic")


def vectors(into):
    """Adds the version 5 vectors to the VectorSet `into` (the format vectors' folder)."""
    out = V5Vectors()
    out.vectors = into.vectors
    header_vectors(out)
    order_vectors(out)
    scope_vectors(out)
    entry_vectors(out)
    edit_vectors(out)
    state_vectors(out)
    rekey_vectors(out)
    convert_vectors(out)
