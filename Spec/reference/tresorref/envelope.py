"""Entry files: the envelope, its additional data, sealing and the reader checks (Spec/FORMAT.md §6)."""
from . import canonical_json as cj
from . import primitives
from .encoding import b64encode, b64field, decimal, is_id
from .entry import Entry
from .errors import fail
from .paths import entry_path

MAX_FILE_BYTES = 1 << 20


class Envelope:
    __slots__ = ("version", "id", "nonce", "ciphertext")

    def __init__(self, version, id, nonce, ciphertext):
        self.version, self.id, self.nonce, self.ciphertext = version, id, nonce, ciphertext


class EntryFormatV1:
    """Entry file version 1: four members, XChaCha20-Poly1305 under subkey 1 (§6.1, §6.3)."""
    VERSION = 1
    MEMBERS = ("version", "id", "nonce", "ciphertext")
    SUBKEY_ID = primitives.SUBKEY_ENTRY

    @classmethod
    def entry_key(cls, vault_key):
        return primitives.subkey(vault_key, cls.SUBKEY_ID)

    @classmethod
    def parse(cls, obj):
        """§6.2 steps 4 to 7 (steps 1 to 3 are in parse_envelope)."""
        extra = sorted(set(obj) - set(cls.MEMBERS))
        if extra:
            fail("malformed", "unknown envelope member %r" % extra[0])
        if not is_id(obj.get("id")):
            fail("malformed", "id is not a lowercase UUID")
        nonce = b64field(obj.get("nonce"), "nonce", primitives.NONCE_BYTES)
        ciphertext = b64field(obj.get("ciphertext"), "ciphertext", primitives.TAG_BYTES, at_least=True)
        return Envelope(cls.VERSION, obj["id"], nonce, ciphertext)

    @classmethod
    def additional_data(cls, env):
        return b"\x00".join([b"tresor-entry", decimal(env.version).encode(), env.id.encode(),
                             b64encode(env.nonce).encode()])

    @classmethod
    def serialize(cls, env):
        return cj.file_bytes({"version": env.version, "id": env.id, "nonce": b64encode(env.nonce),
                              "ciphertext": b64encode(env.ciphertext)})

    @classmethod
    def seal(cls, payload, id, nonce, vault_key):
        env = Envelope(cls.VERSION, id, bytes(nonce), b"")
        env.ciphertext = primitives.seal(cls.entry_key(vault_key), env.nonce, payload, cls.additional_data(env))
        return cls.serialize(env)

    @classmethod
    def open_payload(cls, env, vault_key):
        return primitives.open_(cls.entry_key(vault_key), env.nonce, env.ciphertext, cls.additional_data(env))


# Entry file versions this implementation reads and writes (§1.4: each file's version is checked on its own).
ENTRY_FORMATS = {1: EntryFormatV1}
CURRENT = EntryFormatV1


def parse_envelope(data):
    """§6.2 steps 1 to 7. Returns (format class, envelope)."""
    if len(data) > MAX_FILE_BYTES:
        fail("malformed", "file larger than 1 MiB")
    obj = cj.loads(data)
    if not isinstance(obj, dict):
        fail("malformed", "envelope is not an object")
    if "version" not in obj or cj.integer(obj["version"]) is None:
        fail("malformed", "version missing or not an integer")
    version = cj.integer(obj["version"])
    if version not in ENTRY_FORMATS:
        fail("unsupported-version", "entry file version %d" % version)
    fmt = ENTRY_FORMATS[version]
    return fmt, fmt.parse(obj)


def open_entry_file(data, vault_key, path):
    """§6.2: all ten steps for the file of entry path `path`. Returns (Entry, payload bytes)."""
    fmt, env = parse_envelope(data)
    payload = fmt.open_payload(env, vault_key)
    entry = Entry.from_payload(env.id, cj.loads(payload))
    if entry.path != entry_path(path):
        fail("path-mismatch", "the payload names %r, the file is at %r" % (entry.path, path))
    return entry, payload


def seal_entry(entry, nonce, vault_key, fmt=CURRENT):
    """The file bytes of `entry` sealed under `nonce` (a writer draws a fresh random nonce, §6.3)."""
    return fmt.seal(entry.payload_bytes(), entry.id, nonce, vault_key)
