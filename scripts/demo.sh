#!/usr/bin/env bash
# The main job, visible: a vault in a temp dir, entries added, listed, shown, searched, edited, and its git log.
set -euo pipefail
BIN=${1:?usage: demo.sh PATH-TO-TRESOR}
DIR=$(mktemp -d /tmp/tresor-demo.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export TRESOR_VAULT="$DIR/vault" TRESOR_SESSION_DIR="$DIR/sessions"
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
printf '\n\033[1m$ eval "$(tresor unlock)"\033[0m  # later commands skip the KDF\n'
eval "$("$BIN" unlock --timeout 5 2>/dev/null)"; unset TRESOR_PASSPHRASE_FILE
run edit Email/gmail --set username=alice.smith@gmail.com --set notes="2FA on phone"
run rotate Bank/ing
run show Bank/ing --json
run mv Email/work Work/email
run generate --count 3 --length 16
printf 'Tr0ub4dor&3\n' | { printf '\n\033[1m$ echo Tr0ub4dor&3 | tresor generate --check\033[0m\n'; "$BIN" generate --check; }
run fsck
run lock
run log
