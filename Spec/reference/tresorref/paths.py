"""Entry paths, their files and collision keys (Spec/FORMAT.md §4)."""
import unicodedata

from .errors import fail

MAX_BYTES = 255
MAX_COMPONENTS = 16
MAX_COMPONENT_BYTES = 100
EXTENSION = ".json"
FORBIDDEN = set('\\:*?"<>|')


def nfc(s):
    return unicodedata.normalize("NFC", s)


def entry_path(raw):
    """§4.2: the NFC form of `raw` if it is a valid entry path, else FormatError("invalid-path")."""
    if not isinstance(raw, str):
        fail("invalid-path", "not a string")
    p = nfc(raw)

    def bad(rule):
        fail("invalid-path", "%r breaks rule %s" % (raw, rule))

    if p == "" or p.startswith("/"):
        bad(1)
    if len(p.encode("utf-8")) > MAX_BYTES:
        bad(2)
    for c in p:
        o = ord(c)
        if o <= 0x1F or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029):
            bad(3)
    parts = p.split("/")
    if len(parts) > MAX_COMPONENTS:
        bad(4)
    for i, part in enumerate(parts):
        if part in ("", ".", ".."):
            bad(5)
        if part.startswith((".", " ")) or part.endswith((" ", ".")):
            bad(6)
        if any(c in FORBIDDEN for c in part):
            bad(7)
        if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
            bad(8)
        if i < len(parts) - 1 and part.endswith(EXTENSION):
            bad(9)
        if part.encode("utf-8").lower() == b"git~1":
            bad(10)
    return p


def is_entry_path(raw):
    try:
        entry_path(raw)
        return True
    except Exception:
        return False


def file_path(path):
    """§4.2: the file of entry path p is p followed by `.json`."""
    return path + EXTENSION


def lowercase(s):
    """§4.3: each code point replaced by its full lowercase mapping, without context (Σ is always σ)."""
    return "".join(c.lower() for c in s)


def collision_key(path):
    """§4.3: two paths collide when their lowercase forms are canonically equivalent."""
    return nfc(lowercase(path))
