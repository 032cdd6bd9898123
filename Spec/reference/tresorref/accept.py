"""`accept` of Spec/AUTH.md §5: whether a replica takes a fetched tip, as a pure function of the tip's files, the keys
it holds, the keys its credential opened from the tip, its trust record and its own HEAD's domains."""
import hashlib
import unicodedata

from . import canonical_json as cj
from .clock import relation, parse_clock, at_most
from .encoding import is_id
from .errors import FormatError
from .header import FORMAT_NAME
from .header5 import VaultHeaderV5, ScopeHeaderV2, VAULT_DOMAIN, parse_any_vault_header
from .paths import entry_path
from .state import (StateRecord, GITATTRIBUTES, VAULT_HEADER, STATE_DIR, SCOPES_DIR, entry_stem, state_file)
from .scopes import scope_file

MAX_FILE = 1 << 20
MAX_FILES = 200000
MAX_FOLDER_LEVELS = 15
FILE_MODE = "100644"
TRESOR_FOLDERS = (".tresor", ".tresor/scopes", ".tresor/state")
KNOWN_VAULT_VERSIONS = (1, 2, 3, 4, 5)


class Refused(Exception):
    def __init__(self, rule, domain=None, path=None, reason=""):
        super().__init__("%s (%s, %s): %s" % (rule, domain, path, reason))
        self.rule, self.domain, self.path, self.reason = rule, domain, path, reason

    def to_json(self):
        return {"refused": {"rule": self.rule, "domain": self.domain, "path": self.path}}


def b(s):
    return s.encode("utf-8")


def _folder_ok(folder):
    """A folder where an entry path can be: an entry path (valid, NFC) none of whose components ends in `.json`."""
    if folder in TRESOR_FOLDERS:
        return True
    try:
        return entry_path(folder) == folder and not folder.endswith(".json")
    except FormatError:
        return False


def check_tree_shape(files):
    """`tree-shape`: modes, names, folders, depth, sizes and the number of files."""
    if len(files) > MAX_FILES:
        raise Refused("tree-shape", None, None, "more than %d files" % MAX_FILES)
    for path in sorted(files, key=b):
        f = files[path]
        parts = path.split("/")
        if any(p in ("", ".", "..") or p.lower() == ".git" or "\x00" in p for p in parts):
            raise Refused("tree-shape", None, path, "a name git refuses")
        if f["mode"] != FILE_MODE:
            raise Refused("tree-shape", None, path, "mode %s" % f["mode"])
        if f["size"] > MAX_FILE:
            raise Refused("tree-shape", None, path, "larger than 1 MiB")
        if len(parts) - 1 > MAX_FOLDER_LEVELS:
            raise Refused("tree-shape", None, path, "deeper than %d folders" % MAX_FOLDER_LEVELS)
        for i in range(1, len(parts)):
            if not _folder_ok("/".join(parts[:i])):
                raise Refused("tree-shape", None, path, "a folder where no entry path can be")


def is_known_file(path):
    """`foreign-file`: .gitattributes, the vault header, a scope header, a state record or an entry file."""
    if path in (GITATTRIBUTES, VAULT_HEADER):
        return True
    if path.startswith(SCOPES_DIR) and path.endswith(".json"):
        return is_id(path[len(SCOPES_DIR):-5])
    if path.startswith(STATE_DIR) and path.endswith(".json"):
        d = path[len(STATE_DIR):-5]
        return d == VAULT_DOMAIN or is_id(d)
    return entry_stem(path) is not None


def accept(tip, vault_id, keys, opened, trust, local):
    """Spec/AUTH.md §5. Returns {"refused": {...}} or {"accepted": {domain: {...}}}."""
    try:
        return {"accepted": _accept(tip, vault_id, keys, opened, trust, local)}
    except Refused as r:
        return r.to_json()


def _text(tip, path):
    blob = tip["files"][path]["blob"]
    data = tip["blobs"][blob].encode("utf-8")
    assert hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest() == blob, path
    return data


def check_vault_header(tip, vault_id):
    """`vault-header`: the file is there and is a JSON object with `format` "tresor-vault" and an integer `version`; a
    header of version 1-5 parses by its own section of FORMAT.md. `different-vault`: its vault id is this replica's
    (a header of a version this reader does not know has no vault id it can read, so it goes on to the next rule).
    `format-version`: its version is 5."""
    if VAULT_HEADER not in tip["files"]:
        raise Refused("vault-header", None, VAULT_HEADER, "no vault header")
    data = _text(tip, VAULT_HEADER)
    try:
        obj = cj.loads(data)
    except FormatError as e:
        raise Refused("vault-header", None, VAULT_HEADER, e.reason)
    if not isinstance(obj, dict) or obj.get("format") != FORMAT_NAME or cj.integer(obj.get("version")) is None:
        raise Refused("vault-header", None, VAULT_HEADER, "not an object with format %s and an integer version"
                      % FORMAT_NAME)
    version = cj.integer(obj["version"])
    h = None
    if version in KNOWN_VAULT_VERSIONS:
        try:
            h = parse_any_vault_header(data)
        except FormatError as e:
            raise Refused("vault-header", None, VAULT_HEADER, e.reason)
        if h.vault_id != vault_id:
            raise Refused("different-vault", None, VAULT_HEADER)
    if not isinstance(h, VaultHeaderV5):
        raise Refused("format-version", None, VAULT_HEADER, "header version %d" % version)
    return h


def _accept(tip, vault_id, keys, opened, trust, local):
    files = tip["files"]
    check_tree_shape(files)
    for path in sorted(files, key=b):
        if not is_known_file(path):
            raise Refused("foreign-file", None, path)
    h = check_vault_header(tip, vault_id)
    # domain-listing
    scope_ids = sorted(h.scopes, key=b)
    expected = {VAULT_HEADER, state_file(VAULT_DOMAIN)}
    if state_file(VAULT_DOMAIN) not in files:
        raise Refused("domain-listing", VAULT_DOMAIN, state_file(VAULT_DOMAIN), "no state record")
    scope_headers = {}
    for sid in scope_ids:
        path = scope_file(sid)
        if path not in files:
            raise Refused("domain-listing", sid, path, "no scope header")
        try:
            sh = ScopeHeaderV2.parse(_text(tip, path))
            sh.check_place(h, path)
        except FormatError as e:
            raise Refused("domain-listing", sid, path, e.reason)
        if state_file(sid) not in files:
            raise Refused("domain-listing", sid, state_file(sid), "no state record")
        scope_headers[sid] = sh
        expected |= {path, state_file(sid)}
    for path in sorted(files, key=b):
        if path.startswith(".tresor/") and path not in expected:
            raise Refused("domain-listing", None, path, "a file under .tresor/ of no listed domain")
    # per domain
    blobs = {p: bytes.fromhex(f["blob"]) for p, f in files.items()}
    folders = h.scope_folders()
    result = {}
    accepted_scopes = set(trust.get("scopesAccepted", []))
    for d in [VAULT_DOMAIN] + scope_ids:
        header = h if d == VAULT_DOMAIN else scope_headers[d]
        header_path = VAULT_HEADER if d == VAULT_DOMAIN else scope_file(d)
        spath = state_file(d)
        try:
            record = StateRecord.parse(_text(tip, spath))
            if record.vault_id != vault_id or record.domain != d or record.epoch != header.epoch:
                raise FormatError("malformed", "the state record names another vault, domain or epoch")
        except FormatError as e:
            raise Refused("state-record", d, spath, e.reason)
        try:
            record.check_tree(vault_id, spath, header.epoch, blobs, folders)
        except FormatError as e:
            raise Refused("state-files", d, spath, e.reason)
        if header.epoch < cj.integer(trust.get("published", {}).get(d, 0)):
            raise Refused("epoch-replaced", d, header_path)
        verified = d in keys
        if verified:
            held = keys[d]
            held_key, held_epoch = bytes.fromhex(held["key"]), cj.integer(held["epoch"])
            if header.epoch > held_epoch:
                o = opened.get(d)
                if o is None or cj.integer(o["epoch"]) != header.epoch or header.rekey is None:
                    raise Refused("rekey-proof", d, header_path, "no key opened for epoch %d" % header.epoch)
                key = bytes.fromhex(o["key"])
                try:
                    header.verify_proof(held_key, held_epoch, key)
                except FormatError as e:
                    raise Refused("rekey-proof", d, header_path, e.reason)
            elif header.epoch == held_epoch:
                key = held_key
            else:
                previous = held.get("previous", {}).get(str(header.epoch))
                if previous is None:
                    raise Refused("header-authentic", d, header_path, "no key of epoch %d held" % header.epoch)
                key = bytes.fromhex(previous)
            try:
                header.verify(key)
            except FormatError as e:
                raise Refused("header-authentic", d, header_path, e.reason)
            try:
                record.verify(key)
            except FormatError as e:
                raise Refused("state-authentic", d, spath, e.reason)
        own = local.get(d)
        remote = trust.get("remote", {}).get(d)
        result[d] = {
            "verified": verified,
            "relation": relation(record.clock, parse_clock(own["clock"]) if own else {}),
            # rolled-back: the clock last taken from (or pushed to) this remote is not covered: older or concurrent
            "rolledBack": remote is not None and not at_most(parse_clock(remote), record.clock),
            "epoch": header.epoch,
            "olderEpoch": own is not None and header.epoch < cj.integer(own["epoch"]),
            "offered": d != VAULT_DOMAIN and VAULT_DOMAIN not in keys and d not in accepted_scopes,
        }
    return result
