#!/usr/bin/env bash
# Does a sync's acceptance cost grow with the length of the history it fetches? (It should not: a fetched tip is judged
# by its state records, Spec/AUTH.md §5, not by walking commits.) bash Benchmarks/history.sh [TRESOR]
#
# A vault of 1,000 entries on a bare remote and a clone of it; then the remote gets one new entry on top of N commits
# that git fast-import writes (each with the tree of the tip before them: no tresor change, only history), for
# N = 1, 1,000 and 100,000. The clone syncs (a fast-forward) and, side by side, a plain git clone of the same remote
# runs `git pull --ff-only`; the difference is what tresor adds. Prints a Markdown table (Benchmarks/README.md).
set -euo pipefail
TRESOR=${1:-$(swift build -c release --show-bin-path)/tresor}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TRESOR_PASSPHRASE_FILE="$tmp/passphrase" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org \
    GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org
echo "bench passphrase" > "$TRESOR_PASSPHRASE_FILE"
ms() { python3 -c "print('%.0f ms' % (($2 - $1) * 1000))"; }

python3 - > "$tmp/entries.csv" <<'PY'
print("name,url,username,password,note")
for i in range(1000):
    print(f"site{i}.example,https://site{i}.example/login,user{i}@example.org,pw-{i}-Xy7!,")
PY
"$TRESOR" init --kdf minimum --vault "$tmp/a" > /dev/null 2>&1
"$TRESOR" import chrome "$tmp/entries.csv" --vault "$tmp/a" > /dev/null
git init -q --bare -b main "$tmp/remote.git"
"$TRESOR" remote add origin "$tmp/remote.git" --vault "$tmp/a" > /dev/null
"$TRESOR" sync --vault "$tmp/a" > /dev/null

echo "| commits fetched | tresor sync (fast-forward) | git pull --ff-only | difference |"
echo "|---|---|---|---|"
for n in ${COUNTS:-1 1000 100000}; do
    rm -rf "$tmp/b" "$tmp/g"
    "$TRESOR" clone "$tmp/remote.git" "$tmp/b" > /dev/null 2>&1
    git clone -q "$tmp/remote.git" "$tmp/g"
    "$TRESOR" add "N$n/new" --password-stdin --vault "$tmp/a" <<< "pw-$n-long-enough-Xy7!" > /dev/null 2>&1
    git -C "$tmp/a" push -q "$tmp/remote.git" HEAD:main
    if [ "$n" -gt 1 ]; then
        # N-1 more commits on the remote's main, each with its parent's tree (fast-import starts a commit from its
        # parent's tree; these name no file): history only, the state unchanged.
        python3 - "$n" "$(git -C "$tmp/a" rev-parse HEAD)" > "$tmp/stream" <<'PY'
import sys
n, head = int(sys.argv[1]), sys.argv[2]
w = sys.stdout.write
for k in range(1, n):
    msg = f"history {k}\n"
    w(f"commit refs/heads/main\nmark :{k}\ncommitter bench <bench@example.org> {1700000000 + k} +0000\n")
    w(f"data {len(msg)}\n{msg}")
    w(f"from {head}\n\n" if k == 1 else f"from :{k - 1}\n\n")
PY
        git -C "$tmp/remote.git" fast-import --quiet --force < "$tmp/stream"
        # The vault this side follows the remote (its next change goes on top).
        git -C "$tmp/a" fetch -q "$tmp/remote.git" main
        git -C "$tmp/a" reset -q --hard FETCH_HEAD
        git -C "$tmp/a" update-ref refs/tresor/verified FETCH_HEAD
    fi
    s=$(date +%s.%N); "$TRESOR" sync --vault "$tmp/b" > /dev/null; e=$(date +%s.%N)
    s2=$(date +%s.%N); git -C "$tmp/g" pull -q --ff-only; e2=$(date +%s.%N)
    [ "$(git -C "$tmp/b" rev-parse HEAD)" = "$(git -C "$tmp/remote.git" rev-parse main)" ] || { echo "tresor did not take the tip"; exit 1; }
    d=$(python3 -c "print('%.0f ms' % ((($e - $s) - ($e2 - $s2)) * 1000))")
    echo "| $n | $(ms "$s" "$e") | $(ms "$s2" "$e2") | $d |"
done

# Nothing new on either side (issue: replicas that sync every few minutes): one ref advertisement, against
# `git fetch` of the unchanged remote; 10 interleaved pairs, medians.
python3 - "$TRESOR" "$tmp/b" "$tmp/g" <<'PY'
import statistics, subprocess, sys, time
tresor, b, g = sys.argv[1:]
def t(argv, cwd=None):
    s = time.perf_counter(); subprocess.run(argv, cwd=cwd, check=True, capture_output=True); return time.perf_counter() - s
ts, gs = [], []
for _ in range(10):
    ts.append(t([tresor, "sync", "--vault", b])); gs.append(t(["git", "fetch", "-q", "origin"], cwd=g))
m = statistics.median
print(f"\n| nothing new on either side | tresor sync | git fetch | ratio |\n|---|---|---|---|\n"
      f"| 100,000 commits of history | {m(ts) * 1000:.0f} ms | {m(gs) * 1000:.0f} ms | {m(ts) / m(gs):.2f} |")
PY
