#!/usr/bin/env bash
# Runs the XCTest classes of one tier, two at a time (TRESOR_TEST_JOBS), each in its own process, and prints a table
# of per-class times and a summary line ("N passed, N failed, N skipped"). Exit status: 0 when every class passed.
#
#   scripts/run-tests.sh fast   the fast tier: every class but those whose name ends in DeepTests
#   scripts/run-tests.sh deep   the deep tier: the classes whose name ends in DeepTests (TRESOR_DEEP=1)
#   scripts/run-tests.sh TIER CLASS…   only those classes (e.g. tresorTests.SyncTests), or one test
#                                      (tresorTests.SyncTests/testCloneAndFastForward); tier `debug-build` runs them
#                                      against the debug build's tresor whatever TRESOR_BIN says
#
# Needs a build with tests (`swift build --build-tests`). The environment passes through (TRESOR_BIN names the
# tresor binary the CLI tests run; TRESOR_INSTALLED an installed tree).
set -uo pipefail
cd "$(dirname "$0")/.."
tier=${1:?usage: run-tests.sh fast|deep [CLASS…]}
shift
jobs=${TRESOR_TEST_JOBS:-2}
out=.build/test-logs/$tier
rm -rf "$out"; mkdir -p "$out"

bundle="$(swift build --show-bin-path)/TresorPackageTests.xctest"
[ -x "$bundle" ] || { echo "no test bundle at $bundle: run 'swift build --build-tests' first"; exit 1; }
export bundle

if [ $# -gt 0 ]; then
    classes=("$@")
else
    # Module.Class of every test, from the built bundle.
    mapfile -t all < <("$bundle" --list-tests 2>/dev/null | sed -nE 's#^([A-Za-z0-9_]+\.[A-Za-z0-9_]+)/.*#\1#p' | sort -u)
    classes=()
    for c in "${all[@]}"; do
        case "$tier:$c" in
            deep:*DeepTests) classes+=("$c") ;;
            fast:*DeepTests) ;;
            fast:*) classes+=("$c") ;;
        esac
    done
fi
[ ${#classes[@]} -gt 0 ] || { echo "no test class in the $tier tier"; exit 1; }
[ "$tier" = deep ] && export TRESOR_DEEP=1
[ "$tier" = debug-build ] && unset TRESOR_BIN TRESOR_INSTALLED

# Longest first (times of the last run on this machine, else a list of the known long ones), so the two workers
# finish together.
times=.build/test-times-$tier
order() {
    for c in "${classes[@]}"; do
        t=$(awk -v c="$c" '$2 == c { print $1 }' "$times" 2>/dev/null)
        case "$c" in *ScopeTests|*SyncTests|*SyncSafetyTests|*ConvergencePropertyTests|*RobustnessTests) t=${t:-300} ;; esac
        echo "${t:-10} $c"
    done | sort -rn | cut -d' ' -f2
}

run_one() {
    local c=$1 log=$out/${1//\//-}.log start end status
    start=$(date +%s.%N)
    # The test bundle itself, not `swift test`: SwiftPM lets one process at a time use .build.
    "$bundle" "$c" >"$log" 2>&1
    status=$?
    end=$(date +%s.%N)
    # The summary line XCTest prints for the class: "Executed N tests, with S tests skipped and F failures".
    local line counts
    local class=${c%%/*}
    line=$(grep -A1 -E "^Test Suite '${class#*.}' (passed|failed)" "$log" | grep -E "Executed [0-9]+ test" | tail -1)
    counts=$(sed -nE 's/.*Executed ([0-9]+) tests?, with (([0-9]+) tests? skipped and )?([0-9]+) failures?.*/\1 0\3 \4/p' <<<"$line")
    [ -n "$counts" ] || counts="0 0 1"
    read -r n s f <<<"$counts"
    [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
    printf '%8.1f %s %s %s %s\n' "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$c" "$n" "${s:-0}" "$f" >"$out/${c//\//-}.result"
}
export -f run_one
export out

begin=$(date +%s)
order | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
wall=$(( $(date +%s) - begin ))

cat "$out"/*.result | sort -rn >"$out/summary"
awk '{ print $1, $2 }' "$out/summary" >"$times"
echo
echo "per-class times ($tier tier, $jobs at a time, wall ${wall}s):"
awk '{ printf "  %7.1fs  %-48s %3d tests%s%s\n", $1, $2, $3, ($4 > 0 ? ", " $4 " skipped" : ""), ($5 > 0 ? ", " $5 " FAILED" : "") }' "$out/summary"
failed=$(awk '$5 > 0 { print $2 }' "$out/summary")
for c in $failed; do
    echo; echo "=== $c ==="
    grep -E "error:|failed \(|Fatal error|signal" "$out/${c//\//-}.log" | head -40
done
awk -v wall="$wall" '{ n += $3; s += $4; f += $5 } END {
    printf "\n%s: %d passed, %d failed, %d skipped (%d classes, %ds)\n", "'"$tier"'", n - s - f, f, s, NR, wall; exit (f > 0) }' "$out/summary"
