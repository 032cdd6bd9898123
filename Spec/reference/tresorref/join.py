"""The join of Spec/MERGE.md version 2: one entry (§5), a state's entries (§4.2, §6) and the records of §9. Pure
functions over payloads as JSON values; nothing here reads a clock, a file or a random number."""
import unicodedata

from . import canonical_json as cj
from .clock import covers, parse_clock, parse_dot, dot_key, clock_json, at_most, join as join_clocks
from .entry5 import normalize_history, normalized, strip_unknown
from .paths import collision_key, is_entry_path

RECORD_MEMBERS = ("entryID", "path", "field", "kind", "losingPath", "newPath",
                  "winnerOrigin", "winnerModified", "loserOrigin", "loserModified")


def record(entry_id, path, kind, field=None, **members):
    """A record of §9 (the members of version 1 of MERGE.md, `null` where not applicable; no sentence for people)."""
    r = dict.fromkeys(RECORD_MEMBERS)
    r.update(entryID=entry_id, path=path, kind=kind, field=field, **members)
    assert set(r) == set(RECORD_MEMBERS), members
    return r


def b(s):
    return s.encode("utf-8")


def canon(v):
    return cj.dumps(v)


WRITE_MEMBERS = ("value", "modified", "origin", "dot")


def write_bytes(w):
    """§3: two writes are the same when the canonical bytes of {value, modified, origin, dot} are equal."""
    return canon({k: w[k] for k in WRITE_MEMBERS})


def write_key(w):
    """§3 write order: later modified, bytewise greater origin, greater canonical value bytes, greater dot; the whole
    object's canonical bytes last (two writes that are the same but differ in unknown members)."""
    return (w["modified"].encode(), b(w["origin"]), canon(w["value"]), dot_key(parse_dot(w["dot"])), canon(w))


def live_writes(a, b_, clock_a, clock_b):
    """§5.1: the live writes of one register (a = A's write, b_ = B's, each possibly None)."""
    if a is not None and b_ is not None and write_bytes(a) == write_bytes(b_):
        return [max(a, b_, key=canon)]
    live = []
    if a is not None and not covers(clock_b, parse_dot(a["dot"])):
        live.append(a)
    if b_ is not None and not covers(clock_a, parse_dot(b_["dot"])):
        live.append(b_)
    if len(live) == 2 and all(live[0][k] == live[1][k] for k in ("modified", "origin")) \
            and canon(live[0]["value"]) == canon(live[1]["value"]):
        live = [max(live, key=lambda w: dot_key(parse_dot(w["dot"])))]
    return live


def nfc(name):
    return unicodedata.normalize("NFC", name)


def field_registers(fa, fb):
    """§5.2: the field registers of two `fields` objects as (name in the result, A's spelling, B's spelling), a
    spelling None where that side has no such field. Canonically equivalent names (FORMAT §1.3) are one register, named
    by the bytewise smallest of the spellings the two sides use; in bytewise order of that name."""
    groups = {}
    for side, names in ((0, fa), (1, fb)):
        for n in names:
            groups.setdefault(nfc(n), [None, None])[side] = n
    out = [(min((n for n in g if n is not None), key=b), g[0], g[1]) for g in groups.values()]
    return sorted(out, key=lambda r: b(r[0]))


def path_write(payload):
    m = payload["moved"]
    w = dict(m)
    w["value"] = payload["path"]
    return w


def join_entry(id, A, B):
    """§5: the join of two versions of entry `id` (payloads). Returns (payload, records)."""
    if canon(A) == canon(B):
        return normalized(A), []
    A, B = strip_unknown(normalized(A)), strip_unknown(normalized(B))
    clock_a, clock_b = parse_clock(A["clock"]), parse_clock(B["clock"])
    records = []

    # §5.3 path
    pa, pb = path_write(A), path_write(B)
    if parse_dot(pa["dot"]) == parse_dot(pb["dot"]) and pa["value"] != pb["value"]:
        winner = max(pa, pb, key=lambda w: b(w["value"]))
        path_record = None
    else:
        live = live_writes(pa, pb, clock_a, clock_b)
        if not live:
            live = [max(pa, pb, key=write_key)]
        winner = max(live, key=write_key)
        path_record = None
        if len(live) == 2:
            loser = min(live, key=write_key)
            if loser["value"] != winner["value"]:
                path_record = (winner, loser)
    path = winner["value"]
    moved = {k: v for k, v in winner.items() if k != "value"}
    if path_record:
        w, l = path_record
        records.append(record(id, path, "rename-conflict", losingPath=l["value"], winnerOrigin=w["origin"],
                              winnerModified=w["modified"], loserOrigin=l["origin"], loserModified=l["modified"]))

    # §5.2 fields: canonically equivalent names are one register, named by the bytewise smallest spelling of the two
    # sides; registers in bytewise order of that name
    fields, losers = {}, []
    for name, na, nb in field_registers(A["fields"], B["fields"]):
        fa = A["fields"][na] if na is not None else None
        fb = B["fields"][nb] if nb is not None else None
        live = live_writes(fa, fb, clock_a, clock_b)
        if not live:
            continue
        if len(live) == 1:
            w = live[0]
            fields[name] = w
            other, other_name = (B, nb) if w is fa else (A, na)
            if other_name is None and any(
                    nfc(h["field"]) == nfc(name) and h["reason"] == "delete" for h in other["history"]):
                records.append(record(id, path, "field-delete-kept-edit", name, winnerOrigin=w["origin"],
                                      winnerModified=w["modified"]))
            continue
        winner = max(live, key=write_key)
        loser = min(live, key=write_key)
        fields[name] = winner
        if canon(winner["value"]) != canon(loser["value"]):
            losers.append({"field": na if loser is fa else nb, "value": loser["value"], "modified": loser["modified"],
                           "origin": loser["origin"], "dot": loser["dot"], "replaced": winner["modified"],
                           "reason": "merge"})
            records.append(record(id, path, "field-conflict", name, winnerOrigin=winner["origin"],
                                  winnerModified=winner["modified"], loserOrigin=loser["origin"],
                                  loserModified=loser["modified"]))

    # §5.4 history, clock, times, unknown members
    history = normalize_history(list(A["history"]) + list(B["history"]) + losers)
    clock = join_clocks(clock_a, clock_b)
    created = min(A["created"], B["created"])
    modified = max([A["modified"], B["modified"], moved["modified"]] + [f["modified"] for f in fields.values()])
    known = ("path", "created", "modified", "fields", "history", "clock", "moved")
    unknown = {}
    for name in sorted((set(A) | set(B)) - set(known), key=b):
        if name in A and name in B and canon(A[name]) != canon(B[name]):
            unknown[name] = max(A[name], B[name], key=canon)
            records.append(record(id, path, "unknown-member-conflict", name))
        else:
            unknown[name] = A[name] if name in A else B[name]
    payload = dict(unknown)
    payload.update({"path": path, "created": created, "modified": modified, "fields": fields, "history": history,
                    "clock": clock_json(clock), "moved": moved})
    # records within an entry: path, then fields by name, then unknown members (built in that order)
    return normalized(payload), records


# ---- a state's entries (§4.2, §6) ----

def join_entries(A, B):
    """§4.2 and §6 for the entries of one domain the merger reads: A and B are (domain clock, {id: payload}).
    Returns ({id: payload}, records)."""
    (clock_a, ea), (clock_b, eb) = A, B
    result, records = {}, []
    for id in sorted(set(ea) | set(eb), key=b):
        if id in ea and id in eb:
            payload, recs = join_entry(id, ea[id], eb[id])
            result[id] = payload
            records.extend(recs)
        else:
            payload, other_clock = (ea[id], clock_b) if id in ea else (eb[id], clock_a)
            if not at_most(parse_clock(payload["clock"]), other_clock):
                result[id] = normalized(payload)
                records.extend(kept_edit_record(id, result[id], other_clock))
    records.extend(separate_collisions(result))
    return result, records


def kept_edit_record(id, payload, other_clock):
    """§4.2: an entry kept from one side whose other side's clock covers some dot of it (that side had seen part of it
    and deleted it while this side changed it) is reported."""
    dots = [payload["moved"]["dot"]] + [f["dot"] for f in payload["fields"].values()] + [h["dot"] for h in payload["history"]]
    if any(covers(other_clock, parse_dot(d)) for d in dots):
        return [record(id, payload["path"], "edit-delete-kept-edit")]
    return []


def separate_collisions(entries):
    """§6: groups by collision key in bytewise order; within a group by bytewise id the first keeps its path; each
    following one gets the first free `<path>.conflict-<id8>[-k]`. Only `path` changes. Changes `entries` in place."""
    groups = {}
    for id, p in entries.items():
        groups.setdefault(collision_key(p["path"]), []).append(id)
    used = {b(k) for k in groups}
    records = []
    for ck in sorted(groups, key=b):
        for id in sorted(groups[ck], key=b)[1:]:
            old = entries[id]["path"]
            new = free_path(id, old, used)
            used.add(b(collision_key(new)))
            records.append(record(id, old, "path-collision-renamed", newPath=new))
            entries[id]["path"] = new
    return records


def free_path(id, path, used):
    """§6: `<path>.conflict-<id8>`, then `-2`, `-3`, …, the last component shortened from its end (keeping at least
    one character) when too long; if nothing fits, `conflict-<id8>` (and its `-k`) at the top level."""
    id8 = id[:8]
    n = 1
    while True:
        suffix = ".conflict-" + id8 + ("" if n == 1 else "-%d" % n)
        candidate = conflict_path(path, suffix)
        if candidate is None:
            candidate = suffix[1:]
        candidate = unicodedata.normalize("NFC", candidate)
        if is_entry_path(candidate) and b(collision_key(candidate)) not in used:
            return candidate
        n += 1


def conflict_path(path, suffix):
    folder, _, name = path.rpartition("/")
    while name:
        candidate = (folder + "/" if folder else "") + name + suffix
        if is_entry_path(candidate):
            return candidate
        name = name[:-1]
    return None


# ---- states of several domains (§4) ----

def domain_of(path, scopes):
    """The domain of entry path `path` under a header's scopes (id -> folder): a scope id or "vault"."""
    for sid, folder in scopes.items():
        if path.startswith(folder + "/"):
            return sid
    return "vault"


def join_state(A, B, reads, scopes):
    """§4 for two states. A state: `clocks` (domain -> clock), `scopes` (its header's, id -> folder), `entries`
    ({id: payload} of the domains the merger reads), `unreadIds` (domain -> envelope ids of the domains it does not
    read), `records` (domain -> the state record's text, for §4.4); B is the fetched side. `reads`: the domains the
    merger reads; `scopes`:
    the joined vault header's. Returns (entries {id: payload}, records, clocks of the result's domains)."""
    from .errors import fail
    ca = {d: parse_clock(c) for d, c in A["clocks"].items()}
    cb = {d: parse_clock(c) for d, c in B["clocks"].items()}
    result, records = {}, []
    ea, eb = A["entries"], B["entries"]
    for id in sorted(set(ea) | set(eb), key=b):
        if id in ea and id in eb:
            payload, recs = join_entry(id, ea[id], eb[id])
            result[id] = payload
            records.extend(recs)
            continue
        side, other_clocks, other = (A, cb, B) if id in ea else (B, ca, A)
        payload = normalized(side["entries"][id])
        d = domain_of(payload["path"], side["scopes"])
        if at_most(parse_clock(payload["clock"]), other_clocks.get(d, {})):
            continue
        if domain_of(payload["path"], scopes) not in reads or any(
                id in ids for dd, ids in other.get("unreadIds", {}).items() if dd not in reads):
            fail("domain-conflict", "entry %s lies in or comes from a domain the merger does not read" % id)
        result[id] = payload
        records.extend(kept_edit_record(id, payload, other_clocks.get(d, {})))
    records.extend(separate_collisions(result))
    for id, p in result.items():
        if domain_of(p["path"], scopes) not in reads:
            fail("domain-conflict", "entry %s lies in a domain the merger does not read" % id)
    clocks = {}
    for d in sorted(set(ca) | set(cb), key=b):
        if d != "vault" and d not in scopes:
            continue
        if d in reads:
            # §4.5: the sides' clocks and the clocks of the result's entries that lie in the domain (§2: a domain's clock
            # covers every entry it holds).
            c = join_clocks(ca.get(d, {}), cb.get(d, {}))
            for p in result.values():
                if domain_of(p["path"], scopes) == d:
                    c = join_clocks(c, parse_clock(p["clock"]))
            clocks[d] = clock_json(c)
            continue
        x, y = ca.get(d, {}), cb.get(d, {})
        if x == y and A.get("records", {}).get(d) == B.get("records", {}).get(d):
            clocks[d] = clock_json(x)
        elif at_most(y, x) and x != y:
            clocks[d] = clock_json(x)
        elif at_most(x, y) and x != y:
            clocks[d] = clock_json(y)
        elif x == y:
            clocks[d] = clock_json(y)      # §4.4: equal clocks, different records: B's (the fetched side's) files
        else:
            fail("domain-conflict", "domain %s: concurrent clocks and the merger does not read it" % d)
    return result, records, clocks
