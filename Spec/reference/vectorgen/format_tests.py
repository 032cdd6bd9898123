"""The tests of Spec/FORMAT.md §9.1, run on a vector's inputs: each returns the vector's `expected`, or
raises FormatError with the failure kind. Nothing here knows how the inputs were made."""
from tresorref import canonical_json as cj
from tresorref import primitives
from tresorref.encoding import b64encode, hexstr
from tresorref.entry import Entry
from tresorref.envelope import parse_envelope, open_entry_file
from tresorref.header import parse_header


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


def header(inputs):
    file = inputs["file"].encode("utf-8")
    h = parse_header(file)
    secret = passphrase(inputs)
    key = h.unlock(secret) if secret is not None else None
    if key is not None:
        h.verify(key)
    assert h.serialize() == file, "re-serializing the header changed it"
    expected = {"vault": h.vault_id, "key_slots": [slot_summary(h, s, secret) for s in h.slots],
                "other_slots": len(h.other_slots)}
    if key is not None:
        expected["vault_key"] = hexstr(key)
        if h.VERSION >= 2:
            expected.update({"generation": h.generation,
                             "header_key": hexstr(primitives.subkey(key, primitives.SUBKEY_HEADER)),
                             "authenticated_bytes": hexstr(h.authenticated_bytes()), "auth": hexstr(h.auth)})
    return expected


def commit_auth(inputs):
    """§7.1: the commit key and the tag of a commit's content."""
    vault_key = bytes.fromhex(inputs["vault_key"])
    return {"commit_key": hexstr(primitives.subkey(vault_key, primitives.SUBKEY_COMMIT)),
            "tag": b64encode(primitives.commit_tag(vault_key, inputs["content"].encode("utf-8")))}


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
         "commit-auth": commit_auth}
