#!/usr/bin/env bash
# Counts the declarations each library module shows an app that depends on it: the compiler's own view of the
# debug build (swift-api-digester -dump-sdk), public and open only (`package` and `internal` are left out; a type,
# each of its members, initialisers and enum cases count one each; re-exported declarations count in the module
# that declares them; enum cases are counted apart, `cases`). With --undocumented MODULE it lists that module's public symbols without a `///` comment
# (from swift-symbolgraph-extract, the data DocC reads).
#
#   bash scripts/public-api.sh                       # after `swift build --build-tests`
#   bash scripts/public-api.sh --undocumented Tresor
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(Tresor TresorCore TresorGit TresorInterchange TresorTerminal)
bin=".build/debug"; [ -d "$bin/Modules" ] || bin=".build/$(uname -m)-unknown-linux-gnu/debug"
[ -d "$bin/Modules" ] || { echo "public-api.sh: no debug build in $bin (run swift build --build-tests)" >&2; exit 1; }
target="$(uname -m)-unknown-linux-gnu"
# The C modules (ours and the dependencies') are found through their module maps.
includes=(-I "$bin/Modules")
while read -r dir; do includes+=(-I "$dir"); done < <(find Sources .build/checkouts -name module.modulemap -exec dirname {} \;)
[ "$(uname -s)" = Darwin ] && target="$(uname -m)-apple-macos13"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "${1:-}" = --undocumented ]; then
    module="${2:?usage: public-api.sh --undocumented MODULE}"
    swift-symbolgraph-extract -module-name "$module" "${includes[@]}" -target "$target" \
        -minimum-access-level public -skip-inherited-docs -output-dir "$work" >/dev/null
    python3 - "$work/$module.symbols.json" <<'EOF'
import json, sys
graph = json.load(open(sys.argv[1]))
for s in sorted(graph["symbols"], key=lambda s: s["pathComponents"]):
    # Members the compiler writes (hash(into:), init(rawValue:) …) have no location in the source.
    if "docComment" not in s and "location" in s:
        print(".".join(s["pathComponents"]), f'({s["kind"]["identifier"].removeprefix("swift.")})')
EOF
    exit 0
fi

printf '%-18s %7s %7s %8s %8s\n' module public cases package p-cases
for module in "${modules[@]}"; do
    swift-api-digester -dump-sdk -module "$module" "${includes[@]}" -target "$target" -o "$work/$module.json"
    python3 - "$work/$module.json" "$module" <<'EOF'
import json, sys
root = json.load(open(sys.argv[1]))["ABIRoot"]
counts = {"public": 0, "cases": 0, "package": 0, "p-cases": 0}
if root.get("name") != sys.argv[2]:
    sys.exit(f"public-api.sh: swift-api-digester could not load {sys.argv[2]}")
def walk(node):
    for child in node.get("children", []):
        if "declKind" not in child or child["kind"] == "Import" or child.get("isImplicit"):
            continue
        if child.get("moduleName") != sys.argv[2]:
            continue
        case = child["declKind"] == "EnumElement"
        key = ("p-cases" if case else "package") if child.get("isInternal") else ("cases" if case else "public")
        counts[key] += 1
        walk(child)
walk(root)
print(f'{sys.argv[2]:<18} {counts["public"]:>7} {counts["cases"]:>7} {counts["package"]:>8} {counts["p-cases"]:>8}')
EOF
done

# The proof of the app face: Examples/QuickStart type-checks as a module outside this package (no -package-name),
# so it uses nothing that is `package`.
if swiftc -typecheck Examples/QuickStart/main.swift "${includes[@]}" -target "$target"; then
    echo "Examples/QuickStart type-checks outside the package"
else
    echo "public-api.sh: Examples/QuickStart uses declarations an app does not see" >&2; exit 1
fi
