"""Whole version 5 trees: the state records of a tree, a rekey of a domain (Spec/FORMAT.md §11.5) and the conversion
of a vault of version 1-4 (§11.10). A tree is a dict path -> file bytes. Every random input (keys, nonces,
ephemeral secrets, salts) is given, so the results are fixed."""
from nacl.encoding import RawEncoder
from nacl.hash import blake2b

from . import canonical_json as cj
from .clock import parse_clock, clock_json
from .entry5 import open_entry_v5, seal_entry_v5, normalize_history, normalized
from .envelope import open_entry_file
from .errors import fail
from .header import PassphraseSlot, parse_header
from .header5 import (VaultHeaderV5, ScopeHeaderV2, VAULT_DOMAIN, header_key, make_rekey)
from .recipients import RecipientSlot
from .scopes import ScopeHeader, ScopeRecipientSlot, VaultSlot, scope_file
from .state import (StateRecord, GITATTRIBUTES, GITATTRIBUTES_TEXT, VAULT_HEADER, STATE_DIR, entry_stem,
                    governing_domain, state_file, write_state)


def domains(vault_header):
    return [VAULT_DOMAIN] + sorted(vault_header.scopes, key=lambda s: s.encode())


def without_states(tree):
    return {p: d for p, d in tree.items() if not p.startswith(STATE_DIR)}


def with_states(tree, vault_header, keys, clocks, epochs, unknown=None):
    """The tree with the state record of every domain in `clocks` written (domain -> key, clock, epoch)."""
    out = dict(tree)
    bare = without_states(tree)
    for d, clock in clocks.items():
        out[state_file(d)] = write_state(bare, vault_header.vault_id, d, epochs[d], clock, keys[d],
                                         vault_header.scope_folders(), (unknown or {}).get(d))
    return out


def domain_entries(tree, vault_header, domain):
    """The entry files (path -> entry path) of `domain` in the tree."""
    folders = vault_header.scope_folders()
    return {p: entry_stem(p) for p in sorted(tree, key=lambda p: p.encode())
            if entry_stem(p) is not None and governing_domain(p, folders) == domain}


# ---- rekey (§11.5) ----

def rekey_domain_header(h, old_key, new_key, dot, rekey_nonce, recipient_secrets, remove=None, passphrase=None,
                        passphrase_slot=None, vault_slot=None):
    """§11.5 step 3 for one header (vault header 5 or scope header 2): epoch + 1; in a vault header every passphrase
    slot replaced by one new passphrase slot of the new key (the writer's passphrase; `passphrase_slot` gives its new
    id, KDF parameters, salt and nonce: {"id", "ops", "mem", "salt", "nonce"}); every recipient slot that stays sealed
    again to the new key (same id, name and public key); a scope's vault slot, when it has one, wrapped again under
    the new vault key's scope-wrap key (`vault_slot`: (vault key, nonce)); every slot written with the event's dot; the
    removed member's slot and unknown slots left out; `rekey` with the proofs from every earlier epoch and the chain;
    the header clock's member r = n. `recipient_secrets`: one ephemeral secret per remaining recipient slot in file
    order."""
    scope = isinstance(h, ScopeHeaderV2)
    kept = [(s, d, j) for s, d, j in h.recipients if s.name != remove]
    if remove is not None and len(kept) == len(h.recipients):
        fail("no-such-member", "no member %r" % remove)
    if len(recipient_secrets) != len(kept):
        raise ValueError("one ephemeral secret per remaining recipient slot")
    clock = dict(h.clock)
    clock[dot[0]] = dot[1]
    earlier = h.earlier_header_keys(old_key) + [header_key(old_key)]
    rekey = make_rekey(h.vault_id, h.domain(), h.epoch + 1, earlier, new_key, rekey_nonce)
    unknown = {k: v for k, v in h.obj.items() if k not in ("format", "version", "vault", "scope", "folder", "keySlots",
                                                           "epoch", "clock", "rekey", "auth", "scopes")}
    if scope:
        recipients = [(ScopeRecipientSlot.seal_scope(new_key, s.public_key, s.name, h.vault_id, h.scope_id, s.id, e), dot)
                      for (s, _, _), e in zip(kept, recipient_secrets)]
        vs = None
        if h.vault_slot is not None:
            vault_key, nonce = vault_slot
            vs = (VaultSlot.wrap(new_key, vault_key, h.vault_id, h.scope_id, nonce), dot)
        return ScopeHeaderV2.build(h.vault_id, h.scope_id, h.folder, new_key, h.epoch + 1, clock, recipients, vs,
                                   [], rekey, unknown)
    recipients = [(RecipientSlot.seal(new_key, s.public_key, s.name, h.vault_id, s.id, e), dot)
                  for (s, _, _), e in zip(kept, recipient_secrets)]
    p = passphrase_slot
    pslot = (PassphraseSlot.wrap(new_key, passphrase, 1, h.vault_id, p["id"], p["ops"], p["mem"], p["salt"],
                                 p["nonce"]), dot)
    return VaultHeaderV5.build(h.vault_id, new_key, h.epoch + 1, clock, [pslot], recipients, [],
                               h.scopes, rekey, unknown)


def rekey_entries(tree, vault_header, domain, old_key, new_key, entry_nonces):
    """§11.5 step 2: every entry file of the domain sealed again (same id and payload, fresh nonce)."""
    out = {}
    for p, stem in domain_entries(tree, vault_header, domain).items():
        id, _, plain = open_entry_v5(tree[p], old_key, stem)
        from .entry5 import EntryFormatV2
        out[p] = EntryFormatV2.seal(plain, id, entry_nonces[p], new_key)
    return out


def read_states(tree):
    return {p[len(STATE_DIR):-5]: StateRecord.parse(d) for p, d in tree.items() if p.startswith(STATE_DIR)}


def rekey_vault(tree, vault_key, new_vault_key, passphrase, dot, randomness, remove=None, scope_keys=None):
    """A vault rekey (§11.5): the vault domain and every open scope (`scope_keys`: id -> current key of each open
    scope; `randomness` gives every new key and nonce, see the v5-rekey vector). Returns the new tree."""
    h = VaultHeaderV5.parse(tree[VAULT_HEADER])
    h.verify(vault_key)
    states = read_states(tree)
    out = dict(tree)
    new_h = rekey_domain_header(h, vault_key, new_vault_key, dot, randomness["rekey_nonce"],
                                randomness["recipient_secrets"], remove, passphrase, randomness["passphrase_slot"])
    out[VAULT_HEADER] = new_h.serialize()
    out.update(rekey_entries(tree, h, VAULT_DOMAIN, vault_key, new_vault_key, randomness["entry_nonces"]))
    keys, clocks, epochs = {VAULT_DOMAIN: new_vault_key}, {}, {VAULT_DOMAIN: new_h.epoch}
    c = dict(states[VAULT_DOMAIN].clock)
    c[dot[0]] = dot[1]
    clocks[VAULT_DOMAIN] = c
    for sid in sorted(h.scopes, key=lambda s: s.encode()):
        sh = ScopeHeaderV2.parse(tree[scope_file(sid)])
        if sh.vault_slot is None:
            continue
        old = sh.unlock(vault_key=vault_key)
        sh.verify(old)
        r = randomness["scopes"][sid]
        new_scope_key = bytes.fromhex(r["new_key"]) if isinstance(r["new_key"], str) else r["new_key"]
        nsh = rekey_domain_header(sh, old, new_scope_key, dot, r["rekey_nonce"], r["recipient_secrets"],
                                  vault_slot=(new_vault_key, r["vault_slot_nonce"]))
        out[scope_file(sid)] = nsh.serialize()
        out.update(rekey_entries(tree, h, sid, old, new_scope_key, r["entry_nonces"]))
        keys[sid], epochs[sid] = new_scope_key, nsh.epoch
        c = dict(states[sid].clock)
        c[dot[0]] = dot[1]
        clocks[sid] = c
    return with_states(out, new_h, keys, clocks, epochs)


def rekey_scope(tree, vault_key, scope_id, scope_key, new_scope_key, dot, randomness, remove=None):
    """A rekey of one scope (removing a scope member): its header, entries and state record; nothing else changes."""
    h = VaultHeaderV5.parse(tree[VAULT_HEADER])
    sh = ScopeHeaderV2.parse(tree[scope_file(scope_id)])
    sh.verify(scope_key)
    states = read_states(tree)
    out = dict(tree)
    vs = (vault_key, randomness["vault_slot_nonce"]) if sh.vault_slot is not None else None
    nsh = rekey_domain_header(sh, scope_key, new_scope_key, dot, randomness["rekey_nonce"],
                              randomness["recipient_secrets"], remove, vault_slot=vs)
    out[scope_file(scope_id)] = nsh.serialize()
    out.update(rekey_entries(tree, h, scope_id, scope_key, new_scope_key, randomness["entry_nonces"]))
    c = dict(states[scope_id].clock)
    c[dot[0]] = dot[1]
    return with_states(out, h, {scope_id: new_scope_key}, {scope_id: c}, {scope_id: nsh.epoch})


def follow(header, held_key, held_epoch, new_key):
    """Following a rekey (§11.5): the header's tag under the key the credential opened, and the proof from the held
    epoch under the held key."""
    header.verify_proof(held_key, held_epoch, new_key)
    return new_key


# ---- conversion (§11.10) ----

def conversion_replica(vault_id, tree_id):
    """§11.10: the first 16 hex digits of unkeyed BLAKE2b-256 of "tresor-upgrade" 0x00 vault id 0x00 tree id."""
    digest = blake2b(b"tresor-upgrade\x00" + vault_id.encode() + b"\x00" + tree_id.encode(), digest_size=32,
                     encoder=RawEncoder)
    return digest.hex()[:16]


def convert_payload(entry, u):
    """§11.10: a payload of version 1-4 (tresorref.entry.Entry) with clock {u: 1}, `moved` (the entry's modified,
    origin ""), the dot (u, 1) on every field and history item, and the history normalised by §11.8."""
    dot = [u, 1]
    p = dict(entry.unknown)
    p.update({"path": entry.path, "created": entry.created, "modified": entry.modified,
              "fields": {n: dict(f.to_json(), dot=dot) for n, f in entry.fields.items()},
              "history": [dict(h.to_json(), dot=dot) for h in entry.history],
              "clock": {u: 1}, "moved": {"dot": dot, "modified": entry.modified, "origin": ""}})
    p = normalized(p)
    p["history"] = normalize_history(p["history"])
    return normalized(p)


def convert(tree, vault_key, tree_id, entry_nonces, closed_scope_keys=None):
    """§11.10: the tree of a version 1-4 vault converted to version 5, with the vault key and every scope key (an open
    scope's opened through its vault slot, a closed scope's given in `closed_scope_keys`)."""
    old = parse_header(tree[VAULT_HEADER])
    old.verify(vault_key)
    u = conversion_replica(old.vault_id, tree_id)
    dot = (u, 1)
    clock = {u: 1}
    scopes = dict(getattr(old, "scopes", {}))
    scope_keys = {}
    out = {GITATTRIBUTES: GITATTRIBUTES_TEXT.encode()}
    for sid, folder in scopes.items():
        sh = ScopeHeader.parse(tree[scope_file(sid)])
        sh.check_place(old, scope_file(sid))
        key = sh.unlock(vault_key=vault_key) if sh.vault_slot else bytes((closed_scope_keys or {})[sid])
        sh.verify(key)
        scope_keys[sid] = key
        unknown = dict(sh.unknown)
        out[scope_file(sid)] = ScopeHeaderV2.build(
            old.vault_id, sid, folder, key, 1, clock, [(r, dot) for r in sh.recipients],
            (sh.vault_slot, dot) if sh.vault_slot else None, sh.other_slots, None, unknown).serialize()
    unknown = {k: v for k, v in old.unknown.items() if k not in ("generation", "rekeyProof")}
    vh = VaultHeaderV5.build(old.vault_id, vault_key, 1, clock, [(s, dot) for s in old.slots],
                             [(r, dot) for r in getattr(old, "recipients", [])], old.other_slots,
                             {sid: (f, dot) for sid, f in scopes.items()}, None, unknown)
    out[VAULT_HEADER] = vh.serialize()
    payloads = {}
    for p in sorted(tree, key=lambda p: p.encode()):
        stem = entry_stem(p)
        if stem is None:
            continue
        sid = old.scope_of(stem) if scopes else None
        key = scope_keys[sid] if sid else vault_key
        entry, _ = open_entry_file(tree[p], key, stem)
        payload = convert_payload(entry, u)
        payloads[stem] = payload
        out[p] = seal_entry_v5(entry.id, payload, entry_nonces[p], key)
    keys = dict(scope_keys, vault=vault_key)
    out = with_states(out, vh, keys, {d: clock for d in keys}, {d: 1 for d in keys})
    return u, out, payloads
