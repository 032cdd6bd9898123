"""Candidate format vectors beyond the committed ones: hostile JSON, paths, timestamps, field names and shapes,
envelopes and headers, each answered by tresorref (make probe-vectors runs the Swift tests on them)."""
from tresorref import canonical_json as cj
from tresorref.encoding import b64encode
from tresorref.envelope import CURRENT as ENTRY_FORMAT
from tresorref.errors import FormatError
from tresorref.header import CURRENT as HEADER_FORMAT, PassphraseSlot
from tresorref.paths import entry_path

from . import format_cases as fc
from . import format_tests
from .writer import VectorSet

KEY = fc.hexstr(fc.VAULT_KEY)
N = cj.Number


class Probes(VectorSet):
    """Vectors whose answer is whatever tresorref says. Inputs tresorref accepts but cannot write back byte for
    byte (white space, escapes, dropped members) have no exact answer and are left out."""

    def probe(self, name, test, inputs):
        try:
            expected = format_tests.TESTS[test](inputs)
        except FormatError as e:
            self.failure(name, test, "probe", inputs, e.kind)
        except AssertionError:
            pass
        else:
            self.success(name, test, "probe", inputs, expected)


def json_texts(canon):
    """Payload texts around the canonical payload `canon` (bytes)."""
    def member(text):
        return canon[:-1] + b"," + text + b"}"
    return {
        "bom": b"\xef\xbb\xbf" + canon, "trailing-garbage": canon + b"x", "empty": b"", "array": b"[]",
        "string": b'"x"', "null": b"null",
        "overlong": member(b'"x":"\xc0\x80"'), "surrogate-utf8": member(b'"x":"\xed\xa0\x80"'),
        "above-10ffff": member(b'"x":"\xf4\x90\x80\x80"'), "truncated-utf8": member(b'"x":"\xe2\x82"'),
        "lone-high-escape": member(b'"x":"\\ud800"'), "lone-low-escape": member(b'"x":"\\udc00"'),
        "high-then-ascii": member(b'"x":"\\ud800\\u0041"'), "raw-control": member(b'"x":"a\x01b"'),
        "raw-del": member(b'"x":"a\x7fb"'), "bad-escape": member(b'"x":"a\\xb"'),
        "dup-nfc-nfd": member(b'"\xc3\xa9":1,"e\xcc\x81":2'), "dup-kelvin": member(b'"K":1,"\xe2\x84\xaa":2'),
        "dup-escaped": member(b'"ab":1,"\\u0061b":2'), "num-leading-zero": member(b'"x":01'),
        "num-trailing-dot": member(b'"x":1.'), "num-leading-dot": member(b'"x":.5'), "num-plus": member(b'"x":+1'),
        "num-minus-zero": member(b'"x":-0'), "num-exp": member(b'"x":1E+400'), "num-bare-minus": member(b'"x":-'),
        "num-exp-empty": member(b'"x":1e'), "infinity": member(b'"x":Infinity'), "tru": member(b'"x":tru'),
        "trailing-comma-object": member(b'"x":1,'), "trailing-comma-array": member(b'"x":[1,]'),
        "depth-64": member(b'"x":' + b"[" * 63 + b"]" * 63), "depth-65": member(b'"x":' + b"[" * 64 + b"]" * 64),
        "depth-64-number": member(b'"x":' + b"[" * 62 + b"1" + b"]" * 62),
        "depth-65-number": member(b'"x":' + b"[" * 63 + b"1" + b"]" * 63),
        "vertical-tab": canon[:-1] + b',\x0b"x":1}', "nbsp": canon[:-1] + b',\xc2\xa0"x":1}',
    }


PATHS = {
    "nbsp": "Email/a\u00a0b", "c1": "Email/a\u0085b", "ls": "Email/a\u2028b", "ps": "Email/a\u2029b",
    "del": "Email/a\u007fb", "tab": "Email/a\tb", "nul": "a\x00b", "empty": "",
    "255": "E/" + "a" * 98 + "/" + "b" * 100 + "/" + "c" * 53, "256": "E/" + "a" * 98 + "/" + "b" * 100 + "/" + "c" * 54,
    "comp100": "E/" + "a" * 100, "comp101": "E/" + "a" * 101, "comp100-2byte": "E/" + "é" * 50,
    "comp101-2byte": "E/" + "é" * 50 + "a", "depth16": "/".join("a" * 16), "depth17": "/".join("a" * 17),
    "json-folder": "x.json/y", "JSON-folder": "x.JSON/y", "json-last": "x.json", "lead-space": " a",
    "trail-space": "a ", "trail-dot": "a.", "lead-dot": ".a", "dotdot": "a/../b", "dot": "a/./b", "slash-end": "a/",
    "double-slash": "a//b", "lead-slash": "/a", "backslash": "a\\b", "colon": "C:x", "star": "a*", "question": "a?",
    "quote": 'a"b', "less": "a<b", "pipe": "a|b", "mark-after-slash": "a/\u0301b", "mark-after-dot": "a/.\u0301b",
    "emoji": "\U0001F511/key", "ideographic-space-end": "a\u3000", "zwj": "a\u200db", "bom-char": "\ufeffa",
    "tilde": "~a", "space-inside": "a b", "git-short-name": "GIT~1/a", "git-short-name-last": "a/git~1",
    "git-short-name-2": "a/git~2",
}

TIMESTAMPS = {
    "feb29-2026": "2026-02-29T00:00:00.000Z", "feb29-2024": "2024-02-29T00:00:00.000Z",
    "feb29-1900": "1900-02-29T00:00:00.000Z", "feb29-2000": "2000-02-29T00:00:00.000Z",
    "year0": "0000-01-01T00:00:00.000Z", "year0-feb29": "0000-02-29T00:00:00.000Z", "max": "9999-12-31T23:59:59.999Z",
    "hour24": "2026-01-01T24:00:00.000Z", "second60": "2026-06-30T23:59:60.000Z", "minute60": "2026-01-01T00:60:00.000Z",
    "apr31": "2026-04-31T00:00:00.000Z", "month0": "2026-00-01T00:00:00.000Z", "day0": "2026-01-00T00:00:00.000Z",
    "lower-t": "2026-01-01t00:00:00.000Z", "lower-z": "2026-01-01T00:00:00.000z", "no-ms": "2026-01-01T00:00:00Z",
    "offset": "2026-01-01T00:00:00.000+00:00", "fullwidth": "２０２６-01-01T00:00:00.000Z",
    "arabic-digit": "2026-01-01T00:00:00.00\u0661Z", "1969": "1969-12-31T23:59:59.999Z", "1582": "1582-10-10T00:00:00.000Z",
}

FIELD_NAMES = {
    "64": "a" * 64, "65": "a" * 65, "64-2byte": "é" * 32, "65-2byte": "é" * 32 + "a", "c1": "a\u0085", "del": "a\u007f",
    "tab": "a\tb", "dot": ".a", "eq": "a=b", "empty": "", "nfd": "cafe\u0301", "space": " a ", "Password": "Password",
    "slash": "a/b", "ls": "a\u2028",
}


def field(name, value, **changes):
    def change(p):
        f = {"value": value, "modified": fc.T0, "origin": "o"}
        f.update(changes)
        p["fields"][name] = {k: v for k, v in f.items() if v is not Ellipsis}
    return change


def item(change):
    return lambda p: change(p["history"][0])


SHAPES = {
    "urls-text": field("urls", "x"), "urls-number": field("urls", ["a", 1]), "tags-empty": field("tags", []),
    "password-list": field("password", ["a"]), "password-null": field("password", None),
    "password-number": field("password", 1), "password-empty": field("password", ""),
    "no-modified": field("password", "x", modified=Ellipsis), "origin-number": field("password", "x", origin=1),
    "custom-list": field("PIN", ["1"]), "field-not-object": lambda p: p["fields"].__setitem__("password", "x"),
    "fields-array": lambda p: p.__setitem__("fields", []), "history-object": lambda p: p.__setitem__("history", {}),
    "item-bad-field-name": item(lambda h: h.__setitem__("field", ".x")), "item-no-reason": item(lambda h: h.pop("reason")),
    "item-other-reason": item(lambda h: h.__setitem__("reason", "whatever")),
    "item-number-list": item(lambda h: h.__setitem__("value", [1])), "item-null": item(lambda h: h.__setitem__("value", None)),
    "item-list-for-password": item(lambda h: h.__setitem__("value", ["a"])),
    "no-created": lambda p: p.pop("created"), "modified-number": lambda p: p.__setitem__("modified", 1),
    "path-number": lambda p: p.__setitem__("path", 1), "no-path": lambda p: p.pop("path"),
    "bad-path-and-bad-fields": lambda p: (p.__setitem__("path", ".x"), p.__setitem__("fields", [])),
    "bad-fields-and-bad-created": lambda p: (p.__setitem__("created", "x"), p.__setitem__("fields", [])),
    "bad-name-and-bad-shape": lambda p: p["fields"].__setitem__(".a", {"value": 1}),
    "bad-history-and-bad-field": lambda p: (p.__setitem__("history", 1), p["fields"].__setitem__("a", 1)),
}

ENVELOPES = {
    "version-0": ("version", 0), "version-negative": ("version", N("-1")), "version-float": ("version", N("1.0")),
    "version-exp": ("version", N("1e0")), "version-2-64": ("version", N("18446744073709551616")),
    "version-u64-max": ("version", N("18446744073709551615")), "version-null": ("version", None),
    "id-number": ("id", 1), "id-braces": ("id", "{" + fc.ENTRY_ID[1:-1] + "}"), "nonce-number": ("nonce", 1),
    "nonce-empty": ("nonce", ""), "ciphertext-empty": ("ciphertext", ""),
    "ciphertext-15": ("ciphertext", b64encode(bytes(15))), "ciphertext-16": ("ciphertext", b64encode(bytes(16))),
}


def slot_member(key, value):
    return lambda h: h["keySlots"][0].__setitem__(key, value)


def kdf_member(key, value):
    return lambda h: h["keySlots"][0]["kdf"].__setitem__(key, value)


HEADERS = {
    "format-missing": lambda h: h.pop("format"), "format-other": lambda h: h.__setitem__("format", "tresor"),
    "version-string": lambda h: h.__setitem__("version", "1"), "version-0": lambda h: h.__setitem__("version", 0),
    "version-2-64": lambda h: h.__setitem__("version", N("18446744073709551616")),
    "version-2-bad-vault": lambda h: h.update(version=2, vault="x"),
    "version-2-bad-format": lambda h: h.update(version=2, format="x"),
    "vault-upper": lambda h: h.__setitem__("vault", fc.VAULT_ID.upper()), "vault-missing": lambda h: h.pop("vault"),
    "other-vault": lambda h: h.__setitem__("vault", "00000000-0000-4000-8000-000000000000"),
    "slots-object": lambda h: h.__setitem__("keySlots", {}), "slots-empty": lambda h: h.__setitem__("keySlots", []),
    "slot-not-object": lambda h: h["keySlots"].append(1), "slot-type-number": lambda h: h["keySlots"].append({"type": 1}),
    "slot-no-type": lambda h: h["keySlots"].append({"id": "x"}),
    "only-unknown-slots": lambda h: h.__setitem__("keySlots", [{"type": "x"}]),
    "type-with-mark": slot_member("type", "passphrase\u0301"),
    "algorithm-other": kdf_member("algorithm", "argon2i13"), "algorithm-number": kdf_member("algorithm", 1),
    "algorithm-missing": lambda h: h["keySlots"][0]["kdf"].pop("algorithm"),
    "ops-string": kdf_member("ops", "1"), "ops-float": kdf_member("ops", N("1.0")), "ops-16": kdf_member("ops", 16),
    "mem-max": kdf_member("mem", 1 << 30), "mem-2-64": kdf_member("mem", N("18446744073709551616")),
    "salt-number": kdf_member("salt", 1), "salt-17": kdf_member("salt", b64encode(bytes(17))),
    "salt-url-alphabet": kdf_member("salt", b64encode(bytes([0xfb] * 16)).replace("+", "-").replace("/", "_")),
    "salt-short-and-ops-17": lambda h: h["keySlots"][0]["kdf"].update(salt=b64encode(bytes(15)), ops=17),
    "ops-17-and-bad-nonce": lambda h: (kdf_member("ops", 17)(h), slot_member("nonce", "!")(h)),
    "ops-string-and-bad-algorithm": lambda h: h["keySlots"][0]["kdf"].update(ops="x", algorithm="y"),
    "kdf-missing": lambda h: h["keySlots"][0].pop("kdf"), "kdf-array": slot_member("kdf", []),
    "id-bad": slot_member("id", "x"), "nonce-23": slot_member("nonce", b64encode(bytes(23))),
    "wrapped-47": slot_member("wrappedKey", b64encode(bytes(47))), "wrapped-number": slot_member("wrappedKey", 5),
    "wrapped-missing": lambda h: h["keySlots"][0].pop("wrappedKey"),
    "16-slots": lambda h: h.__setitem__("keySlots", h["keySlots"] * 16),
    "16-slots-and-unknown": lambda h: h.__setitem__("keySlots", h["keySlots"] * 16 + [{"type": "x"}]),
    "17th-slot-bad-nonce": lambda h: h.__setitem__("keySlots", h["keySlots"] * 16 + [dict(h["keySlots"][0], nonce="!")]),
}


def format_probes():
    out = Probes()
    gmail = fc.gmail_entry()
    canon = cj.dumps(gmail.payload())

    def sealed(name, plaintext, path="Email/gmail"):
        file = ENTRY_FORMAT.seal(plaintext, fc.ENTRY_ID, fc.ENTRY_NONCE, fc.VAULT_KEY)
        out.probe(name, "entry", {"vault_key": KEY, "path": path, "file": file.decode("utf-8")})

    def payload(name, change, path="Email/gmail"):
        p = cj.loads(canon)
        change(p)
        sealed(name, cj.dumps(p), path)

    for k, text in json_texts(canon).items():
        sealed("json-" + k, text)
    for k, path in PATHS.items():
        try:
            outer = entry_path(path)
        except FormatError:
            outer = "Email/gmail"
        payload("path-" + k, lambda p, v=path: p.__setitem__("path", v), outer)
    for k, stamp in TIMESTAMPS.items():
        payload("time-created-" + k, lambda p, v=stamp: p.__setitem__("created", v))
        payload("time-replaced-" + k, lambda p, v=stamp: p["history"][0].__setitem__("replaced", v))
    for k, name in FIELD_NAMES.items():
        payload("field-" + k, field(name, "x"))
    for k, change in SHAPES.items():
        payload("shape-" + k, change)

    file = fc.seal_entry(gmail, fc.ENTRY_NONCE, fc.VAULT_KEY)
    for k, (member, value) in ENVELOPES.items():
        o = cj.loads(file)
        o[member] = value
        out.probe("envelope-" + k, "entry", {"vault_key": KEY, "path": "Email/gmail", "file": cj.file_bytes(o).decode()})
    for k in ("version", "id", "ciphertext"):
        o = cj.loads(file)
        del o[k]
        out.probe("envelope-no-" + k, "entry", {"vault_key": KEY, "path": "Email/gmail", "file": cj.file_bytes(o).decode()})
    out.probe("envelope-over-1-mib", "entry",
              {"vault_key": KEY, "path": "Email/gmail", "file": (file[:-2] + b" " * (1 << 20) + b"}\n").decode()})

    slot = PassphraseSlot.wrap(fc.VAULT_KEY, fc.PASSPHRASE.encode(), 1, fc.VAULT_ID, fc.SLOT_ID, fc.MIN_OPS, fc.MIN_MEM,
                               fc.SALT, fc.SLOT_NONCE)
    for k, change in HEADERS.items():
        h = HEADER_FORMAT(fc.VAULT_ID, [slot]).to_json()
        change(h)
        out.probe("header-" + k, "header", {"file": cj.file_bytes(h).decode(), "passphrase": fc.PASSPHRASE})
    return out
