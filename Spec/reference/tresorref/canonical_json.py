"""Strict JSON reading and canonical serialization (Spec/FORMAT.md §1.3).

Values: dict (object), list (array), str (string), Number (number, kept as its literal text),
True/False, None. Python ints are accepted when serializing and written in decimal.
"""
import re
import unicodedata

from .errors import fail

MAX_DEPTH = 64
WHITE = " \t\n\r"
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Number:
    """A JSON number as the literal text it was written with (so `1.50` stays `1.50`)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = str(text)

    def __eq__(self, other):
        return isinstance(other, Number) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return "Number(%s)" % self.text


def integer(value):
    """The value as an integer if it is one by §1.3 (plain ASCII digits, fits 64 bits unsigned), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 64:
        return value
    if isinstance(value, Number) and re.fullmatch(r"[0-9]+", value.text, re.ASCII):
        n = int(value.text)
        if n < 2 ** 64:
            return n
    return None


def loads(data):
    """Parses UTF-8 bytes. Raises FormatError("malformed") for anything §1.3 refuses."""
    if data[:3] == b"\xef\xbb\xbf":
        fail("malformed", "byte order mark")
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        fail("malformed", "invalid UTF-8 (%s)" % e.reason)
    parser = _Parser(text)
    parser.skip_white()
    value = parser.value(1)
    parser.skip_white()
    if parser.i != len(text):
        fail("malformed", "data after the top-level value")
    return value


class _Parser:
    def __init__(self, text):
        self.s = text
        self.i = 0

    def skip_white(self):
        while self.i < len(self.s) and self.s[self.i] in WHITE:
            self.i += 1

    def peek(self):
        if self.i >= len(self.s):
            fail("malformed", "unexpected end of the text")
        return self.s[self.i]

    def value(self, depth):
        if depth > MAX_DEPTH:
            fail("malformed", "nested deeper than %d" % MAX_DEPTH)
        c = self.peek()
        if c == "{":
            return self.object(depth)
        if c == "[":
            return self.array(depth)
        if c == '"':
            return self.string()
        for literal, v in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(literal, self.i):
                self.i += len(literal)
                return v
        m = NUMBER.match(self.s, self.i)
        if not m:
            fail("malformed", "unexpected character at %d" % self.i)
        self.i = m.end()
        return Number(m.group())

    def object(self, depth):
        self.i += 1
        out = {}
        seen = set()
        self.skip_white()
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            self.skip_white()
            if self.peek() != '"':
                fail("malformed", "object member name expected")
            name = self.string()
            key = unicodedata.normalize("NFC", name)
            if key in seen:
                fail("malformed", "duplicate member %r" % name)
            seen.add(key)
            self.skip_white()
            if self.peek() != ":":
                fail("malformed", "':' expected")
            self.i += 1
            self.skip_white()
            out[name] = self.value(depth + 1)
            self.skip_white()
            c = self.peek()
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                fail("malformed", "',' or '}' expected")

    def array(self, depth):
        self.i += 1
        out = []
        self.skip_white()
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            self.skip_white()
            out.append(self.value(depth + 1))
            self.skip_white()
            c = self.peek()
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                fail("malformed", "',' or ']' expected")

    def hex4(self):
        h = self.s[self.i:self.i + 4]
        if len(h) != 4 or not re.fullmatch(r"[0-9a-fA-F]{4}", h):
            fail("malformed", "bad \\u escape")
        self.i += 4
        return int(h, 16)

    def string(self):
        self.i += 1
        out = []
        while True:
            c = self.peek()
            self.i += 1
            if c == '"':
                return "".join(out)
            if ord(c) < 0x20:
                fail("malformed", "raw control character in a string")
            if c != "\\":
                out.append(c)
                continue
            e = self.peek()
            self.i += 1
            if e in ESCAPES:
                out.append(ESCAPES[e])
            elif e == "u":
                u = self.hex4()
                if 0xDC00 <= u <= 0xDFFF:
                    fail("malformed", "lone low surrogate escape")
                if 0xD800 <= u <= 0xDBFF:
                    if self.s[self.i:self.i + 2] != "\\u":
                        fail("malformed", "lone high surrogate escape")
                    self.i += 2
                    low = self.hex4()
                    if not 0xDC00 <= low <= 0xDFFF:
                        fail("malformed", "high surrogate escape not followed by a low one")
                    u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                out.append(chr(u))
            else:
                fail("malformed", "unknown escape \\%s" % e)


def utf8_key(s):
    """Sort key of a string by its UTF-8 bytes (§1.3: member order, path order, MERGE.md bytewise order)."""
    return s.encode("utf-8")


def _string(s):
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def dumps_text(value):
    """The canonical serialization as a str."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Number):
        return value.text
    if isinstance(value, int):
        if value < 0:
            raise ValueError("integers written by this version are non-negative")
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps_text(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=utf8_key)
        return "{" + ",".join(_string(k) + ":" + dumps_text(value[k]) for k in keys) + "}"
    raise TypeError("no JSON form for %r" % (value,))


def dumps(value):
    """The canonical serialization as UTF-8 bytes (no trailing LF)."""
    return dumps_text(value).encode("utf-8")


def file_bytes(value):
    """A file's bytes: the canonical serialization followed by one LF."""
    return dumps(value) + b"\n"
