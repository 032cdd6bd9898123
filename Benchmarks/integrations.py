#!/usr/bin/env python3
"""Benchmarks/integrations.py BIN_DIR: the browser host and `tresor read` at 10,000 entries (Benchmarks/README.md).

BIN_DIR holds the release `tresor` and `tresor-bench`. Builds a vault of 10,000 sample entries (`tresor-bench
populate`, each with an https URL), unlocks a session, then times whole processes (posix_spawn + wait4, output to
a file), run interleaved in pairs:
  - the browser extension's `fetch` of one entry: `tresor browser host` started with one framed request on its
    standard input, up to its reply written and the process ended (the extension starts a host per request);
  - the extension's `list` of all 10,000 (after one run that fills the local search cache, as the badge count does);
  - `tresor read tresor://Folder1/site-1/password` against `tresor show Folder1/site-1 --field password`.
"""
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
TRESOR, HELPER = os.path.join(BIN, "tresor"), os.path.join(BIN, "tresor-bench")
SIZE = int(os.environ.get("TRESOR_BENCH_SIZE", "10000"))
RUNS = int(os.environ.get("TRESOR_BENCH_RUNS", "20"))
ROOT = tempfile.mkdtemp(prefix="tresor-integrations-")


def frame(obj):
    body = json.dumps(obj).encode()
    return struct.pack("=I", len(body)) + body


def run(argv, stdin=b"", env=None):
    """One whole process; returns (seconds, stdout bytes)."""
    inp, out = os.path.join(ROOT, "stdin"), os.path.join(ROOT, "stdout")
    with open(inp, "wb") as f:
        f.write(stdin)
    actions = [(os.POSIX_SPAWN_OPEN, 0, inp, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, dict(os.environ, **(env or {})), file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(argv)}")
    with open(out, "rb") as f:
        return elapsed, f.read()


def reply(data):
    n = struct.unpack("=I", data[:4])[0]
    return json.loads(data[4:4 + n])


def ms(s):
    return f"{s * 1e3:.1f} ms"


def main():
    vault = os.path.join(ROOT, "vault")
    env = {"HOME": ROOT, "TRESOR_VAULT": vault}
    eat = ["eatmydata"] if shutil.which("eatmydata") else []
    subprocess.run(eat + [HELPER, "populate", vault, str(SIZE)], check=True)
    with open(os.path.join(ROOT, "passphrase"), "w") as f:
        f.write("benchmark passphrase\n")
    token = subprocess.run([TRESOR, "unlock", "--raw", "--passphrase-file", os.path.join(ROOT, "passphrase"), "--timeout", "600"],
                           env=dict(os.environ, **env), check=True, capture_output=True, text=True).stdout.strip()
    env["TRESOR_SESSION"] = token
    fetch = frame({"action": "fetch", "storeId": "default", "file": "site-42.example.com/Folder42/site-42.gpg",
                   "settings": {"stores": {"default": {"id": "default", "name": "tresor", "path": vault}}}})
    listing = frame({"action": "list", "settings": {"stores": {"default": {"id": "default", "name": "tresor", "path": vault}}}})
    host = [TRESOR, "browser", "host"]
    _, first = run(host, listing, env)  # fills the search cache, as the extension's first badge count does
    assert len(reply(first)["data"]["files"]["default"]) == SIZE, "every entry listed"
    assert reply(run(host, fetch, env)[1])["data"]["contents"].startswith("p4ssw0rd-42-"), "fetch answers"
    rows = []
    for name, a in [("browser host: fetch one entry (start to reply)", lambda: run(host, fetch, env)[0]),
                    (f"browser host: list all {SIZE} (search cache warm)", lambda: run(host, listing, env)[0])]:
        times = [a() for _ in range(RUNS)]
        rows.append(f"| {name} | {SIZE} | {ms(statistics.median(times))} | {ms(min(times))}–{ms(max(times))} |")
    read = [TRESOR, "read", "tresor://Folder1/site-1/password"]
    show = [TRESOR, "show", "Folder1/site-1", "--field", "password"]
    assert run(read, b"", env)[1] == run(show, b"", env)[1]
    tr, ts, ratios = [], [], []
    for _ in range(RUNS):
        x, y = run(read, b"", env)[0], run(show, b"", env)[0]
        tr.append(x); ts.append(y); ratios.append(x / y)
    rows.append(f"| read tresor://Folder1/site-1/password | {SIZE} | {ms(statistics.median(tr))} | {ms(min(tr))}–{ms(max(tr))} |")
    rows.append(f"| show Folder1/site-1 --field password | {SIZE} | {ms(statistics.median(ts))} | {ms(min(ts))}–{ms(max(ts))} |")
    print("| operation (one whole process) | entries | median | min–max |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nread/show: median ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}); {RUNS} runs each, "
          f"load average {os.getloadavg()[0]:.2f}")
    shutil.rmtree(ROOT)


if __name__ == "__main__":
    main()
