"""Spec/FORMAT.md §10: the local search cache file, sealed under subkey id 5 of the vault key."""
import hashlib
import struct

from . import primitives
from .errors import fail

MAGIC = b"tresor-search-cache\x00"
VERSION = 1
SUBKEY_SEARCH_CACHE = 5


def blob_id(data):
    """git's blob id: SHA-1 of "blob " <decimal size> NUL and the bytes."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + bytes(data)).digest()


def associated_data(vault_id):
    return MAGIC + bytes([VERSION]) + vault_id.encode("ascii")


def plaintext(records):
    """Records sorted by the UTF-8 bytes of their paths, each: u16 path length, path, 20-byte blob id, u64
    size, i64 modified, i64 changed, u64 inode, u8 id length, id, u32 payload length, payload (little-endian)."""
    out = b""
    for r in sorted(records, key=lambda r: r["path"].encode("utf-8")):
        path, ident, payload = r["path"].encode("utf-8"), r["id"].encode("ascii"), r["payload"]
        out += struct.pack("<H", len(path)) + path + r["blob_id"]
        out += struct.pack("<QqqQ", r["size"], r["modified"], r["changed"], r["inode"])
        out += struct.pack("<B", len(ident)) + ident + struct.pack("<I", len(payload)) + payload
    return out


def seal(vault_key, vault_id, nonce, records):
    key = primitives.subkey(vault_key, SUBKEY_SEARCH_CACHE)
    return MAGIC + bytes([VERSION]) + bytes(nonce) + primitives.seal(key, nonce, plaintext(records), associated_data(vault_id))


def open_cache(data, vault_key, vault_id):
    """The records of a cache file; anything that does not open or parse is [malformed] (a reader rebuilds it)."""
    head = len(MAGIC) + 1
    if len(data) < head + primitives.NONCE_BYTES or data[:len(MAGIC)] != MAGIC or data[len(MAGIC)] != VERSION:
        fail("malformed", "not a search cache of version 1")
    nonce = data[head:head + primitives.NONCE_BYTES]
    key = primitives.subkey(vault_key, SUBKEY_SEARCH_CACHE)
    try:
        plain = primitives.open_(key, nonce, data[head + primitives.NONCE_BYTES:], associated_data(vault_id))
    except Exception:
        fail("malformed", "the cache does not open with this key and vault id")
    records, at = [], 0

    def take(n):
        nonlocal at
        if at + n > len(plain):
            fail("malformed", "truncated record")
        at += n
        return plain[at - n:at]
    while at < len(plain):
        path = take(struct.unpack("<H", take(2))[0]).decode("utf-8")
        blob = take(20)
        size, modified, changed, inode = struct.unpack("<QqqQ", take(32))
        ident = take(struct.unpack("<B", take(1))[0]).decode("ascii")
        payload = take(struct.unpack("<I", take(4))[0])
        records.append({"path": path, "blob_id": blob, "size": size, "modified": modified, "changed": changed,
                        "inode": inode, "id": ident, "payload": payload})
    return records
