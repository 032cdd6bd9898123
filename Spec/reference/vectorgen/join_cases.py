"""Spec/vectors/join/*.json: the cases of Spec/MERGE.md version 2 (§10), each with its result written out by hand from
the text. join_run computes every case in both orders of the sides and stops unless both equal the result here."""
from tresorref import canonical_json as cj

from .join_run import entry_case, state_case, header_case

RA = "aaaaaaaaaaaaaaaa"
RB = "bbbbbbbbbbbbbbbb"
RC = "cccccccccccccccc"
U1 = "1111111111111111"   # two conversion replica ids (FORMAT §11.10) of one older vault converted twice
U2 = "2222222222222222"
ID1 = "11111111-1111-4111-8111-111111111111"
ID2 = "22222222-2222-4222-8222-222222222222"
IDX = "77777777-7777-4777-8777-777777777777"

CASES = {}


def T(s):
    """2026-05-01 10:00:00 plus s seconds."""
    return "2026-05-01T%02d:%02d:%02d.000Z" % (10 + s // 3600, (s // 60) % 60, s % 60)


def F(value, t, origin, dot):
    return {"value": value, "modified": T(t), "origin": origin, "dot": list(dot)}


def H(field, value, t, origin, dot, replaced, reason="edit"):
    return {"field": field, "value": value, "modified": T(t), "origin": origin, "dot": list(dot),
            "replaced": T(replaced), "reason": reason}


def E(id, path, fields, history, clock, moved, created=0, modified=None, **unknown):
    """An entry: `moved` = (dot, time, origin); `modified` defaults to the latest of the fields' and moved's."""
    p = dict(unknown)
    times = [f["modified"] for f in fields.values()] + [T(moved[1])]
    p.update({"path": path, "created": T(created), "modified": T(modified) if modified is not None else max(times),
              "fields": fields, "history": list(history), "clock": dict(clock),
              "moved": {"dot": list(moved[0]), "modified": T(moved[1]), "origin": moved[2]}})
    return {"id": id, "payload": p}


def R(kind, path, field=None, id=ID1, **members):
    r = dict.fromkeys(("losingPath", "newPath", "winnerOrigin", "winnerModified", "loserOrigin", "loserModified"))
    r.update({"entryID": id, "path": path, "field": field, "kind": kind})
    for k, v in members.items():
        assert k in r, k
        r[k] = T(v) if k.endswith("Modified") else v
    return r


def entry(name, description, rule, a, b, expected, resolutions=()):
    CASES[name] = entry_case(name, description, rule, a, b, expected, resolutions)


def state(name, description, rule, a, b, expected, resolutions=()):
    CASES[name] = state_case(name, description, rule, a, b, expected, resolutions)


# The entry both sides start from: created by replica aaaa… as its event 1 (laptop, time 0).
MOVED0 = ((RA, 1), 0, "laptop")
P1 = F("p1", 0, "laptop", (RA, 1))
N1 = F("n1", 0, "laptop", (RA, 1))
BASE = E(ID1, "mail/work", {"password": P1, "notes": N1}, [], {RA: 1}, MOVED0)

entry("concurrent-edits-one-field",
      "aaaa… (event 2, laptop, time 10) sets the password to p2; bbbb… (event 1, phone, time 12), not having seen it, "
      "sets p3: both writes are live, the later wins, p2 goes to history with reason merge; p1 was replaced on both "
      "sides (one value: same field, modified, origin and value), the greater item (replaced at 12) is kept",
      "MERGE.md §5.1, §5.2, §5.4",
      E(ID1, "mail/work", {"password": F("p2", 10, "laptop", (RA, 2)), "notes": N1},
        [H("password", "p1", 0, "laptop", (RA, 1), 10)], {RA: 2}, MOVED0),
      E(ID1, "mail/work", {"password": F("p3", 12, "phone", (RB, 1)), "notes": N1},
        [H("password", "p1", 0, "laptop", (RA, 1), 12)], {RA: 1, RB: 1}, MOVED0),
      E(ID1, "mail/work", {"password": F("p3", 12, "phone", (RB, 1)), "notes": N1},
        [H("password", "p1", 0, "laptop", (RA, 1), 12),
         H("password", "p2", 10, "laptop", (RA, 2), 12, "merge")], {RA: 2, RB: 1}, MOVED0),
      [R("field-conflict", "mail/work", "password", winnerOrigin="phone", winnerModified=12, loserOrigin="laptop",
         loserModified=10)])

entry("edit-vs-field-delete",
      "aaaa… removes the notes (event 2, time 10); bbbb… changes them to n2 (event 1, time 12) without having seen the "
      "removal: the change is live and kept, reported field-delete-kept-edit; n1, replaced on both sides, is one "
      "history item (the greater: replaced at 12, reason edit)",
      "MERGE.md §5.1, §5.2",
      E(ID1, "mail/work", {"password": P1}, [H("notes", "n1", 0, "laptop", (RA, 1), 10, "delete")], {RA: 2}, MOVED0,
        modified=10),
      E(ID1, "mail/work", {"password": P1, "notes": F("n2", 12, "phone", (RB, 1))},
        [H("notes", "n1", 0, "laptop", (RA, 1), 12)], {RA: 1, RB: 1}, MOVED0),
      E(ID1, "mail/work", {"password": P1, "notes": F("n2", 12, "phone", (RB, 1))},
        [H("notes", "n1", 0, "laptop", (RA, 1), 12)], {RA: 2, RB: 1}, MOVED0),
      [R("field-delete-kept-edit", "mail/work", "notes", winnerOrigin="phone", winnerModified=12)])

entry("field-delete-after-seeing-edit",
      "bbbb… changed the notes (event 1); aaaa… saw that (its clock covers (bbbb…, 1)) and removed them (event 2): no "
      "live write, the field stays removed; n2 is in aaaa…'s history",
      "MERGE.md §5.1 step 2, §5.2",
      E(ID1, "mail/work", {"password": P1},
        [H("notes", "n1", 0, "laptop", (RA, 1), 12), H("notes", "n2", 12, "phone", (RB, 1), 20, "delete")],
        {RA: 2, RB: 1}, MOVED0, modified=20),
      E(ID1, "mail/work", {"password": P1, "notes": F("n2", 12, "phone", (RB, 1))},
        [H("notes", "n1", 0, "laptop", (RA, 1), 12)], {RA: 1, RB: 1}, MOVED0),
      E(ID1, "mail/work", {"password": P1},
        [H("notes", "n1", 0, "laptop", (RA, 1), 12), H("notes", "n2", 12, "phone", (RB, 1), 20, "delete")],
        {RA: 2, RB: 1}, MOVED0, modified=20))

entry("move-vs-edit",
      "aaaa… moves the entry to mail/home (event 2, time 10), bbbb… changes the password (event 1, time 12): the path "
      "and the field are different registers, both changes are kept",
      "MERGE.md §5.1, §5.3",
      E(ID1, "mail/home", {"password": P1, "notes": N1}, [], {RA: 2}, ((RA, 2), 10, "laptop")),
      E(ID1, "mail/work", {"password": F("p2", 12, "phone", (RB, 1)), "notes": N1},
        [H("password", "p1", 0, "laptop", (RA, 1), 12)], {RA: 1, RB: 1}, MOVED0),
      E(ID1, "mail/home", {"password": F("p2", 12, "phone", (RB, 1)), "notes": N1},
        [H("password", "p1", 0, "laptop", (RA, 1), 12)], {RA: 2, RB: 1}, ((RA, 2), 10, "laptop")))

entry("two-moves",
      "aaaa… moves the entry to mail/home (time 10), bbbb… to mail/office (time 12), concurrently: the later move "
      "gives path and moved; the other path is reported (rename-conflict) and not stored",
      "MERGE.md §5.3",
      E(ID1, "mail/home", {"password": P1, "notes": N1}, [], {RA: 2}, ((RA, 2), 10, "laptop")),
      E(ID1, "mail/office", {"password": P1, "notes": N1}, [], {RA: 1, RB: 1}, ((RB, 1), 12, "phone")),
      E(ID1, "mail/office", {"password": P1, "notes": N1}, [], {RA: 2, RB: 1}, ((RB, 1), 12, "phone")),
      [R("rename-conflict", "mail/office", losingPath="mail/home", winnerOrigin="phone", winnerModified=12,
         loserOrigin="laptop", loserModified=10)])

entry("same-id-added-on-both",
      "one id created on both replicas (a file copied into two clones before either synced), at web/a by aaaa… "
      "(time 0) and at web/b by bbbb… (time 5), with different passwords: the path and the field are each two live "
      "writes; the later wins, the other password goes to history, the other path is reported",
      "MERGE.md §5.2, §5.3",
      E(IDX, "web/a", {"password": F("pa", 0, "laptop", (RA, 1))}, [], {RA: 1}, ((RA, 1), 0, "laptop")),
      E(IDX, "web/b", {"password": F("pb", 5, "phone", (RB, 1))}, [], {RB: 1}, ((RB, 1), 5, "phone"), created=5),
      E(IDX, "web/b", {"password": F("pb", 5, "phone", (RB, 1))},
        [H("password", "pa", 0, "laptop", (RA, 1), 5, "merge")], {RA: 1, RB: 1}, ((RB, 1), 5, "phone")),
      [R("rename-conflict", "web/b", id=IDX, losingPath="web/a", winnerOrigin="phone", winnerModified=5,
         loserOrigin="laptop", loserModified=0),
       R("field-conflict", "web/b", "password", id=IDX, winnerOrigin="phone", winnerModified=5, loserOrigin="laptop",
         loserModified=0)])

entry("rename-kept-by-a-later-join",
      "a join renamed 22222222… to mail/work.conflict-22222222 (a path collision; moved kept its dot, a join is not an "
      "event); joined again with the version before the rename, the path register has two writes of one dot and "
      "different paths: the bytewise greater path, the rename, is kept",
      "MERGE.md §5.3, §6",
      E(ID2, "mail/work.conflict-22222222", {"password": F("q", 1, "phone", (RB, 1))}, [], {RB: 1},
        ((RB, 1), 1, "phone"), created=1),
      E(ID2, "mail/work", {"password": F("q", 1, "phone", (RB, 1))}, [], {RB: 1}, ((RB, 1), 1, "phone"), created=1),
      E(ID2, "mail/work.conflict-22222222", {"password": F("q", 1, "phone", (RB, 1))}, [], {RB: 1},
        ((RB, 1), 1, "phone"), created=1))

# Two replicas converted the same version 4 vault (FORMAT §11.10) at different trees: every write differs only in its
# dot (u1, 1) or (u2, 1).
def converted(u):
    return E(ID1, "mail/work", {"password": F("p2", 10, "laptop", (u, 1))},
             [H("password", "p1", 0, "laptop", (u, 1), 10)], {u: 1}, ((u, 1), 10, ""), modified=10)


entry("two-conversions",
      "one entry converted by two replicas from one older vault: the field and the path are each two live writes that "
      "differ only in their dot, and the greater dot (2222…, 1) is kept without a conflict; the two history items of "
      "p1 differ only in their dots too: one write of one value (FORMAT §11.8), so one item stays, the greater in "
      "history order with the dot last, (2222…, 1)",
      "MERGE.md §5.1 step 3, §5.4, FORMAT §11.8, §11.10",
      converted(U1), converted(U2),
      E(ID1, "mail/work", {"password": F("p2", 10, "laptop", (U2, 1))},
        [H("password", "p1", 0, "laptop", (U2, 1), 10)],
        {U1: 1, U2: 1}, ((U2, 1), 10, ""), modified=10))

# One custom field name in two spellings: "Café" with U+00E9 (NFC, 43 61 66 c3 a9) and with e U+0301 (NFD, 43 61 66 65
# cc 81), canonically equivalent (FORMAT §1.3).
CAFE_NFC, CAFE_NFD = "Caf\u00e9", "Cafe\u0301"
entry("field-name-nfc-vs-nfd",
      "aaaa… sets the field Café spelled with U+00E9 (NFC) to c-a (event 2, laptop, time 12); bbbb…, concurrently, sets "
      "Café spelled e U+0301 (NFD) to c-b (event 1, phone, time 10): canonically equivalent names are one register, so "
      "the two writes are two live writes of one field: aaaa…'s, the later, wins; the field's name in the result is "
      "the bytewise smallest spelling the sides use, the NFD one (65 < c3), not the winner's; c-b goes to history "
      "(reason merge) and is reported under that name",
      "MERGE.md §5.2, FORMAT §1.3",
      E(ID1, "mail/work", {"password": P1, "notes": N1, CAFE_NFC: F("c-a", 12, "laptop", (RA, 2))}, [], {RA: 2},
        MOVED0),
      E(ID1, "mail/work", {"password": P1, "notes": N1, CAFE_NFD: F("c-b", 10, "phone", (RB, 1))}, [],
        {RA: 1, RB: 1}, MOVED0),
      E(ID1, "mail/work", {"password": P1, "notes": N1, CAFE_NFD: F("c-a", 12, "laptop", (RA, 2))},
        [H(CAFE_NFD, "c-b", 10, "phone", (RB, 1), 12, "merge")], {RA: 2, RB: 1}, MOVED0),
      [R("field-conflict", "mail/work", CAFE_NFD, winnerOrigin="laptop", winnerModified=12, loserOrigin="phone",
         loserModified=10)])

NEWER = E(ID1, "mail/work", {"password": F("p2", 10, "laptop", (RA, 2)), "notes": N1},
          [H("password", "p1", 0, "laptop", (RA, 1), 10)], {RA: 2}, MOVED0)
entry("replay-of-an-older-version",
      "a version joined with one it descends from (an old state replayed by the host): the descendant, unchanged",
      "MERGE.md §2, §10", NEWER, BASE, NEWER)

many_a = [H("password", "a%02d" % i, i, "laptop", (RA, i + 1), 100 + 2 * i) for i in range(40)]
many_b = [H("password", "b%02d" % i, i, "phone", (RB, i + 1), 101 + 2 * i) for i in range(40)]
CUR = F("cur", 200, "tablet", (RC, 1))
entry("history-cap",
      "40 history items of the password on each side (aaaa…'s replaced at 100, 102, …, bbbb…'s at 101, 103, …): the "
      "union is 80 values, of which the newest 64 by replaced are kept: a08–a39 and b08–b39",
      "MERGE.md §5.4, FORMAT §5.4",
      E(ID1, "mail/work", {"password": CUR}, list(reversed(many_a)), {RA: 40, RC: 1}, MOVED0, modified=200),
      E(ID1, "mail/work", {"password": CUR}, many_b, {RA: 1, RB: 40, RC: 1}, MOVED0, modified=200),
      E(ID1, "mail/work", {"password": CUR}, [x for i in range(8, 40) for x in (many_a[i], many_b[i])],
        {RA: 40, RB: 40, RC: 1}, MOVED0, modified=200))

entry("unknown-members",
      "unknown payload members: zA on one side only and zB on the other are kept; zC differs on the two sides and the "
      "greater canonical bytes are kept (reported); an unknown member of a field object is dropped by the rewrite",
      "MERGE.md §5.4, FORMAT §11.8",
      E(ID1, "mail/work", {"password": dict(P1, zInner=1), "notes": F("n2", 10, "laptop", (RA, 2))},
        [H("notes", "n1", 0, "laptop", (RA, 1), 10)], {RA: 2}, MOVED0, zA=1, zC={"v": 1}),
      E(ID1, "mail/work", {"password": P1, "notes": N1}, [], {RA: 1, RB: 1}, MOVED0, zB="b", zC={"v": 2}),
      E(ID1, "mail/work", {"password": P1, "notes": F("n2", 10, "laptop", (RA, 2))},
        [H("notes", "n1", 0, "laptop", (RA, 1), 10)], {RA: 2, RB: 1}, MOVED0, zA=1, zB="b", zC={"v": 2}),
      [R("unknown-member-conflict", "mail/work", "zC")])

# ---- states (§4.2, §6) ----

OTHER = E(ID2, "bank/visa", {"pin": F("1234", 0, "laptop", (RA, 2))}, [], {RA: 2}, ((RA, 2), 0, "laptop"))
X1 = E(IDX, "games/steam", {"password": F("s1", 0, "laptop", (RA, 1))}, [], {RA: 1}, ((RA, 1), 0, "laptop"))

state("deletion-after-seeing-everything",
      "aaaa… deleted games/steam (event 3) after seeing every write to it; bbbb… still has it as it was: aaaa…'s domain "
      "clock covers the entry's clock, so it was deleted and stays deleted, in either order",
      "MERGE.md §4.2",
      {"clock": {RA: 3}, "entries": [OTHER]},
      {"clock": {RA: 2}, "entries": [OTHER, X1]},
      [OTHER])

X1_EDITED = E(IDX, "games/steam", {"password": F("s2", 30, "phone", (RB, 1))},
              [H("password", "s1", 0, "laptop", (RA, 1), 30)], {RA: 1, RB: 1}, ((RA, 1), 0, "laptop"))
state("deletion-concurrent-with-edit",
      "aaaa… deleted games/steam (event 3) while bbbb… changed its password (event 1) without having seen the deletion: "
      "the entry's clock has (bbbb…, 1), which aaaa…'s domain clock does not cover: the entry is kept whole, as the "
      "editing side has it; aaaa… had seen part of it (its move and its first password, (aaaa…, 1)), so the join "
      "reports edit-delete-kept-edit",
      "MERGE.md §4.2",
      {"clock": {RA: 3}, "entries": [OTHER]},
      {"clock": {RA: 2, RB: 1}, "entries": [OTHER, X1_EDITED]},
      [OTHER, X1_EDITED],
      [R("edit-delete-kept-edit", "games/steam", id=IDX)])

Y_UPPER = E(ID1, "Mail/Work", {"password": F("x", 0, "laptop", (RA, 1))}, [], {RA: 1}, ((RA, 1), 0, "laptop"))
Y_LOWER = E(ID2, "mail/work", {"password": F("y", 1, "phone", (RB, 1))}, [], {RB: 1}, ((RB, 1), 1, "phone"), created=1)
Y_RENAMED = E(ID2, "mail/work.conflict-22222222", {"password": F("y", 1, "phone", (RB, 1))}, [], {RB: 1},
              ((RB, 1), 1, "phone"), created=1)
state("path-collision-renamed",
      "two new entries whose paths collide (Mail/Work and mail/work): the first by id keeps its path, the other gets "
      "<path>.conflict-<id8>; only the path changes (moved keeps its dot)",
      "MERGE.md §6",
      {"clock": {RA: 1}, "entries": [Y_UPPER]},
      {"clock": {RB: 1}, "entries": [Y_LOWER]},
      [Y_UPPER, Y_RENAMED],
      [R("path-collision-renamed", "mail/work", id=ID2, newPath="mail/work.conflict-22222222")])

state("path-collision-rename-kept",
      "the joined state (with the rename) joined again with bbbb…'s state from before: the rename stays, and no "
      "collision is reported again",
      "MERGE.md §5.3, §6",
      {"clock": {RA: 1, RB: 1}, "entries": [Y_UPPER, Y_RENAMED]},
      {"clock": {RB: 1}, "entries": [Y_LOWER]},
      [Y_UPPER, Y_RENAMED])

# Issue 21, cause A, as states. aaaa… is r0, bbbb… is r1.
#   r0 1: add X (username u0-original)                 r1 clones
#   r1 1: rm X (not synced)
#   r0 2: set username u2-NEWER, pin PIN-ADDED; sync
#   r0 3: set notes n0 (not synced)
#   r1 syncs: X is kept (its clock {r0: 2} is not covered by r1's {r0: 1, r1: 1}); r1 2: rm X again; sync
#   r0 syncs: its state (X at {r0: 3}) joined with the remote's (domain {r0: 2, r1: 2}, no X)
X_R0 = E(IDX, "X", {"username": F("u2-NEWER", 20, "r0", (RA, 2)), "pin": F("PIN-ADDED", 20, "r0", (RA, 2)),
                    "notes": F("n0", 30, "r0", (RA, 3))},
         [H("username", "u0-original", 0, "r0", (RA, 1), 20)], {RA: 3}, ((RA, 1), 0, "r0"))
state("issue21-cause-a",
      "issue 21, cause A: r0 (aaaa…) added X, changed it (username u2-NEWER, pin PIN-ADDED, synced) and changed it again "
      "(notes n0, not synced); r1 (bbbb…) deleted X, took the change back by a sync, deleted X again and synced. r0's "
      "sync joins its state with the remote's: r1's domain clock {r0: 2, r1: 2} does not cover X's {r0: 3} (r1 never "
      "saw n0), so X is kept as r0 has it, u2-NEWER and PIN-ADDED current, and edit-delete-kept-edit is reported. No "
      "deleted version is folded against a base: there is none",
      "MERGE.md §2, §4.2",
      {"clock": {RA: 3}, "entries": [X_R0]},
      {"clock": {RA: 2, RB: 2}, "entries": []},
      [X_R0],
      [R("edit-delete-kept-edit", "X", id=IDX)])

X_R0_SYNCED = E(IDX, "X", {"username": F("u2-NEWER", 20, "r0", (RA, 2)), "pin": F("PIN-ADDED", 20, "r0", (RA, 2))},
                [H("username", "u0-original", 0, "r0", (RA, 1), 20)], {RA: 2}, ((RA, 1), 0, "r0"))
state("issue21-cause-a-deleter-saw-all",
      "issue 21, cause A, when r0 had not changed X after its sync: r1's second deletion had seen every write to X "
      "(X's clock {r0: 2} is covered by {r0: 2, r1: 2}): X stays deleted",
      "MERGE.md §4.2",
      {"clock": {RA: 2}, "entries": [X_R0_SYNCED]},
      {"clock": {RA: 2, RB: 2}, "entries": []},
      [])

# Issue 21, cause B: r0 set u1-NEWER (event 2) and deleted X; r1 deleted X as it had it (u0-original). A restore
# (MERGE §7) joins both deleted versions.
entry("issue21-cause-b-restore",
      "issue 21, cause B: the two versions of X found before the commits that deleted it, r1's (u0-original, clock "
      "{r0: 1}) and r0's (u1-NEWER, clock {r0: 2}), joined by `restore`: r0's descends from r1's, so u1-NEWER is "
      "current and u0-original in its history (the restore then writes it with clock[r] = n, vector "
      "v5-edit-restore-both-deleted)",
      "MERGE.md §7",
      E(IDX, "X", {"username": F("u0-original", 0, "r0", (RA, 1))}, [], {RA: 1}, ((RA, 1), 0, "r0")),
      E(IDX, "X", {"username": F("u1-NEWER", 10, "r0", (RA, 2))}, [H("username", "u0-original", 0, "r0", (RA, 1), 10)],
        {RA: 2}, ((RA, 1), 0, "r0")),
      E(IDX, "X", {"username": F("u1-NEWER", 10, "r0", (RA, 2))}, [H("username", "u0-original", 0, "r0", (RA, 1), 10)],
        {RA: 2}, ((RA, 1), 0, "r0")))


# ---- headers (§8) ----
# The vault header of v5_world (passphrase slot (a1a1…, 1), alice (a1a1…, 2), scopes Team and Ops, clock {a1a1…: 4}),
# changed on two replicas. Results are written as that header's JSON with the changes the text asks for.

from tresorref.header5 import VaultHeaderV5, ScopeHeaderV2  # noqa: E402
from tresorref.recipients import RecipientSlot  # noqa: E402
from tresorref.scopes import ScopeRecipientSlot  # noqa: E402
from . import v5_world as w  # noqa: E402

BOB_SLOT = "b0b00000-0000-4000-8000-000000000002"
DAVE_SLOT = "da7e0000-0000-4000-8000-000000000004"
NEW_SLOT = "5e110000-0000-4000-8000-000000000005"
HOME_ID = "40e00000-0000-4000-8000-00000000000c"
WORK_ID = "30c00000-0000-4000-8000-00000000000d"
BOB_PK, DAVE_PK = w.public(w.sequence(0x02, 32)), w.public(w.sequence(0x03, 32))


def recipient(name, slot_id, pk, dot, key=w.VAULT_KEY, eph=w.sequence(0x91, 32)):
    j = RecipientSlot.seal(key, pk, name, w.VAULT_ID, slot_id, eph).to_json()
    j["dot"] = list(dot)
    return j


def passphrase(slot_id, dot, key=w.VAULT_KEY, nonce=w.sequence(0x42, 24)):
    j = w.passphrase_slot(key, id=slot_id, nonce=nonce).to_json()
    j["dot"] = list(dot)
    return j


BASE_HEADER = cj.loads(w.vault_header().serialize())
S0, ALICE = BASE_HEADER["keySlots"]


def header(slots=None, clock=None, scopes=None, key=w.VAULT_KEY, base=BASE_HEADER, **members):
    """A vault header: `base` with other slots, clock, scopes or members, tagged under `key`."""
    obj = {k: v for k, v in base.items() if k != "auth"}
    if slots is not None:
        obj["keySlots"] = slots
    if clock is not None:
        obj["clock"] = clock
    if scopes is not None:
        obj["scopes"] = scopes
    obj.update(members)
    from tresorref.header5 import sign
    return cj.loads(sign(VaultHeaderV5, obj, key).serialize())


def unsigned(h):
    return {k: v for k, v in h.items() if k != "auth"}


def head(name, description, a, b, expected=None, resolutions=(), error=None, keys=None, scope=False):
    CASES[name] = header_case(name, description, "MERGE.md §8", a, b, expected, resolutions, error, scope, keys)


def HR(kind, field=None):
    return R(kind, ".tresor/vault.json", field, id=w.VAULT_ID)


BOB = recipient("bob", BOB_SLOT, BOB_PK, (w.R1, 8))
DAVE = recipient("dave", DAVE_SLOT, DAVE_PK, (w.R2, 1))
head("header-members-added-on-both",
     "a1a1… adds bob (event 8), b2b2… adds dave (event 1): both slots are live and kept; the result's slot ids are "
     "neither side's (key-slots-merged); the clocks are joined",
     header([S0, ALICE, BOB], {w.R1: 8}), header([S0, ALICE, DAVE], {w.R1: 4, w.R2: 1}),
     unsigned(header([S0, ALICE, BOB, DAVE], {w.R1: 8, w.R2: 1})), [HR("key-slots-merged")])

NEW_PASS = passphrase(NEW_SLOT, (w.R1, 8))
head("header-passphrase-changed-vs-member-added",
     "a1a1… changes the passphrase (event 8: its one passphrase slot replaced by a new one), b2b2… adds dave: the old "
     "slot, which b2b2… still has, was seen and removed by a1a1… (its dot is covered) and goes; the new slot and dave "
     "are kept",
     header([NEW_PASS, ALICE], {w.R1: 8}), header([S0, ALICE, DAVE], {w.R1: 4, w.R2: 1}),
     unsigned(header([NEW_PASS, ALICE, DAVE], {w.R1: 8, w.R2: 1})), [HR("key-slots-merged")])

# b2b2… removed alice (a vault rekey to epoch 2, event 1 of b2b2…); c3c3…, still at epoch 1, added dave (event 1) and a
# passphrase slot (event 2).
from .v5_cases import rekeyed_tree  # noqa: E402
REKEYED = cj.loads(rekeyed_tree(1, remove="alice")[0][".tresor/vault.json"])
DAVE_C = recipient("dave", DAVE_SLOT, DAVE_PK, (w.R3, 1))
EXTRA_PASS = passphrase(NEW_SLOT, (w.R3, 2))
RESEAL = w.sequence(0x95, 32)
DAVE_RESEALED = dict(DAVE_C, sealedKey=RecipientSlot.seal(w.NEW_VAULT_KEY, DAVE_PK, "dave", w.VAULT_ID, DAVE_SLOT,
                                                          RESEAL).to_json()["sealedKey"])
head("header-older-epoch",
     "b2b2… removed alice (epoch 2); c3c3…, at epoch 1, added dave and a second passphrase slot. The epoch 2 header is "
     "the base: alice stays removed (b2b2…'s clock covers her slot's dot), dave is sealed again to the epoch 2 key "
     "(same id, name, key and dot; key-slots-merged), the passphrase slot of epoch 1 is dropped "
     "(passphrase-slot-dropped); epoch and rekey are b2b2…'s, the clocks joined",
     REKEYED, header([S0, ALICE, EXTRA_PASS, DAVE_C], {w.R1: 4, w.R3: 2}),
     dict(unsigned(REKEYED), keySlots=REKEYED["keySlots"] + [DAVE_RESEALED], clock={w.R1: 4, w.R2: 1, w.R3: 2}),
     [HR("key-slots-merged"), HR("passphrase-slot-dropped")],
     keys={"new_key": w.NEW_VAULT_KEY.hex(), "ephemeral_secrets": [RESEAL.hex()]})

# The records of one header in the order of §9: c3c3… (epoch 1) also added a third passphrase slot (event 3), whose id
# sorts before the second's, and both sides set an unknown member zC.
EXTRA_PASS2 = passphrase("0a550000-0000-4000-8000-000000000007", (w.R3, 3), nonce=w.sequence(0x43, 24))
REKEYED_Z = header(base=REKEYED, key=w.NEW_VAULT_KEY, zC="x")
head("header-older-epoch-record-order",
     "as header-older-epoch, and c3c3… also added a third passphrase slot (event 3; its id 0a55… sorts before the "
     "second's), and zC is \"x\" on b2b2…'s side and \"y\" on c3c3…'s: the records of the one header come in the order "
     "of §9: key-slots-merged, one passphrase-slot-dropped per dropped slot (by slot id), then unknown-member-conflict "
     "(zC: the greater canonical bytes, \"y\")",
     REKEYED_Z, header([S0, ALICE, EXTRA_PASS, EXTRA_PASS2, DAVE_C], {w.R1: 4, w.R3: 3}, zC="y"),
     dict(unsigned(REKEYED_Z), keySlots=REKEYED["keySlots"] + [DAVE_RESEALED], clock={w.R1: 4, w.R2: 1, w.R3: 3},
          zC="y"),
     [HR("key-slots-merged"), HR("passphrase-slot-dropped"), HR("passphrase-slot-dropped"),
      HR("unknown-member-conflict", "zC")],
     keys={"new_key": w.NEW_VAULT_KEY.hex(), "ephemeral_secrets": [RESEAL.hex()]})

# The result of header-older-epoch (dave sealed again to the epoch 2 key, his dot kept) meets c3c3…'s epoch 1 header
# again (a replica that has not seen the merge). Found by the convergence property: a scope's vault slot wrapped again
# this way, then joined with the older header, left no slot at all (both copies covered by the other side's clock).
MERGED_ONCE = header(REKEYED["keySlots"] + [DAVE_RESEALED], {w.R1: 4, w.R2: 1, w.R3: 2}, base=REKEYED, key=w.NEW_VAULT_KEY)
head("header-older-epoch-slot-sealed-again",
     "the result of header-older-epoch joined again with c3c3…'s epoch 1 header: dave's slot sealed again to the "
     "epoch 2 key and the one sealed to the epoch 1 key have one id and one dot, so they are one write, sealed under "
     "two keys: the epoch 2 side's stays (neither is taken for removed by the other side's clock); alice and the "
     "second passphrase slot stay removed (their dots are covered and the epoch 2 side has neither); the result is the "
     "merged header, nothing to report",
     MERGED_ONCE, header([S0, ALICE, EXTRA_PASS, DAVE_C], {w.R1: 4, w.R3: 2}),
     unsigned(MERGED_ONCE), [],
     keys={"new_key": w.NEW_VAULT_KEY.hex(), "ephemeral_secrets": [RESEAL.hex()]})

# Two headers of epoch 2 under one key whose `rekey` members differ in bytes (the chain sealed with another nonce; both
# verify). c3c3… added bob to its copy (event 1).
from tresorref.header5 import make_rekey, header_key  # noqa: E402
REKEY_OTHER = make_rekey(w.VAULT_ID, "vault", 2, [header_key(w.VAULT_KEY)], w.NEW_VAULT_KEY, w.sequence(0x1b, 24))
BOB_2 = recipient("bob", BOB_SLOT, BOB_PK, (w.R3, 1), key=w.NEW_VAULT_KEY)
REKEYED_OTHER = header(REKEYED["keySlots"] + [BOB_2], {w.R1: 4, w.R2: 1, w.R3: 1}, base=REKEYED, key=w.NEW_VAULT_KEY,
                       rekey=REKEY_OTHER)
assert cj.dumps(REKEY_OTHER) > cj.dumps(REKEYED["rekey"])
head("header-equal-epochs-rekey-differs",
     "two headers of epoch 2 under one key whose rekey members differ in bytes (both verify); c3c3… added bob (event "
     "1): epoch 2, the rekey with the greater canonical bytes (c3c3…'s), bob kept; the result's slot ids are "
     "c3c3…'s, so no key-slots-merged",
     REKEYED, REKEYED_OTHER,
     dict(unsigned(REKEYED), keySlots=REKEYED["keySlots"] + [BOB_2], clock={w.R1: 4, w.R2: 1, w.R3: 1},
          rekey=REKEY_OTHER))

SCOPES = BASE_HEADER["scopes"]
HOME = {"folder": "Home", "dot": [w.R1, 8]}
WORK = {"folder": "Work", "dot": [w.R2, 1]}
head("header-scopes-created-on-both",
     "a1a1… creates the scope Home (event 8), b2b2… the scope Work (event 1): both are kept",
     header(clock={w.R1: 8}, scopes=dict(SCOPES, **{HOME_ID: HOME})),
     header(clock={w.R1: 4, w.R2: 1}, scopes=dict(SCOPES, **{WORK_ID: WORK})),
     unsigned(header(clock={w.R1: 8, w.R2: 1}, scopes=dict(SCOPES, **{HOME_ID: HOME, WORK_ID: WORK}))))

head("header-scope-removed-vs-kept",
     "a1a1… removed the scope Ops (event 8) having seen it; b2b2… changed something else (added dave): Ops stays "
     "removed; the result's slot ids are b2b2…'s, so no key-slots-merged",
     header(clock={w.R1: 8}, scopes={w.TEAM_ID: SCOPES[w.TEAM_ID]}),
     header([S0, ALICE, DAVE], {w.R1: 4, w.R2: 1}),
     unsigned(header([S0, ALICE, DAVE], {w.R1: 8, w.R2: 1}, scopes={w.TEAM_ID: SCOPES[w.TEAM_ID]})))

head("header-scope-folder-changed-on-both",
     "the folder of Team changed to Staff by a1a1… (event 8) and to Crew by b2b2… (event 1): two live values, the one "
     "with the greater dot ((b2b2…, 1): replica ids compare first) is kept",
     header(clock={w.R1: 8}, scopes=dict(SCOPES, **{w.TEAM_ID: {"folder": "Staff", "dot": [w.R1, 8]}})),
     header(clock={w.R1: 4, w.R2: 1}, scopes=dict(SCOPES, **{w.TEAM_ID: {"folder": "Crew", "dot": [w.R2, 1]}})),
     unsigned(header(clock={w.R1: 8, w.R2: 1}, scopes=dict(SCOPES, **{w.TEAM_ID: {"folder": "Crew",
                                                                                 "dot": [w.R2, 1]}}))))

head("header-scopes-nest",
     "a1a1… creates the scope Home (event 8), b2b2… the scope Home/Kids (event 1), concurrently: the folders nest, so "
     "the scope with the greater dot ((b2b2…, 1): replica ids compare first) stays and Home is left out (its entries "
     "lie in the vault domain by path)",
     header(clock={w.R1: 8}, scopes=dict(SCOPES, **{HOME_ID: HOME})),
     header(clock={w.R1: 4, w.R2: 1}, scopes=dict(SCOPES, **{WORK_ID: {"folder": "Home/Kids", "dot": [w.R2, 1]}})),
     unsigned(header(clock={w.R1: 8, w.R2: 1}, scopes=dict(SCOPES, **{WORK_ID: {"folder": "Home/Kids", "dot": [w.R2, 1]}}))))

head("header-scopes-same-folder",
     "a1a1… and b2b2… each make a scope at the folder Home, concurrently (two ids): one scope stays, the one with the "
     "greater dot ((b2b2…, 1)); the other is left out (its members join the one that stays: Spec/MERGE.md §8 step 4)",
     header(clock={w.R1: 8}, scopes=dict(SCOPES, **{HOME_ID: HOME})),
     header(clock={w.R1: 4, w.R2: 1}, scopes=dict(SCOPES, **{WORK_ID: {"folder": "Home", "dot": [w.R2, 1]}})),
     unsigned(header(clock={w.R1: 8, w.R2: 1}, scopes=dict(SCOPES, **{WORK_ID: {"folder": "Home", "dot": [w.R2, 1]}}))))

OTHER_VAULT = cj.loads(w.VaultHeaderV5.build(w.OTHER_VAULT_ID, w.VAULT_KEY, 1, {w.R1: 1},
                                             [(w.passphrase_slot(), (w.R1, 1))]).serialize())
head("header-different-vault", "two headers of different vaults [different-vault]", BASE_HEADER, OTHER_VAULT,
     error="different-vault")

TOKEN_A = {"type": "hardware-token", "id": "a"}
TOKEN_B = {"type": "hardware-token", "id": "b"}
head("header-unknown-members",
     "unknown header members (zA on one side, zB on the other, zC different on both: the greater canonical bytes, "
     "reported) and slots of unknown types (every distinct one of either side, by canonical bytes)",
     header([S0, ALICE, TOKEN_B], {w.R1: 8}, zA=1, zC="x"), header([S0, ALICE, TOKEN_A], {w.R1: 4, w.R2: 1}, zB=2, zC="y"),
     unsigned(header([S0, ALICE, TOKEN_A, TOKEN_B], {w.R1: 8, w.R2: 1}, zA=1, zB=2, zC="y")),
     [HR("unknown-member-conflict", "zC")])

# A scope header (version 2): Team, with carol and the vault slot; members added on both sides.
TEAM = cj.loads(w.team_header().serialize())
CAROL_T, VAULT_T = TEAM["keySlots"]


def scope_slot(name, slot_id, pk, dot):
    j = ScopeRecipientSlot.seal_scope(w.TEAM_KEY, pk, name, w.VAULT_ID, w.TEAM_ID, slot_id, w.sequence(0x96, 32)).to_json()
    j["dot"] = list(dot)
    return j


def team(slots, clock):
    from tresorref.header5 import sign
    obj = {k: v for k, v in TEAM.items() if k != "auth"}
    obj.update(keySlots=slots, clock=clock)
    return cj.loads(sign(ScopeHeaderV2, obj, w.TEAM_KEY).serialize())


T_BOB = scope_slot("bob", BOB_SLOT, BOB_PK, (w.R1, 8))
T_DAVE = scope_slot("dave", DAVE_SLOT, DAVE_PK, (w.R2, 1))
head("scope-header-members-added-on-both",
     "Team's members: a1a1… adds bob, b2b2… adds dave; recipient slots by id, the vault slot after them",
     team([CAROL_T, T_BOB, VAULT_T], {w.R1: 8}), team([CAROL_T, T_DAVE, VAULT_T], {w.R1: 3, w.R2: 1}),
     unsigned(team([T_BOB, CAROL_T, T_DAVE, VAULT_T], {w.R1: 8, w.R2: 1})),
     [R("key-slots-merged", ".tresor/scopes/%s.json" % w.TEAM_ID, id=w.TEAM_ID)], scope=True)


# ---- states of several domains (§4.1, §4.2, §4.4) ----
# The merger reads the vault domain and Team, not Ops (a closed scope).
from .join_run import domains_case  # noqa: E402

TEAM_ID, OPS_ID = w.TEAM_ID, w.OPS_ID
DSCOPES = {TEAM_ID: "Team", OPS_ID: "Ops"}
READS = ["vault", TEAM_ID]
ID3 = "33333333-3333-4333-8333-333333333333"
ROOT_E = E(ID1, "mail/work", {"password": P1}, [], {RA: 1}, MOVED0)
WIKI_E = E(ID3, "Team/wiki", {"password": F("w1", 0, "laptop", (RA, 2))}, [], {RA: 2}, ((RA, 2), 0, "laptop"))


def dcase(name, description, rule, a, b, expected=None, resolutions=(), clocks=None, error=None):
    CASES[name] = domains_case(name, description, rule, READS, DSCOPES, a, b, expected, resolutions, clocks, error)


OPS_RECORD = "(Ops's state record, not read)"
dcase("domains-deletion-by-domain-clock",
      "Team/wiki is in aaaa…'s Team domain only; bbbb…'s Team clock {aaaa…: 2, bbbb…: 1} covers the entry's {aaaa…: 2} "
      "(bbbb… deleted it, event 1, a Team event) while its vault clock does not: the domain of the entry decides, so it "
      "is deleted; Ops, not read, has equal clocks and records and is kept; clocks of read domains are joined",
      "MERGE.md §4.2, §4.4",
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: OPS_RECORD}},
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2, RB: 1}, OPS_ID: {RA: 3}}, "scopes": DSCOPES,
       "entries": [ROOT_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: OPS_RECORD}},
      [ROOT_E], clocks={"vault": {RA: 1}, TEAM_ID: {RA: 2, RB: 1}, OPS_ID: {RA: 3}})

dcase("domains-unread-domain-newer",
      "Ops, which the merger does not read, is newer on bbbb…'s side ({aaaa…: 3, cccc…: 1}): it is taken whole from "
      "that side (its clock in the result)",
      "MERGE.md §4.4",
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: OPS_RECORD}},
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3, RC: 1}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: "(a newer record)"}},
      [WIKI_E, ROOT_E], clocks={"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3, RC: 1}})

dcase("domains-unread-domain-concurrent",
      "Ops changed on both sides (clocks {aaaa…: 4} and {aaaa…: 3, cccc…: 1}) and the merger does not read it "
      "[domain-conflict]: a holder of Ops's key must sync first",
      "MERGE.md §4.4",
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 4}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "records": {OPS_ID: "(one record)"}},
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3, RC: 1}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "records": {OPS_ID: "(another record)"}},
      error="domain-conflict")

MOVED_OUT = E(ID3, "mail/wiki", {"password": F("w1", 0, "laptop", (RA, 2))}, [], {RA: 2, RC: 1},
              ((RC, 1), 5, "carol"))
dcase("domains-entry-moved-into-unread-domain",
      "an entry that cccc… moved out of Ops into the vault domain (so it is in the vault domain on one side) while its "
      "id is still in a file of Ops, which the merger does not read, on the other side [domain-conflict]",
      "MERGE.md §4.2",
      {"clocks": {"vault": {RA: 1, RC: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3, RC: 1}}, "scopes": DSCOPES,
       "entries": [ROOT_E, MOVED_OUT], "unreadIds": {OPS_ID: []}, "records": {OPS_ID: "(after the move)"}},
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3}}, "scopes": DSCOPES,
       "entries": [ROOT_E], "unreadIds": {OPS_ID: [ID3]}, "records": {OPS_ID: OPS_RECORD}},
      error="domain-conflict")

NEW_E = E("44444444-4444-4444-8444-444444444444", "Team/new", {"password": F("n1", 0, "phone", (RC, 1))}, [], {RC: 1},
          ((RC, 1), 0, "phone"))
dcase("domains-entry-joined-into-scope-brings-its-clock",
      "cccc… added Team/new before it knew of the scope Team (in its vault domain, clock {cccc…: 1}); bbbb…'s side has "
      "Team (made by aaaa…): in the result the entry lies in Team, whose clock is the join of the sides' Team clocks and "
      "of the entry's, {aaaa…: 2, cccc…: 1}, so a later deletion of it by a holder of this result covers it (§2)",
      "MERGE.md §2, §4.5",
      {"clocks": {"vault": {RA: 1, RC: 1}, OPS_ID: {RA: 3}}, "scopes": {OPS_ID: "Ops"},
       "entries": [ROOT_E, NEW_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: OPS_RECORD}},
      {"clocks": {"vault": {RA: 1}, TEAM_ID: {RA: 2}, OPS_ID: {RA: 3}}, "scopes": DSCOPES,
       "entries": [ROOT_E, WIKI_E], "unreadIds": {OPS_ID: [IDX]}, "records": {OPS_ID: OPS_RECORD}},
      [NEW_E, WIKI_E, ROOT_E], clocks={"vault": {RA: 1, RC: 1}, TEAM_ID: {RA: 2, RC: 1}, OPS_ID: {RA: 3}})
