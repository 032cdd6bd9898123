#!/usr/bin/env python3
"""Tresor side by side with pass and keepassxc-cli on the same entries (run by `make bench`).

Every figure is one whole process, as a person or a script runs it. The operations of Tresor and of a peer
run interleaved (A B A B ...), and each pair gives a ratio Tresor/peer: the table shows the median ratio with
its min-max, which holds up on a loaded machine better than absolute times do. Then a scaling table for
Tresor alone (1k -> 10k -> 50k entries), with each command's peak memory, and sync/clone against git.

Usage: compare.py BIN_DIR   (BIN_DIR holds the release `tresor` and `tresor-bench`)
Environment: TRESOR_BENCH_RUNS (pairs per operation, default 10), TRESOR_BENCH_SIZES (default 1000,10000,50000),
TRESOR_BENCH_KEEP=1 keeps the temporary directory,
TRESOR_BENCH_ONLY=sync runs only the sync and clone part, TRESOR_BENCH_ONLY=agent only `show` through the agent
against `show` with an env-variable session, TRESOR_BENCH_ONLY=start only start-up against a static Swift "hello".
"""
import base64, os, shutil, statistics, subprocess, sys, tempfile, time, uuid

BIN = os.path.abspath(sys.argv[1])
TRESOR = os.path.join(BIN, "tresor")
HELPER = os.path.join(BIN, "tresor-bench")
RUNS = int(os.environ.get("TRESOR_BENCH_RUNS", "10"))
SIZES = [int(s) for s in os.environ.get("TRESOR_BENCH_SIZES", "1000,10000,50000").split(",")]
PEER_SIZES = [s for s in SIZES if s <= 10000]
ROOT = tempfile.mkdtemp(prefix="tresor-compare-")
PASSPHRASE = "benchmark passphrase"  # the one tresor-bench populate uses
KDBX_PASSWORD = "benchmark passphrase"
DEVNULL = "/dev/null"

os.environ["HOME"] = ROOT  # gpg, git and keepassxc-cli keep their state here, not in the user's home
os.environ["GNUPGHOME"] = os.path.join(ROOT, "gnupg")
os.environ["GIT_AUTHOR_NAME"] = os.environ["GIT_COMMITTER_NAME"] = "Bench"
os.environ["GIT_AUTHOR_EMAIL"] = os.environ["GIT_COMMITTER_EMAIL"] = "bench@example.com"
os.environ["XDG_RUNTIME_DIR"] = os.path.join(ROOT, "run")
os.makedirs(os.environ["XDG_RUNTIME_DIR"], mode=0o700)
os.environ.pop("TRESOR_SESSION", None)
with open(os.path.join(ROOT, "passphrase"), "w") as f:
    f.write(PASSPHRASE + "\n")
with open(os.path.join(ROOT, ".gitconfig"), "w") as f:
    f.write("[init]\n\tdefaultBranch = main\n[user]\n\tname = Bench\n\temail = bench@example.com\n")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(argv, stdin=None, env=None, cwd=None, memory=False):
    """Runs one process; returns (seconds, 0). posix_spawn + wait4: no shell, no polling. With `memory`, runs it
    under /usr/bin/time instead and returns (seconds, peak RSS in KiB): a child of this process would inherit
    Python's own peak in its rusage."""
    if memory:
        out = os.path.join(ROOT, "memory")
        run(["/usr/bin/time", "-f", "%M", "-o", out] + argv, stdin=stdin, env=env, cwd=cwd)
        with open(out) as f:
            return 0.0, int(f.read().split()[-1])
    stdin_path = os.path.join(ROOT, "stdin")
    with open(stdin_path, "w") as f:
        f.write(stdin or "")
    path = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
    environment = dict(os.environ, **(env or {}))
    actions = [(os.POSIX_SPAWN_OPEN, 0, stdin_path, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, DEVNULL, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, os.path.join(ROOT, "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(path, argv, environment, file_actions=actions)
        _, status, _ = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        os.chdir(old)
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(argv)}\n{open(os.path.join(ROOT, 'stderr')).read()}")
    return elapsed, 0


def sh(*argv, stdin=None, cwd=None):
    subprocess.run(argv, input=stdin, text=True, check=True, cwd=cwd, stdout=subprocess.DEVNULL)


def sample(i):
    """The entry tresor-bench writes (Benchmarks/Sources/main.swift, sampleEntry)."""
    return dict(folder=f"Folder{i % 50}", name=f"site-{i}", password=f"p4ssw0rd-{i}-Correct-Horse",
                username=f"user{i}@example.com", url=f"https://site-{i}.example.com/login", notes="note text " * 20)


# ---- the vaults -------------------------------------------------------------------------------------------------

# Setting up only: eatmydata skips the fsync of each of the 50,000 files written (10 minutes otherwise).
FAST_SETUP = ["eatmydata"] if shutil.which("eatmydata") else []


def tresor_vault(size):
    d = os.path.join(ROOT, f"tresor{size}")
    t = time.perf_counter()
    sh(*FAST_SETUP, HELPER, "populate", d, str(size))
    log(f"  tresor vault of {size}: {time.perf_counter() - t:.1f} s")
    token = subprocess.run([TRESOR, "unlock", "--raw", "--vault", d, "--passphrase-file", os.path.join(ROOT, "passphrase"),
                            "--timeout", "600"], text=True, check=True, capture_output=True).stdout.strip()
    return d, token


def gpg_key():
    os.makedirs(os.environ["GNUPGHOME"], mode=0o700)
    sh("gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Bench <bench@example.com>", "default", "default", "never")
    out = subprocess.run(["gpg", "--batch", "--with-colons", "--list-keys"], text=True, check=True, capture_output=True).stdout
    return next(l.split(":")[4] for l in out.splitlines() if l.startswith("pub"))


def pass_store(size, key):
    """The files `pass insert` writes (gpg -e -r KEY --quiet --yes --compress-algo=none --no-encrypt-to), one per
    entry, encrypted by one gpg process (--multifile) instead of one each; then `pass git init` and one commit."""
    d = os.path.join(ROOT, f"pass{size}")
    env = {"PASSWORD_STORE_DIR": d}
    os.environ.update(env)
    t = time.perf_counter()
    sh("pass", "init", key)
    files = []
    for i in range(size):
        e = sample(i)
        os.makedirs(os.path.join(d, e["folder"]), exist_ok=True)
        p = os.path.join(d, e["folder"], e["name"])
        with open(p, "w") as f:
            f.write(f"{e['password']}\nusername: {e['username']}\nurl: {e['url']}\nnotes: {e['notes']}\n")
        files.append(p)
    for k in range(0, len(files), 2000):
        sh("gpg", "--batch", "--quiet", "--yes", "--compress-algo=none", "--no-encrypt-to", "-r", key, "--multifile", "--encrypt", *files[k:k + 2000])
    for p in files:
        os.remove(p)
    # One commit of everything, then packed as git's automatic gc would pack it; left to that gc, it runs in the
    # background (10,000 loose objects) and slows both programs of the pairs it overlaps.
    sh("env", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0", "pass", "git", "init")
    sh("git", "-C", d, "gc", "-q")
    log(f"  pass store of {size}: {time.perf_counter() - t:.1f} s")
    return d


def kdbx(size):
    """A KeePass 2 XML file of the same entries, imported by keepassxc-cli (KDBX 3.1, AES-KDF, -t 100 ms)."""
    def esc(s):
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def uid():
        return base64.b64encode(uuid.uuid4().bytes).decode()

    groups = {}
    for i in range(size):
        groups.setdefault(f"Folder{i % 50}", []).append(sample(i))
    out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<KeePassFile><Meta><Generator>bench</Generator>"
           "<DatabaseName>bench</DatabaseName></Meta><Root><Group><UUID>" + uid() + "</UUID><Name>Root</Name>"]
    for g, entries in groups.items():
        out.append(f"<Group><UUID>{uid()}</UUID><Name>{g}</Name>")
        for e in entries:
            out.append(f"<Entry><UUID>{uid()}</UUID>")
            for k, v in [("Title", e["name"]), ("UserName", e["username"]), ("URL", e["url"]), ("Notes", e["notes"])]:
                out.append(f"<String><Key>{k}</Key><Value>{esc(v)}</Value></String>")
            out.append(f"<String><Key>Password</Key><Value ProtectInMemory=\"True\">{esc(e['password'])}</Value></String></Entry>")
        out.append("</Group>")
    out.append("</Group></Root></KeePassFile>\n")
    xml = os.path.join(ROOT, f"kp{size}.xml")
    with open(xml, "w") as f:
        f.write("".join(out))
    db = os.path.join(ROOT, f"kp{size}.kdbx")
    t = time.perf_counter()
    sh("keepassxc-cli", "import", "-q", "-p", "-t", "100", xml, db, stdin=f"{KDBX_PASSWORD}\n{KDBX_PASSWORD}\n")
    log(f"  keepassxc database of {size}: {time.perf_counter() - t:.1f} s")
    return db


# ---- the operations ---------------------------------------------------------------------------------------------

def tresor_ops(d, token):
    env = {"TRESOR_SESSION": token, "TRESOR_VAULT": d}
    return {
        "start": lambda i, m=False: run([TRESOR, "--version"], memory=m),
        "show": lambda i, m=False: run([TRESOR, "show", "Folder1/site-1"], env=env, memory=m),
        "ls": lambda i, m=False: run([TRESOR, "ls"], env=env, memory=m),
        "find": lambda i, m=False: run([TRESOR, "find", "site-42"], env=env, memory=m),
        "grep": lambda i, m=False: run([TRESOR, "grep", "user42@"], env=env, memory=m),
        "add": lambda i, m=False: run([TRESOR, "add", f"New/e{i}", "--password-stdin"], stdin=f"Pw-{i}-Correct-Horse-Battery\n", env=env, memory=m),
        "edit": lambda i, m=False: run([TRESOR, "edit", "Folder2/site-2", "--set", f"username=u{i}"], env=env, memory=m),
    }


def pass_ops(d):
    env = {"PASSWORD_STORE_DIR": d}
    return {
        "start": lambda i: run(["pass", "version"], env=env),
        "show": lambda i: run(["pass", "show", "Folder1/site-1"], env=env),
        "ls": lambda i: run(["pass", "ls"], env=env),
        "find": lambda i: run(["pass", "find", "site-42"], env=env),
        "grep": lambda i: run(["pass", "grep", "user42@"], env=env),
        "add": lambda i: run(["pass", "insert", "-m", f"New/e{i}"], stdin=f"Pw-{i}-Correct-Horse-Battery\n", env=env),
        # pass has no field edit: rewriting the entry (insert -f) is how a script changes one
        "edit": lambda i: run(["pass", "insert", "-f", "-m", "Folder2/site-2"],
                              stdin=f"p4ssw0rd-2-Correct-Horse\nusername: u{i}\n", env=env),
    }


def keepass_ops(db):
    pw = KDBX_PASSWORD + "\n"
    return {
        "start": lambda i: run(["keepassxc-cli", "--version"]),
        "show": lambda i: run(["keepassxc-cli", "show", "-q", "-s", db, "Folder1/site-1"], stdin=pw),
        "ls": lambda i: run(["keepassxc-cli", "ls", "-q", "-R", "-f", db], stdin=pw),
        "find": lambda i: run(["keepassxc-cli", "search", "-q", db, "title:site-42"], stdin=pw),
        "grep": lambda i: run(["keepassxc-cli", "search", "-q", db, "user42@"], stdin=pw),
        "add": lambda i: run(["keepassxc-cli", "add", "-q", "-p", db, f"Folder1/e{i}"], stdin=pw + f"Pw-{i}-Correct-Horse-Battery\n"),
        "edit": lambda i: run(["keepassxc-cli", "edit", "-q", "-u", f"u{i}", db, "Folder2/site-2"], stdin=pw),
    }


def pairs(a, b, runs, offset):
    """Runs a and b alternately; returns tresor times, peer times, ratios."""
    ta, tb, ratios = [], [], []
    for k in range(runs):
        x, _ = a(offset + k)
        y, _ = b(offset + k)
        ta.append(x); tb.append(y); ratios.append(x / y)
    return ta, tb, ratios


def ms(s):
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    started = time.perf_counter()
    load_before = os.getloadavg()
    if os.environ.get("TRESOR_BENCH_ONLY") in ("sync", "agent", "start"):
        part = {"sync": sync_and_clone, "agent": agent_and_session, "start": start_against_floor}[os.environ["TRESOR_BENCH_ONLY"]]
        print("\n".join(part()))
        print(f"\nload average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after; {RUNS} runs")
        return
    log(f"building the vaults in {ROOT}")
    key = gpg_key()
    vaults = {}
    for size in SIZES:
        vaults[size] = tresor_vault(size)
    peers = {}
    for size in PEER_SIZES:
        peers[size] = {"pass": pass_ops(pass_store(size, key)), "keepassxc-cli": keepass_ops(kdbx(size))}
    # warm gpg-agent and the page cache
    for size in PEER_SIZES:
        for ops in [tresor_ops(*vaults[size])] + list(peers[size].values()):
            ops["show"](0); ops["ls"](0)

    ops_order = ["start", "show", "ls", "find", "grep", "add", "edit"]
    lines = ["| operation | entries | tresor (median) | peer | peer (median) | tresor/peer: median (min–max) |",
             "|---|---|---|---|---|---|"]
    scaling, memory = {}, {}
    offset = 1
    for size in SIZES:
        t_ops = tresor_ops(*vaults[size])
        for op in ops_order:
            runs = RUNS if size <= 10000 else max(3, RUNS // 2)
            peer_list = list(peers.get(size, {}).items())
            if not peer_list:
                times = [t_ops[op](offset + k)[0] for k in range(runs)]
                scaling[(op, size)] = statistics.median(times)
            for peer, p_ops in peer_list:
                n = runs
                if peer == "pass" and op == "grep":
                    n = 1 if size <= 1000 else 0  # one gpg per entry: 10-30 s at 1k
                if n == 0:
                    lines.append(f"| {op} | {size} | | {peer} | not run (one gpg process per entry) | |")
                    continue
                ta, tb, ratios = pairs(t_ops[op], p_ops[op], n, offset)
                offset += n
                if peer == "pass":
                    scaling[(op, size)] = statistics.median(ta)
                lines.append(f"| {op} | {size} | {ms(statistics.median(ta))} | {peer} | {ms(statistics.median(tb))} | "
                             f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |")
                log(lines[-1])
            offset += runs
            if (op, size) not in scaling:  # pass's grep was not run: time tresor's alone
                scaling[(op, size)] = statistics.median([t_ops[op](offset + k)[0] for k in range(runs)])
                offset += runs
            memory[(op, size)] = t_ops[op](offset, True)[1]
            offset += 1
    print("\n### Tresor and its peers (each figure one whole process; pairs run interleaved)\n")
    print("\n".join(lines))

    print("\n### Tresor alone as the vault grows (median time, from the pairs with pass; peak memory of one run)\n")
    print("| operation | " + " | ".join(f"{s} entries" for s in SIZES) + f" | {SIZES[1]}/{SIZES[0]} |" if len(SIZES) > 1 else "")
    print("|---|" + "---|" * (len(SIZES) + 1))
    for op in ops_order:
        cells = [f"{ms(scaling[(op, s)])}, {memory[(op, s)] / 1024:.0f} MiB" for s in SIZES]
        ratio = scaling[(op, SIZES[1])] / scaling[(op, SIZES[0])] if len(SIZES) > 1 else 1
        print(f"| {op} | " + " | ".join(cells) + f" | {ratio:.2f}× |")

    print("\n### Start-up against a static Swift \"hello\" built the same way (interleaved)\n")
    print("\n".join(start_against_floor()))

    print("\n### `show` through the agent and with an env-variable session (1,000 entries, interleaved)\n")
    print("\n".join(agent_and_session()))

    sync_lines = sync_and_clone()
    print("\n### Sync and clone at 1,000 entries, against git on the same repository (file:// remote)\n")
    print("\n".join(sync_lines))
    load_after = os.getloadavg()
    print(f"\nload average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {RUNS} pairs per operation; "
          f"took {time.perf_counter() - started:.0f} s")


def agent_and_session(size=1000):
    """`tresor show` of one entry, the keys from the agent (`tresor unlock`) against the keys from an env-variable
    session (`tresor unlock --raw`, the agent turned off for those runs): same vault, runs interleaved."""
    log("agent and session")
    d = os.path.join(ROOT, "agent-vault")
    sh(*FAST_SETUP, HELPER, "populate", d, str(size))
    pf = ["--passphrase-file", os.path.join(ROOT, "passphrase")]
    token = subprocess.run([TRESOR, "unlock", "--raw", "--vault", d, *pf, "--timeout", "600"], text=True, check=True,
                           capture_output=True).stdout.strip()
    sh(TRESOR, "unlock", "--vault", d, *pf, "--timeout", "600", "--idle", "0")
    session = {"TRESOR_VAULT": d, "TRESOR_SESSION": token, "TRESOR_AGENT": "off"}
    agent = {"TRESOR_VAULT": d}
    runs = max(RUNS, 30)
    by_session = lambda i: run([TRESOR, "show", "Folder1/site-1"], env=session)
    by_agent = lambda i: run([TRESOR, "show", "Folder1/site-1"], env=agent)
    for _ in range(3):  # the page cache and the agent warm
        by_session(0); by_agent(0)
    ta, tb, ratios = pairs(by_agent, by_session, runs, 0)
    sh(TRESOR, "lock", "--vault", d)
    return ["| show of one entry | median | min | max |", "|---|---|---|---|",
            f"| through the agent | {ms(statistics.median(ta))} | {ms(min(ta))} | {ms(max(ta))} |",
            f"| env-variable session | {ms(statistics.median(tb))} | {ms(min(tb))} | {ms(max(tb))} |",
            "", f"agent/session, pair by pair: median {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}), {runs} pairs"]


def start_against_floor():
    """Start-up against its floor: a Swift program that prints one line, built as tresor is (release, the Swift
    runtime linked statically), run interleaved with `tresor --version`, `ls` at 1,000 entries and `show` at 1,000
    and 10,000 entries (env-variable sessions); each median with its ratio to the hello's median."""
    log("start-up against a static hello")
    hello = os.path.join(ROOT, "hello")
    with open(hello + ".swift", "w") as f:
        f.write('print("hello")\n')
    sh("swiftc", "-O", "-static-stdlib", hello + ".swift", "-o", hello, cwd=ROOT)
    programs = [("static Swift hello", lambda: run([hello])), ("tresor --version", lambda: run([TRESOR, "--version"]))]
    for size in [1000, 10000]:
        d = os.path.join(ROOT, f"start{size}")
        sh(*FAST_SETUP, HELPER, "populate", d, str(size))
        token = subprocess.run([TRESOR, "unlock", "--raw", "--vault", d, "--passphrase-file", os.path.join(ROOT, "passphrase"),
                                "--timeout", "600"], text=True, check=True, capture_output=True).stdout.strip()
        env = {"TRESOR_SESSION": token, "TRESOR_VAULT": d}
        if size == 1000:
            programs.append((f"tresor ls, {size:,} entries", lambda env=env: run([TRESOR, "ls"], env=env)))
        programs.append((f"tresor show, {size:,} entries", lambda env=env: run([TRESOR, "show", "Folder1/site-1"], env=env)))
    runs = max(RUNS * 5, 50)
    times = {name: [] for name, _ in programs}
    for _ in range(3):  # the page cache warms
        for _, program in programs:
            program()
    for _ in range(runs):
        for name, program in programs:
            times[name].append(program()[0])
    floor = statistics.median(times[programs[0][0]])
    lines = ["| program | median | min | median / the hello's |", "|---|---|---|---|"]
    for name, _ in programs:
        median = statistics.median(times[name])
        lines.append(f"| {name} | {median * 1e3:.2f} ms | {min(times[name]) * 1e3:.2f} ms | {median / floor:.2f}× |")
    return lines + ["", f"{runs} interleaved runs of each"]


def sync_and_clone(size=1000, changed=100):
    log("sync and clone")
    d = os.path.join(ROOT, "sync")
    os.makedirs(d)
    a = os.path.join(d, "a")
    remote = os.path.join(d, "remote.git")
    url = "file://" + remote
    pf = ["--passphrase-file", os.path.join(ROOT, "passphrase")]
    sh(HELPER, "populate", a, str(size))
    sh("git", "init", "-q", "--bare", remote)
    sh(TRESOR, "remote", "add", "origin", url, "--vault", a)
    sh(TRESOR, "sync", "--vault", a, *pf)
    token = subprocess.run([TRESOR, "unlock", "--raw", "--vault", a, *pf, "--timeout", "600"], text=True, check=True,
                           capture_output=True).stdout.strip()
    env = {"TRESOR_SESSION": token}
    b0 = os.path.join(d, "b0")
    g0 = os.path.join(d, "g0")
    sh(TRESOR, "clone", url, b0, *pf)
    sh("git", "clone", "-q", url, g0)
    # Replica bm: the same 100 entries changed on this side too (for the merge)
    bm = os.path.join(d, "bm")
    shutil.copytree(b0, bm, symlinks=True)
    sh(HELPER, "modify", bm, "0", str(changed), "from-b")
    sh(HELPER, "modify", a, "0", str(changed), "from-a")
    sh(TRESOR, "sync", "--vault", a, *pf)
    remote_snapshot = os.path.join(d, "remote-snapshot.git")
    shutil.copytree(remote, remote_snapshot, symlinks=True)

    def fresh(src, name):
        dst = os.path.join(d, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst, symlinks=True)
        return dst

    def restore_remote():
        shutil.rmtree(remote)
        shutil.copytree(remote_snapshot, remote, symlinks=True)

    clone_ratios, ff_ratios, tc, gc, tf, gf, merges = [], [], [], [], [], [], []
    idle_ratios, tn, gn = [], [], []
    for k in range(RUNS):
        for p in ("tc", "gc"):
            shutil.rmtree(os.path.join(d, p), ignore_errors=True)
        x, _ = run([TRESOR, "clone", url, os.path.join(d, "tc")], env=env)
        y, _ = run(["git", "clone", "-q", url, os.path.join(d, "gc")])
        tc.append(x); gc.append(y); clone_ratios.append(x / y)
        tb, gb = fresh(b0, "tb"), fresh(g0, "gb")
        x, _ = run([TRESOR, "sync", "--vault", tb], env=env)
        y, _ = run(["git", "pull", "-q", "--ff-only"], cwd=gb)
        tf.append(x); gf.append(y); ff_ratios.append(x / y)
        # Nothing new on either side: one ref advertisement (against `git fetch` of the unchanged remote).
        x, _ = run([TRESOR, "sync", "--vault", tb], env=env)
        y, _ = run(["git", "fetch", "-q", "origin"], cwd=gb)
        tn.append(x); gn.append(y); idle_ratios.append(x / y)
        mb = fresh(bm, "mb")
        x, _ = run([TRESOR, "sync", "--vault", mb], env=env)
        merges.append(x)
        restore_remote()
    med = statistics.median
    return ["| operation | tresor (median) | git (median) | tresor/git: median (min–max) |", "|---|---|---|---|",
            f"| clone of {size} entries (tresor checks every entry) | {ms(med(tc))} | {ms(med(gc))} | "
            f"{med(clone_ratios):.2f} ({min(clone_ratios):.2f}–{max(clone_ratios):.2f}) |",
            f"| sync: fast-forward of {changed} changed entries (`git pull --ff-only`) | {ms(med(tf))} | {ms(med(gf))} | "
            f"{med(ff_ratios):.2f} ({min(ff_ratios):.2f}–{max(ff_ratios):.2f}) |",
            f"| sync with nothing new on either side (`git fetch` of the unchanged remote) | {ms(med(tn))} | {ms(med(gn))} | "
            f"{med(idle_ratios):.2f} ({min(idle_ratios):.2f}–{max(idle_ratios):.2f}) |",
            f"| sync: merge of {changed} entries changed on both sides, push | {ms(med(merges))} (min {ms(min(merges))}) | "
            "(git: a conflict in every file) | |"]


try:
    main()
finally:
    if not os.environ.get("TRESOR_BENCH_KEEP"):
        shutil.rmtree(ROOT, ignore_errors=True)
