"""Three-way merge of a scope header under one scope key (Spec/MERGE.md §14.3)."""
from . import canonical_json as cj
from .errors import fail
from .merge import Record
from .merge_header import pick
from .scopes import ScopeHeader, scope_file


def merge_scope_headers(base, ours, theirs):
    """Returns (header without auth, records); raises FormatError("malformed") for another scope or folder."""
    for other in [theirs] + ([base] if base is not None else []):
        if (other.vault_id, other.scope_id, other.folder) != (ours.vault_id, ours.scope_id, ours.folder):
            fail("malformed", "the scope header names another scope or folder on the other side")
    o, t = ours.serialize(), theirs.serialize()
    if o == t:
        return ours, []
    if base is not None:
        bb = base.serialize()
        if bb == o:
            return theirs, []
        if bb == t:
            return ours, []
    path = scope_file(ours.scope_id)

    def slots(h):
        return {s.id: cj.dumps(s.to_json()) for s in (h.recipients if h else [])}

    bs, os_, ts = slots(base), slots(ours), slots(theirs)
    by_bytes = {cj.dumps(s.to_json()): s for s in ours.recipients + theirs.recipients}
    chosen = []
    for slot_id in sorted(set(os_) | set(ts), key=lambda i: i.encode()):
        c = pick(bs.get(slot_id), os_.get(slot_id), ts.get(slot_id))
        if c is not None:
            chosen.append(c)
    recipients = []
    for c in sorted(chosen, reverse=True):   # of two with one name or key, the greater bytes stay
        s = by_bytes[c]
        if not any(r.name == s.name or r.public_key == s.public_key for r in recipients):
            recipients.append(s)
    recipients.sort(key=lambda s: s.id.encode())

    def vault_bytes(h):
        return None if h is None or h.vault_slot is None else cj.dumps(h.vault_slot.to_json())

    vault = pick(vault_bytes(base), vault_bytes(ours), vault_bytes(theirs))
    vault_slot = None
    for h in (ours, theirs):
        if vault is not None and vault_bytes(h) == vault:
            vault_slot = h.vault_slot

    def others(h):
        return [cj.dumps(s) for s in (h.other_slots if h else [])]

    bo, oo, to = others(base), others(ours), others(theirs)
    raw = {cj.dumps(s): s for s in ours.other_slots + theirs.other_slots}
    kept = [s for s in sorted(set(oo) | set(to)) if (s in oo and s in to) or s not in bo]

    unknown = {}
    bu = base.unknown if base else {}
    for name in sorted(set(bu) | set(ours.unknown) | set(theirs.unknown), key=lambda n: n.encode()):
        def enc(d):
            return None if name not in d else cj.dumps(d[name])
        c = pick(enc(bu), enc(ours.unknown), enc(theirs.unknown))
        if c is not None:
            unknown[name] = cj.loads(c)

    if not recipients and vault_slot is None:
        return (ours if o > t else theirs), [Record(ours.scope_id, path, "header-conflict")]
    merged = ScopeHeader(ours.vault_id, ours.scope_id, ours.folder, recipients, vault_slot, [raw[s] for s in kept], unknown,
                         max(ours.generation, theirs.generation) + 1, None,
                         theirs.rekey_proof if theirs.rekey_proof is not None else ours.rekey_proof)
    return merged, [Record(ours.scope_id, path, "key-slots-merged")]
