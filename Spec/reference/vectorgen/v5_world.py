"""A version 5 vault made from fixed keys, ids, nonces and replica ids: the base of the v5-*, accept-* vectors.

The vault (id of the version 1-4 vectors, vault key 00..1f, passphrase slot of `keyslot-unwrap-ok`) has alice as a
recipient, an open scope Team (carol and the vault slot) and a closed scope Ops (carol only), and one entry in each
domain. Replica R1 made it in these events:

    1 create the vault          (vault header: passphrase slot)
    2 add alice                 (vault header: alice's slot)
    3 create Team               (vault header: scopes.Team; Team: header)
    4 create Ops                (vault header: scopes.Ops; Ops: header)
    5 add Email/gmail           (vault domain)
    6 add Team/wiki             (Team)
    7 add Ops/root              (Ops)
"""
from tresorref import canonical_json as cj
from tresorref import entry5
from tresorref.clock import clock_json
from tresorref.header import PassphraseSlot, LEVELS
from tresorref.header5 import VaultHeaderV5, ScopeHeaderV2, VAULT_DOMAIN
from tresorref.recipients import RecipientSlot
from tresorref.scopes import ScopeRecipientSlot, VaultSlot, scope_file
from tresorref.state import GITATTRIBUTES, GITATTRIBUTES_TEXT, VAULT_HEADER, state_file, blob_id
from tresorref import vault5
import nacl.bindings as sodium


def sequence(first, count):
    return bytes((first + i) % 256 for i in range(count))


VAULT_ID = "6f1c2e84-3b5a-4c7d-9e2f-0a1b2c3d4e5f"
OTHER_VAULT_ID = "00000000-1111-4222-8333-444444444444"
SLOT_ID = "3d2b1a09-8f7e-4d6c-b5a4-938271605f4e"
ALICE_SLOT = "a11ce000-0000-4000-8000-000000000001"
CAROL_SLOT = "ca201000-0000-4000-8000-000000000003"
TEAM_ID = "7ea70000-0000-4000-8000-00000000000a"
OPS_ID = "0b500000-0000-4000-8000-00000000000b"
GMAIL_ID = "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b"
WIKI_ID = "7e4e0000-1111-4222-8333-444444444444"
ROOT_ID = "0e500000-1111-4222-8333-444444444444"

VAULT_KEY = sequence(0x00, 32)
NEW_VAULT_KEY = sequence(0x80, 32)
TEAM_KEY = sequence(0xc0, 32)
NEW_TEAM_KEY = sequence(0xa0, 32)
OPS_KEY = sequence(0x60, 32)
FORGED_KEY = sequence(0xe0, 32)
ALICE_SECRET = sequence(0x21, 32)
CAROL_SECRET = sequence(0x41, 32)
PASSPHRASE = "correct horse battery staple"
PASSPHRASE_BYTES = PASSPHRASE.encode()
SALT = sequence(0xa0, 16)
SLOT_NONCE = sequence(0x40, 24)
MIN_OPS, MIN_MEM = LEVELS["minimum"]

R1 = "a1a1a1a1a1a1a1a1"
R2 = "b2b2b2b2b2b2b2b2"
R3 = "c3c3c3c3c3c3c3c3"


def public(secret):
    return sodium.crypto_scalarmult_base(bytes(secret))


def T(s):
    """2026-04-01 10:00:00 plus s seconds."""
    return "2026-04-01T%02d:%02d:%02d.000Z" % (10 + s // 3600, (s // 60) % 60, s % 60)


def passphrase_slot(key=VAULT_KEY, id=SLOT_ID, nonce=SLOT_NONCE, salt=SALT):
    return PassphraseSlot.wrap(key, PASSPHRASE_BYTES, 1, VAULT_ID, id, MIN_OPS, MIN_MEM, salt, nonce)


def alice_slot(key=VAULT_KEY, eph=sequence(0x90, 32)):
    return RecipientSlot.seal(key, public(ALICE_SECRET), "alice", VAULT_ID, ALICE_SLOT, eph)


def vault_header(clock=None, scopes=None, key=VAULT_KEY, unknown=None, extra_slots=(), others=()):
    scopes = {TEAM_ID: ("Team", (R1, 3)), OPS_ID: ("Ops", (R1, 4))} if scopes is None else scopes
    return VaultHeaderV5.build(VAULT_ID, key, 1, clock or {R1: 4}, [(passphrase_slot(key), (R1, 1))] + list(extra_slots),
                               [(alice_slot(key), (R1, 2))], list(others), scopes, None, unknown)


def carol_scope_slot(scope_id, key, eph):
    return ScopeRecipientSlot.seal_scope(key, public(CAROL_SECRET), "carol", VAULT_ID, scope_id, CAROL_SLOT, eph)


def team_header(key=TEAM_KEY, vault_key=VAULT_KEY, unknown=None):
    return ScopeHeaderV2.build(VAULT_ID, TEAM_ID, "Team", key, 1, {R1: 3},
                               [(carol_scope_slot(TEAM_ID, key, sequence(0x33, 32)), (R1, 3))],
                               (VaultSlot.wrap(key, vault_key, VAULT_ID, TEAM_ID, sequence(0x50, 24)), (R1, 3)),
                               [], None, unknown)


def ops_header(key=OPS_KEY):
    return ScopeHeaderV2.build(VAULT_ID, OPS_ID, "Ops", key, 1, {R1: 4},
                               [(carol_scope_slot(OPS_ID, key, sequence(0x34, 32)), (R1, 4))])


def gmail_payload():
    return entry5.create("Email/gmail", {"username": "me@example.com", "password": "hunter2",
                                         "urls": ["https://mail.google.com"]}, T(5), "laptop", (R1, 5))


def wiki_payload():
    return entry5.create("Team/wiki", {"password": "w1k1"}, T(6), "laptop", (R1, 6))


def root_payload():
    return entry5.create("Ops/root", {"password": "r00t"}, T(7), "laptop", (R1, 7))


ENTRY_NONCES = {"Email/gmail.json": sequence(0xb0, 24), "Team/wiki.json": sequence(0xb1, 24),
                "Ops/root.json": sequence(0xb2, 24)}

KEYS = {VAULT_DOMAIN: VAULT_KEY, TEAM_ID: TEAM_KEY, OPS_ID: OPS_KEY}
CLOCKS = {VAULT_DOMAIN: {R1: 5}, TEAM_ID: {R1: 6}, OPS_ID: {R1: 7}}


def base_tree(vh=None, th=None, oh=None, entries=None, keys=None, clocks=None, epochs=None):
    """The tree of the vault after event 7: path -> bytes, state records included."""
    vh = vh or vault_header()
    th = th or team_header()
    oh = oh or ops_header()
    keys = dict(KEYS, **(keys or {}))
    tree = {GITATTRIBUTES: GITATTRIBUTES_TEXT.encode(), VAULT_HEADER: vh.serialize(),
            scope_file(TEAM_ID): th.serialize(), scope_file(OPS_ID): oh.serialize()}
    if entries is None:
        entries = {"Email/gmail.json": (GMAIL_ID, gmail_payload(), VAULT_DOMAIN),
                   "Team/wiki.json": (WIKI_ID, wiki_payload(), TEAM_ID),
                   "Ops/root.json": (ROOT_ID, root_payload(), OPS_ID)}
    for path, (id, payload, domain) in entries.items():
        tree[path] = entry5.seal_entry_v5(id, payload, ENTRY_NONCES.get(path, sequence(0xb3, 24)), keys[domain])
    clocks = dict(CLOCKS, **(clocks or {}))
    epochs = dict({VAULT_DOMAIN: vh.epoch, TEAM_ID: th.epoch, OPS_ID: oh.epoch}, **(epochs or {}))
    return vault5.with_states(tree, vh, keys, clocks, epochs)


def tip(tree, modes=None, sizes=None):
    """The `tip` input of an accept vector: files (path -> mode, blob id, size) and the texts of the small files."""
    files, blobs = {}, {}
    for path in sorted(tree, key=lambda p: p.encode()):
        data = tree[path]
        bid = blob_id(data).hex()
        files[path] = {"mode": (modes or {}).get(path, "100644"), "blob": bid,
                       "size": (sizes or {}).get(path, len(data))}
        if path.startswith(".tresor/"):
            blobs[bid] = data.decode("utf-8")
    return {"files": files, "blobs": blobs}


def text(data):
    return data.decode("utf-8")


def clock_in(c):
    return {r: n for r, n in c.items()}
