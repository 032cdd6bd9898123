"""Argon2id, XChaCha20-Poly1305 and subkeys through libsodium, as Spec/FORMAT.md §2 defines them."""
import unicodedata

import nacl.bindings as sodium
from nacl.exceptions import CryptoError
from nacl.hash import blake2b
from nacl.encoding import RawEncoder

from .errors import fail

KEY_BYTES = 32
NONCE_BYTES = 24
TAG_BYTES = 16
SALT_BYTES = 16

# §2.3: subkey ids in use, and the crypto_kdf context.
KDF_CONTEXT = b"tresorv1"
SUBKEY_ENTRY = 1
SUBKEY_COMMIT = 2
SUBKEY_HEADER = 3


def passphrase_bytes(text):
    """§2.1: a passphrase typed as text is the UTF-8 of its NFC normalisation."""
    return unicodedata.normalize("NFC", text).encode("utf-8")


def argon2id(password, salt, ops, mem):
    """§2.1: Argon2id v1.3, t = ops, m = floor(mem / 1024) KiB, p = 1, 32-byte tag."""
    return sodium.crypto_pwhash_alg(KEY_BYTES, bytes(password), bytes(salt), ops, mem,
                                    sodium.crypto_pwhash_ALG_ARGON2ID13)


def seal(key, nonce, plaintext, ad):
    """§2.2: ciphertext || tag."""
    return sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(bytes(plaintext), bytes(ad), bytes(nonce), bytes(key))


def open_(key, nonce, ciphertext, ad):
    """§2.2: the plaintext, or FormatError("authentication-failed")."""
    try:
        return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(bytes(ciphertext), bytes(ad), bytes(nonce), bytes(key))
    except CryptoError:
        fail("authentication-failed", "tag check failed")


def subkey(vault_key, subkey_id, context=KDF_CONTEXT):
    """§2.3: crypto_kdf_derive_from_key spelled out as the BLAKE2b call it is."""
    salt = subkey_id.to_bytes(8, "little") + bytes(8)
    person = context + bytes(16 - len(context))
    return blake2b(b"", digest_size=KEY_BYTES, key=bytes(vault_key), salt=salt, person=person, encoder=RawEncoder)


def keyed_hash(key, message):
    """§2.4: keyed BLAKE2b with a 32-byte output (libsodium's crypto_generichash with a key)."""
    return blake2b(bytes(message), digest_size=32, key=bytes(key), encoder=RawEncoder)


def commit_tag(vault_key, content):
    """§7.1: the tag of a commit: keyed BLAKE2b under the commit key over "tresor-commit" 0x00 || content."""
    return keyed_hash(subkey(vault_key, SUBKEY_COMMIT), b"tresor-commit\x00" + bytes(content))
