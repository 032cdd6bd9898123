"""The payload of an entry: fields, history and unknown members; reading it and the writer's edits
(Spec/FORMAT.md §5)."""
import unicodedata

from . import canonical_json as cj
from .encoding import is_timestamp
from .errors import fail
from .paths import entry_path

KNOWN_MEMBERS = ("path", "created", "modified", "fields", "history")
LIST_FIELDS = ("urls", "tags")
HISTORY_LIMIT_PER_FIELD = 64


def is_value(v):
    """A text, or a list of texts."""
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) for s in v))


def value_bytes(v):
    return cj.dumps(v)


def check_field_name(name):
    """§5.3: 1 to 64 UTF-8 bytes, no U+0000-U+001F or U+007F, no leading `.`, no `=` [invalid-field]."""
    if not isinstance(name, str) or not 1 <= len(name.encode("utf-8")) <= 64:
        fail("invalid-field", "field name must be 1 to 64 bytes")
    if any(ord(c) <= 0x1F or ord(c) == 0x7F for c in name):
        fail("invalid-field", "control character in a field name")
    if name.startswith(".") or "=" in name:
        fail("invalid-field", "field name starts with '.' or contains '='")


def shape_ok(name, value):
    """§5.3: `urls` and `tags` hold lists, every other field a text."""
    return isinstance(value, list) if name in LIST_FIELDS else isinstance(value, str)


class Field:
    __slots__ = ("value", "modified", "origin")

    def __init__(self, value, modified, origin):
        self.value, self.modified, self.origin = value, modified, origin

    def to_json(self):
        return {"value": self.value, "modified": self.modified, "origin": self.origin}

    def same(self, other):
        """MERGE.md §2: the same write, compared as canonical bytes."""
        return other is not None and cj.dumps(self.to_json()) == cj.dumps(other.to_json())


class HistoryItem:
    __slots__ = ("field", "value", "modified", "origin", "replaced", "reason")

    def __init__(self, field, value, modified, origin, replaced, reason):
        self.field, self.value, self.modified, self.origin = field, value, modified, origin
        self.replaced, self.reason = replaced, reason

    def to_json(self):
        return {"field": self.field, "value": self.value, "modified": self.modified, "origin": self.origin,
                "replaced": self.replaced, "reason": self.reason}

    def order_key(self):
        """§5.4 canonical order: replaced, field (bytes), modified, origin (bytes), value (canonical bytes),
        reason (bytes). Timestamps of fixed width compare as text."""
        return (self.replaced.encode(), self.field.encode("utf-8"), self.modified.encode(),
                self.origin.encode("utf-8"), value_bytes(self.value), self.reason.encode("utf-8"))


def normalized_history(items):
    """§5.4: canonical order, then only the newest HISTORY_LIMIT_PER_FIELD items of each field name (bytes)."""
    ordered = sorted(items, key=HistoryItem.order_key)
    counts = {}
    keep = []
    for item in reversed(ordered):
        key = item.field.encode("utf-8")
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= HISTORY_LIMIT_PER_FIELD:
            keep.append(item)
    return list(reversed(keep))


class Entry:
    """A decrypted entry: the envelope's id and the payload."""

    def __init__(self, id, path, created, modified, fields=None, history=None, unknown=None):
        self.id, self.path, self.created, self.modified = id, path, created, modified
        self.fields = dict(fields or {})
        self.history = list(history or [])
        self.unknown = dict(unknown or {})

    def payload(self):
        p = dict(self.unknown)
        p.update({"path": self.path, "created": self.created, "modified": self.modified,
                  "fields": {n: f.to_json() for n, f in self.fields.items()},
                  "history": [h.to_json() for h in self.history]})
        return p

    def payload_bytes(self):
        """§5.1: the payload in canonical form, without a trailing LF."""
        return cj.dumps(self.payload())

    def same(self, other):
        """MERGE.md §2: same id bytes and same canonical payload bytes."""
        return other is not None and self.id == other.id and self.payload_bytes() == other.payload_bytes()

    def field(self, name):
        """The field whose name is canonically equivalent to `name` (§1.3 allows at most one), and its spelling."""
        key = unicodedata.normalize("NFC", name)
        for n, f in self.fields.items():
            if unicodedata.normalize("NFC", n) == key:
                return n, f
        return None, None

    # ---- reading (§5.5) ----

    @staticmethod
    def from_payload(id, payload):
        if not isinstance(payload, dict):
            fail("malformed", "payload is not an object")
        if not isinstance(payload.get("path"), str):
            fail("malformed", "path is not a string")
        path = entry_path(payload["path"])
        fields_json = payload.get("fields")
        if not isinstance(fields_json, dict):
            fail("malformed", "fields is not an object")
        fields = {}
        for name, f in fields_json.items():
            check_field_name(name)
            if not isinstance(f, dict) or not is_value(f.get("value")) or not shape_ok(name, f["value"]):
                fail("malformed", "field %r has no value of the right shape" % name)
            if not is_timestamp(f.get("modified")) or not isinstance(f.get("origin"), str):
                fail("malformed", "field %r has no timestamp modified or string origin" % name)
            fields[name] = Field(f["value"], f["modified"], f["origin"])
        history_json = payload.get("history")
        if not isinstance(history_json, list):
            fail("malformed", "history is not an array")
        history = []
        for h in history_json:
            if (not isinstance(h, dict) or not all(isinstance(h.get(k), str) for k in ("field", "origin", "reason"))
                    or not is_value(h.get("value"))
                    or not is_timestamp(h.get("modified")) or not is_timestamp(h.get("replaced"))):
                fail("malformed", "history item of the wrong shape")
            history.append(HistoryItem(h["field"], h["value"], h["modified"], h["origin"], h["replaced"], h["reason"]))
        for k in ("created", "modified"):
            if not is_timestamp(payload.get(k)):
                fail("malformed", "%s is not a timestamp" % k)
        unknown = {k: v for k, v in payload.items() if k not in KNOWN_MEMBERS}
        return Entry(id, path, payload["created"], payload["modified"], fields, history, unknown)

    # ---- writing (§5.3, §5.4) ----

    def set(self, name, value, time, origin):
        """Sets a field (None, "" or [] removes it). Returns True if the entry changed. The old value goes
        to the history; every change leaves the whole history normalized (§5.4)."""
        check_field_name(name)
        if value is not None and not (is_value(value) and shape_ok(name, value)):
            fail("invalid-field", "field %r must be a %s" % (name, "list" if name in LIST_FIELDS else "text"))
        if value in ("", []):
            value = None
        spelling, old = self.field(name)
        if (old is None and value is None) or (old is not None and value is not None
                                                and value_bytes(old.value) == value_bytes(value)):
            return False
        if old is not None:
            self.history.append(HistoryItem(spelling, old.value, old.modified, old.origin, time,
                                             "delete" if value is None else "edit"))
            del self.fields[spelling]
        if value is not None:
            self.fields[name] = Field(value, time, origin)
        self.modified = max(self.modified, time)
        self.history = normalized_history(self.history)
        return True

    def move(self, path, time):
        """Moves the entry to `path` (same id). Returns True if the entry changed."""
        new = entry_path(path)
        if new == self.path:
            return False
        self.path = new
        self.modified = max(self.modified, time)
        self.history = normalized_history(self.history)
        return True
