"""Candidate merge vectors: seeded random vault states and headers, answered by tresorref's merge (make
probe-vectors runs the Swift tests on them). Small pools of ids, paths, values and origins make conflicts,
collisions, NFC/NFD spellings and shortened conflict names common."""
import base64
import random
import unicodedata

from tresorref import canonical_json as cj
from tresorref.errors import FormatError
from tresorref.header import parse_header_json
from tresorref.merge import merge_vault
from tresorref.merge_header import merge_headers
from tresorref.paths import entry_path

from .merge_run import entries as parse_entries
from .writer import VectorSet

IDS = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
       "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"]
PATHS = ["mail/work", "Mail/Work", "mail/work.conflict-bbbbbbbb", "bank", "Bank", "caf\u00e9", "cafe\u0301",
         "\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c3", "x/" + "é" * 45 + "z", "x/" + "é" * 45 + "Z",
         "a" * 100 + "/" + "b" * 100 + "/" + "c" * 50, "a" * 100 + "/" + "b" * 100 + "/" + "c" * 51 + "/d",
         "A" * 100 + "/" + "b" * 100 + "/" + "c" * 51 + "/d"]
VALUES = ["p1", "p2", "caf\u00e9", "cafe\u0301", "z"]
ORIGINS = ["laptop", "phone", "\u00e9", "e\u0301"]
FIELDS = ["password", "notes", "caf\u00e9", "cafe\u0301", "urls"]
MEMBERS = ["x", "y", "\u00e9"]
VAULTS = ["99999999-9999-4999-8999-999999999999", "88888888-8888-4888-8888-888888888888"]


def t(s):
    return "2026-03-01T10:%02d:%02d.000Z" % (s // 60, s % 60)


class Random:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def field(self, name):
        value = [self.r.choice(VALUES) for _ in range(self.r.randint(1, 2))] if name == "urls" else self.r.choice(VALUES)
        return {"value": value, "modified": t(self.r.randint(0, 5)), "origin": self.r.choice(ORIGINS)}

    def item(self):
        name = self.r.choice(FIELDS)
        return dict(self.field(name), field=name, replaced=t(self.r.randint(3, 6)),
                    reason=self.r.choice(["edit", "merge", "delete"]))

    def entry(self, id):
        fields, seen = {}, set()
        for name in self.r.sample(FIELDS, self.r.randint(0, 3)):
            if unicodedata.normalize("NFC", name) not in seen:   # §1.3: no canonically equivalent names
                seen.add(unicodedata.normalize("NFC", name))
                fields[name] = self.field(name)
        p = {"path": entry_path(self.r.choice(PATHS)), "created": t(self.r.randint(0, 2)),
             "modified": t(self.r.randint(2, 6)), "fields": fields,
             "history": [self.item() for _ in range(self.r.randint(0, 3))]}
        for name in self.r.sample(MEMBERS, self.r.randint(0, 2) if self.r.random() < 0.4 else 0):
            p[name] = self.r.choice([1, "s", [1], {"k": None}, cj.Number("1.50")])
        return {"id": id, "payload": p}

    def changed(self, e, id):
        """Another replica's version of `e` (None: deleted or never added)."""
        if e is None or self.r.random() < 0.15:
            return None if self.r.random() < 0.5 else self.entry(e["id"] if e else id)
        p = cj.loads(cj.dumps(e["payload"]))
        for _ in range(self.r.randint(0, 3)):
            r = self.r.random()
            if r < 0.35 and p["fields"]:
                name = self.r.choice(list(p["fields"]))
                p["fields"][name] = self.field(name)
            elif r < 0.5 and p["fields"]:
                p["fields"].pop(self.r.choice(list(p["fields"])))
            elif r < 0.65:
                p["path"] = entry_path(self.r.choice(PATHS))
            elif r < 0.75:
                p["history"].append(self.item())
            elif r < 0.85:
                p[self.r.choice(MEMBERS)] = self.r.choice([2, "t", [2]])
            else:
                p["modified"] = t(self.r.randint(2, 9))
        return {"id": e["id"], "payload": p}

    def states(self):
        ids = self.r.sample(IDS, self.r.randint(1, 3))
        base = [self.entry(id) for id in ids if self.r.random() < 0.7]
        if base and self.r.random() < 0.05:
            base.append(self.entry(base[0]["id"]))   # an id used twice (MERGE.md §3.4)
        by_id = {e["id"]: e for e in base}
        sides, deleted = ([], []), ([], [])
        for id in ids:
            for side, gone in zip(sides, deleted):
                e = self.changed(by_id.get(id), id)
                if e is not None:
                    side.append(e)
                elif id in by_id:   # versions from before the deletion (MERGE.md §3.2.1)
                    gone += [self.changed(by_id[id], id) or by_id[id] for _ in range(self.r.randint(0, 2))]
        return base, sides[0], sides[1], deleted

    def header(self):
        def slot(i, byte):
            b = bytes([byte])
            return {"type": "passphrase", "id": "%d0000000-0000-4000-8000-000000000000" % i,
                    "kdf": {"algorithm": "argon2id13", "ops": 1, "mem": 8192, "salt": base64.b64encode(b * 16).decode()},
                    "nonce": base64.b64encode(b * 24).decode(), "wrappedKey": base64.b64encode(b * 48).decode()}
        slots = [slot(i, self.r.randint(0, 2)) for i in sorted(self.r.sample(range(4), self.r.randint(1, 3)))]
        others = [{"type": "token", "k": self.r.randint(0, 2)} for _ in range(self.r.randint(0, 2))]
        h = {"format": "tresor-vault", "version": 1, "vault": VAULTS[self.r.random() < 0.03], "keySlots": slots + others}
        for name in self.r.sample(MEMBERS, self.r.randint(0, 2)):
            h[name] = self.r.choice(["a", "b", 1, [1]])
        return h


def merge_probes(entry_cases=400, header_cases=200, seed=7):
    out, rng = VectorSet(), Random(seed)
    for i in range(entry_cases):
        base, ours, theirs, deleted = rng.states()
        merged, records = merge_vault(parse_entries(base), parse_entries(ours), parse_entries(theirs),
                                      (parse_entries(deleted[0]), parse_entries(deleted[1])))
        out.add("entries-%03d" % i, {
            "description": "probe", "rule": "random", "base": base, "ours": ours, "theirs": theirs,
            "deletedOurs": deleted[0], "deletedTheirs": deleted[1],
            "expected": [{"id": e.id, "payload": e.payload()} for e in merged],
            "resolutions": [r.to_json() for r in records]})
    for i in range(header_cases):
        base = rng.header() if rng.r.random() < 0.85 else None
        ours, theirs = rng.header(), rng.header()
        v = {"description": "probe", "rule": "random", "header": True, "base": base, "ours": ours, "theirs": theirs}
        parsed = [None if h is None else parse_header_json(cj.loads(cj.dumps(h))) for h in (base, ours, theirs)]
        try:
            merged, records = merge_headers(*parsed)
            v.update(expected=merged.to_json(), resolutions=[r.to_json() for r in records])
        except FormatError as e:
            v["error"] = e.kind
        out.add("header-%03d" % i, v)
    return out
