"""The tests of the version 5 vectors (Spec/FORMAT.md §9.1 rows v5-*, Spec/AUTH.md §12, Spec/MERGE.md §10), run on a
vector's inputs alone: each returns the vector's `expected`, or raises FormatError with the failure kind."""
from tresorref import canonical_json as cj
from tresorref import entry5, primitives, recipients
from tresorref.accept import accept as accept_tip
from tresorref.clock import clock_json, parse_clock
from tresorref.encoding import hexstr
from tresorref.errors import fail
from tresorref.header5 import (VaultHeaderV5, ScopeHeaderV2, VAULT_DOMAIN, header_key, state_key, chain_key)
from tresorref.join import join_entry
from tresorref.state import StateRecord, VAULT_HEADER, state_file, tree_blobs, domain_tree, domain_files
from tresorref.scopes import scope_file, scope_wrap_key
from tresorref import vault5


def H(x):
    return bytes.fromhex(x)


def _identity(inputs):
    if "identity" not in inputs:
        return None
    p = inputs.get("identity_passphrase")
    sk, pk, _ = recipients.read_identity(inputs["identity"].encode(), p.encode() if p is not None else None)
    return sk, pk


def _slots(h):
    out = []
    for kind in ("passphrase", "recipients"):
        for slot, dot, _ in getattr(h, kind, []):
            out.append({"type": "passphrase" if kind == "passphrase" else "recipient", "id": slot.id,
                        "dot": [dot[0], dot[1]]})
    if getattr(h, "vault_slot", None) is not None:
        out.append({"type": "vault", "id": None, "dot": [h.vault_slot[1][0], h.vault_slot[1][1]]})
    return out


def _keyed(h, key):
    out = {"header_key": hexstr(header_key(key)), "authenticated_bytes": hexstr(h.authenticated_bytes()),
           "auth": hexstr(h.auth)}
    if h.epoch > 1:
        out["earlier_header_keys"] = [hexstr(k) for k in h.earlier_header_keys(key)]
    return out


def v5_header(inputs):
    """§11.4: parse (every reader check), unlock with a passphrase or identity, check the tag."""
    file = inputs["file"].encode()
    h = VaultHeaderV5.parse(file)
    key = None
    if "passphrase" in inputs:
        key = h.unlock(primitives.passphrase_bytes(inputs["passphrase"]))
    ident = _identity(inputs)
    if ident is not None:
        key = h.unlock_identity(*ident)
    if key is not None:
        h.verify(key)
    assert h.serialize() == file, "re-serializing the header changed it"
    out = {"vault": h.vault_id, "epoch": h.epoch, "clock": clock_json(h.clock), "key_slots": _slots(h),
           "other_slots": len(h.others),
           "scopes": {sid: {"folder": f, "dot": [d[0], d[1]]} for sid, (f, d) in h.scopes.items()}}
    if key is not None:
        out["vault_key"] = hexstr(key)
        out.update(_keyed(h, key))
    return out


def v5_scope(inputs):
    """§11.11: a scope header version 2 checked against the vault header and its place, opened with the vault key
    (vault slot) or an identity (recipient slot), its tag checked."""
    vh = VaultHeaderV5.parse(inputs["vault_header"].encode())
    vault_key = H(inputs["vault_key"]) if "vault_key" in inputs else None
    if vault_key is not None:
        vh.verify(vault_key)
    file = inputs["file"].encode()
    sh = ScopeHeaderV2.parse(file)
    sh.check_place(vh, inputs["path"])
    key = sh.unlock(vault_key, _identity(inputs))
    sh.verify(key)
    assert sh.serialize() == file
    out = {"scope": sh.scope_id, "folder": sh.folder, "epoch": sh.epoch, "clock": clock_json(sh.clock),
           "key_slots": _slots(sh), "scope_key": hexstr(key), "entry_key": hexstr(primitives.subkey(key, 1)),
           "state_key": hexstr(state_key(key)), "chain_key": hexstr(chain_key(key))}
    out.update(_keyed(sh, key))
    return out


def v5_entry(inputs):
    """§11.8 and §6.2: an entry file of a version 5 vault (envelope version 2) opened with its domain's key."""
    key = H(inputs["key"])
    file = inputs["file"].encode()
    env = entry5.parse_envelope_v5(file)
    id, payload, plain = entry5.open_entry_v5(file, key, inputs["path"])
    assert entry5.EntryFormatV2.seal(plain, id, env.nonce, key) == file
    return {"entry_key": hexstr(primitives.subkey(key, 1)), "id": id, "nonce": hexstr(env.nonce),
            "additional_data": hexstr(entry5.EntryFormatV2.additional_data(env)), "plaintext": plain.decode()}


def _dot(d):
    return d[0], d[1]


def v5_edit(inputs):
    """§11.8: the edits applied in order; `create` and `restore` start from no entry."""
    payload = entry5.normalized(inputs["entry"]["payload"]) if "entry" in inputs else None
    changed = []
    for e in inputs["edits"]:
        dot = _dot(e["dot"])
        if "create" in e:
            payload = entry5.create(e["create"], e["fields"], e["time"], e["origin"], dot)
            changed.append(True)
        elif "restore" in e:
            versions = [entry5.check_payload(entry5.normalized(v)) for v in e["restore"]]
            joined = versions[0]
            for v in versions[1:]:
                joined, _ = join_entry(e["id"], joined, v)
            payload = entry5.restore(joined, dot)
            changed.append(True)
        elif "set" in e:
            changed.append(entry5.set_field(payload, e["set"], e["value"], e["time"], e["origin"], dot))
        else:
            changed.append(entry5.move(payload, e["move"], e["time"], e["origin"], dot))
        entry5.check_payload(entry5.normalized(payload))
    return {"payload": entry5.normalized(payload), "changed": changed}


def _tree(inputs, name="tree"):
    return {p: t.encode() for p, t in inputs[name].items()}


def _domain_epoch(tree, vh, domain):
    if domain == VAULT_DOMAIN:
        return vh.epoch
    return ScopeHeaderV2.parse(tree[scope_file(domain)]).epoch


def v5_state(inputs):
    """§11.6: the state record of `domain` in `tree` (the commit's files): its reader checks, against the commit's tree
    (vault id, domain, the domain header's epoch, the id of the domain's tree) and, with `key`, its tag."""
    tree = _tree(inputs)
    d = inputs["domain"]
    vh = VaultHeaderV5.parse(tree[VAULT_HEADER])
    rec = StateRecord.parse(tree[state_file(d)])
    blobs = tree_blobs(tree)
    folders = vh.scope_folders()
    rec.check_tree(vh.vault_id, state_file(d), _domain_epoch(tree, vh, d), blobs, folders)
    out = {"epoch": rec.epoch, "clock": clock_json(rec.clock),
           "files": [{"path": p, "blob": hexstr(blobs[p])} for p in domain_files(blobs, d, folders)],
           "tree": hexstr(domain_tree(blobs, d, folders))}
    if "key" in inputs:
        key = H(inputs["key"])
        rec.verify(key)
        out.update({"state_key": hexstr(state_key(key)), "authenticated_bytes": hexstr(rec.authenticated_bytes()),
                    "auth": hexstr(rec.auth)})
    return out


def _randomness(r):
    out = {"rekey_nonce": H(r["rekey_nonce"]), "recipient_secrets": [H(x) for x in r["recipient_secrets"]],
           "entry_nonces": {p: H(n) for p, n in r["entry_nonces"].items()}}
    if "passphrase_slot" in r:
        p = r["passphrase_slot"]
        out["passphrase_slot"] = {"id": p["id"], "ops": p["ops"], "mem": p["mem"], "salt": H(p["salt"]),
                                  "nonce": H(p["nonce"])}
    if "vault_slot_nonce" in r:
        out["vault_slot_nonce"] = H(r["vault_slot_nonce"])
    if "new_key" in r:
        out["new_key"] = H(r["new_key"])
    if "scopes" in r:
        out["scopes"] = {sid: _randomness(s) for sid, s in r["scopes"].items()}
    return out


def v5_rekey(inputs):
    """§11.5. `rekey` "vault": a vault rekey (with every open scope); "scope": a rekey of one scope; "follow": a replica
    holding `held_key` of `held_epoch` opens the header `file` with its passphrase and follows the proof."""
    mode = inputs["rekey"]
    if mode == "follow":
        file = inputs["file"].encode()
        if inputs.get("domain", VAULT_DOMAIN) == VAULT_DOMAIN:
            h = VaultHeaderV5.parse(file)
            new_key = h.unlock(primitives.passphrase_bytes(inputs["passphrase"]))
        else:
            h = ScopeHeaderV2.parse(file)
            new_key = h.unlock(None, _identity(inputs))
        vault5.follow(h, H(inputs["held_key"]), inputs["held_epoch"], new_key)
        return {"epoch": h.epoch, "key": hexstr(new_key),
                "earlier_header_keys": [hexstr(k) for k in h.earlier_header_keys(new_key)]}
    tree = _tree(inputs)
    dot = _dot(inputs["dot"])
    r = _randomness(inputs["randomness"])
    if mode == "vault":
        out = vault5.rekey_vault(tree, H(inputs["vault_key"]), H(inputs["new_vault_key"]),
                                 primitives.passphrase_bytes(inputs["passphrase"]), dot, r, inputs.get("remove"))
    else:
        out = vault5.rekey_scope(tree, H(inputs["vault_key"]), inputs["scope"], H(inputs["scope_key"]),
                                 H(inputs["new_scope_key"]), dot, r, inputs.get("remove"))
    vh = VaultHeaderV5.parse(out[VAULT_HEADER])
    return {"tree": {p: out[p].decode() for p in sorted(out, key=lambda p: p.encode())},
            "changed": sorted((p for p in out if out[p] != tree.get(p)), key=lambda p: p.encode()),
            "epochs": {d: _domain_epoch(out, vh, d) for d in vault5.domains(vh)}}


def v5_convert(inputs):
    """§11.10: a vault of version 1-4 converted; the entry nonces are given so the files are fixed."""
    tree = _tree(inputs)
    u, out, payloads = vault5.convert(tree, H(inputs["vault_key"]), inputs["tree_id"],
                                      {p: H(n) for p, n in inputs["entry_nonces"].items()},
                                      {s: H(k) for s, k in inputs.get("closed_scope_keys", {}).items()})
    return {"replica": u, "payloads": payloads,
            "tree": {p: out[p].decode() for p in sorted(out, key=lambda p: p.encode())}}


def accept(inputs):
    """Spec/AUTH.md §5."""
    return accept_tip(inputs["tip"], inputs["vault"], inputs["keys"], inputs.get("opened", {}), inputs["trust"],
                      inputs["local"])


TESTS = {"v5-header": v5_header, "v5-scope": v5_scope, "v5-entry": v5_entry, "v5-edit": v5_edit,
         "v5-state": v5_state, "v5-rekey": v5_rekey, "v5-convert": v5_convert, "accept": accept}
