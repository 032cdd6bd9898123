#!/usr/bin/env python3
"""Writes scripts/start-up.order: the functions `tresor --version`, `ls` and `show` run, for the linker to place side by
side (lld's --symbol-ordering-file, Makefile RELEASE), so that starting touches a few pages of the binary's code rather
than one in every 64 KB of it (Benchmarks/README.md, start-up).

    python3 scripts/start-up-order.py BINARY      BINARY: the release tresor, not stripped

Runs each command once under valgrind's callgrind on a stripped copy (valgrind 3.19 cannot read the unstripped
binary), on a vault made here with the cheapest KDF, and names each function it ran after the unstripped binary's
symbol table, in the order callgrind first met them. A stale list only costs speed: names the binary no longer has are
skipped by the linker, and functions not listed go after the listed ones.
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "scripts", "start-up.order")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "tresor")
        subprocess.run(["strip", "-o", stripped, binary], check=True)
        vault, passphrase = os.path.join(tmp, "vault"), os.path.join(tmp, "passphrase")
        with open(passphrase, "w") as f:
            f.write("order of the start-up functions\n")
        env = dict(os.environ, TRESOR_VAULT=vault, TRESOR_PASSPHRASE_FILE=passphrase, TRESOR_AGENT="off")

        def tresor(*args, stdin=None):
            return subprocess.run([binary, *args], env=env, input=stdin, text=True, check=True, capture_output=True).stdout

        tresor("init", "--kdf", "minimum")
        for i in range(100):
            tresor("add", f"Folder{i % 4}/site-{i}", "--password-stdin", stdin=f"password number {i}\n")
        session = tresor("unlock", "--raw", "--timeout", "10").strip()
        del env["TRESOR_PASSPHRASE_FILE"]
        env["TRESOR_SESSION"] = session
        names, seen = [], set()
        symbols = Symbols(binary)
        for args in (["--version"], ["ls"], ["show", "Folder1/site-1"]):
            out = os.path.join(tmp, "callgrind.out")
            subprocess.run(["valgrind", "--tool=callgrind", "--compress-strings=no", "--callgrind-out-file=" + out, stripped, *args], env=env,
                           check=True, capture_output=True)
            for name in symbols.functions_run(out, stripped):
                if name not in seen:
                    seen.add(name)
                    names.append(name)
    with open(OUT, "w") as f:
        f.write("".join(n + "\n" for n in names))
    print(f"{len(names)} functions in {os.path.relpath(OUT, ROOT)}")


class Symbols:
    """The unstripped binary's functions by address."""

    def __init__(self, binary):
        listing = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
        self.addresses, self.names = [], []
        for line in listing.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                self.addresses.append(int(parts[0], 16))
                self.names.append(parts[2])

    def at(self, address):
        i = bisect.bisect_right(self.addresses, address) - 1
        return self.names[i] if i >= 0 else None

    def functions_run(self, callgrind_out, stripped):
        """The functions of the binary in a callgrind file (written with --compress-strings=no), callers and callees,
        in the order it first names them."""
        known = set(self.names)
        current, callee_object = None, None
        for line in open(callgrind_out, errors="replace"):
            line = line.rstrip("\n")
            if line.startswith("ob="):
                current = line[3:]
            elif line.startswith("cob="):
                callee_object = line[4:]
            elif line.startswith("fn=") or line.startswith("cfn="):
                is_callee = line.startswith("cfn=")
                obj = (callee_object or current) if is_callee else current
                if is_callee:
                    callee_object = None
                name = line.split("=", 1)[1]
                if obj != stripped:
                    continue
                if re.fullmatch(r"0x[0-9a-f]+", name):
                    name = self.at(int(name, 16))
                if name in known:
                    yield name


if __name__ == "__main__":
    main()
