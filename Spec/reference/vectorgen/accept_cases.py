"""Spec/vectors/accept-*.json: for every rule of Spec/AUTH.md §5.2 a tip that passes it (`accept-<rule>-ok`) and one
that it refuses (`accept-<rule>-refused`), and the reported outcomes rolled-back, older-epoch and offered-scope. The
tips are whole version 5 trees of the vault of v5_world; `expected` is what tresorref.accept answers, and each vector
is checked to end as it was made to (refused by its rule, or accepted)."""
from tresorref import canonical_json as cj
from tresorref import entry5
from tresorref.encoding import hexstr
from tresorref.header5 import VAULT_DOMAIN, VaultHeaderV5
from tresorref.scopes import scope_file
from tresorref.state import VAULT_HEADER, state_file, write_state
from tresorref import vault5

from . import v5_tests
from .v5_world import *  # noqa: F401,F403
from .v5_cases import rekeyed_tree, rekey_randomness, changed, v4_tree, slot_json_of
from .writer import VectorSet

PUBLISHED = {VAULT_DOMAIN: 1, TEAM_ID: 1, OPS_ID: 1}


def holder_keys(epoch=1, vault_key=VAULT_KEY, team_key=TEAM_KEY):
    """A replica holding the vault key and (through the vault slot) Team's key."""
    return {VAULT_DOMAIN: {"epoch": epoch, "key": hexstr(vault_key)}, TEAM_ID: {"epoch": epoch, "key": hexstr(team_key)}}


def local_of(tree):
    """The `local` input of a replica whose HEAD is `tree`."""
    out = {}
    for p, data in tree.items():
        if p.startswith(".tresor/state/"):
            obj = cj.loads(data)
            out[obj["domain"]] = {"epoch": obj["epoch"], "clock": obj["clock"]}
    return out


def inputs(tree, keys=None, local=None, published=None, remote=None, opened=None, vault=VAULT_ID, accepted=None,
           modes=None, sizes=None):
    i = {"tip": tip(tree, modes, sizes), "vault": vault, "keys": holder_keys() if keys is None else keys,
         "trust": {"published": PUBLISHED if published is None else published, "remote": remote or {}},
         "local": local_of(base_tree()) if local is None else local}
    if accepted is not None:
        i["trust"]["scopesAccepted"] = accepted
    if opened is not None:
        i["opened"] = opened
    return i


class AcceptVectors(VectorSet):
    def accepted(self, name, description, inp, check=None):
        result = v5_tests.accept(inp)
        assert "accepted" in result, "%s: %s" % (name, result)
        if check:
            assert check(result["accepted"]), "%s: %s" % (name, result)
        self.success(name, "accept", description, inp, result)

    def refused(self, name, rule, description, inp):
        result = v5_tests.accept(inp)
        assert result.get("refused", {}).get("rule") == rule, "%s: %s" % (name, result)
        self.success(name, "accept", description, inp, result)


def edited_tree():
    """The base vault after replica c3c3… changed Email/gmail's password (event 1)."""
    p = gmail_payload()
    entry5.set_field(p, "password", "hunter3", T(20), "phone", (R3, 1))
    return base_tree(entries={"Email/gmail.json": (GMAIL_ID, p, VAULT_DOMAIN),
                              "Team/wiki.json": (WIKI_ID, wiki_payload(), TEAM_ID),
                              "Ops/root.json": (ROOT_ID, root_payload(), OPS_ID)},
                     clocks={VAULT_DOMAIN: {R1: 5, R3: 1}})


def other_edit_tree():
    """The base vault after replica b2b2… changed Email/gmail's password (event 1), concurrently with edited_tree."""
    p = gmail_payload()
    entry5.set_field(p, "password", "hunter4", T(21), "tablet", (R2, 1))
    return base_tree(entries={"Email/gmail.json": (GMAIL_ID, p, VAULT_DOMAIN),
                              "Team/wiki.json": (WIKI_ID, wiki_payload(), TEAM_ID),
                              "Ops/root.json": (ROOT_ID, root_payload(), OPS_ID)},
                     clocks={VAULT_DOMAIN: {R1: 5, R2: 1}})


def v4_header_text(fn):
    """The version 4 header of v4_tree changed by fn (its tag left as it is)."""
    obj = cj.loads(v4_tree()[VAULT_HEADER])
    fn(obj)
    return cj.file_bytes(obj)


def with_record(tree, domain, fn=None, key=None, epoch=None, clock=None):
    """`tree` with the state record of `domain` written again over the tree's files: a new tree id, the clock and epoch
    changed by fn, tagged under `key`, or, without a key, with the old record's tag (what someone without the key
    can do)."""
    old = cj.loads(tree[state_file(domain)])
    vh = VaultHeaderV5.parse(tree[VAULT_HEADER])
    bare = vault5.without_states(tree)
    from tresorref.state import domain_tree, tree_blobs
    obj = dict(old)
    obj["tree"] = domain_tree(tree_blobs(bare), domain, vh.scope_folders()).hex()
    if fn:
        fn(obj)
    out = dict(tree)
    if key is None:
        out[state_file(domain)] = cj.file_bytes(obj)
    else:
        from .v5_cases import raw
        out[state_file(domain)] = raw(obj, key, b"tresor-state").encode()
    return out


def forged_epoch_2():
    """A whole vault of epoch 2 made by someone without the vault key: a vault of its own key X (the same passphrase,
    alice's public key, the same ids), rekeyed to FORGED_KEY with a proof from X's epoch 1."""
    x = sequence(0x01, 32)
    t = base_tree(vh=vault_header(key=x), th=team_header(vault_key=x), keys={VAULT_DOMAIN: x})
    return vault5.rekey_vault(t, x, FORGED_KEY, PASSPHRASE_BYTES, (R3, 1), rekey_randomness(0, t))


def vectors(out):
    base = base_tree()
    is_equal = lambda a: all(d["relation"] == "equal" and d["verified"] == (k != OPS_ID) for k, d in a.items())
    # tree-shape
    out.accepted("accept-tree-shape-ok", "the base vault as fetched by a replica holding the vault key and Team's: every "
                 "rule passes; Ops, a closed scope, is checked and not verified; every domain equal to HEAD",
                 inputs(base), is_equal)
    out.refused("accept-tree-shape-refused", "tree-shape",
                "Email/gmail.json as a symbolic link (mode 120000) [tree-shape]",
                inputs(base, modes={"Email/gmail.json": "120000"}))
    out.refused("accept-tree-shape-refused-size", "tree-shape", "a file of more than 1 MiB [tree-shape]",
                inputs(base, sizes={"Email/gmail.json": (1 << 20) + 1}))
    git_dir = dict(base)
    git_dir["Email/.git/hooks/post-checkout.json"] = b"{}"
    out.refused("accept-tree-shape-refused-folder", "tree-shape",
                "a folder .git inside Email [tree-shape]", inputs(git_dir))
    # foreign-file
    out.accepted("accept-foreign-file-ok", "every file is .gitattributes, the vault header, a scope header, a state "
                 "record or an entry file", inputs(base))
    foreign = dict(base)
    foreign["install.sh"] = b"#!/bin/sh\n"
    out.refused("accept-foreign-file-refused", "foreign-file", "a file install.sh at the root [foreign-file]",
                inputs(foreign))
    foreign2 = dict(base)
    foreign2[".tresor/hooks.json"] = b"{}\n"
    out.refused("accept-foreign-file-refused-tresor", "foreign-file",
                "a file .tresor/hooks.json, which is none of the vault's own files [foreign-file]", inputs(foreign2))
    # vault-header
    out.accepted("accept-vault-header-ok", "the vault header parses (§11.4)", inputs(base))
    bad = dict(base)
    bad[VAULT_HEADER] = base[VAULT_HEADER][:100]
    out.refused("accept-vault-header-refused", "vault-header", "a truncated vault header [vault-header]", inputs(bad))
    vh = VaultHeaderV5.parse(base[VAULT_HEADER])
    out.refused("accept-vault-header-refused-version-string", "vault-header",
                "a vault header whose version is the string \"5\", not an integer [vault-header]",
                inputs(dict(base, **{VAULT_HEADER: changed(vh, lambda o: o.update(version="5")).encode()})))
    out.refused("accept-vault-header-refused-version-4-malformed", "vault-header",
                "a version 4 header without `scopes`: it parses by its own section (FORMAT §3.12.1) and fails there "
                "[vault-header], before different-vault and format-version",
                inputs(dict(base, **{VAULT_HEADER: v4_header_text(lambda o: o.pop("scopes"))})))
    # different-vault
    out.accepted("accept-different-vault-ok", "the tip's vault id is the replica's", inputs(base))
    out.refused("accept-different-vault-refused", "different-vault",
                "the tip is the vault 6f1c2e84…, the replica's vault is another [different-vault]",
                inputs(base, vault=OTHER_VAULT_ID))
    # format-version
    out.accepted("accept-format-version-ok", "the vault header is of version 5", inputs(base))
    out.refused("accept-format-version-refused", "format-version",
                "the tip is a version 4 vault (an authentic older state of the same vault): a downgrade "
                "[format-version]", inputs(v4_tree()))
    for version in (6, 0):
        out.refused("accept-format-version-refused-version-%d" % version, "format-version",
                    "the base vault with its header's version set to %d, a version this reader does not know: the "
                    "header is an object with format tresor-vault and an integer version, so vault-header passes and "
                    "format-version refuses it [format-version]" % version,
                    inputs(dict(base, **{VAULT_HEADER: changed(vh, lambda o: o.update(version=version)).encode()})))
    # domain-listing
    out.accepted("accept-domain-listing-ok", "one state record per domain, one scope header per listed scope, each "
                 "naming its scope and folder", inputs(base))
    no_state = dict(base)
    del no_state[state_file(OPS_ID)]
    out.refused("accept-domain-listing-refused", "domain-listing", "Ops's state record is missing [domain-listing]",
                inputs(no_state))
    unlisted = dict(base)
    unlisted[VAULT_HEADER] = changed(VaultHeaderV5.parse(base[VAULT_HEADER]),
                                     lambda o: o["scopes"].pop(OPS_ID), None).encode()
    out.refused("accept-domain-listing-refused-unlisted", "domain-listing",
                "a vault header that lists Ops no more while Ops's scope header and state record are still there "
                "(a scope removed by someone without the vault key) [domain-listing]", inputs(unlisted))
    moved_folder = dict(base)
    moved_folder[VAULT_HEADER] = changed(VaultHeaderV5.parse(base[VAULT_HEADER]),
                                         lambda o: o["scopes"][TEAM_ID].update(folder="Staff"), None).encode()
    out.refused("accept-domain-listing-refused-folder", "domain-listing",
                "a vault header giving Team another folder than Team's scope header names [domain-listing]",
                inputs(moved_folder))
    # state-record
    out.accepted("accept-state-record-ok", "every state record parses and names this vault, its domain and its "
                 "header's epoch", inputs(base))
    out.refused("accept-state-record-refused", "state-record",
                "Team's state record replaced by the vault domain's [state-record]",
                inputs(dict(base, **{state_file(TEAM_ID): base[state_file(VAULT_DOMAIN)]})))
    # state-files
    edited = edited_tree()
    out.accepted("accept-state-files-ok", "c3c3… changed Email/gmail: the vault domain is newer than HEAD, its tree id "
                 "matches its record", inputs(edited),
                 lambda a: a[VAULT_DOMAIN]["relation"] == "newer" and a[TEAM_ID]["relation"] == "equal")
    rolled = dict(edited)
    rolled["Email/gmail.json"] = base["Email/gmail.json"]
    out.refused("accept-state-files-refused", "state-files",
                "Email/gmail.json rolled back to its older file under the newer state record [state-files]",
                inputs(rolled))
    moved = dict(base)
    moved["Email/wiki.json"] = moved.pop("Team/wiki.json")
    out.refused("accept-state-files-refused-across-domains", "state-files",
                "Team/wiki.json's file moved out of the scope, unchanged [state-files] (the vault domain's tree "
                "is checked first)", inputs(moved))
    # epoch-replaced
    tree2, key2 = rekeyed_tree(1)
    team2 = hexstr(sequence(0xa0, 32))
    keys2 = {VAULT_DOMAIN: {"epoch": 2, "key": hexstr(key2)}, TEAM_ID: {"epoch": 2, "key": team2}}
    published2 = {VAULT_DOMAIN: 2, TEAM_ID: 2, OPS_ID: 1}
    out.accepted("accept-epoch-replaced-ok", "the vault and Team at epoch 2, which is what this replica holds and has "
                 "seen published", inputs(tree2, keys=keys2, local=local_of(tree2), published=published2))
    out.refused("accept-epoch-replaced-refused", "epoch-replaced",
                "an authentic state of epoch 1 (a removed member's, or an old one replayed) after epoch 2 was "
                "published [epoch-replaced]", inputs(base, keys=keys2, local=local_of(tree2), published=published2))
    # rekey-proof
    opened = {VAULT_DOMAIN: {"epoch": 2, "key": hexstr(key2)}, TEAM_ID: {"epoch": 2, "key": team2}}
    out.accepted("accept-rekey-proof-ok", "the replica holds epoch 1; the tip is of epoch 2 (a vault rekey, Team with "
                 "it); its passphrase opened the new keys (`opened`), whose tags verify, and the proofs from epoch 1 "
                 "verify under the keys held", inputs(tree2, opened=opened),
                 lambda a: a[VAULT_DOMAIN]["epoch"] == 2 and a[VAULT_DOMAIN]["verified"])
    forged = forged_epoch_2()
    forged_team = VaultHeaderV5  # noqa: F841
    out.refused("accept-rekey-proof-refused", "rekey-proof",
                "a whole vault of epoch 2 made with a key of someone else's: the passphrase opens it and its tags "
                "verify under that key, but its proof from epoch 1 does not verify under the key held [rekey-proof]",
                inputs(forged, opened={VAULT_DOMAIN: {"epoch": 2, "key": hexstr(FORGED_KEY)}}))
    out.refused("accept-rekey-proof-refused-not-opened", "rekey-proof",
                "a tip of epoch 2 whose new key the replica's credential did not open (no `opened` key) [rekey-proof]",
                inputs(tree2))
    # header-authentic
    out.accepted("accept-header-authentic-ok", "every held domain's header verifies under its key", inputs(base))
    vh = VaultHeaderV5.parse(base[VAULT_HEADER])
    slot = slot_json_of(passphrase_slot(FORGED_KEY, id="f0f0f0f0-0000-4000-8000-000000000000"), (R1, 4))
    forged_header = dict(base)
    forged_header[VAULT_HEADER] = changed(vh, lambda o: o["keySlots"].insert(1, slot), None).encode()
    forged_header = with_record(forged_header, VAULT_DOMAIN)
    out.refused("accept-header-authentic-refused", "header-authentic",
                "a passphrase slot added to the vault header without the key, the state record's tree id updated to "
                "match (its tag kept) [header-authentic]", inputs(forged_header))
    # state-authentic
    out.accepted("accept-state-authentic-ok", "every held domain's state record verifies under its state key",
                 inputs(edited))
    rolled_record = with_record(rolled, VAULT_DOMAIN)
    out.refused("accept-state-authentic-refused", "state-authentic",
                "Email/gmail.json rolled back and the state record's tree id updated to match, without the key "
                "[state-authentic]", inputs(rolled_record))
    raised = with_record(base, TEAM_ID, lambda o: o["clock"].update({R1: 99}))
    out.refused("accept-state-authentic-refused-clock", "state-authentic",
                "Team's clock raised without Team's key (to make an old state look new) [state-authentic]",
                inputs(raised))
    # reported outcomes
    out.accepted("accept-rolled-back", "the replica last took the vault domain at {a1a1…: 5, c3c3…: 1} from this "
                 "remote and has it at HEAD; the remote now shows the authentic older state {a1a1…: 5}: accepted, "
                 "reported rolledBack (relation older)",
                 inputs(base, local=local_of(edited), remote={VAULT_DOMAIN: {R1: 5, R3: 1}}),
                 lambda a: a[VAULT_DOMAIN]["rolledBack"] and a[VAULT_DOMAIN]["relation"] == "older"
                 and not a[TEAM_ID]["rolledBack"])
    out.accepted("accept-rolled-back-concurrent",
                 "the replica last took the vault domain at {a1a1…: 5, c3c3…: 1} from this remote (and Team at "
                 "{a1a1…: 6}); the remote now shows an authentic state {a1a1…: 5, b2b2…: 1} of the vault domain, "
                 "concurrent with it (c3c3…'s change is gone, b2b2…'s came): accepted, reported rolledBack (relation "
                 "concurrent); Team, equal to what was taken, is not",
                 inputs(other_edit_tree(), local=local_of(edited),
                        remote={VAULT_DOMAIN: {R1: 5, R3: 1}, TEAM_ID: {R1: 6}}),
                 lambda a: a[VAULT_DOMAIN]["rolledBack"] and a[VAULT_DOMAIN]["relation"] == "concurrent"
                 and not a[TEAM_ID]["rolledBack"])
    keys_prev = {VAULT_DOMAIN: {"epoch": 2, "key": hexstr(key2), "previous": {"1": hexstr(VAULT_KEY)}},
                 TEAM_ID: {"epoch": 2, "key": team2, "previous": {"1": hexstr(TEAM_KEY)}}}
    out.accepted("accept-older-epoch", "this replica rekeyed (its HEAD is of epoch 2) and has not published it; the "
                 "remote shows a concurrent change of epoch 1 (c3c3… changed Email/gmail): accepted, verified with "
                 "the key before (`previous`), reported olderEpoch",
                 inputs(edited, keys=keys_prev, local=local_of(tree2)),
                 lambda a: a[VAULT_DOMAIN]["olderEpoch"] and a[VAULT_DOMAIN]["verified"]
                 and a[VAULT_DOMAIN]["relation"] == "concurrent")
    carol = {TEAM_ID: {"epoch": 1, "key": hexstr(TEAM_KEY)}}
    out.accepted("accept-offered-scope", "carol, a scope-only member holding Team's key and having accepted Team, "
                 "meets Ops, which she has not accepted: Ops is offered (checked, not verified); the vault domain is "
                 "checked, not verified", inputs(base, keys=carol, accepted=[TEAM_ID]),
                 lambda a: a[OPS_ID]["offered"] and not a[TEAM_ID]["offered"] and not a[VAULT_DOMAIN]["verified"]
                 and a[TEAM_ID]["verified"])
    unkeyed = dict(base)
    unkeyed["Ops/root.json"] = base["Ops/root.json"][:-2] + b" \n"
    out.refused("accept-state-files-refused-unkeyed-domain", "state-files",
                "a domain whose key the replica does not hold (Ops) is still checked: one byte of Ops/root.json "
                "changed [state-files]", inputs(unkeyed))


def all_vectors(into):
    out = AcceptVectors()
    out.vectors = into.vectors
    vectors(out)
