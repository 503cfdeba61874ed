#!/usr/bin/env bash
# Checks a built libisthmus.so before it is packaged:
#   - it needs nothing at run time beyond libc, libm and libgcc_s (the codecs are
#     linked statically), so it loads on any glibc Linux without extra packages, and every
#     symbol it uses resolves against them;
#   - its dynamic symbol table holds exactly the functions declared in
#     rust-core/include/isthmus.h: no missing export, and no leaked symbol from
#     the bundled C/C++ libraries that could clash with the host process.
# Usage: ci/check-native-lib.sh path/to/libisthmus.so [path/to/isthmus.h]
set -euo pipefail

so=${1:?usage: $0 path/to/libisthmus.so [path/to/isthmus.h]}
header=${2:-$(dirname "${BASH_SOURCE[0]}")/../rust-core/include/isthmus.h}

for tool in ldd nm perl; do
    command -v "$tool" >/dev/null || { echo "check-native-lib: $tool is required" >&2; exit 1; }
done
[[ -f $so ]] || { echo "check-native-lib: no such file: $so" >&2; exit 1; }
[[ -f $header ]] || { echo "check-native-lib: no such header: $header" >&2; exit 1; }

problems=()

# --- run-time dependencies
deps=()
while read -r lib _; do
    case "$lib" in
        linux-vdso.so.*|/lib*/ld-linux*.so.*|ld-linux*.so.*) ;;
        libc.so.6|libm.so.6|libgcc_s.so.1) deps+=("$lib") ;;
        *) problems+=("unexpected dependency: $lib") ;;
    esac
done < <(ldd "$so")
if ldd "$so" | grep -q "not found"; then
    problems+=("unresolved dependency: $(ldd "$so" | grep "not found" | tr -s ' \t' ' ')")
fi
# Every symbol resolved against this host's libraries (an archive built against a newer glibc,
# as the compressing libzstd may be, could name one this glibc lacks: functions bind lazily, so
# it would fail only when first called).
undefined=$(ldd -r "$so" 2>&1 | grep "undefined symbol" || true)
[[ -z $undefined ]] || problems+=("undefined symbols: $(echo "$undefined" | head -5 | tr -s ' \t\n' ' ')")

# --- exported symbols versus the header's prototypes (comments stripped first,
# so a function merely mentioned in prose does not count)
expected=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$header" \
    | grep -o 'isthmus_[a-z0-9_]*[[:space:]]*(' | tr -d '( \t' | sort -u)
actual=$(nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u)

missing=$(comm -23 <(echo "$expected") <(echo "$actual"))
extra=$(comm -13 <(echo "$expected") <(echo "$actual"))
[[ -z $missing ]] || problems+=("declared in $(basename "$header") but not exported: $(echo $missing)")
if [[ -n $extra ]]; then
    problems+=("$(echo "$extra" | wc -l) exported but not declared in $(basename "$header"): $(echo "$extra" | head -20 | tr '\n' ' ')")
fi
[[ -n $expected ]] || problems+=("found no isthmus_* prototypes in $header")

if ((${#problems[@]})); then
    echo "check-native-lib: $so FAILED:"
    printf '  - %s\n' "${problems[@]}"
    exit 1
fi

bytes=$(stat -c %s "$so")
count=$(echo "$expected" | wc -l)
printf 'check-native-lib: OK %s: %s bytes (%.2f MiB), needs %s, exports %d functions matching %s\n' \
    "$so" "$bytes" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "${deps[*]}" "$count" "$(basename "$header")"
