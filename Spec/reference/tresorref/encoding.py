"""Byte strings, ids and timestamps in files (Spec/FORMAT.md §1.2, §2.4, §5.2)."""
import base64
import binascii
import re

from .errors import fail

ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII)
TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.[0-9]{3}Z", re.ASCII)


def b64encode(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def b64decode_canonical(text):
    """The bytes of canonical base64 text (§1.2), or None: decode, re-encode, compare."""
    if not isinstance(text, str) or not text.isascii():
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if b64encode(data) == text else None


def b64field(value, what, length, at_least=False):
    """A base64 member of a file: a string [malformed] of canonical base64 [bad-encoding] of `length` bytes
    (or at least `length`) [bad-encoding]."""
    if not isinstance(value, str):
        fail("malformed", "%s is not a string" % what)
    data = b64decode_canonical(value)
    if data is None:
        fail("bad-encoding", "%s is not canonical base64" % what)
    if (len(data) < length) if at_least else (len(data) != length):
        fail("bad-encoding", "%s is %d bytes" % (what, len(data)))
    return data


def is_id(value):
    """§2.4: 36 characters, lowercase hex 8-4-4-4-12."""
    return isinstance(value, str) and ID.fullmatch(value) is not None


def decimal(n):
    return str(int(n))


def _days_in_month(year, month):
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_timestamp(value):
    """§5.2: `YYYY-MM-DDTHH:MM:SS.sssZ`, a date that exists in the proleptic Gregorian calendar."""
    if not isinstance(value, str):
        return False
    m = TIMESTAMP.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups())
    return (1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)
            and hour <= 23 and minute <= 59 and second <= 59)


def hexstr(data):
    return bytes(data).hex()
