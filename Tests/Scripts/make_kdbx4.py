#!/usr/bin/env python3
# Writes a KDBX 4 database with pykeepass for the import tests: make_kdbx4.py OUT PASSWORD KDF CIPHER
# (KDF: argon2d | argon2id; CIPHER: aes256 | chacha20), with cheap KDF parameters. (pykeepass cannot write
# AES-KDF into KDBX 4; keepassxc-cli's KDBX 3.1 files cover AES-KDF.)
import sys
from pykeepass import PyKeePass, create_database

out, password, kdf, cipher = sys.argv[1:5]
kp = create_database(out, password=password)
h = kp.kdbx.header.value.dynamic_header
h.cipher_id.data = cipher
if cipher == "chacha20":  # a 96-bit nonce; older pykeepass keeps AES's 16-byte IV when the cipher changes
    import os
    h.encryption_iv.data = os.urandom(12)
params = h.kdf_parameters.data.dict
params["$UUID"].value = bytes.fromhex("ef636ddf8c29444b91f7a9a403e30a0c" if kdf == "argon2d" else "9e298b1956db4773b23dfc3ec6f0a1e6")
params["I"].value = 2
params["M"].value = 1 << 20
params["P"].value = 2

mail = kp.add_group(kp.root_group, "Email")
work = kp.add_group(mail, "Work")
e = kp.add_entry(mail, "gmail", "alice@gmail.com", "first-password", url="https://mail.google.com",
                 notes="recovery codes\nin the safe", tags=["mail", "personal"])
try:
    e.set_custom_property("PIN", "4711", protect=True)
except TypeError:  # pykeepass before 4.1 (Debian 12's) has no protect argument
    e.set_custom_property("PIN", "4711")
e.set_custom_property("Security question", "first pet")
e.otp = "otpauth://totp/Google:alice%40gmail.com?secret=JBSWY3DPEHPK3PXP&issuer=Google"
e.save_history()
e.password = "second-password"
kp.add_entry(work, "vpn", "alice", "vpn-secret", url="https://vpn.example.org")
kp.add_entry(kp.root_group, "top level", "bob", "p\u00e4ssw\u00f6rd \u2603")
kp.save()

# Read back with pykeepass, so a broken file fails here and not in the Swift test.
check = PyKeePass(out, password=password)
assert check.find_entries(title="gmail", first=True).password == "second-password"
print(check.kdbx.header.value.major_version, check.kdbx.header.value.dynamic_header.cipher_id.data)
