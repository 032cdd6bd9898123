"""Scopes: folders with a key and members of their own (Spec/FORMAT.md §3.12): the version 4 vault header, scope
headers, which key seals an entry, and version 4 commit tags."""
import hmac
import unicodedata

from . import canonical_json as cj
from . import primitives
from .encoding import b64encode, b64field, is_id
from .errors import fail
from .header import HeaderV3, HEADER_FORMATS, MAX_FILE_BYTES
from .paths import entry_path, is_entry_path
from .recipients import RecipientSlot, MAX_RECIPIENT_SLOTS, SEAL_BYTES, seal_box

SCOPE_FORMAT = "tresor-scope"
SCOPES_DIR = ".tresor/scopes/"
MAX_SCOPES = 64
SUBKEY_SCOPE_WRAP = 4
VAULT_SLOT_TYPE = "vault"
COMMIT_FIELD = "tresor-auth"


def scope_file(scope_id):
    return SCOPES_DIR + scope_id + ".json"


class HeaderV4(HeaderV3):
    """Header version 4 (§3.12.1): a version 3 header with `scopes`, scope id → folder."""
    VERSION = 4
    KNOWN_MEMBERS = HeaderV3.KNOWN_MEMBERS + ("scopes",)

    def __init__(self, vault_id, slots, other_slots=(), unknown=None, generation=1, auth=None, recipients=(),
                 rekey_proof=None, scopes=None):
        super().__init__(vault_id, slots, other_slots, unknown, generation, auth, recipients, rekey_proof)
        self.scopes = dict(scopes or {})

    @classmethod
    def parse_extra(cls, obj):
        extra = super().parse_extra(obj)
        scopes = obj.get("scopes")
        if not isinstance(scopes, dict):
            fail("malformed", "scopes is not an object")
        for sid, folder in scopes.items():
            if not is_id(sid):
                fail("malformed", "a scope id is not a lowercase UUID")
            if not isinstance(folder, str) or not is_entry_path(folder) or unicodedata.normalize("NFC", folder) != folder:
                fail("malformed", "a scope folder is not a valid NFC entry path")
        if len(scopes) > MAX_SCOPES:
            fail("malformed", "more than %d scopes" % MAX_SCOPES)
        folders = list(scopes.values())
        for a in folders:
            for b in folders:
                if a is not b and (a == b or b.startswith(a + "/")):
                    fail("malformed", "scopes %r and %r nest" % (a, b))
        extra["scopes"] = dict(scopes)
        return extra

    def to_json(self, with_auth=True):
        h = super().to_json(with_auth)
        h["scopes"] = dict(self.scopes)
        return h

    def authenticated(self, vault_key):
        h = type(self)(self.vault_id, self.slots, self.other_slots, self.unknown, self.generation, None,
                       self.recipients, self.rekey_proof, self.scopes)
        h.auth = h.tag(vault_key)
        return h

    def scope_of(self, path):
        """§3.12.3: the id of the scope whose folder holds entry path `path`, or None (the vault key)."""
        for sid, folder in self.scopes.items():
            if path.startswith(folder + "/"):
                return sid
        return None


HEADER_FORMATS[4] = HeaderV4


def scope_binding(vault_id, scope_id, slot_id):
    """§3.12.2: what is sealed before the scope key in a scope recipient slot."""
    return (b"tresor-scope-recipient\x001\x00" + vault_id.encode() + b"\x00" + scope_id.encode() + b"\x00"
            + slot_id.encode() + b"\x00")


SCOPE_SEALED_BYTES = len(scope_binding("0" * 36, "0" * 36, "0" * 36)) + primitives.KEY_BYTES + SEAL_BYTES


def vault_slot_ad(vault_id, scope_id):
    return b"tresor-scope-vault\x001\x00" + vault_id.encode() + b"\x00" + scope_id.encode()


def scope_wrap_key(vault_key):
    return primitives.subkey(vault_key, SUBKEY_SCOPE_WRAP)


class ScopeRecipientSlot(RecipientSlot):
    @classmethod
    def parse(cls, obj):
        """§3.4 step 6 order, with the scope's sealed length (§3.12.2)."""
        from .recipients import valid_name, parse_key_text
        if not is_id(obj.get("id")):
            fail("malformed", "recipient slot id is not a lowercase UUID")
        if not isinstance(obj.get("name"), str) or not valid_name(obj["name"]):
            fail("malformed", "recipient slot name is not a valid name")
        if not isinstance(obj.get("publicKey"), str):
            fail("malformed", "publicKey is not a string")
        key = parse_key_text(obj["publicKey"])
        sealed = b64field(obj.get("sealedKey"), "sealedKey", SCOPE_SEALED_BYTES)
        return cls(obj["id"], obj["name"], key, sealed)

    @classmethod
    def seal_scope(cls, scope_key, public_key, name, vault_id, scope_id, id, ephemeral_secret):
        return cls(id, name, bytes(public_key),
                   seal_box(scope_binding(vault_id, scope_id, id) + bytes(scope_key), public_key, ephemeral_secret))

    def open_scope(self, vault_id, scope_id, secret_key):
        import nacl.bindings as sodium
        from nacl.exceptions import CryptoError
        try:
            plain = sodium.crypto_box_seal_open(self.sealed_key, self.public_key, bytes(secret_key))
        except CryptoError:
            fail("authentication-failed", "the sealed box does not open")
        expected = scope_binding(vault_id, scope_id, self.id)
        if len(plain) != len(expected) + primitives.KEY_BYTES or plain[:len(expected)] != expected:
            fail("authentication-failed", "the sealed box is bound to another vault, scope or slot")
        return plain[len(expected):]


class VaultSlot:
    """§3.12.2: the scope key wrapped under the vault key's scope-wrap key."""
    TYPE = VAULT_SLOT_TYPE

    def __init__(self, nonce, wrapped_key):
        self.nonce, self.wrapped_key = nonce, wrapped_key

    @classmethod
    def parse(cls, obj):
        return cls(b64field(obj.get("nonce"), "nonce", primitives.NONCE_BYTES),
                   b64field(obj.get("wrappedKey"), "wrappedKey", primitives.KEY_BYTES + primitives.TAG_BYTES))

    def to_json(self):
        return {"type": self.TYPE, "nonce": b64encode(self.nonce), "wrappedKey": b64encode(self.wrapped_key)}

    @classmethod
    def wrap(cls, scope_key, vault_key, vault_id, scope_id, nonce):
        return cls(bytes(nonce), primitives.seal(scope_wrap_key(vault_key), nonce, scope_key, vault_slot_ad(vault_id, scope_id)))

    def open(self, vault_key, vault_id, scope_id):
        return primitives.open_(scope_wrap_key(vault_key), self.nonce, self.wrapped_key, vault_slot_ad(vault_id, scope_id))


class ScopeHeader:
    """`.tresor/scopes/<scope id>.json` (§3.12.2)."""
    KNOWN_MEMBERS = ("format", "version", "vault", "scope", "folder", "keySlots", "generation", "auth", "rekeyProof")

    def __init__(self, vault_id, scope_id, folder, recipients=(), vault_slot=None, other_slots=(), unknown=None,
                 generation=1, auth=None, rekey_proof=None):
        self.vault_id, self.scope_id, self.folder = vault_id, scope_id, folder
        self.recipients, self.vault_slot, self.other_slots = list(recipients), vault_slot, list(other_slots)
        self.unknown, self.generation, self.auth, self.rekey_proof = dict(unknown or {}), generation, auth, rekey_proof

    @classmethod
    def parse(cls, data):
        """§3.12.2 reader checks up to the tag, in order."""
        if len(data) > MAX_FILE_BYTES:
            fail("malformed", "file larger than 1 MiB")
        obj = cj.loads(data)
        if not isinstance(obj, dict):
            fail("malformed", "scope header is not an object")
        if obj.get("format") != SCOPE_FORMAT:
            fail("malformed", "format is not %s" % SCOPE_FORMAT)
        version = cj.integer(obj.get("version"))
        if version is None:
            fail("malformed", "version is not an integer")
        if version != 1:
            fail("unsupported-version", "scope header version %d" % version)
        if not is_id(obj.get("vault")) or not is_id(obj.get("scope")):
            fail("malformed", "vault or scope is not a lowercase UUID")
        if not isinstance(obj.get("folder"), str):
            fail("malformed", "folder is not a string")
        generation = cj.integer(obj.get("generation"))
        if generation is None or generation < 1:
            fail("malformed", "generation is not a positive integer")
        if not isinstance(obj.get("auth"), str):
            fail("malformed", "auth is not a string")
        auth = b64field(obj["auth"], "auth", 32)
        proof = b64field(obj["rekeyProof"], "rekeyProof", 32) if "rekeyProof" in obj else None
        if not isinstance(obj.get("keySlots"), list):
            fail("malformed", "keySlots is not an array")
        recipients, vault_slot, others = [], None, []
        for s in obj["keySlots"]:
            if not isinstance(s, dict) or not isinstance(s.get("type"), str):
                fail("malformed", "a key slot is not an object with a string type")
            if s["type"] == RecipientSlot.TYPE:
                if len(recipients) == MAX_RECIPIENT_SLOTS:
                    fail("malformed", "more than %d recipient slots" % MAX_RECIPIENT_SLOTS)
                r = ScopeRecipientSlot.parse(s)
                if any(o.name == r.name or o.public_key == r.public_key for o in recipients):
                    fail("malformed", "two recipient slots with one name or one public key")
                recipients.append(r)
            elif s["type"] == VAULT_SLOT_TYPE:
                v = VaultSlot.parse(s)
                if vault_slot is not None:
                    fail("malformed", "two vault slots")
                vault_slot = v
            else:
                others.append(s)
        if not recipients and vault_slot is None:
            fail("malformed", "no recipient or vault slot")
        return cls(obj["vault"], obj["scope"], obj["folder"], recipients, vault_slot, others,
                   {k: v for k, v in obj.items() if k not in cls.KNOWN_MEMBERS}, generation, auth, proof)

    def check_place(self, vault_header, path):
        """§3.12.2: the scope header against the vault header and its file name [malformed]."""
        if self.vault_id != vault_header.vault_id:
            fail("malformed", "the scope header belongs to another vault")
        if path != scope_file(self.scope_id):
            fail("malformed", "the scope header's id is not its file name")
        if getattr(vault_header, "scopes", {}).get(self.scope_id) != self.folder:
            fail("malformed", "the vault header does not list this scope with this folder")

    def to_json(self, with_auth=True):
        h = dict(self.unknown)
        slots = [r.to_json() for r in self.recipients] + ([self.vault_slot.to_json()] if self.vault_slot else [])
        h.update({"format": SCOPE_FORMAT, "version": 1, "vault": self.vault_id, "scope": self.scope_id,
                  "folder": self.folder, "keySlots": slots + list(self.other_slots), "generation": self.generation})
        if self.rekey_proof is not None:
            h["rekeyProof"] = b64encode(self.rekey_proof)
        if with_auth and self.auth is not None:
            h["auth"] = b64encode(self.auth)
        return h

    def serialize(self):
        return cj.file_bytes(self.to_json())

    def authenticated_bytes(self):
        return b"tresor-scope\x00" + cj.dumps(self.to_json(with_auth=False))

    def tag(self, scope_key):
        return primitives.keyed_hash(primitives.subkey(scope_key, primitives.SUBKEY_HEADER), self.authenticated_bytes())

    def authenticated(self, scope_key):
        self.auth = None
        self.auth = self.tag(scope_key)
        return self

    def verify(self, scope_key):
        if self.auth is None or not hmac.compare_digest(self.auth, self.tag(scope_key)):
            fail("header-not-authentic", "the scope header's tag does not verify")

    def unlock(self, vault_key=None, identity=None):
        """§3.12.4: the scope key, through the vault slot (vault key) or the identity's recipient slot."""
        if vault_key is not None and self.vault_slot is not None:
            return self.vault_slot.open(vault_key, self.vault_id, self.scope_id)
        if identity is not None:
            sk, pk = identity
            for r in self.recipients:
                if r.public_key == pk:
                    return r.open_scope(self.vault_id, self.scope_id, sk)
        fail("not-a-recipient", "neither the vault key nor the identity opens this scope")


def commit_content_v4(commit):
    """§3.12.6: C, the commit's content without every `tresor-auth` and `tresor-auth-*` header line, and the header
    fields of those lines (name → value); None for the fields when one is twice or continued (no tag at all)."""
    head, sep, message = commit.partition(b"\n\n")
    lines = head.split(b"\n")
    kept, fields, broken = [], {}, False
    for i, line in enumerate(lines):
        name = line.split(b" ", 1)[0]
        if name == b"tresor-auth" or name.startswith(b"tresor-auth-"):
            continued = i + 1 < len(lines) and lines[i + 1].startswith(b" ")
            broken = broken or name in fields or continued
            fields[name] = line[len(name) + 1:]
        else:
            kept.append(line)
    content = b"\n".join(kept) + sep + message
    return content, None if broken else {k.decode(): v.decode() for k, v in fields.items()}


def tagged_message(content, field_names):
    """§3.12.6: what every tag of a commit with tag fields `field_names` covers."""
    names = sorted(n.encode() for n in field_names)
    if names == [b"tresor-auth"]:
        return b"tresor-commit\x00" + bytes(content)
    return b"tresor-commit\x00" + bytes(content) + b"\x00tresor-fields\x00" + b"".join(n + b"\x00" for n in names)


def commit_tag_v4(key, content, field_names):
    """The value of one tag field: the commit key of `key` over `tagged_message`."""
    return primitives.keyed_hash(primitives.subkey(key, primitives.SUBKEY_COMMIT), tagged_message(content, field_names))


def _rekeyed(self, old_key, new_key, vault_key, removing, ephemeral_secrets, vault_slot_nonce):
    """§3.12.5: a new scope key; the remaining recipient slots sealed again (same ids; `ephemeral_secrets` in slot
    order), the vault slot wrapped again, unknown slots dropped, generation + 1, the rekey proof, the tag under the
    new key."""
    kept = [r for r in self.recipients if r.name != removing]
    if removing is not None and len(kept) == len(self.recipients):
        fail("no-such-member", "no member %r in the scope" % removing)
    recipients = [ScopeRecipientSlot.seal_scope(new_key, r.public_key, r.name, self.vault_id, self.scope_id, r.id, e)
                  for r, e in zip(kept, ephemeral_secrets)]
    vault_slot = None
    if self.vault_slot is not None:
        vault_slot = VaultSlot.wrap(new_key, vault_key, self.vault_id, self.scope_id, vault_slot_nonce)
    proof = HeaderV3.rekey_proof_for(old_key, new_key)
    return ScopeHeader(self.vault_id, self.scope_id, self.folder, recipients, vault_slot, [], self.unknown,
                       self.generation + 1, None, proof).authenticated(new_key)


ScopeHeader.rekeyed = _rekeyed


def governing_field(path, scopes):
    """§3.12.6: the tag field of the governing key of file `path` by a vault header whose scopes are `scopes` (scope id
    -> folder; empty below version 4): the scope's for its header file (whether or not the header lists it) and for
    entry files in its folder, the vault key's for every other file."""
    if path.startswith(SCOPES_DIR) and path.endswith(".json") and is_id(path[len(SCOPES_DIR):-5]):
        return COMMIT_FIELD + "-" + path[len(SCOPES_DIR):-5]
    stem = path[:-5] if path.endswith(".json") else None
    if stem and is_entry_path(stem) and entry_path(stem) == stem:
        for sid, folder in sorted(scopes.items()):
            if stem.startswith(folder + "/"):
                return COMMIT_FIELD + "-" + sid
    return COMMIT_FIELD


def changed_files(scopes, files, parents):
    """§3.12.6: the files a commit changes, each with the tag fields it must carry for it. `files`: the commit's tree,
    path -> mode and blob; `parents`: (scopes, files) of each parent. A file is changed against a parent that holds
    another mode or blob at its path, or none, or by whose header another key governs it; it is changed by the commit
    when changed against every parent (every file of a root commit), and needs the tag of its governing key by the
    commit's header and by each parent's."""
    paths = set(files)
    for _, parent_files in parents:
        paths |= set(parent_files)
    changed = {}
    for path in sorted(paths):
        own = governing_field(path, scopes)
        theirs = [governing_field(path, parent_scopes) for parent_scopes, _ in parents]
        if all(parent_files.get(path) != files.get(path) or field != own
               for (_, parent_files), field in zip(parents, theirs)):
            changed[path] = sorted(set([own] + theirs))
    return changed
