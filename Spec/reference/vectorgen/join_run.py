"""Runs tresorref's join on a case of Spec/MERGE.md version 2 and checks it, in both orders of the sides, against the
result written by hand in join_cases.py."""
from tresorref import canonical_json as cj
from tresorref.clock import parse_clock
from tresorref.entry5 import check_payload, normalized
from tresorref.errors import FormatError
from tresorref.header5 import VaultHeaderV5, ScopeHeaderV2
from tresorref.join import join_entry, join_entries
from tresorref.join_header import join_headers


def canonical(value):
    return cj.dumps(normalized(value)).decode("utf-8")


def check(name, what, computed, by_hand):
    if canonical(computed) != canonical(by_hand):
        raise AssertionError("%s: %s computed\n  %s\nbut the case expects\n  %s"
                             % (name, what, canonical(computed), canonical(by_hand)))


def entry_case(name, description, rule, a, b, expected, resolutions=()):
    """Two versions of one entry (`{"id", "payload"}`); `expected` the joined entry."""
    for side in (a, b, expected):
        check_payload(normalized(side["payload"]))
    results = []
    for x, y in ((a, b), (b, a)):
        assert x["id"] == y["id"]
        payload, records = join_entry(x["id"], normalized(x["payload"]), normalized(y["payload"]))
        results.append({"entry": {"id": x["id"], "payload": payload}, "resolutions": records})
    check(name, "with the sides swapped", results[1], results[0])
    check(name, "result", results[0], {"entry": expected, "resolutions": list(resolutions)})
    return {"description": description, "rule": rule, "a": a, "b": b, "expected": normalized(results[0])}


def state_case(name, description, rule, a, b, expected, resolutions=()):
    """Two states of one domain (`{"clock", "entries"}`); `expected` the joined entries sorted by path."""
    def side(s):
        for e in s["entries"]:
            check_payload(normalized(e["payload"]))
        return parse_clock(normalized(s["clock"])), {e["id"]: normalized(e["payload"]) for e in s["entries"]}
    results = []
    for x, y in ((a, b), (b, a)):
        entries, records = join_entries(side(x), side(y))
        listed = [{"id": id, "payload": p} for id, p in entries.items()]
        listed.sort(key=lambda e: e["payload"]["path"].encode("utf-8"))
        results.append({"entries": listed, "resolutions": records})
    check(name, "with the sides swapped", results[1], results[0])
    check(name, "result", results[0], {"entries": expected, "resolutions": list(resolutions)})
    return {"description": description, "rule": rule, "a": a, "b": b, "expected": normalized(results[0])}


def header_case(name, description, rule, a, b, expected=None, resolutions=(), error=None, scope=False, keys=None):
    """Two headers (JSON objects, each a valid file); `expected` the joined header without `auth`, or `error`.
    `keys`: the inputs sealing or wrapping slots of the older epoch again (`new_key`, `ephemeral_secrets`)."""
    cls = ScopeHeaderV2 if scope else VaultHeaderV5
    parse = lambda h: cls.parse(cj.file_bytes(normalized(h)))  # noqa: E731
    k = {}
    if keys:
        k = {"new_key": bytes.fromhex(keys["new_key"]),
             "ephemeral_secrets": [bytes.fromhex(e) for e in keys.get("ephemeral_secrets", [])]}
    results = []
    for x, y in ((a, b), (b, a)):
        try:
            merged, records = join_headers(parse(x), parse(y), **k)
            results.append({"header": merged, "resolutions": records})
        except FormatError as e:
            results.append({"error": e.kind})
    check(name, "with the sides swapped", results[1], results[0])
    by_hand = {"error": error} if error else {"header": expected, "resolutions": list(resolutions)}
    check(name, "result", results[0], by_hand)
    v = {"description": description, "rule": rule, "header": True, "a": a, "b": b}
    if scope:
        v["scopeHeader"] = True
    if keys:
        v["keys"] = keys
    if "error" in results[0]:
        v["error"] = results[0]["error"]
    else:
        v["expected"] = normalized(results[0])
    return v


def domains_case(name, description, rule, reads, scopes, a, b, expected=None, resolutions=(), clocks=None, error=None):
    """Two states of several domains: each `{"clocks", "scopes", "entries", optional "unreadIds", "records"}`;
    `reads` the domains the merger reads, `scopes` the joined header's. `expected` the joined entries by path and the
    result's domain `clocks`, or `error`."""
    from tresorref.join import join_state

    def side(s):
        for e in s["entries"]:
            check_payload(normalized(e["payload"]))
        out = dict(normalized(s))
        out["entries"] = {e["id"]: normalized(e["payload"]) for e in s["entries"]}
        return out
    results = []
    for x, y in ((a, b), (b, a)):
        try:
            entries, records, cl = join_state(side(x), side(y), reads, scopes)
            listed = [{"id": id, "payload": p} for id, p in entries.items()]
            listed.sort(key=lambda e: e["payload"]["path"].encode("utf-8"))
            results.append({"entries": listed, "resolutions": records, "clocks": cl})
        except FormatError as e:
            results.append({"error": e.kind})
    check(name, "with the sides swapped", results[1], results[0])
    by_hand = {"error": error} if error else {"entries": expected, "resolutions": list(resolutions), "clocks": clocks}
    check(name, "result", results[0], by_hand)
    v = {"description": description, "rule": rule, "domains": True, "reads": reads, "scopes": scopes, "a": a, "b": b}
    v.update({"error": results[0]["error"]} if "error" in results[0] else {"expected": normalized(results[0])})
    return v
