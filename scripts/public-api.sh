#!/usr/bin/env bash
# Counts the declarations each library module shows an app that depends on it: the compiler's own view of the
# debug build (swift-api-digester -dump-sdk), public and open only (`package` and `internal` are left out; a type,
# each of its members, initialisers and enum cases count one each; re-exported declarations count in the module
# that declares them; enum cases are counted apart, `cases`). With --undocumented MODULE it lists that module's public symbols without a `///` comment
# (from swift-symbolgraph-extract, the data DocC reads).
#
# With --check-breaking it compares the public API of the two library products (Tresor, TresorInterchange) with the
# baseline in Tests/api-baseline/ and fails on anything removed or changed (swift-api-digester -diagnose-sdk, the tool
# behind `swift package diagnose-api-breaking-changes`; additions are not breaking); --record-baseline writes the
# baseline anew after a change of the API made on purpose.
#
#   bash scripts/public-api.sh                       # after `swift build --build-tests`
#   bash scripts/public-api.sh --undocumented Tresor
#   bash scripts/public-api.sh --check-breaking      # make test runs it
#   bash scripts/public-api.sh --record-baseline
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(Tresor TresorCore TresorGit TresorInterchange TresorTerminal)
bin=".build/debug"; [ -d "$bin/Modules" ] || bin=".build/$(uname -m)-unknown-linux-gnu/debug"
[ -d "$bin/Modules" ] || { echo "public-api.sh: no debug build in $bin (run swift build --build-tests)" >&2; exit 1; }
target="$(uname -m)-unknown-linux-gnu"
# The C modules (ours and the dependencies') are found through their module maps.
includes=(-I "$bin/Modules")
while read -r dir; do includes+=(-I "$dir"); done < <(find Sources .build/checkouts -name module.modulemap -exec dirname {} \;)
# (and those SwiftPM writes for C targets with an include folder, such as CLateBinding)
while read -r dir; do includes+=(-I "$dir"); done < <(find "$bin/" -maxdepth 2 -path '*.build/module.modulemap' -exec dirname {} \;)
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

# The public declarations of a module as swift-api-digester dumps them, `package` ones left out (the dump has both).
public_dump() {
    swift-api-digester -dump-sdk -module "$1" "${includes[@]}" -target "$target" -o "$work/$1.all.json"
    python3 - "$work/$1.all.json" "$2" <<'EOF'
import json, sys
dump = json.load(open(sys.argv[1]))
def public(node):
    if "children" in node:
        node["children"] = [public(c) for c in node["children"] if not c.get("isInternal")]
    return node
dump["ABIRoot"] = public(dump["ABIRoot"])
with open(sys.argv[2], "w") as out:
    json.dump(dump, out, indent=1, sort_keys=True)
    out.write("\n")
EOF
}

baseline="Tests/api-baseline"
products=(Tresor TresorInterchange)
if [ "${1:-}" = --record-baseline ]; then
    mkdir -p "$baseline"
    for module in "${products[@]}"; do public_dump "$module" "$baseline/$module.json"; done
    echo "recorded the public API of ${products[*]} in $baseline/"
    exit 0
fi
if [ "${1:-}" = --check-breaking ]; then
    broken=0
    for module in "${products[@]}"; do
        public_dump "$module" "$work/$module.json"
        report="$(swift-api-digester -diagnose-sdk -input-paths "$baseline/$module.json" -input-paths "$work/$module.json" 2>&1 \
                  | grep -v '^/\*' | grep -v '^[[:space:]]*$' || true)"
        if [ -n "$report" ]; then
            echo "$report" | sed "s/^/$module: /"
            broken=1
        fi
    done
    if [ "$broken" = 1 ]; then
        echo "public-api.sh: the public API changed in a way that breaks an app (above); if that is meant, record it:" \
             "bash scripts/public-api.sh --record-baseline" >&2
        exit 1
    fi
    echo "public-api.sh: no breaking change to the public API of ${products[*]} (against $baseline/)"
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
