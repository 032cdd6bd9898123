"""The vault header `.tresor/vault.json` and its key slots (Spec/FORMAT.md §3)."""
from . import canonical_json as cj
from . import primitives
from .encoding import b64encode, b64field, decimal, is_id
from .errors import FormatError, fail

HEADER_PATH = ".tresor/vault.json"
FORMAT_NAME = "tresor-vault"
MAX_FILE_BYTES = 1 << 20
MAX_PASSPHRASE_SLOTS = 16
KDF_ALGORITHM = "argon2id13"
OPS_BOUNDS = (1, 16)
MEM_BOUNDS = (8192, 1 << 30)
LEVELS = {"minimum": (1, 8192), "interactive": (2, 64 << 20), "moderate": (3, 256 << 20), "sensitive": (4, 1 << 30)}


def parse_kdf(kdf):
    """The `kdf` member of a passphrase slot or a protected identity (§3.3): (ops, mem, salt), in bounds."""
    if not isinstance(kdf, dict):
        fail("malformed", "kdf is not an object")
    if kdf.get("algorithm") != KDF_ALGORITHM:
        fail("kdf-out-of-bounds", "kdf algorithm is not %s" % KDF_ALGORITHM)
    ops, mem = cj.integer(kdf.get("ops")), cj.integer(kdf.get("mem"))
    if ops is None or mem is None:
        fail("malformed", "kdf ops or mem is not an integer")
    salt = b64field(kdf.get("salt"), "salt", primitives.SALT_BYTES)
    if not (OPS_BOUNDS[0] <= ops <= OPS_BOUNDS[1] and MEM_BOUNDS[0] <= mem <= MEM_BOUNDS[1]):
        fail("kdf-out-of-bounds", "ops %d, mem %d" % (ops, mem))
    return ops, mem, salt


class PassphraseSlot:
    """A key slot of type "passphrase" (§3.2, §3.3)."""
    TYPE = "passphrase"

    def __init__(self, id, ops, mem, salt, nonce, wrapped_key):
        self.id, self.ops, self.mem, self.salt, self.nonce, self.wrapped_key = id, ops, mem, salt, nonce, wrapped_key

    @classmethod
    def parse(cls, obj):
        """§3.4 step 6 for a passphrase slot, in the order given there."""
        if not is_id(obj.get("id")):
            fail("malformed", "key slot id is not a lowercase UUID")
        ops, mem, salt = parse_kdf(obj.get("kdf"))
        nonce = b64field(obj.get("nonce"), "nonce", primitives.NONCE_BYTES)
        wrapped = b64field(obj.get("wrappedKey"), "wrappedKey", primitives.KEY_BYTES + primitives.TAG_BYTES)
        return cls(obj["id"], ops, mem, salt, nonce, wrapped)

    def to_json(self):
        return {"type": self.TYPE, "id": self.id,
                "kdf": {"algorithm": KDF_ALGORITHM, "ops": self.ops, "mem": self.mem, "salt": b64encode(self.salt)},
                "nonce": b64encode(self.nonce), "wrappedKey": b64encode(self.wrapped_key)}

    def additional_data(self, version, vault_id):
        return b"\x00".join([b"tresor-keyslot", decimal(version).encode(), vault_id.encode(), self.id.encode(),
                             KDF_ALGORITHM.encode(), decimal(self.ops).encode(), decimal(self.mem).encode(),
                             b64encode(self.salt).encode()])

    def kek(self, passphrase):
        return primitives.argon2id(passphrase, self.salt, self.ops, self.mem)

    def open(self, version, vault_id, passphrase):
        """The vault key, or FormatError("authentication-failed")."""
        return primitives.open_(self.kek(passphrase), self.nonce, self.wrapped_key,
                                self.additional_data(version, vault_id))

    @classmethod
    def wrap(cls, vault_key, passphrase, version, vault_id, id, ops, mem, salt, nonce):
        slot = cls(id, ops, mem, bytes(salt), bytes(nonce), b"")
        slot.wrapped_key = primitives.seal(slot.kek(passphrase), slot.nonce, vault_key,
                                           slot.additional_data(version, vault_id))
        return slot


class HeaderV1:
    """Header version 1 (§3.1): passphrase slots are opened, slots of other types kept verbatim (§8)."""
    VERSION = 1
    # The version named in a passphrase slot's additional data: the slot format's, 1 in every header version.
    SLOT_VERSION = 1
    KNOWN_MEMBERS = ("format", "version", "vault", "keySlots")
    SLOT_TYPES = {PassphraseSlot.TYPE: PassphraseSlot}

    def __init__(self, vault_id, slots, other_slots=(), unknown=None):
        self.vault_id = vault_id
        self.slots = list(slots)              # passphrase slots, in file order
        self.other_slots = list(other_slots)  # slots of unknown types, as JSON values
        self.unknown = dict(unknown or {})

    @classmethod
    def parse(cls, obj):
        """§3.4 steps 5 to 7."""
        if not is_id(obj.get("vault")):
            fail("malformed", "vault is not a lowercase UUID")
        if not isinstance(obj.get("keySlots"), list):
            fail("malformed", "keySlots is not an array")
        extra = cls.parse_extra(obj)
        slots, others = [], []
        for s in obj["keySlots"]:
            if not isinstance(s, dict) or not isinstance(s.get("type"), str):
                fail("malformed", "a key slot is not an object with a string type")
            if s["type"] in cls.SLOT_TYPES:
                slots.append(cls.SLOT_TYPES[s["type"]].parse(s))
            else:
                others.append(s)
        if not slots:
            fail("malformed", "no passphrase key slot")
        if len(slots) > MAX_PASSPHRASE_SLOTS:
            fail("malformed", "more than %d passphrase key slots" % MAX_PASSPHRASE_SLOTS)
        return cls(obj["vault"], slots, others, {k: v for k, v in obj.items() if k not in cls.KNOWN_MEMBERS}, **extra)

    @classmethod
    def parse_extra(cls, obj):
        return {}

    def to_json(self):
        h = dict(self.unknown)
        h.update({"format": FORMAT_NAME, "version": self.VERSION, "vault": self.vault_id,
                  "keySlots": [s.to_json() for s in self.slots] + list(self.other_slots)})
        return h

    def serialize(self):
        return cj.file_bytes(self.to_json())

    def unlock(self, passphrase):
        """§3.3: the first passphrase slot, in file order, that opens gives the vault key."""
        for slot in self.slots:
            try:
                return slot.open(self.SLOT_VERSION, self.vault_id, passphrase)
            except FormatError:
                continue
        fail("wrong-passphrase", "no passphrase slot opened")

    def with_new_passphrase(self, vault_key, passphrase, slot_id, ops, mem, salt, nonce):
        """§3.5: every passphrase slot is replaced by one new slot; slots of other types and unknown members stay."""
        slot = PassphraseSlot.wrap(vault_key, passphrase, self.SLOT_VERSION, self.vault_id, slot_id, ops, mem, salt, nonce)
        return type(self)(self.vault_id, [slot], self.other_slots, self.unknown)

    def verify(self, vault_key):
        """A version 1 header has no tag: nothing to check."""


class HeaderV2(HeaderV1):
    """Header version 2 (§3.6): a generation and an authentication tag over everything else."""
    VERSION = 2
    KNOWN_MEMBERS = HeaderV1.KNOWN_MEMBERS + ("generation", "auth")

    def __init__(self, vault_id, slots, other_slots=(), unknown=None, generation=1, auth=None):
        super().__init__(vault_id, slots, other_slots, unknown)
        self.generation, self.auth = generation, auth

    @classmethod
    def parse_extra(cls, obj):
        """§3.4 step 6 for version 2: generation, then auth."""
        generation = cj.integer(obj.get("generation"))
        if generation is None or generation < 1:
            fail("malformed", "generation is not a positive integer")
        if not isinstance(obj.get("auth"), str):
            fail("malformed", "auth is not a string")
        return {"generation": generation, "auth": b64field(obj["auth"], "auth", 32)}

    def to_json(self, with_auth=True):
        h = super().to_json()
        h["generation"] = self.generation
        if with_auth and self.auth is not None:
            h["auth"] = b64encode(self.auth)
        return h

    def authenticated_bytes(self):
        """§3.6: what the tag covers: "tresor-header" 0x00 and the canonical JSON without "auth"."""
        return b"tresor-header\x00" + cj.dumps(self.to_json(with_auth=False))

    def tag(self, vault_key):
        return primitives.keyed_hash(primitives.subkey(vault_key, primitives.SUBKEY_HEADER), self.authenticated_bytes())

    def authenticated(self, vault_key):
        h = type(self)(self.vault_id, self.slots, self.other_slots, self.unknown, self.generation)
        h.auth = h.tag(vault_key)
        return h

    def verify(self, vault_key):
        """§3.6: the tag must be the header key's over the rest, or the header was changed without the key."""
        import hmac
        if self.auth is None or not hmac.compare_digest(self.auth, self.tag(vault_key)):
            fail("header-not-authentic", "the header's tag does not verify")

    def with_new_passphrase(self, vault_key, passphrase, slot_id, ops, mem, salt, nonce):
        """§3.5 and §3.6: the next generation, authenticated again."""
        h = super().with_new_passphrase(vault_key, passphrase, slot_id, ops, mem, salt, nonce)
        h.generation = self.generation + 1
        return h.authenticated(vault_key)


class HeaderV3(HeaderV2):
    """Header version 3 (§3.8): recipient key slots beside passphrase slots; written after them."""
    VERSION = 3

    KNOWN_MEMBERS = HeaderV2.KNOWN_MEMBERS + ("rekeyProof",)

    def __init__(self, vault_id, slots, other_slots=(), unknown=None, generation=1, auth=None, recipients=(),
                 rekey_proof=None):
        super().__init__(vault_id, slots, other_slots, unknown, generation, auth)
        self.recipients = list(recipients)
        self.rekey_proof = rekey_proof

    @classmethod
    def parse(cls, obj):
        from .recipients import RecipientSlot, MAX_RECIPIENT_SLOTS
        slots = obj.get("keySlots")
        recipient_json = [s for s in slots if isinstance(s, dict) and s.get("type") == RecipientSlot.TYPE] \
            if isinstance(slots, list) else []
        rest = dict(obj)
        if isinstance(slots, list):
            rest["keySlots"] = [s for s in slots if not (isinstance(s, dict) and s.get("type") == RecipientSlot.TYPE)]
        h = super().parse(rest)
        recipients = []
        for s in recipient_json:
            if len(recipients) == MAX_RECIPIENT_SLOTS:
                fail("malformed", "more than %d recipient slots" % MAX_RECIPIENT_SLOTS)
            r = RecipientSlot.parse(s)
            if any(o.name == r.name or o.public_key == r.public_key for o in recipients):
                fail("malformed", "two recipient slots with one name or one public key")
            recipients.append(r)
        h.recipients = recipients
        if "rekeyProof" in obj:
            h.rekey_proof = b64field(obj["rekeyProof"], "rekeyProof", 32)
        return h

    def to_json(self, with_auth=True):
        h = super().to_json(with_auth)
        if self.rekey_proof is not None:
            h["rekeyProof"] = b64encode(self.rekey_proof)
        h["keySlots"] = [s.to_json() for s in self.slots] + [r.to_json() for r in self.recipients] + list(self.other_slots)
        return h

    def authenticated(self, vault_key):
        h = type(self)(self.vault_id, self.slots, self.other_slots, self.unknown, self.generation, None, self.recipients,
                       self.rekey_proof)
        h.auth = h.tag(vault_key)
        return h

    def unlock_identity(self, secret_key, public_key):
        """§3.8: the recipient slot sealed to the identity's public key opens the vault key."""
        for r in self.recipients:
            if r.public_key == public_key:
                return r.open(self.vault_id, secret_key)
        fail("not-a-recipient", "no recipient slot is sealed to this public key")

    def with_new_passphrase(self, vault_key, passphrase, slot_id, ops, mem, salt, nonce):
        h = super().with_new_passphrase(vault_key, passphrase, slot_id, ops, mem, salt, nonce)
        h.recipients = self.recipients
        return h.authenticated(vault_key)

    @staticmethod
    def rekey_proof_for(old_key, new_key):
        """§3.11: keyed BLAKE2b-256 under the previous header key over "tresor-rekey" 0x00 || the new header key."""
        return primitives.keyed_hash(primitives.subkey(old_key, primitives.SUBKEY_HEADER),
                                     b"tresor-rekey\x00" + primitives.subkey(new_key, primitives.SUBKEY_HEADER))

    def rekeyed(self, old_key, new_key, passphrase, slot_id, ops, mem, salt, nonce, ephemeral_secrets, removing=None):
        """§3.11: one passphrase slot of the new key, every remaining recipient slot sealed again (same id, name
        and key; `ephemeral_secrets` gives each box's ephemeral secret in slot order), unknown slots dropped,
        the next generation, authenticated with the new key."""
        from .recipients import RecipientSlot
        slot = PassphraseSlot.wrap(new_key, passphrase, self.SLOT_VERSION, self.vault_id, slot_id, ops, mem, salt, nonce)
        kept = [r for r in self.recipients if r.name != removing]
        recipients = [RecipientSlot.seal(new_key, r.public_key, r.name, self.vault_id, r.id, e)
                      for r, e in zip(kept, ephemeral_secrets)]
        h = type(self)(self.vault_id, [slot], [], self.unknown, self.generation + 1, None, recipients,
                       self.rekey_proof_for(old_key, new_key))
        return h.authenticated(new_key)


# Header versions this implementation reads and writes.
HEADER_FORMATS = {1: HeaderV1, 2: HeaderV2, 3: HeaderV3}
CURRENT = HeaderV3


def parse_header_json(obj):
    """§3.4 steps 2 (after the JSON text) to 7 on a parsed value."""
    if not isinstance(obj, dict):
        fail("malformed", "header is not an object")
    if obj.get("format") != FORMAT_NAME:
        fail("malformed", "format is not %s" % FORMAT_NAME)
    version = cj.integer(obj.get("version"))
    if version is None:
        fail("malformed", "version is not an integer")
    if version not in HEADER_FORMATS:
        fail("unsupported-version", "header version %d" % version)
    return HEADER_FORMATS[version].parse(obj)


def parse_header(data):
    """§3.4, all steps, on file bytes."""
    if len(data) > MAX_FILE_BYTES:
        fail("malformed", "file larger than 1 MiB")
    return parse_header_json(cj.loads(data))
