"""State records and governing domains of version 5 (Spec/FORMAT.md §11.2, §11.6, §11.7)."""
import hashlib
import hmac

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
GITATTRIBUTES_TEXT = ("*.json diff=tresor merge=tresor\n.tresor/vault.json merge=tresor-header\n"
                      ".tresor/scopes/*.json merge=tresor-header\n.tresor/state/*.json merge=tresor-state\n")


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


def files_digest(blobs, domain, scopes):
    """§11.6: unkeyed BLAKE2b-256 over path || 0x00 || blob id of every file of the domain, paths bytewise.
    `blobs`: path -> 20-byte blob id."""
    message = b"".join(p.encode("utf-8") + b"\x00" + bytes(blobs[p])
                       for p in sorted(blobs, key=lambda p: p.encode("utf-8"))
                       if governing_domain(p, scopes) == domain)
    return blake2b(message, digest_size=32, encoder=RawEncoder)


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
        r.files = b64field(obj.get("files"), "files", 32)
        r.auth = b64field(obj.get("auth"), "auth", 32)
        return r

    def authenticated_bytes(self):
        return b"tresor-state\x00" + cj.dumps({k: v for k, v in self.obj.items() if k != "auth"})

    def tag(self, key):
        return primitives.keyed_hash(state_key(key), self.authenticated_bytes())

    def check_tree(self, vault_id, path, header_epoch, blobs, scopes):
        """§11.6 against the tree: vault id, domain = file name, epoch = the domain header's [malformed], the digest
        [state-files]."""
        if self.vault_id != vault_id:
            fail("malformed", "the state record names another vault")
        if path != state_file(self.domain):
            fail("malformed", "the state record's domain is not its file name")
        if self.epoch != header_epoch:
            fail("malformed", "the state record's epoch %d is not its header's %d" % (self.epoch, header_epoch))
        if not hmac.compare_digest(self.files, files_digest(blobs, self.domain, scopes)):
            fail("state-files", "the files of domain %s are not the ones the state record names" % self.domain)

    def verify(self, key):
        if not hmac.compare_digest(self.auth, self.tag(key)):
            fail("not-authentic", "the state record of domain %s does not verify" % self.domain)

    def serialize(self):
        return cj.file_bytes(self.obj)

    @classmethod
    def build(cls, vault_id, domain, epoch, clock, files, key, unknown=None):
        obj = dict(unknown or {})
        obj.update({"format": STATE_FORMAT, "version": 1, "vault": vault_id, "domain": domain, "epoch": epoch,
                    "clock": clock_json(clock), "files": b64encode(files)})
        obj = cj.loads(cj.dumps(obj))
        obj["auth"] = b64encode(primitives.keyed_hash(state_key(key), b"tresor-state\x00" + cj.dumps(obj)))
        return cls.parse(cj.file_bytes(obj))


def tree_blobs(files):
    """path -> blob id of a tree given as path -> bytes."""
    return {p: blob_id(d) for p, d in files.items()}


def write_state(files, vault_id, domain, epoch, clock, key, scopes, unknown=None):
    """The state record of `domain` for the tree `files` (path -> bytes, without state records), as bytes."""
    digest = files_digest(tree_blobs(files), domain, scopes)
    return StateRecord.build(vault_id, domain, epoch, clock, digest, key, unknown).serialize()
