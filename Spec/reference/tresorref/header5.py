"""Version 5 headers (Spec/FORMAT.md §11.4, §11.5, §11.11): the vault header version 5 and the scope header version
2, with dots on slots and scopes, a clock, the key epoch and the rekey chain. A header is kept as the JSON value it
was parsed from: the tag covers that value whole, members this implementation does not know included."""
import hmac
import unicodedata

from . import canonical_json as cj
from . import primitives
from .clock import covers, parse_clock, parse_dot, dot_json, clock_json
from .encoding import b64encode, b64field, decimal, is_id
from .errors import fail
from .header import PassphraseSlot, FORMAT_NAME, MAX_FILE_BYTES, MAX_PASSPHRASE_SLOTS
from .paths import is_entry_path
from .recipients import RecipientSlot, MAX_RECIPIENT_SLOTS
from .scopes import (ScopeRecipientSlot, VaultSlot, SCOPE_FORMAT, MAX_SCOPES, VAULT_SLOT_TYPE, scope_file)

VERSION = 5
SCOPE_VERSION = 2
SUBKEY_STATE = 6
SUBKEY_CHAIN = 7
VAULT_DOMAIN = "vault"


def header_key(key):
    return primitives.subkey(key, primitives.SUBKEY_HEADER)


def chain_key(key):
    return primitives.subkey(key, SUBKEY_CHAIN)


def state_key(key):
    return primitives.subkey(key, SUBKEY_STATE)


def _integer_at_least_1(obj, name):
    n = cj.integer(obj.get(name))
    if n is None or n < 1:
        fail("malformed", "%s is not a positive integer" % name)
    return n


def parse_rekey(obj, epoch):
    """§11.4 (`rekey` of §11.5), in this order: present exactly when epoch > 1 [malformed]; an object with exactly the
    members `proofs`, `nonce` and `keys` [malformed]; `proofs` an object with exactly the members "1" ..
    decimal(epoch - 1) [malformed]; each a string [malformed] of canonical base64 of 32 bytes [bad-encoding], in the
    order of the epochs; `nonce` of 24 bytes and `keys` of 32 * (epoch - 1) + 16 bytes [bad-encoding]. Returns None or
    (proofs {epoch: bytes}, nonce, keys)."""
    if "rekey" not in obj:
        if epoch > 1:
            fail("malformed", "epoch %d without rekey" % epoch)
        return None
    if epoch == 1:
        fail("malformed", "rekey in a header of epoch 1")
    rekey = obj["rekey"]
    if not isinstance(rekey, dict) or set(rekey) != set(MEMBERS["rekey"]):
        fail("malformed", "rekey is not an object of exactly proofs, nonce and keys")
    names = set(decimal(i) for i in range(1, epoch))
    if not isinstance(rekey["proofs"], dict) or set(rekey["proofs"]) != names:
        fail("malformed", "rekey.proofs does not name exactly the epochs 1 to %d" % (epoch - 1))
    proofs = {}
    for i in range(1, epoch):
        proofs[i] = b64field(rekey["proofs"][decimal(i)], "rekey proof %d" % i, 32)
    nonce = b64field(rekey["nonce"], "rekey.nonce", primitives.NONCE_BYTES)
    keys = b64field(rekey["keys"], "rekey.keys", 32 * (epoch - 1) + primitives.TAG_BYTES)
    return proofs, nonce, keys


def rekey_proof(hk_old, vault_id, domain, new_epoch, hk_new):
    """§11.5: keyed BLAKE2b-256 under an earlier epoch's header key."""
    message = b"\x00".join([b"tresor-rekey", vault_id.encode(), domain.encode(), decimal(new_epoch).encode(),
                            bytes(hk_new)])
    return primitives.keyed_hash(hk_old, message)


def chain_ad(vault_id, domain, epoch):
    return b"\x00".join([b"tresor-chain", vault_id.encode(), domain.encode(), decimal(epoch).encode()])


def make_rekey(vault_id, domain, new_epoch, earlier_header_keys, new_key, nonce):
    """§11.5 step 3: `rekey` of a header of epoch new_epoch; earlier_header_keys = [hk_1 .. hk_{new_epoch-1}]."""
    assert len(earlier_header_keys) == new_epoch - 1
    hk_new = header_key(new_key)
    r = {}
    r["proofs"] = {decimal(i + 1): b64encode(rekey_proof(hk, vault_id, domain, new_epoch, hk_new))
                   for i, hk in enumerate(earlier_header_keys)}
    r["nonce"] = b64encode(nonce)
    r["keys"] = b64encode(primitives.seal(chain_key(new_key), nonce, b"".join(earlier_header_keys),
                                          chain_ad(vault_id, domain, new_epoch)))
    return r


class DomainHeader:
    """What the vault header version 5 and the scope header version 2 share: epoch, clock, rekey, tag."""
    TAG_LABEL = None

    def domain(self):
        raise NotImplementedError

    def authenticated_bytes(self):
        """§11.4: the label, 0x00 and the canonical JSON of the header as parsed, without `auth`."""
        rest = {k: v for k, v in self.obj.items() if k != "auth"}
        return self.TAG_LABEL + b"\x00" + cj.dumps(rest)

    def tag(self, key):
        return primitives.keyed_hash(header_key(key), self.authenticated_bytes())

    def verify(self, key):
        if not hmac.compare_digest(self.auth, self.tag(key)):
            fail("header-not-authentic", "the %s header's tag does not verify" % self.domain())

    def serialize(self):
        return cj.file_bytes(self.obj)

    def earlier_header_keys(self, key):
        """hk_1 .. hk_{epoch-1}: opened from `rekey.keys` with the chain key of this epoch's key (§11.5)."""
        if self.rekey is None:
            return []
        _, nonce, keys = self.rekey
        plain = primitives.open_(chain_key(key), nonce, keys, chain_ad(self.vault_id, self.domain(), self.epoch))
        return [plain[i:i + 32] for i in range(0, len(plain), 32)]

    def verify_proof(self, held_key, held_epoch, new_key):
        """Following a rekey (§11.5): the header's tag under its key K_e, and rekey.proofs[held epoch] under the
        header key of the key held, over K_e's header key. Raises [not-authentic] when the proof fails."""
        if not (1 <= held_epoch < self.epoch):
            fail("not-authentic", "no proof from epoch %d in a header of epoch %d" % (held_epoch, self.epoch))
        self.verify(new_key)
        proof = self.rekey[0][held_epoch]
        expect = rekey_proof(header_key(held_key), self.vault_id, self.domain(), self.epoch, header_key(new_key))
        if not hmac.compare_digest(proof, expect):
            fail("not-authentic", "the rekey proof from epoch %d does not verify" % held_epoch)

    def check_dots(self):
        for what, dot in self.dots():
            if not covers(self.clock, dot):
                fail("malformed", "the dot of %s is not covered by the header's clock" % what)


def _parse_common(obj):
    epoch = _integer_at_least_1(obj, "epoch")
    clock = parse_clock(obj.get("clock"))
    if not isinstance(obj.get("auth"), str):
        fail("malformed", "auth is not a string")
    auth = b64field(obj["auth"], "auth", 32)
    rekey = parse_rekey(obj, epoch)
    return epoch, clock, auth, rekey


def _parse_scopes(obj):
    """§11.4: `scopes` present and an object; each value an object of exactly `folder` (a string) and `dot`, named by a
    scope id (§3.12.1); then the folders: valid NFC entry paths, at most 64, none nesting [malformed]. Returns
    id -> (folder, dot)."""
    scopes = obj.get("scopes")
    if not isinstance(scopes, dict):
        fail("malformed", "scopes is not an object")
    out = {}
    for sid, value in scopes.items():
        if not is_id(sid):
            fail("malformed", "a scope id is not a lowercase UUID")
        if not isinstance(value, dict) or set(value) != set(MEMBERS["scope"]) or not isinstance(value["folder"], str):
            fail("malformed", "a scope is not an object of exactly a string folder and a dot")
        out[sid] = (value["folder"], parse_dot(value["dot"], "a scope's dot"))
    for folder, _ in out.values():
        if not is_entry_path(folder) or unicodedata.normalize("NFC", folder) != folder:
            fail("malformed", "a scope folder is not a valid NFC entry path")
    if len(out) > MAX_SCOPES:
        fail("malformed", "more than %d scopes" % MAX_SCOPES)
    folders = [f for f, _ in out.values()]
    for i, a in enumerate(folders):
        for j, b in enumerate(folders):
            if i != j and (a == b or b.startswith(a + "/")):
                fail("malformed", "scopes %r and %r nest" % (a, b))
    return out


def _slot_dot(s):
    if "dot" not in s:
        fail("malformed", "a key slot has no dot")
    return parse_dot(s["dot"], "a key slot's dot")


# §11.4: inside a passphrase slot (and its kdf), a recipient slot, a vault slot, a `scopes` value and `rekey` a
# version 5 reader accepts no other member [malformed].
MEMBERS = {"passphrase": ("type", "id", "kdf", "nonce", "wrappedKey", "dot"),
           "kdf": ("algorithm", "ops", "mem", "salt"),
           "recipient": ("type", "id", "name", "publicKey", "sealedKey", "dot"),
           "vault": ("type", "nonce", "wrappedKey", "dot"),
           "scope": ("folder", "dot"),
           "rekey": ("proofs", "nonce", "keys")}


def only_members(obj, kind):
    extra = sorted(set(obj) - set(MEMBERS[kind]))
    if extra:
        fail("malformed", "a member %r in a %s object" % (extra[0], kind))


class VaultHeaderV5(DomainHeader):
    """`.tresor/vault.json` version 5 (§11.4)."""
    TAG_LABEL = b"tresor-header"

    def domain(self):
        return VAULT_DOMAIN

    @classmethod
    def parse(cls, data):
        if len(data) > MAX_FILE_BYTES:
            fail("malformed", "file larger than 1 MiB")
        return cls.parse_json(cj.loads(data))

    @classmethod
    def parse_json(cls, obj):
        """§11.4's reader checks, in its order, stopping at the first failure (the size and the JSON text are checked
        by `parse`): object, `format`, `version` (§3.4 steps 2-4); `vault` an id and `keySlots` an array; `epoch`;
        `clock`; `auth`; `rekey`; `scopes` (each value, then the folders: valid NFC entry paths, at most 64, none
        nesting); then each slot in file order by §3.4 step 6 followed by its exact members and its `dot`; §3.4 step
        7; last, every dot covered by the clock."""
        if not isinstance(obj, dict):
            fail("malformed", "header is not an object")
        if obj.get("format") != FORMAT_NAME:
            fail("malformed", "format is not %s" % FORMAT_NAME)
        version = cj.integer(obj.get("version"))
        if version is None:
            fail("malformed", "version is not an integer")
        if version != VERSION:
            fail("unsupported-version", "header version %d" % version)
        h = cls()
        h.obj = obj
        if not is_id(obj.get("vault")):
            fail("malformed", "vault is not a lowercase UUID")
        h.vault_id = obj["vault"]
        if not isinstance(obj.get("keySlots"), list):
            fail("malformed", "keySlots is not an array")
        h.epoch, h.clock, h.auth, h.rekey = _parse_common(obj)
        h.scopes = _parse_scopes(obj)
        h.passphrase, h.recipients, h.others = [], [], []
        for s in obj["keySlots"]:
            if not isinstance(s, dict) or not isinstance(s.get("type"), str):
                fail("malformed", "a key slot is not an object with a string type")
            if s["type"] == PassphraseSlot.TYPE:
                slot = PassphraseSlot.parse(s)
                only_members(s, "passphrase")
                only_members(s["kdf"], "kdf")
                h.passphrase.append((slot, _slot_dot(s), s))
            elif s["type"] == RecipientSlot.TYPE:
                if len(h.recipients) == MAX_RECIPIENT_SLOTS:
                    fail("malformed", "more than %d recipient slots" % MAX_RECIPIENT_SLOTS)
                slot = RecipientSlot.parse(s)
                if any(o.name == slot.name or o.public_key == slot.public_key for o, _, _ in h.recipients):
                    fail("malformed", "two recipient slots with one name or one public key")
                only_members(s, "recipient")
                h.recipients.append((slot, _slot_dot(s), s))
            else:
                h.others.append(s)
        if not h.passphrase:
            fail("malformed", "no passphrase key slot")
        if len(h.passphrase) > MAX_PASSPHRASE_SLOTS:
            fail("malformed", "more than %d passphrase key slots" % MAX_PASSPHRASE_SLOTS)
        h.check_dots()
        return h

    def dots(self):
        for slot, dot, _ in self.passphrase + self.recipients:
            yield "key slot " + slot.id, dot
        for sid, (_, dot) in sorted(self.scopes.items()):
            yield "scope " + sid, dot

    def scope_folders(self):
        return {sid: folder for sid, (folder, _) in self.scopes.items()}

    def scope_of(self, path):
        for sid, (folder, _) in self.scopes.items():
            if path.startswith(folder + "/"):
                return sid
        return None

    def unlock(self, passphrase):
        from .errors import FormatError
        for slot, _, _ in self.passphrase:
            try:
                return slot.open(1, self.vault_id, passphrase)
            except FormatError:
                continue
        fail("wrong-passphrase", "no passphrase slot opened")

    def unlock_identity(self, secret_key, public_key):
        for slot, _, _ in self.recipients:
            if slot.public_key == public_key:
                return slot.open(self.vault_id, secret_key)
        fail("not-a-recipient", "no recipient slot is sealed to this public key")

    @classmethod
    def build(cls, vault_id, key, epoch, clock, passphrase_slots, recipient_slots=(), other_slots=(), scopes=None,
              rekey=None, unknown=None):
        """A header from its parts, tagged under `key`. Slots are (slot, dot) pairs or JSON objects as they are;
        scopes: id -> (folder, dot)."""
        obj = dict(unknown or {})
        obj.update({"format": FORMAT_NAME, "version": VERSION, "vault": vault_id, "epoch": epoch,
                    "clock": clock_json(clock),
                    "keySlots": [slot_json(s) for s in passphrase_slots] + [slot_json(s) for s in recipient_slots]
                    + list(other_slots),
                    "scopes": {sid: {"folder": f, "dot": dot_json(d)} for sid, (f, d) in (scopes or {}).items()}})
        if rekey is not None:
            obj["rekey"] = rekey
        return sign(cls, obj, key)


def slot_json(s):
    """A slot (slot, dot) as JSON with its dot; a JSON object stays as it is."""
    if isinstance(s, dict):
        return s
    slot, dot = s
    j = slot.to_json()
    j["dot"] = dot_json(dot)
    return j


def sign(cls, obj, key):
    """The header `obj` with `auth` under `key`, parsed back (so it passes every reader check)."""
    obj = cj.loads(cj.dumps({k: v for k, v in obj.items() if k != "auth"}))
    h = cls.__new__(cls)
    h.obj = obj
    obj["auth"] = b64encode(primitives.keyed_hash(header_key(key), cls.TAG_LABEL + b"\x00" + cj.dumps(obj)))
    return cls.parse(cj.file_bytes(obj))


class ScopeHeaderV2(DomainHeader):
    """`.tresor/scopes/<id>.json` version 2 (§11.11)."""
    TAG_LABEL = b"tresor-scope"

    def domain(self):
        return self.scope_id

    @classmethod
    def parse(cls, data):
        """§3.12.2's order with version 2: size, object, format, version, vault and scope, folder, then epoch, clock,
        auth and rekey (in place of generation, auth and rekeyProof), keySlots, each slot with its dot, at least one
        slot, and every dot covered by the clock."""
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
        if version != SCOPE_VERSION:
            fail("unsupported-version", "scope header version %d" % version)
        h = cls()
        h.obj = obj
        if not is_id(obj.get("vault")) or not is_id(obj.get("scope")):
            fail("malformed", "vault or scope is not a lowercase UUID")
        if not isinstance(obj.get("folder"), str):
            fail("malformed", "folder is not a string")
        h.vault_id, h.scope_id, h.folder = obj["vault"], obj["scope"], obj["folder"]
        h.epoch, h.clock, h.auth, h.rekey = _parse_common(obj)
        if not isinstance(obj.get("keySlots"), list):
            fail("malformed", "keySlots is not an array")
        h.recipients, h.vault_slot, h.others = [], None, []
        for s in obj["keySlots"]:
            if not isinstance(s, dict) or not isinstance(s.get("type"), str):
                fail("malformed", "a key slot is not an object with a string type")
            if s["type"] == RecipientSlot.TYPE:
                if len(h.recipients) == MAX_RECIPIENT_SLOTS:
                    fail("malformed", "more than %d recipient slots" % MAX_RECIPIENT_SLOTS)
                r = ScopeRecipientSlot.parse(s)
                dot = _slot_dot(s)
                only_members(s, "recipient")
                if any(o.name == r.name or o.public_key == r.public_key for o, _, _ in h.recipients):
                    fail("malformed", "two recipient slots with one name or one public key")
                h.recipients.append((r, dot, s))
            elif s["type"] == VAULT_SLOT_TYPE:
                v = VaultSlot.parse(s)
                dot = _slot_dot(s)
                only_members(s, "vault")
                if h.vault_slot is not None:
                    fail("malformed", "two vault slots")
                h.vault_slot = (v, dot, s)
            else:
                h.others.append(s)
        if not h.recipients and h.vault_slot is None:
            fail("malformed", "no recipient or vault slot")
        h.check_dots()
        return h

    def dots(self):
        for slot, dot, _ in self.recipients:
            yield "key slot " + slot.id, dot
        if self.vault_slot is not None:
            yield "the vault slot", self.vault_slot[1]

    def check_place(self, vault_header, path):
        """§3.12.2: against the vault header and the file's place [malformed]."""
        if self.vault_id != vault_header.vault_id:
            fail("malformed", "the scope header belongs to another vault")
        if path != scope_file(self.scope_id):
            fail("malformed", "the scope header's id is not its file name")
        listed = vault_header.scopes.get(self.scope_id)
        if listed is None or listed[0] != self.folder:
            fail("malformed", "the vault header does not list this scope with this folder")

    def unlock(self, vault_key=None, identity=None):
        """§3.12.4: through the vault slot with the vault key, or the identity's recipient slot."""
        if vault_key is not None and self.vault_slot is not None:
            return self.vault_slot[0].open(vault_key, self.vault_id, self.scope_id)
        if identity is not None:
            sk, pk = identity
            for r, _, _ in self.recipients:
                if r.public_key == pk:
                    return r.open_scope(self.vault_id, self.scope_id, sk)
        fail("not-a-recipient", "neither the vault key nor the identity opens this scope")

    @classmethod
    def build(cls, vault_id, scope_id, folder, key, epoch, clock, recipient_slots=(), vault_slot=None,
              other_slots=(), rekey=None, unknown=None):
        obj = dict(unknown or {})
        slots = [slot_json(s) for s in recipient_slots] + ([slot_json(vault_slot)] if vault_slot else [])
        obj.update({"format": SCOPE_FORMAT, "version": SCOPE_VERSION, "vault": vault_id, "scope": scope_id,
                    "folder": folder, "epoch": epoch, "clock": clock_json(clock), "keySlots": slots + list(other_slots)})
        if rekey is not None:
            obj["rekey"] = rekey
        return sign(cls, obj, key)


def parse_any_vault_header(data):
    """A `.tresor/vault.json` of any version this implementation reads (1-5); version 5 as VaultHeaderV5."""
    from .header import parse_header
    from . import scopes  # noqa: F401  (registers version 4)
    if len(data) > MAX_FILE_BYTES:
        fail("malformed", "file larger than 1 MiB")
    obj = cj.loads(data)
    if isinstance(obj, dict) and obj.get("format") == FORMAT_NAME and cj.integer(obj.get("version")) == VERSION:
        return VaultHeaderV5.parse_json(obj)
    return parse_header(data)
