"""State records and governing domains of version 5 (Spec/FORMAT.md §11.2, §11.6, §11.7)."""
import hashlib
import hmac
import re

from nacl.encoding import RawEncoder
from nacl.hash import blake2b

from . import canonical_json as cj
from . import primitives
from .clock import parse_clock, clock_json
from .encoding import b64encode, b64field, is_id
from .errors import fail
from .header5 import VAULT_DOMAIN, state_key
from .paths import entry_path

STATE_FORMAT = "tresor-state"
STATE_DIR = ".tresor/state/"
SCOPES_DIR = ".tresor/scopes/"
VAULT_HEADER = ".tresor/vault.json"
GITATTRIBUTES = ".gitattributes"
MAX_FILE_BYTES = 1 << 20
# FORMAT §11.7: the header and state files are diffed as text (`diff`), entry files by the tresor driver
GITATTRIBUTES_TEXT = ("*.json diff=tresor merge=tresor\n.tresor/vault.json diff merge=tresor-header\n"
                      ".tresor/scopes/*.json diff merge=tresor-header\n.tresor/state/*.json diff merge=tresor-state\n")


def state_file(domain):
    return STATE_DIR + domain + ".json"


def blob_id(data):
    """git's blob id: SHA-1 of "blob ", the size in decimal, 0x00 and the bytes."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + bytes(data)).digest()


def entry_stem(path):
    """The entry path of an entry file's path (a valid, NFC entry path followed by .json), else None."""
    if not path.endswith(".json") or path.startswith("."):
        return None
    stem = path[:-5]
    try:
        return stem if entry_path(stem) == stem else None
    except Exception:
        return None


def governing_domain(path, scopes):
    """§11.2: the governing domain of a file path under a vault header whose scopes are `scopes` (id -> folder);
    None for a state record (governed by none) and for a file that is none of the files of §11.7."""
    if path.startswith(STATE_DIR):
        return None
    if path.startswith(SCOPES_DIR) and path.endswith(".json"):
        sid = path[len(SCOPES_DIR):-5]
        return sid if is_id(sid) else None
    if path in (VAULT_HEADER, GITATTRIBUTES):
        return VAULT_DOMAIN
    stem = entry_stem(path)
    if stem is None:
        return None
    for sid, folder in scopes.items():
        if stem.startswith(folder + "/"):
            return sid
    return VAULT_DOMAIN


def git_tree(entries):
    """git's tree object of `entries` (name -> ("blob", 20-byte id) or ("tree", 20-byte id)): (id, content). Entries
    in git's order: names compared as bytes, a folder's name as if it ended in `/`."""
    def order(name):
        return name.encode("utf-8") + (b"/" if entries[name][0] == "tree" else b"")
    content = b"".join((b"100644 " if entries[n][0] == "blob" else b"40000 ") + n.encode("utf-8") + b"\x00"
                       + bytes(entries[n][1]) for n in sorted(entries, key=order))
    return hashlib.sha1(b"tree %d\x00" % len(content) + content).digest(), content


def tree_of(blobs):
    """The git tree of files given as path -> blob id (folders made from the paths; no empty folder): its id."""
    top = {}
    for path, bid in blobs.items():
        node = top
        parts = path.split("/")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = bytes(bid)

    def build(node):
        entries = {}
        for name, v in node.items():
            entries[name] = ("tree", build(v)) if isinstance(v, dict) else ("blob", v)
        return git_tree(entries)[0]
    return build(top)


def domain_tree(blobs, domain, scopes):
    """§11.6: the id of the domain's tree. `blobs`: the commit's files, path -> 20-byte blob id; `scopes`: id -> folder.
    The vault domain: the root tree without .tresor/state, .tresor/scopes and every scope's folder, empty folders
    removed. A scope: a tree of `entries` (its folder's tree, when it exists) and `header` (its scope header's blob)."""
    if domain == VAULT_DOMAIN:
        removed = [STATE_DIR, SCOPES_DIR] + [f + "/" for f in scopes.values()]
        return tree_of({p: b for p, b in blobs.items() if not any(p.startswith(r) for r in removed)})
    folder = scopes[domain] + "/"
    entries = {}
    inside = {p[len(folder):]: b for p, b in blobs.items() if p.startswith(folder)}
    if inside:
        entries["entries"] = ("tree", tree_of(inside))
    header = SCOPES_DIR + domain + ".json"
    if header in blobs:
        entries["header"] = ("blob", bytes(blobs[header]))
    return git_tree(entries)[0]


def domain_files(blobs, domain, scopes):
    """The files (path, blob id) a domain's tree covers, bytewise by path."""
    if domain == VAULT_DOMAIN:
        removed = [STATE_DIR, SCOPES_DIR] + [f + "/" for f in scopes.values()]
        keep = [p for p in blobs if not any(p.startswith(r) for r in removed)]
    else:
        keep = [p for p in blobs if p.startswith(scopes[domain] + "/") or p == SCOPES_DIR + domain + ".json"]
    return sorted(keep, key=lambda p: p.encode("utf-8"))


TREE_HEX = re.compile(r"[0-9a-f]{40}", re.ASCII)


class StateRecord:
    """`.tresor/state/<domain>.json`, kept as the JSON value it was parsed from."""

    @classmethod
    def parse(cls, data):
        """§11.6 reader checks up to the tree: size, object, format, version, vault, domain, epoch, clock, files,
        auth."""
        if len(data) > MAX_FILE_BYTES:
            fail("malformed", "file larger than 1 MiB")
        obj = cj.loads(data)
        if not isinstance(obj, dict):
            fail("malformed", "state record is not an object")
        if obj.get("format") != STATE_FORMAT:
            fail("malformed", "format is not %s" % STATE_FORMAT)
        version = cj.integer(obj.get("version"))
        if version is None:
            fail("malformed", "version is not an integer")
        if version != 1:
            fail("unsupported-version", "state record version %d" % version)
        if not is_id(obj.get("vault")):
            fail("malformed", "vault is not a lowercase UUID")
        if not (obj.get("domain") == VAULT_DOMAIN or is_id(obj.get("domain"))):
            fail("malformed", "domain is neither vault nor a scope id")
        epoch = cj.integer(obj.get("epoch"))
        if epoch is None or epoch < 1:
            fail("malformed", "epoch is not a positive integer")
        r = cls()
        r.obj, r.vault_id, r.domain, r.epoch = obj, obj["vault"], obj["domain"], epoch
        r.clock = parse_clock(obj.get("clock"))
        if not isinstance(obj.get("tree"), str) or TREE_HEX.fullmatch(obj["tree"]) is None:
            fail("malformed", "tree is not 40 lowercase hex digits")
        r.tree = bytes.fromhex(obj["tree"])
        r.auth = b64field(obj.get("auth"), "auth", 32)
        return r

    def authenticated_bytes(self):
        return b"tresor-state\x00" + cj.dumps({k: v for k, v in self.obj.items() if k != "auth"})

    def tag(self, key):
        return primitives.keyed_hash(state_key(key), self.authenticated_bytes())

    def check_tree(self, vault_id, path, header_epoch, blobs, scopes):
        """§11.6 against the commit's tree: vault id, domain = file name, epoch = the domain header's [malformed], the
        domain's tree id [state-files]."""
        if self.vault_id != vault_id:
            fail("malformed", "the state record names another vault")
        if path != state_file(self.domain):
            fail("malformed", "the state record's domain is not its file name")
        if self.epoch != header_epoch:
            fail("malformed", "the state record's epoch %d is not its header's %d" % (self.epoch, header_epoch))
        if not hmac.compare_digest(self.tree, domain_tree(blobs, self.domain, scopes)):
            fail("state-files", "the files of domain %s are not the ones the state record names" % self.domain)

    def verify(self, key):
        if not hmac.compare_digest(self.auth, self.tag(key)):
            fail("not-authentic", "the state record of domain %s does not verify" % self.domain)

    def serialize(self):
        return cj.file_bytes(self.obj)

    @classmethod
    def build(cls, vault_id, domain, epoch, clock, tree, key, unknown=None):
        obj = dict(unknown or {})
        obj.update({"format": STATE_FORMAT, "version": 1, "vault": vault_id, "domain": domain, "epoch": epoch,
                    "clock": clock_json(clock), "tree": bytes(tree).hex()})
        obj = cj.loads(cj.dumps(obj))
        obj["auth"] = b64encode(primitives.keyed_hash(state_key(key), b"tresor-state\x00" + cj.dumps(obj)))
        return cls.parse(cj.file_bytes(obj))


def tree_blobs(files):
    """path -> blob id of a tree given as path -> bytes."""
    return {p: blob_id(d) for p, d in files.items()}


def write_state(files, vault_id, domain, epoch, clock, key, scopes, unknown=None):
    """The state record of `domain` for the tree `files` (path -> bytes, without state records), as bytes."""
    tree = domain_tree(tree_blobs(without_states(files)), domain, scopes)
    return StateRecord.build(vault_id, domain, epoch, clock, tree, key, unknown).serialize()


def without_states(files):
    return {p: d for p, d in files.items() if not p.startswith(STATE_DIR)}
