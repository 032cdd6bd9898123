"""The header join of Spec/MERGE.md version 2 §8: vault headers version 5 and scope headers version 2, by their own
clocks. The result is the joined header object without `auth` (the merger tags it under the result's key, step 8)."""
from . import canonical_json as cj
from .clock import covers, parse_clock, parse_dot, dot_key, clock_json, join as join_clocks
from .errors import fail
from .header5 import VaultHeaderV5
from .join import record, b, canon
from .recipients import RecipientSlot, parse_key_text
from .scopes import ScopeRecipientSlot, scope_file
from .state import VAULT_HEADER


def _dot(obj):
    return parse_dot(obj["dot"])


def _without_dot(obj):
    return canon({k: v for k, v in obj.items() if k != "dot"})


def live(a, b_, clock_a, clock_b, newer=None):
    """§5.1 with the slot (or scope value) object as the write. For slots (`newer` given: "a", "b" or "" when both
    sides are under one key), two slots with one id and one dot are one write, sealed or wrapped under two keys (§8
    step 3): the newer epoch's side's, else the greater canonical bytes."""
    if a is not None and b_ is not None and canon(a) == canon(b_):
        return [a]
    if newer is not None and a is not None and b_ is not None and _dot(a) == _dot(b_):
        if newer:
            return [a if newer == "a" else b_]
        return [max(a, b_, key=canon)]
    out = []
    if a is not None and not covers(clock_b, _dot(a)):
        out.append(a)
    if b_ is not None and not covers(clock_a, _dot(b_)):
        out.append(b_)
    if len(out) == 2 and _without_dot(out[0]) == _without_dot(out[1]):
        out = [max(out, key=lambda s: dot_key(_dot(s)))]
    return out


def join_headers(A, B, new_key=None, ephemeral_secrets=(), vault_key=None, vault_slot_nonce=None):
    """§8 on two parsed headers of one kind. `new_key`: the result's key, needed only when a slot of the older epoch's
    side is sealed or wrapped again (step 3): one ephemeral secret per recipient slot in bytewise slot id order, and
    for a scope's vault slot the vault key and a nonce. Returns (header object without auth, records)."""
    scope = not isinstance(A, VaultHeaderV5)
    path = scope_file(A.scope_id) if scope else VAULT_HEADER
    rid = A.scope_id if scope else A.vault_id
    if A.serialize() == B.serialize():
        return {k: v for k, v in A.obj.items() if k != "auth"}, []
    if A.vault_id != B.vault_id:
        fail("different-vault", "%s and %s" % (A.vault_id, B.vault_id))
    if scope and (A.scope_id != B.scope_id or A.folder != B.folder):
        fail("malformed", "two scope headers of different scopes or folders")
    records = []
    clock_a, clock_b = A.clock, B.clock
    if A.epoch != B.epoch:
        newer, older = (A, B) if A.epoch > B.epoch else (B, A)
    else:
        newer = older = None
    newer_side = "" if newer is None else ("a" if newer is A else "b")

    def older_side(slot_obj):
        return older is not None and any(slot_obj is s for _, _, s in slots_of(older))

    def slots_of(h):
        return h.recipients if scope else h.passphrase + h.recipients

    # step 3: passphrase and recipient slots by id
    by_id_a = {s["id"]: s for _, _, s in slots_of(A)}
    by_id_b = {s["id"]: s for _, _, s in slots_of(B)}
    chosen = []
    for sid in sorted(set(by_id_a) | set(by_id_b), key=b):
        lv = live(by_id_a.get(sid), by_id_b.get(sid), clock_a, clock_b, newer_side)
        if lv:
            chosen.append(max(lv, key=canon))
    # of two live recipient slots with one name or one public key, the greater canonical bytes
    kept_recipients, names, keys = [], set(), set()
    for s in sorted((s for s in chosen if s["type"] == "recipient"), key=canon, reverse=True):
        if s["name"] in names or s["publicKey"] in keys:
            continue
        names.add(s["name"])
        keys.add(s["publicKey"])
        kept_recipients.append(s)
    passphrase = [s for s in chosen if s["type"] == "passphrase"]
    # older epoch: recipient slots sealed again to the newer key, passphrase slots dropped
    resealed, pass_kept = [], []
    secrets = list(ephemeral_secrets)
    recipients_out = []
    for s in sorted(kept_recipients, key=lambda s: b(s["id"])):
        if older_side(s):
            if new_key is None:
                fail("malformed", "a recipient slot of the older epoch needs the newer key to be sealed again")
            recipients_out.append(reseal(s, newer, new_key, secrets.pop(0), scope))
        else:
            recipients_out.append(s)
    dropped = []
    for s in sorted(passphrase, key=lambda s: b(s["id"])):
        if older_side(s):
            dropped.append(record(rid, path, "passphrase-slot-dropped"))
        else:
            pass_kept.append(s)
    # the vault slot of a scope: one register; the older epoch's side's is wrapped again under the newer scope key
    vault_slot = None
    if scope:
        va = A.vault_slot[2] if A.vault_slot else None
        vb = B.vault_slot[2] if B.vault_slot else None
        lv = live(va, vb, clock_a, clock_b, newer_side)
        if lv:
            vault_slot = max(lv, key=canon)
            if older_side_vault(vault_slot, older):
                if new_key is None or vault_key is None:
                    fail("malformed", "a vault slot of the older epoch needs the keys to be wrapped again")
                from .scopes import VaultSlot
                rewrapped = VaultSlot.wrap(new_key, vault_key, newer.vault_id, newer.scope_id, vault_slot_nonce).to_json()
                vault_slot = dict(rewrapped, dot=vault_slot["dot"])
    # slots of unknown types: every distinct one of either side, except the older epoch's side's
    unknown_slots = {}
    for h in (A, B):
        if h is not older:
            for s in h.others:
                unknown_slots[canon(s)] = s
    unknown_slots = [unknown_slots[k] for k in sorted(unknown_slots)]
    # step 4: scopes
    result = {}
    if not scope:
        sa, sb = A.obj["scopes"], B.obj["scopes"]
        scopes = {}
        for sid in sorted(set(sa) | set(sb), key=b):
            lv = live(sa.get(sid), sb.get(sid), clock_a, clock_b)
            if lv:
                scopes[sid] = max(lv, key=lambda v: (dot_key(_dot(v)), canon(v)))
        # scopes whose folders nest (made concurrently): kept in order of greater dot, folder, id; one that nests with a
        # scope already kept is left out (its entries lie, by path, in the domain that stays)
        ranked = sorted(scopes, key=lambda sid: (dot_key(_dot(scopes[sid])), b(scopes[sid]["folder"]), b(sid)), reverse=True)
        kept = {}
        for sid in ranked:
            f = scopes[sid]["folder"]
            if any(k["folder"] == f or k["folder"].startswith(f + "/") or f.startswith(k["folder"] + "/") for k in kept.values()):
                continue
            kept[sid] = scopes[sid]
        result["scopes"] = {sid: kept[sid] for sid in sorted(kept, key=b)}
    # step 5: epoch and rekey: the newer side's; equal epochs (one key): the rekey with the greater canonical bytes
    if newer is not None:
        base = newer
    else:
        base = A if "rekey" not in B.obj or ("rekey" in A.obj and canon(A.obj["rekey"]) >= canon(B.obj["rekey"])) \
            else B
    result["epoch"] = base.epoch
    if "rekey" in base.obj:
        result["rekey"] = base.obj["rekey"]
    # step 6: clock and unknown members
    result["clock"] = clock_json(join_clocks(clock_a, clock_b))
    known = ("format", "version", "vault", "keySlots", "scopes", "epoch", "clock", "rekey", "auth", "scope", "folder")
    for name in sorted((set(A.obj) | set(B.obj)) - set(known), key=b):
        if name in A.obj and name in B.obj and canon(A.obj[name]) != canon(B.obj[name]):
            result[name] = max(A.obj[name], B.obj[name], key=canon)
            records.append(record(rid, path, "unknown-member-conflict", name))
        else:
            result[name] = A.obj[name] if name in A.obj else B.obj[name]
    for k in ("format", "version", "vault", "scope", "folder"):
        if k in A.obj:
            result[k] = A.obj[k]
    slots = ([] if scope else pass_kept) + recipients_out + ([vault_slot] if vault_slot else []) + unknown_slots
    result["keySlots"] = slots

    def ids(slot_list):
        return sorted(s["id"] for s in slot_list if s.get("type") in ("passphrase", "recipient"))
    # key-slots-merged: once, when the sorted list of the result's passphrase and recipient slot ids is neither side's
    if ids(slots) != ids(A.obj["keySlots"]) and ids(slots) != ids(B.obj["keySlots"]):
        records.append(record(rid, path, "key-slots-merged"))
    records.extend(dropped)
    # step 7
    if (not scope and not pass_kept) or (scope and not recipients_out and vault_slot is None):
        winner = max(A, B, key=lambda h: h.serialize())
        return {k: v for k, v in winner.obj.items() if k != "auth"}, [record(rid, path, "header-conflict")]
    # §9: key-slots-merged, then passphrase-slot-dropped by slot id (`dropped` is in that order), then
    # unknown-member-conflict by name (built in that order); the sort is stable
    order = ("key-slots-merged", "passphrase-slot-dropped", "unknown-member-conflict")
    records.sort(key=lambda r: order.index(r["kind"]))
    return cj.loads(cj.dumps(result)), records


def older_side_vault(vault_slot, older):
    return older is not None and older.vault_slot is not None and vault_slot is older.vault_slot[2]


def reseal(slot_obj, newer, new_key, ephemeral_secret, scope):
    """§8 step 3: a recipient slot of the older epoch sealed again to the newer key, same id, name and public key, its
    dot and unknown members kept."""
    pk = parse_key_text(slot_obj["publicKey"])
    if scope:
        s = ScopeRecipientSlot.seal_scope(new_key, pk, slot_obj["name"], newer.vault_id, newer.scope_id,
                                          slot_obj["id"], ephemeral_secret)
    else:
        s = RecipientSlot.seal(new_key, pk, slot_obj["name"], newer.vault_id, slot_obj["id"], ephemeral_secret)
    out = dict(slot_obj)
    out["sealedKey"] = s.to_json()["sealedKey"]
    return out
