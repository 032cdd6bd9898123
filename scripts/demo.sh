#!/usr/bin/env bash
# The main job, visible: a vault in a temp dir, entries added, listed, shown, searched, edited, and its git log.
set -euo pipefail
BIN=${1:?usage: demo.sh PATH-TO-TRESOR}
DIR=$(mktemp -d /tmp/tresor-demo.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
# The demo's own agent (its socket goes with the temp dir, and the agent with it).
export TRESOR_VAULT="$DIR/vault" TRESOR_SESSION_DIR="$DIR/sessions" TRESOR_AGENT_SOCKET="$DIR/agent/agent.sock"
printf 'correct horse battery staple\n' > "$DIR/passphrase"; chmod 600 "$DIR/passphrase"
export TRESOR_PASSPHRASE_FILE="$DIR/passphrase"
run() { printf '\n\033[1m$ tresor %s\033[0m\n' "$*"; "$BIN" "$@"; }

run init --kdf interactive
printf 'hunter2-but-longer\n' | { printf '\n\033[1m$ printf ... | tresor add Email/gmail --password-stdin ...\033[0m\n'; "$BIN" add Email/gmail --username alice@gmail.com --url https://mail.google.com --tag mail --password-stdin; }
run add Email/work --username alice@corp.example --generate --length 20 --every-class
run add Social/github --username alice --generate --words 5 --capitalize --url https://github.com
run add Bank/ing --username alice --field pin=4711 --note "card PIN changes yearly" --generate --policy "length=16,classes=lower+upper+digits"
run ls --flat
run find mail
run show Email/gmail
run show Social/github --field password
run grep alice
run unlock --timeout 5   # the agent keeps the keys: later commands, in any shell, skip the KDF
unset TRESOR_PASSPHRASE_FILE
run edit Email/gmail --set username=alice.smith@gmail.com --set notes="2FA on phone"
run rotate Bank/ing
run show Bank/ing --json
run mv Email/work Work/email
run generate --count 3 --length 16
printf 'P@ssw0rd1987\n' | { printf '\n\033[1m$ echo P@ssw0rd1987 | tresor generate --check\033[0m\n'; "$BIN" generate --check; }
run fsck

printf '\n\033[1m# Two machines: a second replica, the same entry changed on both, one sync each.\033[0m\n'
git init -q --bare -b main "$DIR/remote.git"
run remote add origin "$DIR/remote.git"
run sync
run clone "$DIR/remote.git" "$DIR/desktop" --passphrase-file "$DIR/passphrase"
run unlock --vault "$DIR/desktop" --timeout 5 --passphrase-file "$DIR/passphrase"   # another copy: unlocked on its own
printf 'changed-on-laptop\n' | { printf '\n\033[1m$ printf ... | tresor edit Email/gmail --password-stdin\033[0m\n'; "$BIN" edit Email/gmail --password-stdin; }
printf 'changed-on-desktop\n' | { printf '\n\033[1m$ printf ... | tresor edit Email/gmail --password-stdin --vault desktop\033[0m\n'; "$BIN" edit Email/gmail --password-stdin --vault "$DIR/desktop"; }
run edit Email/gmail --set tags=mail --set tags=personal --vault "$DIR/desktop"
run sync
run sync --vault "$DIR/desktop"
run sync
run show Email/gmail
run log Email/gmail
run lock
run log
