#!/usr/bin/env bash
# Rebuilds Samples/demo-vault with the CLI (interactive KDF). Usage: Samples/make-demo-vault.sh PATH-TO-TRESOR
set -euo pipefail
BIN=${1:?usage: make-demo-vault.sh PATH-TO-TRESOR}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
printf 'demo passphrase\n' > "$TMP/pw"
export TRESOR_VAULT="$TMP/vault" TRESOR_PASSPHRASE_FILE="$TMP/pw" HOME="$TMP"
"$BIN" init --kdf interactive
add() { local p=$1 pw=$2; shift 2; printf '%s\n' "$pw" | "$BIN" add "$p" --password-stdin "$@"; }
add Email/gmail 'gmail-Correct-Horse-7' --username alice@gmail.com --url https://mail.google.com --tag mail
add Email/work 'Wr0k!quarterly-2026' --username alice@corp.example --url https://outlook.office.com --tag mail --tag work
add Email/fastmail 'fm-8#twelve-lamps' --username alice@fastmail.com --url https://app.fastmail.com --tag mail
add Social/github 'gh-Tide-Rotor-91' --username alice --url https://github.com --field 'recovery=1a2b-3c4d-5e6f' --note '2FA: TOTP app on phone'
add Social/mastodon 'masto-Blue-Heron-5' --username '@alice@example.social' --url https://example.social
add Bank/ing 'ing-4711-Oak-Window' --username 12345678 --field pin=4711 --note 'Card PIN changes yearly' --tag finance
add Bank/credit-card 'cc-Lemon-Crane-22' --field number='4000 1234 5678 9010' --field cvc=123 --tag finance
add Shopping/amazon 'amz-Velvet-Spoon-3' --username alice@gmail.com --url https://www.amazon.com
add Servers/home-router 'router-Quiet-Moth-64' --username admin --url http://192.0.2.1 --tag home
add Servers/nas/admin 'nas-Silver-Fjord-8' --username root --url https://nas.home.example --tag home
"$BIN" edit Email/gmail --set password='gmail-Correct-Horse-8' >/dev/null
rm -rf "$HERE/demo-vault"
mkdir "$HERE/demo-vault"
(cd "$TMP/vault" && tar --exclude=.git -cf - .) | (cd "$HERE/demo-vault" && tar -xf -)
echo "wrote $HERE/demo-vault"
