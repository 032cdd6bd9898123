#!/usr/bin/env bash
# Warnings are errors: fails when the build log names a compiler warning in the project's own code (Sources, Tests,
# Examples, Benchmarks). Dependencies' and the linker's warnings are not the project's and are left alone. An
# incremental build shows warnings only for the files it compiled again; CI's build starts from nothing and shows all.
# Usage: scripts/check-warnings.sh BUILD-LOG
set -euo pipefail
log="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
found="$(grep -E "^${root}/(Sources|Tests|Examples|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)"
if [ -n "$found" ]; then
  echo "$found"
  echo "check-warnings: $(echo "$found" | wc -l) compiler warning(s) in the project's code; warnings are errors" >&2
  exit 1
fi
echo "check-warnings: no compiler warning in the project's code"
