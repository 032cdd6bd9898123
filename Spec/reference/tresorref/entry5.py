"""Entries of version 5 (Spec/FORMAT.md §11.8): envelope version 2, the payload with a clock, `moved` and a dot on
every field and history item, the history kept one item per value, and the edits with their dots. Payloads are kept
as JSON values (dicts), so that unknown members at every depth stay as they are."""
import unicodedata

from . import canonical_json as cj
from . import primitives
from .clock import covers, parse_clock, parse_dot, dot_json, dot_key, clock_json
from .encoding import b64encode, b64field, decimal, is_id, is_timestamp
from .entry import Entry, HISTORY_LIMIT_PER_FIELD, check_field_name, is_value, shape_ok, LIST_FIELDS
from .envelope import Envelope, EntryFormatV1, MAX_FILE_BYTES
from .errors import fail
from .paths import entry_path


class EntryFormatV2(EntryFormatV1):
    """Envelope version 2 (§11.8): §6.1 with `version` 2, so the additional data begins "tresor-entry" 0x00 "2"."""
    VERSION = 2


ENTRY_FORMATS_V5 = {2: EntryFormatV2}


def parse_envelope_v5(data):
    """§6.2 steps 1 to 7 for a file of a version 5 vault: only envelope version 2 [unsupported-version]."""
    if len(data) > MAX_FILE_BYTES:
        fail("malformed", "file larger than 1 MiB")
    obj = cj.loads(data)
    if not isinstance(obj, dict):
        fail("malformed", "envelope is not an object")
    if "version" not in obj or cj.integer(obj["version"]) is None:
        fail("malformed", "version missing or not an integer")
    version = cj.integer(obj["version"])
    if version not in ENTRY_FORMATS_V5:
        fail("unsupported-version", "entry file version %d in a version 5 vault" % version)
    return EntryFormatV2.parse(obj)


def normalized(value):
    """A JSON value as the reader gives it back (numbers as their literal text)."""
    return cj.loads(cj.dumps(value))


def check_payload(payload):
    """§5.5, then §11.8: clock, moved, a dot on every field and history item, every dot covered by the clock."""
    Entry.from_payload("00000000-0000-4000-8000-000000000000", payload)
    clock = parse_clock(payload.get("clock"))
    moved = payload.get("moved")
    if (not isinstance(moved, dict) or "dot" not in moved or not is_timestamp(moved.get("modified"))
            or not isinstance(moved.get("origin"), str)):
        fail("malformed", "moved is not an object with a dot, a timestamp modified and a string origin")
    dots = [("moved", parse_dot(moved["dot"], "moved.dot"))]
    for name, f in payload["fields"].items():
        if "dot" not in f:
            fail("malformed", "field %r has no dot" % name)
        dots.append(("field " + name, parse_dot(f["dot"], "the dot of field %r" % name)))
    for i, h in enumerate(payload["history"]):
        if "dot" not in h:
            fail("malformed", "history item %d has no dot" % i)
        dots.append(("history item %d" % i, parse_dot(h["dot"], "the dot of history item %d" % i)))
    for what, dot in dots:
        if not covers(clock, dot):
            fail("malformed", "the dot of %s is not covered by the entry's clock" % what)
    return payload


def open_entry_v5(data, key, path):
    """§6.2 for a version 5 entry file of entry path `path` under the domain key `key`: (id, payload value, plaintext)."""
    env = parse_envelope_v5(data)
    plain = EntryFormatV2.open_payload(env, key)
    payload = check_payload(cj.loads(plain))
    if entry_path(payload["path"]) != entry_path(path):
        fail("path-mismatch", "the payload names %r, the file is at %r" % (payload["path"], path))
    return env.id, payload, plain


def seal_entry_v5(id, payload, nonce, key):
    """The file bytes of a version 5 entry sealed under `nonce` with the entry key of `key`."""
    return EntryFormatV2.seal(cj.dumps(payload), id, nonce, key)


# ---- history (§11.8, §5.4) ----

def dot_of(obj):
    return parse_dot(obj["dot"])


def history_key(item):
    """§5.4's canonical order extended by the dot as a last key (§11.8); the item's canonical bytes last, which only
    tells apart items of a payload read as it is (a writer drops their unknown members first)."""
    return (item["replaced"].encode(), item["field"].encode("utf-8"), item["modified"].encode(),
            item["origin"].encode("utf-8"), cj.dumps(item["value"]), item["reason"].encode("utf-8"),
            dot_key(dot_of(item)), cj.dumps(item))


def same_value_key(item):
    """§11.8: two items are the same value when their field, modified, origin and canonical value bytes are equal
    (one write of one value, whatever dot it carries)."""
    return (item["field"].encode("utf-8"), item["modified"].encode(), item["origin"].encode("utf-8"),
            cj.dumps(item["value"]))


def normalize_history(items):
    """One item per value (the greatest), in canonical order, the newest 64 per field (§11.8, §5.4)."""
    best = {}
    for item in items:
        k = same_value_key(item)
        if k not in best or history_key(item) > history_key(best[k]):
            best[k] = item
    ordered = sorted(best.values(), key=history_key)
    counts, keep = {}, []
    for item in reversed(ordered):
        f = item["field"].encode("utf-8")
        counts[f] = counts.get(f, 0) + 1
        if counts[f] <= HISTORY_LIMIT_PER_FIELD:
            keep.append(item)
    return list(reversed(keep))


# ---- edits (§11.8) ----

def field_named(fields, name):
    """The spelling of the field canonically equivalent to `name` (§1.3 allows at most one), or None."""
    key = unicodedata.normalize("NFC", name)
    for n in fields:
        if unicodedata.normalize("NFC", n) == key:
            return n
    return None


FIELD_MEMBERS = ("value", "modified", "origin", "dot")
HISTORY_MEMBERS = ("field", "value", "modified", "origin", "dot", "replaced", "reason")
MOVED_MEMBERS = ("dot", "modified", "origin")


def only(obj, members):
    return {k: obj[k] for k in members if k in obj}


def strip_unknown(payload):
    """§11.8: other members of field objects, history items and `moved` are dropped by a writer that rewrites the
    entry (unknown top-level members stay). Changes `payload` in place."""
    payload["fields"] = {n: only(f, FIELD_MEMBERS) for n, f in payload["fields"].items()}
    payload["history"] = [only(h, HISTORY_MEMBERS) for h in payload["history"]]
    payload["moved"] = only(payload["moved"], MOVED_MEMBERS)
    return payload


def _event(payload, dot, time):
    strip_unknown(payload)
    clock = parse_clock(payload["clock"])
    clock[dot[0]] = dot[1]
    payload["clock"] = clock_json(clock)
    payload["modified"] = max(payload["modified"], time)
    payload["history"] = normalize_history(payload["history"])


def set_field(payload, name, value, time, origin, dot):
    """*Set* (§11.8). Returns True when the entry changed; `payload` is changed in place."""
    check_field_name(name)
    if value is not None and not (is_value(value) and shape_ok(name, value)):
        fail("invalid-field", "field %r must be a %s" % (name, "list" if name in LIST_FIELDS else "text"))
    if value in ("", []):
        value = None
    spelling = field_named(payload["fields"], name)
    old = payload["fields"].get(spelling) if spelling is not None else None
    if (old is None and value is None) or (old is not None and value is not None
                                            and cj.dumps(old["value"]) == cj.dumps(value)):
        return False
    if old is not None:
        payload["history"].append({"field": spelling, "value": old["value"], "modified": old["modified"],
                                   "origin": old["origin"], "dot": old["dot"], "replaced": time,
                                   "reason": "delete" if value is None else "edit"})
        del payload["fields"][spelling]
    if value is not None:
        payload["fields"][name] = {"value": value, "modified": time, "origin": origin, "dot": dot_json(dot)}
    _event(payload, dot, time)
    return True


def move(payload, path, time, origin, dot):
    """*Move* (§11.8). Returns True when the entry changed."""
    new = entry_path(path)
    if new == payload["path"]:
        return False
    payload["path"] = new
    payload["moved"] = {"dot": dot_json(dot), "modified": time, "origin": origin}
    _event(payload, dot, time)
    return True


def create(path, fields, time, origin, dot, unknown=None):
    """*Create* (§11.8): clock {r: n}, `moved` and every field with the event's dot."""
    payload = dict(unknown or {})
    payload.update({"path": entry_path(path), "created": time, "modified": time, "history": [],
                    "clock": clock_json({dot[0]: dot[1]}),
                    "moved": {"dot": dot_json(dot), "modified": time, "origin": origin}, "fields": {}})
    for name, value in fields.items():
        check_field_name(name)
        if not (is_value(value) and shape_ok(name, value)):
            fail("invalid-field", "field %r must be a %s" % (name, "list" if name in LIST_FIELDS else "text"))
        if value not in ("", []):
            payload["fields"][name] = {"value": value, "modified": time, "origin": origin, "dot": dot_json(dot)}
    return normalized(payload)


def restore(payload, dot):
    """*Restore* (§11.8, Spec/MERGE.md §7): the restored payload (the join of the deleted versions) with clock[r] = n.
    Nothing else changes: `modified` and the history stay as the join made them."""
    clock = parse_clock(payload["clock"])
    clock[dot[0]] = dot[1]
    payload["clock"] = clock_json(clock)
    return normalized(payload)
