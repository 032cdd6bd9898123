"""Replica ids, dots and clocks of version 5 (Spec/FORMAT.md §11.3)."""
import re

from . import canonical_json as cj
from .errors import fail

REPLICA = re.compile(r"[0-9a-f]{16}", re.ASCII)
MAX_CLOCK_MEMBERS = 4096


def is_replica(value):
    """§11.3: 16 lowercase hex digits."""
    return isinstance(value, str) and REPLICA.fullmatch(value) is not None


def parse_dot(value, what="dot"):
    """A dot `["<replica id>", <number>]`, the number a positive integer, as a tuple (r, n) [malformed]."""
    if (not isinstance(value, list) or len(value) != 2 or not is_replica(value[0])
            or cj.integer(value[1]) is None or cj.integer(value[1]) < 1):
        fail("malformed", "%s is not [replica id, positive integer]" % what)
    return value[0], cj.integer(value[1])


def dot_json(dot):
    return [dot[0], cj.Number(str(dot[1]))]


def dot_key(dot):
    """§11.3: dots are ordered by the replica id's bytes, then the number."""
    return dot[0].encode("ascii"), dot[1]


def parse_clock(value, what="clock"):
    """A clock: an object of replica ids to positive integers, at most 4096 members [malformed]. Returns
    replica id -> int."""
    if not isinstance(value, dict):
        fail("malformed", "%s is not an object" % what)
    if len(value) > MAX_CLOCK_MEMBERS:
        fail("malformed", "%s has more than %d members" % (what, MAX_CLOCK_MEMBERS))
    clock = {}
    for r, n in value.items():
        k = cj.integer(n)
        if not is_replica(r) or k is None or k < 1:
            fail("malformed", "%s member %r is not a replica id with a positive integer" % (what, r))
        clock[r] = k
    return clock


def clock_json(clock):
    return {r: cj.Number(str(n)) for r, n in clock.items()}


def covers(clock, dot):
    """§11.3: the clock has a member r with a value of at least n."""
    return clock.get(dot[0], 0) >= dot[1]


def at_most(a, b):
    """§11.3: clock a is at most clock b."""
    return all(covers(b, (r, n)) for r, n in a.items())


def join(a, b):
    """§11.3: every replica id of either, with the greater value."""
    out = dict(a)
    for r, n in b.items():
        out[r] = max(out.get(r, 0), n)
    return out


def relation(a, b):
    """Spec/AUTH.md §2: `equal`, `newer` (a is at least b everywhere and differs), `older` or `concurrent`."""
    if a == b:
        return "equal"
    if at_most(b, a):
        return "newer"
    if at_most(a, b):
        return "older"
    return "concurrent"
