"""Three-way merge of the vault header (Spec/MERGE.md §10)."""
from . import canonical_json as cj
from .errors import fail
from .header import HEADER_PATH
from .merge import Record, lookup, three_way, union_names


def pick(base, ours, theirs):
    """§7's rule on canonical byte strings: unchanged on one side takes the other; a change beats a
    removal; two different changes keep the greater bytes."""
    decided, value = three_way(base, ours, theirs, lambda x, y: x == y)
    if decided:
        return value
    if ours is None or theirs is None:
        return ours if theirs is None else theirs
    return max(ours, theirs)


def merge_headers(base, ours, theirs):
    """Returns (header, records); raises FormatError("different-vault")."""
    for other in [theirs] + ([base] if base is not None else []):
        if other.vault_id != ours.vault_id:
            fail("different-vault", "%s and %s" % (ours.vault_id, other.vault_id))
    o, t = ours.serialize(), theirs.serialize()
    if o == t:
        return ours, []
    if base is not None:
        bb = base.serialize()
        if bb == o:
            return theirs, []
        if bb == t:
            return ours, []

    def slots(h):
        return {s.id: cj.dumps(s.to_json()) for s in (h.slots if h else [])}

    bs, os_, ts = slots(base), slots(ours), slots(theirs)
    by_bytes = {cj.dumps(s.to_json()): s for s in ours.slots + theirs.slots}
    merged_slots = []
    for slot_id in sorted(set(os_) | set(ts), key=lambda i: i.encode()):
        chosen = pick(bs.get(slot_id), os_.get(slot_id), ts.get(slot_id))
        if chosen is not None:
            merged_slots.append(by_bytes[chosen])

    def others(h):
        return [cj.dumps(s) for s in (h.other_slots if h else [])]

    bo, oo, to = others(base), others(ours), others(theirs)
    raw = {cj.dumps(s): s for s in ours.other_slots + theirs.other_slots}
    kept = [s for s in sorted(set(oo) | set(to)) if (s in oo and s in to) or s not in bo]

    unknown = {}
    bu = base.unknown if base else {}
    for name in union_names(bu, ours.unknown, theirs.unknown):
        def enc(d):
            v = lookup(d, name)
            return None if v is None else cj.dumps(v)
        chosen = pick(enc(bu), enc(ours.unknown), enc(theirs.unknown))
        if chosen is not None:
            unknown[name] = cj.loads(chosen)

    merged = type(ours)(ours.vault_id, merged_slots, [raw[s] for s in kept], unknown)
    if merged.slots:
        return merged, [Record(ours.vault_id, HEADER_PATH, "key-slots-merged")]
    winner = ours if o > t else theirs
    return winner, [Record(ours.vault_id, HEADER_PATH, "header-conflict")]
