"""Spec/vectors/merge/*.json: the cases of Spec/MERGE.md §12.

Each case states its inputs and, written out by hand from the rules of Spec/MERGE.md, the result it
expects. The vector's `expected` and `resolutions` are computed by tresorref.merge, for both orders of the
sides, and must equal the hand-written result: three statements of the rules (the text, this file,
tresorref) agree before a vector is written.
"""
import base64

from .merge_run import entries_vector, header_vector as _header_vector, scope_header_vector as _scope_header_vector

ID1 = "11111111-1111-4111-8111-111111111111"
ID2 = "22222222-2222-4222-8222-222222222222"
IDA = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
IDB = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"


def T(s):
    """2026-03-01 10:00:00 plus s seconds, in the payload's timestamp form."""
    return "2026-03-01T%02d:%02d:%02d.000Z" % (10 + s // 3600, (s // 60) % 60, s % 60)


def F(value, modified, origin):
    return {"value": value, "modified": T(modified), "origin": origin}


def H(field, value, modified, origin, replaced, reason):
    return {"field": field, "value": value, "modified": T(modified), "origin": origin,
            "replaced": T(replaced), "reason": reason}


def E(id, path, created, modified, fields, history=(), **unknown):
    payload = {"path": path, "created": T(created), "modified": T(modified), "fields": fields,
               "history": list(history)}
    payload.update(unknown)
    return {"id": id, "payload": payload}


def R(id, kind, path, field=None, **members):
    """A record of MERGE.md §8 without its description; members that do not apply are null."""
    r = dict.fromkeys(("losingPath", "newPath", "winnerOrigin", "winnerModified", "loserOrigin", "loserModified"))
    r.update({"entryID": id, "path": path, "field": field, "kind": kind})
    for k, v in members.items():
        assert k in r, k
        r[k] = T(v) if k.endswith("Modified") else v
    return r


def CONFLICT(field, winner, loser, id=ID1, path="mail/work"):
    """A field-conflict record: winner and loser as (origin, seconds)."""
    return R(id, "field-conflict", path, field, winnerOrigin=winner[0], winnerModified=winner[1],
             loserOrigin=loser[0], loserModified=loser[1])


VECTORS = {}


def vector(name, description, rule, base, ours, theirs, expected, resolutions=(), deleted_ours=None,
           deleted_theirs=None):
    VECTORS[name] = entries_vector(name, description, rule, base, ours, theirs, expected, resolutions,
                                   deleted_ours, deleted_theirs)


# A base entry most cases start from: password p1 and notes n1 written by "laptop" at 0 and 1.
BASE_FIELDS = {"password": F("p1", 0, "laptop"), "notes": F("n1", 1, "laptop")}
BASE = E(ID1, "mail/work", 0, 1, BASE_FIELDS)

vector("one-side-change",
       "ours changes the password, theirs the notes: each change is taken from the side that made it",
       "MERGE.md §4 steps 2 and 3",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 20, {"password": F("p1", 0, "laptop"), "notes": F("n2", 20, "phone")},
          [H("notes", "n1", 1, "laptop", 20, "edit")])],
       [E(ID1, "mail/work", 0, 20, {"password": F("p2", 10, "laptop"), "notes": F("n2", 20, "phone")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("notes", "n1", 1, "laptop", 20, "edit")])])

vector("whole-entry-one-side",
       "only ours changed the entry: the result is ours byte for byte",
       "MERGE.md §3.2",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])])

vector("same-change-both",
       "both set the password to the same value: the later write's metadata is kept, nothing is reported",
       "MERGE.md §4 step 4.2",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 12, {"password": F("p2", 12, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 12, "edit")])],
       [E(ID1, "mail/work", 0, 12, {"password": F("p2", 12, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("password", "p1", 0, "laptop", 12, "edit")])])

vector("conflict-time-decides",
       "both changed the password differently: the later write wins, the other goes to history",
       "MERGE.md §4 step 4.3, §2.1 step 1",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 12, {"password": F("p3", 12, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 12, "edit")])],
       [E(ID1, "mail/work", 0, 12, {"password": F("p3", 12, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("password", "p1", 0, "laptop", 12, "edit"),
           H("password", "p2", 10, "laptop", 12, "merge")])],
       [CONFLICT("password", ("phone", 12), ("laptop", 10))])

vector("conflict-origin-decides",
       "both changed the password at the same millisecond: the bytewise greater origin wins",
       "MERGE.md §4 step 4.3, §2.1 step 2",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("zzz", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F("aaa", 10, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F("aaa", 10, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("password", "zzz", 10, "laptop", 10, "merge")])],
       [CONFLICT("password", ("phone", 10), ("laptop", 10))])

vector("conflict-value-decides",
       "same millisecond and origin: the bytewise greater canonical value wins",
       "MERGE.md §4 step 4.3, §2.1 step 3",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("abd", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F("abc", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F("abd", 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("password", "abc", 10, "laptop", 10, "merge")])],
       [CONFLICT("password", ("laptop", 10), ("laptop", 10))])

NFC = "caf\u00e9"
NFD = "cafe\u0301"
vector("conflict-nfc-nfd",
       "the same-looking password in NFC and NFD are different values: bytes decide (0xC3 > 0x65), both are kept",
       "MERGE.md §2, §4 step 4.3",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F(NFD, 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F(NFC, 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])],
       [E(ID1, "mail/work", 0, 10, {"password": F(NFC, 10, "laptop"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("password", NFD, 10, "laptop", 10, "merge")])],
       [CONFLICT("password", ("laptop", 10), ("laptop", 10))])

vector("field-delete-vs-edit",
       "ours deleted the notes, theirs changed them: the change wins, both old-value items stay",
       "MERGE.md §4 step 4.1",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p1", 0, "laptop")},
          [H("notes", "n1", 1, "laptop", 10, "delete")])],
       [E(ID1, "mail/work", 0, 11, {"password": F("p1", 0, "laptop"), "notes": F("n2", 11, "phone")},
          [H("notes", "n1", 1, "laptop", 11, "edit")])],
       [E(ID1, "mail/work", 0, 11, {"password": F("p1", 0, "laptop"), "notes": F("n2", 11, "phone")},
          [H("notes", "n1", 1, "laptop", 10, "delete"), H("notes", "n1", 1, "laptop", 11, "edit")])],
       [R(ID1, "field-delete-kept-edit", "mail/work", "notes", winnerOrigin="phone", winnerModified=11)])

vector("field-delete-vs-unchanged",
       "ours deleted the notes, theirs changed only the password: the notes stay deleted, their value in history",
       "MERGE.md §4 step 2",
       [BASE],
       [E(ID1, "mail/work", 0, 10, {"password": F("p1", 0, "laptop")},
          [H("notes", "n1", 1, "laptop", 10, "delete")])],
       [E(ID1, "mail/work", 0, 11, {"password": F("p2", 11, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 11, "edit")])],
       [E(ID1, "mail/work", 0, 11, {"password": F("p2", 11, "phone")},
          [H("notes", "n1", 1, "laptop", 10, "delete"), H("password", "p1", 0, "laptop", 11, "edit")])])

EDITED = E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "phone"), "notes": F("n1", 1, "laptop")},
           [H("password", "p1", 0, "laptop", 10, "edit")])
vector("entry-delete-vs-edit",
       "ours deleted the entry, theirs edited it: the edited entry survives as theirs has it",
       "MERGE.md §3.2",
       [BASE], [], [EDITED], [EDITED],
       [R(ID1, "edit-delete-kept-edit", "mail/work")])

PHONE_NOTES = E(ID1, "mail/work", 0, 20, {"password": F("p1", 0, "laptop"), "notes": F("n2", 20, "phone")},
                [H("notes", "n1", 1, "laptop", 20, "edit")])
BEFORE_RM_1 = E(ID1, "mail/work", 0, 10, {"password": F("p2", 10, "laptop"), "notes": F("n1", 1, "laptop")},
                [H("password", "p1", 0, "laptop", 10, "edit")])
BEFORE_RM_2 = E(ID1, "mail/work", 0, 12, {"password": F("p1", 0, "laptop"), "notes": F("n3", 12, "tablet")},
                [H("notes", "n1", 1, "laptop", 12, "edit")])
vector("edit-delete-keeps-deleted-version",
       "ours changed the password and then deleted the entry, theirs changed the notes: the entry survives "
       "with both changes",
       "MERGE.md §3.2.1",
       [BASE], [], [PHONE_NOTES],
       [E(ID1, "mail/work", 0, 20, {"password": F("p2", 10, "laptop"), "notes": F("n2", 20, "phone")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("notes", "n1", 1, "laptop", 20, "edit")])],
       [R(ID1, "edit-delete-kept-edit", "mail/work")],
       deleted_ours=[BEFORE_RM_1], deleted_theirs=[])

vector("edit-delete-folds-two-deleted-versions",
       "ours deleted the entry twice in its history (after a password change on one branch and a notes "
       "change on another), theirs changed the notes: the deleted versions are folded in payload-byte "
       "order, then merged with theirs; the notes of the deleted version lose to the later write",
       "MERGE.md §3.2.1",
       [BASE], [], [PHONE_NOTES],
       [E(ID1, "mail/work", 0, 20, {"password": F("p2", 10, "laptop"), "notes": F("n2", 20, "phone")},
          [H("password", "p1", 0, "laptop", 10, "edit"), H("notes", "n1", 1, "laptop", 12, "edit"),
           H("notes", "n1", 1, "laptop", 20, "edit"), H("notes", "n3", 12, "tablet", 20, "merge")])],
       [CONFLICT("notes", ("phone", 20), ("tablet", 12)), R(ID1, "edit-delete-kept-edit", "mail/work")],
       deleted_ours=[BEFORE_RM_2, BEFORE_RM_1], deleted_theirs=[])

vector("entry-delete-vs-delete",
       "both deleted the entry: it is gone",
       "MERGE.md §3.2",
       [BASE], [], [], [],
       [R(ID1, "delete-both", "mail/work")])

vector("entry-delete-vs-unchanged",
       "ours deleted the entry, theirs did not touch it: it is gone, nothing reported",
       "MERGE.md §3.2",
       [BASE], [], [BASE], [])

OTHER = E(ID2, "bank", 0, 0, {"password": F("b1", 0, "laptop")})
vector("entry-added-one-side",
       "an entry added on one side only is taken as it is",
       "MERGE.md §3.2",
       [BASE], [BASE, OTHER], [BASE], [OTHER, BASE])

vector("add-add-same-path",
       "two different entries added at the same path: the greater id moves to <path>.conflict-<id8>",
       "MERGE.md §9",
       [],
       [E(IDB, "mail/work", 5, 5, {"password": F("ours", 5, "laptop")})],
       [E(IDA, "mail/work", 6, 6, {"password": F("theirs", 6, "phone")})],
       [E(IDA, "mail/work", 6, 6, {"password": F("theirs", 6, "phone")}),
        E(IDB, "mail/work.conflict-bbbbbbbb", 5, 5, {"password": F("ours", 5, "laptop")})],
       [R(IDB, "path-collision-renamed", "mail/work", newPath="mail/work.conflict-bbbbbbbb")])

vector("add-add-case-collision",
       "paths that differ only by case collide too (they would on macOS and Windows)",
       "MERGE.md §9",
       [],
       [E(IDA, "Mail/Work", 5, 5, {"password": F("ours", 5, "laptop")})],
       [E(IDB, "mail/work", 6, 6, {"password": F("theirs", 6, "phone")}),
        E(ID1, "mail/work.conflict-bbbbbbbb", 1, 1, {"password": F("x", 1, "phone")})],
       [E(IDA, "Mail/Work", 5, 5, {"password": F("ours", 5, "laptop")}),
        E(ID1, "mail/work.conflict-bbbbbbbb", 1, 1, {"password": F("x", 1, "phone")}),
        E(IDB, "mail/work.conflict-bbbbbbbb-2", 6, 6, {"password": F("theirs", 6, "phone")})],
       [R(IDB, "path-collision-renamed", "mail/work", newPath="mail/work.conflict-bbbbbbbb-2")])

vector("add-same-id-both",
       "the same id added on both sides: merged field by field against an empty base, created is the earlier",
       "MERGE.md §3.2, §4, §5",
       [],
       [E(ID1, "mail/work", 3, 3, {"password": F("p-ours", 3, "laptop"), "username": F("me", 3, "laptop")})],
       [E(ID1, "mail/work", 4, 4, {"password": F("p-theirs", 4, "phone"), "notes": F("n", 4, "phone")})],
       [E(ID1, "mail/work", 3, 4, {"password": F("p-theirs", 4, "phone"), "username": F("me", 3, "laptop"),
                                   "notes": F("n", 4, "phone")},
          [H("password", "p-ours", 3, "laptop", 4, "merge")])],
       [CONFLICT("password", ("phone", 4), ("laptop", 3))])

vector("rename-vs-edit",
       "ours moved the entry, theirs edited it: one entry at the new path with the edit",
       "MERGE.md §3.1, §5.1",
       [BASE],
       [E(ID1, "mail/old-work", 0, 10, BASE_FIELDS)],
       [EDITED],
       [E(ID1, "mail/old-work", 0, 10, {"password": F("p2", 10, "phone"), "notes": F("n1", 1, "laptop")},
          [H("password", "p1", 0, "laptop", 10, "edit")])])

vector("rename-vs-rename",
       "both moved the entry to different paths: the side with the later modified wins, the other path is reported",
       "MERGE.md §5.1",
       [BASE],
       [E(ID1, "mail/a", 0, 10, BASE_FIELDS)],
       [E(ID1, "mail/b", 0, 11, BASE_FIELDS)],
       [E(ID1, "mail/b", 0, 11, BASE_FIELDS)],
       [R(ID1, "rename-conflict", "mail/b", losingPath="mail/a", winnerModified=11, loserModified=10)])

vector("rename-vs-rename-same-time",
       "both moved the entry at the same millisecond: the bytewise greater path wins",
       "MERGE.md §5.1",
       [BASE],
       [E(ID1, "mail/b", 0, 10, BASE_FIELDS)],
       [E(ID1, "mail/a", 0, 10, BASE_FIELDS)],
       [E(ID1, "mail/b", 0, 10, BASE_FIELDS)],
       [R(ID1, "rename-conflict", "mail/b", losingPath="mail/a", winnerModified=10, loserModified=10)])

vector("add-add-final-sigma",
       "collision keys lowercase one code point at a time: \u039f\u0394\u039f\u03a3 and \u03bf\u03b4\u03bf\u03c3 "
       "collide (\u03a3 is always \u03c3), \u03bf\u03b4\u03bf\u03c2 with the final sigma does not",
       "MERGE.md §9, FORMAT.md §4.3",
       [],
       [E(IDA, "\u039f\u0394\u039f\u03a3", 5, 5, {"password": F("ours", 5, "laptop")}),
        E(ID1, "\u03bf\u03b4\u03bf\u03c2", 5, 5, {"password": F("final", 5, "laptop")})],
       [E(IDB, "\u03bf\u03b4\u03bf\u03c3", 6, 6, {"password": F("theirs", 6, "phone")})],
       [E(IDA, "\u039f\u0394\u039f\u03a3", 5, 5, {"password": F("ours", 5, "laptop")}),
        E(ID1, "\u03bf\u03b4\u03bf\u03c2", 5, 5, {"password": F("final", 5, "laptop")}),
        E(IDB, "\u03bf\u03b4\u03bf\u03c3.conflict-bbbbbbbb", 6, 6, {"password": F("theirs", 6, "phone")})],
       [R(IDB, "path-collision-renamed", "\u03bf\u03b4\u03bf\u03c3",
          newPath="\u03bf\u03b4\u03bf\u03c3.conflict-bbbbbbbb")])

vector("two-ids-moved-to-same-path",
       "ours moved one entry to z, theirs moved another to z: the greater id moves on",
       "MERGE.md §9",
       [E(IDA, "x", 0, 0, {"password": F("x", 0, "laptop")}), E(IDB, "y", 0, 0, {"password": F("y", 0, "laptop")})],
       [E(IDA, "x", 0, 0, {"password": F("x", 0, "laptop")}), E(IDB, "z", 0, 5, {"password": F("y", 0, "laptop")})],
       [E(IDA, "z", 0, 6, {"password": F("x", 0, "laptop")}), E(IDB, "y", 0, 0, {"password": F("y", 0, "laptop")})],
       [E(IDA, "z", 0, 6, {"password": F("x", 0, "laptop")}),
        E(IDB, "z.conflict-bbbbbbbb", 0, 5, {"password": F("y", 0, "laptop")})],
       [R(IDB, "path-collision-renamed", "z", newPath="z.conflict-bbbbbbbb")])


def cap_vector():
    # Base: password p60 after 60 edits, history p0..p59 (pi written at i, replaced at i+1); notes with one item.
    base_hist = [H("password", "p%d" % i, i, "laptop", i + 1, "edit") for i in range(60)]
    notes_item = H("notes", "n0", 0, "laptop", 30, "edit")
    base = E(ID1, "mail/work", 0, 60, {"password": F("p60", 60, "laptop"), "notes": F("n1", 30, "laptop")},
             base_hist + [notes_item])
    # Ours: three edits a1 a2 a3 at 100, 101, 102; theirs: b1 b2 b3 at 110, 111, 112 (origin phone).
    ours_hist = [H("password", "p60", 60, "laptop", 100, "edit"), H("password", "a1", 100, "laptop", 101, "edit"),
                 H("password", "a2", 101, "laptop", 102, "edit")]
    theirs_hist = [H("password", "p60", 60, "laptop", 110, "edit"), H("password", "b1", 110, "phone", 111, "edit"),
                   H("password", "b2", 111, "phone", 112, "edit")]
    ours = E(ID1, "mail/work", 0, 102, {"password": F("a3", 102, "laptop"), "notes": F("n1", 30, "laptop")},
             base_hist + [notes_item] + ours_hist)
    theirs = E(ID1, "mail/work", 0, 112, {"password": F("b3", 112, "phone"), "notes": F("n1", 30, "laptop")},
               base_hist + [notes_item] + theirs_hist)
    # Union: 60 + 3 + 3 password items + the loser a3 = 67; the cap keeps the newest 64, dropping p0, p1, p2.
    # Sorted by replaced: p3..p28 (replaced 4..29), then at 30 the notes item before p29 ("notes" < "password").
    kept = [H("password", "p%d" % i, i, "laptop", i + 1, "edit") for i in range(3, 29)]
    kept += [H("notes", "n0", 0, "laptop", 30, "edit"), H("password", "p29", 29, "laptop", 30, "edit")]
    kept += [H("password", "p%d" % i, i, "laptop", i + 1, "edit") for i in range(30, 60)]
    # At 112 the loser a3 (written at 102) sorts before b2 (written at 111).
    kept += ours_hist + theirs_hist[:2] + [H("password", "a3", 102, "laptop", 112, "merge")] + theirs_hist[2:]
    expected = E(ID1, "mail/work", 0, 112, {"password": F("b3", 112, "phone"), "notes": F("n1", 30, "laptop")}, kept)
    vector("history-union-cap",
           "histories are united, the merge loser added, sorted, and capped to the newest 64 items per field",
           "MERGE.md §6",
           [base], [ours], [theirs], [expected],
           [CONFLICT("password", ("phone", 112), ("laptop", 102))])


cap_vector()


def history_union_vector():
    # Each side has an item the other lacks (an edit then a re-edit on ours, an old item only theirs kept).
    base = E(ID1, "mail/work", 0, 1, BASE_FIELDS)
    ours = E(ID1, "mail/work", 0, 11, {"password": F("p1", 0, "laptop"), "notes": F("n3", 11, "laptop")},
             [H("notes", "n1", 1, "laptop", 10, "edit"), H("notes", "n2", 10, "laptop", 11, "edit")])
    theirs = E(ID1, "mail/work", 0, 20, {"password": F("p2", 20, "phone"), "notes": F("n1", 1, "laptop")},
               [H("password", "p1", 0, "laptop", 20, "edit")])
    expected = E(ID1, "mail/work", 0, 20, {"password": F("p2", 20, "phone"), "notes": F("n3", 11, "laptop")},
                 [H("notes", "n1", 1, "laptop", 10, "edit"), H("notes", "n2", 10, "laptop", 11, "edit"),
                  H("password", "p1", 0, "laptop", 20, "edit")])
    vector("history-union",
           "values in either side's history stay in the merged history",
           "MERGE.md §6",
           [base], [ours], [theirs], [expected])


history_union_vector()

vector("unknown-members",
       "unknown payload members merge one by one: x changed on both (greater canonical bytes win), "
       "y added on ours, z deleted on theirs, w changed on ours and deleted on theirs (change wins)",
       "MERGE.md §7",
       [E(ID1, "mail/work", 0, 1, BASE_FIELDS, x=1, z="old", w=[1])],
       [E(ID1, "mail/work", 0, 1, BASE_FIELDS, x=2, y={"k": True}, z="old", w=[2])],
       [E(ID1, "mail/work", 0, 2, {"password": F("p1", 0, "laptop"), "notes": F("n1", 1, "laptop")}, x=3)],
       [E(ID1, "mail/work", 0, 2, BASE_FIELDS, x=3, y={"k": True}, w=[2])],
       [R(ID1, "unknown-member-conflict", "mail/work", "w"), R(ID1, "unknown-member-conflict", "mail/work", "x")])

# ---- headers (MERGE.md §10) ----

VAULT = "99999999-9999-4999-8999-999999999999"
OTHER_VAULT = "88888888-8888-4888-8888-888888888888"


def b64(byte, n):
    return base64.b64encode(bytes([byte]) * n).decode()


def slot(id, byte):
    return {"type": "passphrase", "id": id,
            "kdf": {"algorithm": "argon2id13", "ops": 1, "mem": 8192, "salt": b64(byte, 16)},
            "nonce": b64(byte, 24), "wrappedKey": b64(byte, 48)}


S0 = slot("00000000-0000-4000-8000-000000000000", 0)
S1 = slot("10000000-0000-4000-8000-000000000000", 1)
S2 = slot("20000000-0000-4000-8000-000000000000", 2)


def header(slots, vault=VAULT, **unknown):
    h = {"format": "tresor-vault", "version": 1, "vault": vault, "keySlots": slots}
    h.update(unknown)
    return h


def header_vector(name, description, base, ours, theirs, expected=None, resolutions=(), error=None):
    VECTORS[name] = _header_vector(name, description, base, ours, theirs, expected,
                                   [R(VAULT, k, ".tresor/vault.json") for k in resolutions], error)


header_vector("header-one-side-passwd", "a passphrase change on one side is taken as it is",
              header([S0]), header([S1]), header([S0]), header([S1]))
header_vector("header-both-passwd", "passphrases changed on both sides: the new slots of both are kept, sorted by id",
              header([S0]), header([S2]), header([S1]), header([S1, S2]), ["key-slots-merged"])
header_vector("header-slots-and-members", "one side added a slot, the other changed an unknown member",
              header([S0], m="a"), header([S0, S2], m="a"), header([S0], m="b"), header([S0, S2], m="b"),
              ["key-slots-merged"])
header_vector("header-no-slot-left", "each side removed the slot the other kept: the header with the greater bytes (slot id 1000… > 0000…) is kept whole",
              header([S0, S1]), header([S1], m="x"), header([S0], m="y"), header([S1], m="x"), ["header-conflict"])
header_vector("header-different-vault", "headers of two different vaults do not merge",
              header([S0]), header([S0]), header([S0], vault=OTHER_VAULT), error="different-vault")

# ---- scope headers (MERGE.md §14.3) ----

SCOPE = "77777777-7777-4777-8777-777777777777"
OTHER_SCOPE = "66666666-6666-4666-8666-666666666666"


def member(id, name, byte):
    from hashlib import sha256
    from tresorref.recipients import key_text
    from tresorref.scopes import SCOPE_SEALED_BYTES
    return {"type": "recipient", "id": id, "name": name, "publicKey": key_text(sha256(name.encode()).digest()),
            "sealedKey": b64(byte, SCOPE_SEALED_BYTES)}


CAROL = member("c0000000-0000-4000-8000-000000000000", "carol", 0xc0)
DAVE = member("d0000000-0000-4000-8000-000000000000", "dave", 0xd0)
ERIN = member("e0000000-0000-4000-8000-000000000000", "erin", 0xe0)
FRANK = member("f0000000-0000-4000-8000-000000000000", "frank", 0xf0)
ERIN_AGAIN = member("a0000000-0000-4000-8000-000000000000", "erin", 0xa0)
VAULT_SLOT = {"type": "vault", "nonce": b64(1, 24), "wrappedKey": b64(1, 48)}
VAULT_SLOT_2 = {"type": "vault", "nonce": b64(2, 24), "wrappedKey": b64(2, 48)}


def scope(slots, generation, auth_byte=None, scope_id=SCOPE, **unknown):
    h = {"format": "tresor-scope", "version": 1, "vault": VAULT, "scope": scope_id, "folder": "Team",
         "keySlots": slots, "generation": generation}
    if auth_byte is not None:
        h["auth"] = b64(auth_byte, 32)
    h.update(unknown)
    return h


def scope_vector(name, description, base, ours, theirs, expected=None, resolutions=(), error=None):
    VECTORS[name] = _scope_header_vector(name, description, base, ours, theirs, expected,
                                         [R(SCOPE, k, ".tresor/scopes/%s.json" % SCOPE) for k in resolutions], error)


scope_vector("scope-header-one-side", "a member added on one side only: that side's scope header as it is, tag included",
             scope([CAROL, VAULT_SLOT], 1, 1), scope([CAROL, VAULT_SLOT], 1, 1), scope([CAROL, ERIN, VAULT_SLOT], 2, 2),
             scope([CAROL, ERIN, VAULT_SLOT], 2, 2))
scope_vector("scope-header-members-united", "members added on both sides are all kept, recipient slots sorted by id; "
             "generation one more than the greater side's; no tag (the merger writes it)",
             scope([CAROL, VAULT_SLOT], 1, 1), scope([CAROL, ERIN, VAULT_SLOT], 2, 2),
             scope([CAROL, FRANK, VAULT_SLOT], 3, 3, note="x"),
             scope([CAROL, ERIN, FRANK, VAULT_SLOT], 4, note="x"), ["key-slots-merged"])
scope_vector("scope-header-removal-and-addition", "a slot removed on one side while unchanged on the other is gone; of "
             "two slots added with one name the greater bytes stay; of two vault slots the greater",
             scope([CAROL, DAVE, VAULT_SLOT], 1, 1), scope([CAROL, ERIN_AGAIN, VAULT_SLOT_2], 2, 2),
             scope([CAROL, DAVE, ERIN, VAULT_SLOT], 2, 3),
             scope([CAROL, ERIN, VAULT_SLOT_2], 3), ["key-slots-merged"])
scope_vector("scope-header-other-scope", "scope headers of two different scopes do not merge",
             scope([CAROL], 1, 1), scope([CAROL, ERIN], 2, 2), scope([CAROL], 1, 1, scope_id=OTHER_SCOPE), error="malformed")

