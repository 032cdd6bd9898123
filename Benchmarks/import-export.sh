#!/usr/bin/env bash
# Times tresor import and export on 1000 entries with the release binary: bash Benchmarks/import-export.sh [TRESOR]
# Needs keepassxc-cli and gpg (make test-deps). Prints a Markdown table; the figures are in Benchmarks/README.md.
set -euo pipefail
TRESOR=${1:-$(swift build -c release --show-bin-path)/tresor}
N=${N:-1000}
tmp=$(mktemp -d)
trap 'GNUPGHOME="$tmp/gnupg" gpgconf --kill all 2>/dev/null || true; rm -rf "$tmp"' EXIT
export TRESOR_PASSPHRASE_FILE="$tmp/passphrase" GNUPGHOME="$tmp/gnupg" QT_QPA_PLATFORM=offscreen
echo "bench passphrase" > "$TRESOR_PASSPHRASE_FILE"
echo pw > "$tmp/kdbx-password"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key 'Bench <bench@example.org>' future-default default never 2>/dev/null

python3 - "$N" > "$tmp/db.xml" <<'PY'
import sys, html
n = int(sys.argv[1])
print('<?xml version="1.0" encoding="UTF-8"?><KeePassFile><Meta><Generator>bench</Generator></Meta><Root><Group><Name>Root</Name>')
for g in range(10):
    print(f'<Group><Name>Folder {g}</Name>')
    for i in range(g, n, 10):
        print('<Entry><String><Key>Title</Key><Value>site %d</Value></String><String><Key>UserName</Key><Value>user%d@example.org</Value></String>'
              '<String><Key>Password</Key><Value>pw-%d-Xy7!</Value></String><String><Key>URL</Key><Value>https://site%d.example</Value></String>'
              '<String><Key>Notes</Key><Value>%s</Value></String></Entry>' % (i, i, i, i, html.escape("note " * 40)))
    print('</Group>')
print('</Group></Root></KeePassFile>')
PY
printf 'pw\npw\n' | keepassxc-cli import -q -p "$tmp/db.xml" "$tmp/db.kdbx"

t() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); python3 -c "print('%.2f s' % ($e - $s))"; }
v() { TRESOR_VAULT="$tmp/$1" "${@:2}"; }
v a "$TRESOR" init --kdf minimum > /dev/null 2>&1
v b "$TRESOR" init --kdf minimum > /dev/null 2>&1
v c "$TRESOR" init --kdf minimum > /dev/null 2>&1
echo "| measurement ($N entries, ~300 B of notes each) | time |"
echo "|---|---|"
echo "| import kdbx --dry-run into an empty vault (read, decrypt, plan; nothing written) | $(t v c "$TRESOR" import kdbx "$tmp/db.kdbx" --source-passphrase-file "$tmp/kdbx-password" --dry-run) |"
echo "| import kdbx (KDBX 3.1 by keepassxc-cli, AES-KDF 1M rounds), one commit | $(t v a "$TRESOR" import kdbx "$tmp/db.kdbx" --source-passphrase-file "$tmp/kdbx-password") |"
echo "| import kdbx again (every entry decrypted and compared, nothing written) | $(t v a "$TRESOR" import kdbx "$tmp/db.kdbx" --source-passphrase-file "$tmp/kdbx-password") |"
echo "| export json to a pipe | $(t bash -c "TRESOR_VAULT=$tmp/a '$TRESOR' export json | cat") |"
echo "| export csv to a pipe | $(t bash -c "TRESOR_VAULT=$tmp/a '$TRESOR' export csv | cat") |"
echo "| export json to a new file, then import it into an empty vault | $(t bash -c "TRESOR_VAULT=$tmp/a '$TRESOR' export json --output $tmp/e.json 2>/dev/null && TRESOR_VAULT=$tmp/b '$TRESOR' import json $tmp/e.json") |"
echo "| export pass (one gpg process per entry, 4 at a time) | $(t v a "$TRESOR" export pass --output "$tmp/store" --gpg-id bench@example.org) |"
echo "| import pass (one gpg process per entry, 4 at a time) | $(t v c "$TRESOR" import pass "$tmp/store") |"
