"""Three-way merge of decrypted vault states, and the records it reports (Spec/MERGE.md §2-§9)."""
import unicodedata

from . import canonical_json as cj
from .entry import Entry, Field, HistoryItem, normalized_history, value_bytes
from .paths import collision_key, is_entry_path

RECORD_MEMBERS = ("entryID", "path", "field", "kind", "losingPath", "newPath",
                  "winnerOrigin", "winnerModified", "loserOrigin", "loserModified")


class Record:
    """One automatic decision (§8), without its sentence for people."""

    def __init__(self, entry_id, path, kind, field=None, **members):
        self.members = dict.fromkeys(RECORD_MEMBERS)
        self.members.update(entryID=entry_id, path=path, kind=kind, field=field, **members)
        assert set(self.members) == set(RECORD_MEMBERS), members

    def to_json(self):
        return dict(self.members)


def b(s):
    return s.encode("utf-8")


def union_names(*dicts):
    """§4: the names of all sides; canonically equivalent spellings are one name, the bytewise smallest."""
    spellings = {}
    for d in dicts:
        for name in d:
            key = unicodedata.normalize("NFC", name)
            if key not in spellings or b(name) < b(spellings[key]):
                spellings[key] = name
    return sorted(spellings.values(), key=b)


def lookup(d, name):
    key = unicodedata.normalize("NFC", name)
    for n, v in d.items():
        if unicodedata.normalize("NFC", n) == key:
            return v
    return None


def three_way(base, ours, theirs, same):
    """§4 steps 1-3 and §7: (decided, value) or (False, None) when both sides changed differently."""
    if same(ours, theirs):
        return True, ours
    if same(ours, base):
        return True, theirs
    if same(theirs, base):
        return True, ours
    return False, None


def same_field(x, y):
    if x is None or y is None:
        return x is None and y is None
    return x.same(y)


def same_json(x, y):
    if x is None or y is None:
        return x is None and y is None
    return cj.dumps(x) == cj.dumps(y)


def write_key(f):
    """§2.1: modified, then origin bytes, then canonical value bytes; greater wins."""
    return (f.modified.encode(), b(f.origin), value_bytes(f.value))


def merge_entry(base, ours, theirs):
    """§3.2 for one id. Returns (entry or None, records)."""
    if ours is None and theirs is None:
        if base is None:
            return None, []
        return None, [Record(base.id, base.path, "delete-both")]
    if ours is None or theirs is None:
        kept = ours or theirs
        if base is None:
            return kept, []
        if kept.same(base):
            return None, []
        return kept, [Record(kept.id, kept.path, "edit-delete-kept-edit")]
    if ours.same(theirs):
        return ours, []
    if base is not None and ours.same(base):
        return theirs, []
    if base is not None and theirs.same(base):
        return ours, []
    return merge_changed(base or Entry(ours.id, None, None, None), ours, theirs)


def merge_changed(base, ours, theirs):
    """§4-§7 for an entry changed on both sides (an absent base is the empty entry)."""
    records = []
    path = merge_path(base, ours, theirs, records)
    fields, losers = {}, []
    for name in union_names(base.fields, ours.fields, theirs.fields):
        bf, of, tf = lookup(base.fields, name), lookup(ours.fields, name), lookup(theirs.fields, name)
        decided, picked = three_way(bf, of, tf, same_field)
        if not decided:
            if of is None or tf is None:
                picked = of or tf
                records.append(Record(ours.id, path, "field-delete-kept-edit", name,
                                      winnerOrigin=picked.origin, winnerModified=picked.modified))
            else:
                winner, loser = (of, tf) if write_key(of) > write_key(tf) else (tf, of)
                picked = winner
                if value_bytes(of.value) != value_bytes(tf.value):
                    losers.append(HistoryItem(name, loser.value, loser.modified, loser.origin, winner.modified, "merge"))
                    records.append(Record(ours.id, path, "field-conflict", name,
                                          winnerOrigin=winner.origin, winnerModified=winner.modified,
                                          loserOrigin=loser.origin, loserModified=loser.modified))
        if picked is not None:
            fields[name] = Field(picked.value, picked.modified, picked.origin)
    history = normalized_history(dedupe(base.history + ours.history + theirs.history + losers))
    unknown = {}
    for name in union_names(base.unknown, ours.unknown, theirs.unknown):
        bv, ov, tv = lookup(base.unknown, name), lookup(ours.unknown, name), lookup(theirs.unknown, name)
        decided, picked = three_way(bv, ov, tv, same_json)
        if not decided:
            if ov is None or tv is None:
                picked = ov if tv is None else tv
            else:
                picked = ov if cj.dumps(ov) > cj.dumps(tv) else tv
            records.append(Record(ours.id, path, "unknown-member-conflict", name))
        if picked is not None:
            unknown[name] = picked
    modified = max([ours.modified, theirs.modified] + [f.modified for f in fields.values()])
    return Entry(ours.id, path, min(ours.created, theirs.created), modified, fields, history, unknown), records


def dedupe(items):
    seen, out = set(), []
    for item in items:
        key = cj.dumps(item.to_json())
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def merge_path(base, ours, theirs, records):
    """§5.1: the path merges like a field; two different moves: later entry `modified`, then greater path."""
    o, t = ours.path, theirs.path
    if o == t:
        return o
    if base.path is not None and base.path == o:
        return t
    if base.path is not None and base.path == t:
        return o
    if ours.modified != theirs.modified:
        ours_wins = ours.modified > theirs.modified
    else:
        ours_wins = b(o) > b(t)
    winner, loser = (ours, theirs) if ours_wins else (theirs, ours)
    records.append(Record(ours.id, winner.path, "rename-conflict", losingPath=loser.path,
                          winnerModified=winner.modified, loserModified=loser.modified))
    return winner.path


def merge_vault(base, ours, theirs, deleted=((), ())):
    """§3 and §9: three lists of entries, and for each side the versions of §3.2.1 that entries had just
    before that side deleted them. Returns (entries sorted by path bytes, records in §8 order)."""
    ambiguous = set()
    for state in (base, ours, theirs):
        ids = [e.id for e in state]
        ambiguous |= {i for i in ids if ids.count(i) > 1}

    def key(e):
        return (b(e.id), b(e.path) if e.id in ambiguous else b"")

    def index(state):
        out = {}
        for e in state:
            out.setdefault(key(e), e)
        return out

    bi, oi, ti = index(base), index(ours), index(theirs)
    revived = revive(oi, deleted[0], bi, ti) | revive(ti, deleted[1], bi, oi)
    merged, records = [], []
    for k in sorted(set(bi) | set(oi) | set(ti)):
        entry, r = merge_entry(bi.get(k), oi.get(k), ti.get(k))
        records += r
        if entry is not None:
            merged.append(entry)
            if k in revived:
                records.append(Record(entry.id, entry.path, "edit-delete-kept-edit"))
    records += separate_collisions(merged)
    merged.sort(key=lambda e: b(e.path))
    return merged, records


def revive(side, deleted, base, other):
    """§3.2.1: an entry `side` deleted while `other` changed it is replaced on `side` by its deleted versions
    that differ from the base, ordered by payload bytes and folded with §3-§7 against the base."""
    revived = set()
    for k, b_entry in base.items():
        if k in side or k not in other or other[k].same(b_entry):
            continue
        versions = {}
        for v in deleted:
            if v.id == b_entry.id and not v.same(b_entry):
                versions.setdefault(v.payload_bytes(), v)
        if not versions:
            continue
        ordered = [versions[p] for p in sorted(versions)]
        folded = ordered[0]
        for v in ordered[1:]:
            folded = merge_entry(b_entry, folded, v)[0] or folded
        side[k] = folded
        revived.add(k)
    return revived


def separate_collisions(entries):
    """§9: within each group of colliding paths the first (by id, path, payload bytes) keeps its path."""
    groups = {}
    for e in entries:
        groups.setdefault(collision_key(e.path), []).append(e)
    used = {b(k) for k in groups}
    records = []
    for ck in sorted(groups, key=b):
        members = sorted(groups[ck], key=lambda e: (b(e.id), b(e.path), e.payload_bytes()))
        for e in members[1:]:
            new = free_path(e, used)
            used.add(b(collision_key(new)))
            records.append(Record(e.id, e.path, "path-collision-renamed", newPath=new))
            e.path = new
    return records


def free_path(entry, used):
    id8 = entry.id[:8]
    n = 1
    while True:
        suffix = "" if n == 1 else "-%d" % n
        for candidate in (conflict_path(entry.path, ".conflict-" + id8 + suffix),
                          "conflict-" + id8 + suffix, "conflict-%d" % n):
            if candidate is not None and is_entry_path(candidate):
                break
        else:
            candidate = None
        if candidate is not None:
            candidate = unicodedata.normalize("NFC", candidate)
            if b(collision_key(candidate)) not in used:
                return candidate
        n += 1


def conflict_path(path, suffix):
    """`<path><suffix>`, the last component shortened by whole code points until the path is valid."""
    folder, _, name = path.rpartition("/")
    while name:
        candidate = (folder + "/" if folder else "") + name + suffix
        if is_entry_path(candidate):
            return candidate
        name = name[:-1]
    return None
