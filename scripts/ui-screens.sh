#!/usr/bin/env bash
# Text captures of each `tresor ui` screen, from the real program in tmux (the README's screenshots).
set -euo pipefail
BIN=${1:?usage: ui-screens.sh PATH-TO-TRESOR}
DIR=$(mktemp -d /tmp/tresor-screens.XXXXXX)
SOCK="$DIR/tmux.sock"
trap 'tmux -S "$SOCK" kill-server 2>/dev/null || true; rm -rf "$DIR"' EXIT
export TRESOR_VAULT="$DIR/laptop" TRESOR_SESSION_DIR="$DIR/sessions" HOME="$DIR" GIT_CONFIG_NOSYSTEM=1 LANG=C.UTF-8
printf 'correct horse battery staple\n' > "$DIR/passphrase"
export TRESOR_PASSPHRASE_FILE="$DIR/passphrase"
t() { "$BIN" "$@" 2>/dev/null; }

t init --kdf minimum
printf 'hunter2-but-longer\n' | t add Email/gmail --username alice@gmail.com --url https://mail.google.com --password-stdin
t add Email/work --username alice@corp.example --generate --length 20
t add Social/github --username alice --url https://github.com --generate --words 5
t add Social/mastodon --url https://mastodon.social/@alice --generate
t add Bank/ing --username alice --field pin=4711 --note "card PIN changes yearly" --generate --policy "length=16,classes=lower+upper+digits"
t add "日本/パスポート" --username yamada --generate
t add Wi-Fi/home --note "router in the hallway" --generate --words 4
git init -q --bare -b main "$DIR/remote.git"
t remote add origin "$DIR/remote.git" && t sync
t clone "$DIR/remote.git" "$DIR/desktop"
printf 'changed-on-laptop\n' | t edit Email/gmail --password-stdin
printf 'changed-on-desktop\n' | t edit Email/gmail --password-stdin --vault "$DIR/desktop"
t sync --vault "$DIR/desktop"
unset TRESOR_PASSPHRASE_FILE

tmux -S "$SOCK" -f /dev/null new-session -d -x 96 -y 24 \
  "env -i HOME=$DIR LANG=C.UTF-8 TERM=tmux-256color TRESOR_VAULT=$DIR/laptop TRESOR_SESSION_DIR=$DIR/sessions $BIN ui; sleep 60"
key() { tmux -S "$SOCK" send-keys "$@"; sleep 0.4; }
shot() { printf '\n### %s\n\n```\n' "$1"; tmux -S "$SOCK" capture-pane -p | sed -e 's/[[:space:]]*$//' | cat -s; printf '```\n'; }
sleep 1
shot "The list, locked: names only"
key j Enter
shot "Unlocking inside the UI"
tmux -S "$SOCK" send-keys -l "correct horse battery staple"; key Enter; key Escape
shot "The list, unlocked: a hint for each entry"
key / ; tmux -S "$SOCK" send-keys -l "gml"; sleep 0.4
shot "Type-to-filter: \"gml\" finds Email/gmail"
key Escape s; sleep 1
shot "Sync: the merge report"
key Enter h
shot "The entry, with the earlier values of its password (h)"
key Escape Escape Escape l
key Escape n
tmux -S "$SOCK" send-keys -l "Shop/books"; key Tab Tab Tab Tab Tab End Tab Tab Tab Tab Tab Space
shot "New entry: length 100, only uppercase"
key Escape y q
