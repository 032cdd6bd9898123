#!/usr/bin/env bash
# The layers of Package.swift as rules on imports (README "The library"): each module imports only what its
# layer may see. The CLI sees the public face of `Tresor` (which re-exports what an app needs) and its own
# terminal layer; TresorCore and TresorGit never see each other; nothing but the CLI sees ArgumentParser.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() { # module, allowed imports (regex)
    local bad
    bad="$(grep -rnE '^(@_exported |internal |private |public )?import ' "Sources/$1" --include=*.swift \
        | grep -vE "import (struct |class |enum |protocol |func )?($2)(\.|\$)" || true)"
    if [ -n "$bad" ]; then echo "Sources/$1 imports outside its layer:"; echo "$bad"; status=1; fi
}
check tresor            'Foundation|FoundationEssentials|Tresor|TresorTerminal|ArgumentParser|Glibc|Darwin|Dispatch'
check Tresor            'Foundation|FoundationEssentials|TresorCore|TresorGit|TresorInterchange|Glibc|Darwin|Dispatch|CProcess'
check TresorCore        'Foundation|FoundationEssentials|CSodium|CCrypto|CProcess|CArgon2|Glibc|Darwin|Dispatch'
check TresorGit         'Foundation|FoundationEssentials|CGit2|CGzip|CCrypto|CLateBinding|CProcess|Glibc|Darwin|Dispatch|Synchronization'
check TresorInterchange 'Foundation|FoundationEssentials|TresorCore|CGzip|Glibc|Dispatch'
check TresorTerminal    'Foundation|FoundationEssentials|CNcurses|Glibc'
# The full Foundation (ICU data, CoreFoundation: three times the size of the rest of the binary) only where
# FoundationEssentials does not exist: every `import Foundation` is the #else of `#if canImport(FoundationEssentials)`.
bare="$(find Sources/tresor Sources/Tresor Sources/TresorCore Sources/TresorGit Sources/TresorInterchange Sources/TresorTerminal \
    -name '*.swift' -exec awk '/^import Foundation(XML|Networking)?$/ && prev != "#else" { print FILENAME ":" FNR ": " $0 } { prev = $0 }' {} +)"
if [ -n "$bare" ]; then echo "import Foundation outside '#if canImport(FoundationEssentials) … #else':"; echo "$bare"; status=1; fi
exit $status
