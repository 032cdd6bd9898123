"""The tests of Spec/FORMAT.md §9.1, run on a vector's inputs: each returns the vector's `expected`, or
raises FormatError with the failure kind. Nothing here knows how the inputs were made."""
from tresorref import canonical_json as cj
from tresorref import primitives
from tresorref.encoding import b64encode, hexstr
from tresorref.entry import Entry
from tresorref.envelope import parse_envelope, open_entry_file
from tresorref.header import parse_header
from tresorref import recipients
from tresorref import search_cache
from tresorref import scopes


def kdf(inputs):
    passphrase = inputs["passphrase"].encode("utf-8")
    assert passphrase.hex() == inputs["passphrase_hex"]
    return {"key": hexstr(primitives.argon2id(passphrase, bytes.fromhex(inputs["salt"]), inputs["ops"], inputs["mem"]))}


def entry_key(inputs):
    return {"entry_key": hexstr(primitives.subkey(bytes.fromhex(inputs["vault_key"]), primitives.SUBKEY_ENTRY))}


def passphrase(inputs, name="passphrase"):
    return primitives.passphrase_bytes(inputs[name]) if name in inputs else None


def slot_summary(header, slot, secret):
    s = {"id": slot.id, "ops": slot.ops, "mem": slot.mem, "salt": hexstr(slot.salt), "nonce": hexstr(slot.nonce),
         "wrapped_key": hexstr(slot.wrapped_key),
         "additional_data": hexstr(slot.additional_data(header.SLOT_VERSION, header.vault_id))}
    if secret is not None:
        s["kek"] = hexstr(slot.kek(secret))
    return s


def recipient_summary(header, slot):
    return {"id": slot.id, "name": slot.name, "public_key": hexstr(slot.public_key),
            "fingerprint": recipients.fingerprint(slot.public_key), "sealed_key": hexstr(slot.sealed_key),
            "binding": hexstr(recipients.binding(header.vault_id, slot.id))}


def header(inputs):
    file = inputs["file"].encode("utf-8")
    h = parse_header(file)
    secret = passphrase(inputs)
    key = h.unlock(secret) if secret is not None else None
    if "identity" in inputs:
        sk, pk, _ = recipients.read_identity(inputs["identity"].encode("utf-8"), passphrase(inputs, "identity_passphrase"))
        if h.VERSION < 3:
            from tresorref.errors import fail
            fail("not-a-recipient", "a header before version 3 has no recipient slots")
        key = h.unlock_identity(sk, pk)
    if key is not None:
        h.verify(key)
    assert h.serialize() == file, "re-serializing the header changed it"
    expected = {"vault": h.vault_id, "key_slots": [slot_summary(h, s, secret) for s in h.slots],
                "other_slots": len(h.other_slots)}
    if h.VERSION >= 3:
        expected["recipient_slots"] = [recipient_summary(h, r) for r in h.recipients]
    if h.VERSION >= 4:
        expected["scopes"] = dict(h.scopes)
    if key is not None:
        expected["vault_key"] = hexstr(key)
        if h.VERSION >= 2:
            expected.update({"generation": h.generation,
                             "header_key": hexstr(primitives.subkey(key, primitives.SUBKEY_HEADER)),
                             "authenticated_bytes": hexstr(h.authenticated_bytes()), "auth": hexstr(h.auth)})
    return expected


def identity(inputs):
    """§3.10: the identity file's keys."""
    sk, pk, kek = recipients.read_identity(inputs["file"].encode("utf-8"), passphrase(inputs))
    out = {"secret_key": hexstr(sk), "public_key": hexstr(pk), "public_key_text": recipients.key_text(pk),
           "fingerprint": recipients.fingerprint(pk)}
    if kek is not None:
        out["kek"] = hexstr(kek)
    return out


def rekey(inputs):
    """§3.11: the header and an entry file after a rekey, with every random input given."""
    h = parse_header(inputs["file"].encode("utf-8"))
    old_key = h.unlock(passphrase(inputs))
    h.verify(old_key)
    new_key = bytes.fromhex(inputs["new_vault_key"])
    new = h.rekeyed(old_key, new_key, passphrase(inputs), inputs["slot_id"], inputs["ops"], inputs["mem"],
                    bytes.fromhex(inputs["salt"]), bytes.fromhex(inputs["nonce"]),
                    [bytes.fromhex(e) for e in inputs["ephemeral_secrets"]], inputs.get("remove"))
    file = new.serialize()
    fmt, env = parse_envelope(inputs["entry"].encode("utf-8"))
    payload = fmt.open_payload(env, old_key)
    entry_file = fmt.seal(payload, env.id, bytes.fromhex(inputs["entry_nonce"]), new_key)
    parsed = parse_header(file)
    assert parsed.unlock(passphrase(inputs)) == new_key
    parsed.verify(new_key)
    assert parsed.rekey_proof == type(h).rekey_proof_for(old_key, new_key)
    return {"file": file.decode("utf-8"), "generation": new.generation, "entry": entry_file.decode("utf-8"),
            "rekey_proof": hexstr(new.rekey_proof),
            "entry_key": hexstr(fmt.entry_key(new_key))}


def commit_auth(inputs):
    """§7.1: the commit key and the tag of a commit's content."""
    vault_key = bytes.fromhex(inputs["vault_key"])
    return {"commit_key": hexstr(primitives.subkey(vault_key, primitives.SUBKEY_COMMIT)),
            "tag": b64encode(primitives.commit_tag(vault_key, inputs["content"].encode("utf-8")))}


def cache_records(inputs):
    """The records of a search-cache vector: each entry file's blob id computed from the file itself."""
    records = []
    for r in inputs["records"]:
        file = r["file"].encode("utf-8")
        records.append({"path": r["path"], "blob_id": search_cache.blob_id(file), "size": len(file),
                        "modified": r["modified"], "changed": r["changed"], "inode": r["inode"], "id": r["id"],
                        "payload": r["payload"].encode("utf-8")})
    return records


def search_cache_file(inputs):
    """§10: the cache key, each file's blob id and the sealed cache file; opening it gives the records back."""
    vault_key = bytes.fromhex(inputs["vault_key"])
    records = cache_records(inputs)
    data = search_cache.seal(vault_key, inputs["vault_id"], bytes.fromhex(inputs["nonce"]), records)
    assert search_cache.open_cache(data, vault_key, inputs["vault_id"]) == sorted(records, key=lambda r: r["path"].encode())
    return {"cache_key": hexstr(primitives.subkey(vault_key, search_cache.SUBKEY_SEARCH_CACHE)),
            "blob_ids": [hexstr(r["blob_id"]) for r in records], "file": hexstr(data)}


def search_cache_open(inputs):
    """§10: a cache file opened with a vault key and vault id: its records' paths, or [malformed]."""
    records = search_cache.open_cache(bytes.fromhex(inputs["file"]), bytes.fromhex(inputs["vault_key"]), inputs["vault_id"])
    return {"paths": [r["path"] for r in records]}


def entry(inputs):
    file = inputs["file"].encode("utf-8")
    vault_key = bytes.fromhex(inputs["vault_key"])
    e, plaintext = open_entry_file(file, vault_key, inputs["path"])
    fmt, env = parse_envelope(file)
    assert fmt.serialize(env) == file, "the envelope is not canonical"
    assert e.payload_bytes() == plaintext, "the payload did not round-trip"
    assert fmt.seal(plaintext, env.id, env.nonce, vault_key) == file, "sealing again differs"
    return {"entry_key": hexstr(fmt.entry_key(vault_key)), "id": env.id, "nonce": hexstr(env.nonce),
            "additional_data": hexstr(fmt.additional_data(env)), "ciphertext_bytes": len(env.ciphertext),
            "plaintext": plaintext.decode("utf-8"), "path": e.path, "created": e.created, "modified": e.modified,
            "fields": {n: f.value for n, f in e.fields.items()}, "history_items": len(e.history)}


def passwd(inputs):
    """§3.5: the header after changing the passphrase, with the new slot's parameters given."""
    h = parse_header(inputs["file"].encode("utf-8"))
    key = h.unlock(passphrase(inputs))
    new = h.with_new_passphrase(key, passphrase(inputs, "new_passphrase"), inputs["slot_id"], inputs["ops"],
                                inputs["mem"], bytes.fromhex(inputs["salt"]), bytes.fromhex(inputs["nonce"]))
    file = new.serialize()
    assert parse_header(file).unlock(passphrase(inputs, "new_passphrase")) == key
    return {"file": file.decode("utf-8"), "vault_key": hexstr(key)}


def edit(inputs):
    """The writer rules of §5.3 and §5.4 applied to a payload, one edit after the other."""
    e = Entry.from_payload(inputs["entry"]["id"], cj.loads(cj.dumps(inputs["entry"]["payload"])))
    changed = []
    for op in inputs["edits"]:
        if "set" in op:
            changed.append(e.set(op["set"], op["value"], op["time"], op["origin"]))
        else:
            changed.append(e.move(op["move"], op["time"]))
    return {"payload": e.payload(), "changed": changed}


TESTS = {"kdf": kdf, "entry-key": entry_key, "header": header, "entry": entry, "passwd": passwd, "edit": edit,
         "commit-auth": commit_auth, "identity": identity, "rekey": rekey,
         "search-cache": search_cache_file, "search-cache-open": search_cache_open}


# Scopes (§3.12)

def _identity(inputs):
    if "identity" not in inputs:
        return None
    sk, pk, _ = recipients.read_identity(inputs["identity"].encode("utf-8"), passphrase(inputs, "identity_passphrase"))
    return sk, pk


def _vault(inputs):
    """The version 4 vault header of a scope vector, checked with the vault key when one is given."""
    h = parse_header(inputs["vault_header"].encode("utf-8"))
    key = bytes.fromhex(inputs["vault_key"]) if "vault_key" in inputs else None
    if key is not None:
        h.verify(key)
    return h, key


def _open_scope(h, vault_key, ident, path, data):
    """§3.12.2 and §3.12.4: a scope header checked against its place, opened, authenticated."""
    s = scopes.ScopeHeader.parse(data)
    s.check_place(h, path)
    key = s.unlock(vault_key, ident)
    s.verify(key)
    assert s.serialize() == data, "re-serializing the scope header changed it"
    return s, key


def scope(inputs):
    """§3.12.2: a scope header, opened with the vault key (vault slot) or an identity (recipient slot)."""
    h, vault_key = _vault(inputs)
    s, key = _open_scope(h, vault_key, _identity(inputs), inputs["path"], inputs["file"].encode("utf-8"))
    out = {"scope": s.scope_id, "folder": s.folder, "generation": s.generation, "scope_key": hexstr(key),
           "entry_key": hexstr(primitives.subkey(key, primitives.SUBKEY_ENTRY)),
           "header_key": hexstr(primitives.subkey(key, primitives.SUBKEY_HEADER)),
           "authenticated_bytes": hexstr(s.authenticated_bytes()), "auth": hexstr(s.auth),
           "recipient_slots": [{"id": r.id, "name": r.name, "public_key": hexstr(r.public_key),
                                "sealed_key": hexstr(r.sealed_key),
                                "binding": hexstr(scopes.scope_binding(s.vault_id, s.scope_id, r.id))}
                               for r in s.recipients]}
    if s.vault_slot is not None:
        out["vault_slot"] = {"nonce": hexstr(s.vault_slot.nonce), "wrapped_key": hexstr(s.vault_slot.wrapped_key),
                             "additional_data": hexstr(scopes.vault_slot_ad(s.vault_id, s.scope_id))}
        if vault_key is not None:
            out["vault_slot"]["scope_wrap_key"] = hexstr(scopes.scope_wrap_key(vault_key))
    return out


def scoped_entry(inputs):
    """§3.12.3: the key that seals an entry is its scope's, or the vault key outside every scope."""
    from tresorref.errors import fail
    h, vault_key = _vault(inputs)
    sid = h.scope_of(inputs["path"])
    if sid is None:
        if vault_key is None:
            fail("not-a-recipient", "an entry in no scope needs the vault key")
        key = vault_key
    else:
        path = scopes.scope_file(sid)
        _, key = _open_scope(h, vault_key, _identity(inputs), path, inputs["scopes"][path].encode("utf-8"))
    file = inputs["file"].encode("utf-8")
    e, plaintext = open_entry_file(file, key, inputs["path"])
    return {"key": sid or "vault", "entry_key": hexstr(primitives.subkey(key, primitives.SUBKEY_ENTRY)),
            "plaintext": plaintext.decode("utf-8")}


def commit_auth_v4(inputs):
    """§3.12.6: C without every tresor-auth line, and each given key's tag, which the commit must carry."""
    from tresorref.errors import fail
    content, fields = scopes.commit_content_v4(inputs["commit"].encode("utf-8"))
    if fields is None:
        fail("malformed", "a tag field appears twice or is continued")
    keys = {"tresor-auth": inputs["vault_key"]} if "vault_key" in inputs else {}
    keys.update({"tresor-auth-" + sid: k for sid, k in inputs.get("scope_keys", {}).items()})
    tags = {}
    for field, k in sorted(keys.items()):
        tags[field] = b64encode(scopes.commit_tag_v4(bytes.fromhex(k), content, fields))
        if fields.get(field) != tags[field]:
            fail("authentication-failed", "the commit carries no valid %s" % field)
    return {"content": content.decode("utf-8"), "fields": sorted(fields), "tags": tags,
            "tagged_message": hexstr(scopes.tagged_message(content, fields))}


def scope_rekey(inputs):
    """§3.12.5: removing a scope member rekeys that scope only, with every random input given."""
    h, vault_key = _vault(inputs)
    s, old_key = _open_scope(h, vault_key, _identity(inputs), inputs["path"], inputs["file"].encode("utf-8"))
    new_key = bytes.fromhex(inputs["new_scope_key"])
    new = s.rekeyed(old_key, new_key, vault_key, inputs.get("remove"),
                    [bytes.fromhex(e) for e in inputs["ephemeral_secrets"]], bytes.fromhex(inputs["vault_slot_nonce"]))
    file = new.serialize()
    fmt, env = parse_envelope(inputs["entry"].encode("utf-8"))
    payload = fmt.open_payload(env, old_key)
    entry_file = fmt.seal(payload, env.id, bytes.fromhex(inputs["entry_nonce"]), new_key)
    return {"file": file.decode("utf-8"), "generation": new.generation, "rekey_proof": hexstr(new.rekey_proof),
            "entry": entry_file.decode("utf-8"), "entry_key": hexstr(fmt.entry_key(new_key))}


TESTS.update({"scope": scope, "scoped-entry": scoped_entry, "commit-auth-v4": commit_auth_v4, "scope-rekey": scope_rekey})


def commit_key_rule(inputs):
    """§3.12.6: the files a commit changes and the tag fields each needs, from its tree and its parents' (path -> mode
    and blob id) and the scopes of each one's vault header."""
    parents = [(p["scopes"], p["files"]) for p in inputs["parents"]]
    return {"changed": scopes.changed_files(inputs["scopes"], inputs["files"], parents)}


TESTS.update({"commit-key-rule": commit_key_rule})
