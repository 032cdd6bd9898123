"""Runs tresorref's merge on a case and checks it against the result written by hand (MERGE.md §12)."""
from tresorref import canonical_json as cj
from tresorref.entry import Entry
from tresorref.errors import FormatError
from tresorref.header import parse_header_json
from tresorref.merge import merge_vault
from tresorref.merge_header import merge_headers


def record_json(r):
    return r.to_json()


def entries(state):
    return [Entry.from_payload(e["id"], cj.loads(cj.dumps(e["payload"]))) for e in state]


def canonical(value):
    return cj.dumps(value).decode("utf-8")


def check(name, what, computed, by_hand):
    if canonical(computed) != canonical(by_hand):
        raise AssertionError("%s: %s computed\n  %s\nbut the case expects\n  %s"
                             % (name, what, canonical(computed), canonical(by_hand)))


def entries_vector(name, description, rule, base, ours, theirs, expected, resolutions, deleted_ours=None,
                   deleted_theirs=None):
    """A vector over entry states; `expected` and `resolutions` are the hand-written result. `deleted_ours`
    and `deleted_theirs` are the deleted versions of MERGE.md §3.2.1, swapped with the sides."""
    results = []
    for o, t, do, dt in ((ours, theirs, deleted_ours, deleted_theirs), (theirs, ours, deleted_theirs, deleted_ours)):
        merged, records = merge_vault(entries(base), entries(o), entries(t), (entries(do or []), entries(dt or [])))
        results.append(([{"id": e.id, "payload": e.payload()} for e in merged], [record_json(r) for r in records]))
    (merged, records), swapped = results
    check(name, "with the sides swapped", swapped, results[0])
    check(name, "entries", merged, expected)
    check(name, "records", records, list(resolutions))
    v = {"description": description, "rule": rule, "base": base, "ours": ours, "theirs": theirs,
         "expected": merged, "resolutions": records}
    if deleted_ours is not None:
        v["deletedOurs"] = deleted_ours
    if deleted_theirs is not None:
        v["deletedTheirs"] = deleted_theirs
    return v


def header_vector(name, description, base, ours, theirs, expected, resolutions, error):
    """A vector over headers (MERGE.md §10): headers as JSON objects, base may be None."""
    def parse(h):
        return None if h is None else parse_header_json(cj.loads(cj.dumps(h)))

    v = {"description": description, "rule": "MERGE.md §10", "header": True, "base": base, "ours": ours,
         "theirs": theirs}
    results = []
    for o, t in ((ours, theirs), (theirs, ours)):
        try:
            merged, records = merge_headers(parse(base), parse(o), parse(t))
            results.append({"expected": merged.to_json(), "resolutions": [record_json(r) for r in records]})
        except FormatError as e:
            results.append({"error": e.kind})
    check(name, "with the sides swapped", results[1], results[0])
    by_hand = {"error": error} if error else {"expected": expected, "resolutions": list(resolutions)}
    check(name, "result", results[0], by_hand)
    v.update(results[0])
    return v


def scope_header_vector(name, description, base, ours, theirs, expected, resolutions, error):
    """A vector over scope headers (MERGE.md §14.3): headers as JSON objects, base may be None; `expected` has no
    `auth` when the result is neither side's (the merger writes it under the scope key)."""
    from tresorref.merge_scope import merge_scope_headers
    from tresorref.scopes import ScopeHeader

    def parse(h):
        return None if h is None else ScopeHeader.parse(cj.file_bytes(h))

    v = {"description": description, "rule": "MERGE.md §14.3", "scopeHeader": True, "base": base, "ours": ours,
         "theirs": theirs}
    results = []
    for o, t in ((ours, theirs), (theirs, ours)):
        try:
            merged, records = merge_scope_headers(parse(base), parse(o), parse(t))
            results.append({"expected": merged.to_json(), "resolutions": [record_json(r) for r in records]})
        except FormatError as e:
            results.append({"error": e.kind})
    check(name, "with the sides swapped", results[1], results[0])
    by_hand = {"error": error} if error else {"expected": expected, "resolutions": list(resolutions)}
    check(name, "result", results[0], by_hand)
    v.update(results[0])
    return v
