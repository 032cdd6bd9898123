"""Recipient key slots, public key text, identity files and rekey (Spec/FORMAT.md §3.8 to §3.11)."""
import base64
import unicodedata

import nacl.bindings as sodium
from nacl.encoding import RawEncoder
from nacl.exceptions import CryptoError
from nacl.hash import blake2b

from . import canonical_json as cj
from . import primitives
from .encoding import b64encode, b64field, decimal, is_id
from .errors import fail

KEY_PREFIX = "tresor1"
RECIPIENT_TYPE = "recipient"
MAX_RECIPIENT_SLOTS = 1024
SEAL_BYTES = 48            # ephemeral public key (32) and Poly1305 tag (16)
IDENTITY_FORMAT = "tresor-identity"
BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


def b32encode(data):
    """Lowercase RFC 4648 base32 without padding."""
    return base64.b32encode(bytes(data)).decode("ascii").rstrip("=").lower()


def checksum(key):
    """§3.9: the first 4 bytes of unkeyed BLAKE2b-256 of the 32-byte key."""
    return blake2b(bytes(key), digest_size=32, encoder=RawEncoder)[:4]


def key_text(key):
    return KEY_PREFIX + b32encode(bytes(key) + checksum(key))


def parse_key_text(text):
    """§3.9: `tresor1` and 58 lowercase base32 characters of key || checksum, canonical [bad-encoding]."""
    if not isinstance(text, str) or not text.startswith(KEY_PREFIX):
        fail("bad-encoding", "a public key starts with tresor1")
    body = text[len(KEY_PREFIX):]
    if len(body) != 58 or any(c not in BASE32 for c in body):
        fail("bad-encoding", "not 58 lowercase base32 characters")
    raw = base64.b32decode(body.upper() + "======")
    if b32encode(raw) != body:
        fail("bad-encoding", "non-zero unused bits")
    key = raw[:32]
    if checksum(key) != raw[32:]:
        fail("bad-encoding", "checksum does not match")
    return key


def fingerprint(key):
    h = blake2b(bytes(key), digest_size=32, encoder=RawEncoder)[:8].hex()
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))


def valid_name(name):
    """§3.8: 1 to 64 UTF-8 bytes, NFC, no C0/DEL/C1, U+2028/2029, no leading or trailing space."""
    if not isinstance(name, str):
        return False
    data = name.encode("utf-8", "surrogatepass")
    if not 1 <= len(data) <= 64 or unicodedata.normalize("NFC", name) != name:
        return False
    if name.startswith(" ") or name.endswith(" "):
        return False
    return not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029" for c in name)


def binding(vault_id, slot_id):
    """§3.8: what is sealed before the vault key."""
    return b"tresor-recipient\x001\x00" + vault_id.encode() + b"\x00" + slot_id.encode() + b"\x00"


SEALED_KEY_BYTES = len(binding("0" * 36, "0" * 36)) + primitives.KEY_BYTES + SEAL_BYTES


def seal_box(message, public_key, ephemeral_secret):
    """libsodium's crypto_box_seal spelled out, with the ephemeral secret key given (so vectors are fixed):
    epk || crypto_box(message, nonce = BLAKE2b-192(epk || pk), pk, esk)."""
    epk = sodium.crypto_scalarmult_base(bytes(ephemeral_secret))
    nonce = blake2b(epk + bytes(public_key), digest_size=24, encoder=RawEncoder)
    return epk + sodium.crypto_box(bytes(message), nonce, bytes(public_key), bytes(ephemeral_secret))


class RecipientSlot:
    """A key slot of type "recipient" (§3.8)."""
    TYPE = RECIPIENT_TYPE

    def __init__(self, id, name, public_key, sealed_key):
        self.id, self.name, self.public_key, self.sealed_key = id, name, public_key, sealed_key

    @classmethod
    def parse(cls, obj):
        """§3.4 step 6 for a recipient slot, in the order given there."""
        if not is_id(obj.get("id")):
            fail("malformed", "recipient slot id is not a lowercase UUID")
        if not isinstance(obj.get("name"), str) or not valid_name(obj["name"]):
            fail("malformed", "recipient slot name is not a valid name")
        if not isinstance(obj.get("publicKey"), str):
            fail("malformed", "publicKey is not a string")
        key = parse_key_text(obj["publicKey"])
        sealed = b64field(obj.get("sealedKey"), "sealedKey", SEALED_KEY_BYTES)
        return cls(obj["id"], obj["name"], key, sealed)

    def to_json(self):
        return {"type": self.TYPE, "id": self.id, "name": self.name, "publicKey": key_text(self.public_key),
                "sealedKey": b64encode(self.sealed_key)}

    @classmethod
    def seal(cls, vault_key, public_key, name, vault_id, id, ephemeral_secret):
        return cls(id, name, bytes(public_key),
                   seal_box(binding(vault_id, id) + bytes(vault_key), public_key, ephemeral_secret))

    def open(self, vault_id, secret_key):
        """The vault key, or FormatError("authentication-failed")."""
        try:
            plain = sodium.crypto_box_seal_open(self.sealed_key, self.public_key, bytes(secret_key))
        except CryptoError:
            fail("authentication-failed", "the sealed box does not open")
        expected = binding(vault_id, self.id)
        if len(plain) != len(expected) + primitives.KEY_BYTES or plain[:len(expected)] != expected:
            fail("authentication-failed", "the sealed box is bound to another vault or slot")
        return plain[len(expected):]


def identity_ad(public_key_text, ops, mem, salt):
    return b"\x00".join([b"tresor-identity", b"1", public_key_text.encode(), b"argon2id13",
                         decimal(ops).encode(), decimal(mem).encode(), b64encode(salt).encode()])


def write_identity(secret_key, passphrase=None, ops=None, mem=None, salt=None, nonce=None):
    """§3.10: the identity file's bytes."""
    pk_text = key_text(sodium.crypto_scalarmult_base(bytes(secret_key)))
    obj = {"format": IDENTITY_FORMAT, "version": 1, "publicKey": pk_text}
    if passphrase is None:
        obj["secretKey"] = b64encode(secret_key)
    else:
        kek = primitives.argon2id(passphrase, salt, ops, mem)
        obj["kdf"] = {"algorithm": "argon2id13", "ops": ops, "mem": mem, "salt": b64encode(salt)}
        obj["nonce"] = b64encode(nonce)
        obj["wrappedSecretKey"] = b64encode(primitives.seal(kek, nonce, secret_key, identity_ad(pk_text, ops, mem, salt)))
    return cj.file_bytes(obj)


def read_identity(data, passphrase=None):
    """§3.10 reader checks; returns (secret key, public key, kek or None)."""
    from .header import parse_kdf
    if len(data) > 64 << 10:
        fail("malformed", "identity file larger than 64 KiB")
    obj = cj.loads(data)
    if not isinstance(obj, dict) or obj.get("format") != IDENTITY_FORMAT:
        fail("malformed", "format is not tresor-identity")
    version = cj.integer(obj.get("version"))
    if version is None:
        fail("malformed", "version is not an integer")
    if version != 1:
        fail("unsupported-version", "identity version %d" % version)
    if not isinstance(obj.get("publicKey"), str):
        fail("malformed", "publicKey is not a string")
    public_key = parse_key_text(obj["publicKey"])
    kek = None
    if "kdf" in obj:
        if "secretKey" in obj:
            fail("malformed", "both secretKey and kdf")
        ops, mem, salt = parse_kdf(obj["kdf"])
        nonce = b64field(obj.get("nonce"), "nonce", primitives.NONCE_BYTES)
        wrapped = b64field(obj.get("wrappedSecretKey"), "wrappedSecretKey", 32 + primitives.TAG_BYTES)
        if passphrase is None:
            fail("wrong-passphrase", "a protected identity needs its passphrase")
        kek = primitives.argon2id(passphrase, salt, ops, mem)
        try:
            secret = primitives.open_(kek, nonce, wrapped, identity_ad(obj["publicKey"], ops, mem, salt))
        except Exception:
            fail("wrong-passphrase", "the identity's passphrase is wrong")
    else:
        secret = b64field(obj.get("secretKey"), "secretKey", 32)
    if sodium.crypto_scalarmult_base(secret) != public_key:
        fail("malformed", "the secret key does not belong to publicKey")
    return secret, public_key, kek
