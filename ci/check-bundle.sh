#!/usr/bin/env bash
# Checks the isthmus-flink-runtime bundle: it holds every class, resource and the native library
# of Isthmus's member jars, their META-INF/services entries merged, and nothing else (no Flink,
# Iceberg, Hadoop or SLF4J class, which a cluster's lib/ already has, nor anything unrelocated).
# Usage: ci/check-bundle.sh path/to/bundle.jar path/to/jdk/bin/jar member.jar...
set -euo pipefail

bundle=${1:?usage: $0 bundle.jar jar-tool member.jar...}
tool=${2:?usage: $0 bundle.jar jar-tool member.jar...}
shift 2
[ "$#" -gt 0 ] || { echo "check-bundle: no member jars given" >&2; exit 1; }
for jar in "$bundle" "$@"; do
    [[ -f $jar ]] || { echo "check-bundle: no such file: $jar" >&2; exit 1; }
done
bundle=$(readlink -f "$bundle")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=()

# Only Isthmus's own entries: its packages, the library and its recorded hash, service files, the
# licence files and Maven's metadata of Isthmus artifacts.
allowed='^(dev/isthmus/.+|native/linux-x86_64/libisthmus\.so(\.sha256)?|META-INF/(MANIFEST\.MF|LICENSE|NOTICE)|META-INF/services/[^/]+|META-INF/maven/dev\.isthmus/.+)$'
"$tool" tf "$bundle" | grep -v '/$' | sort > "$work/bundle.entries"
while IFS= read -r entry; do
    problems+=("unexpected entry $entry")
done < <(grep -Ev "$allowed" "$work/bundle.entries" || true)

mkdir "$work/bundle"
(cd "$work/bundle" && "$tool" xf "$bundle")
for member in "$@"; do
    member=$(readlink -f "$member")
    name=$(basename "$member")
    while IFS= read -r entry; do
        grep -qxF "$entry" "$work/bundle.entries" || problems+=("$entry of $name is missing")
    done < <("$tool" tf "$member" | grep -E '^(dev/isthmus/.+[^/]|native/.+[^/])$')

    mkdir "$work/$name"
    (cd "$work/$name" && "$tool" xf "$member" META-INF/services 2>/dev/null) || true
    for service in "$work/$name"/META-INF/services/*; do
        [[ -f $service ]] || continue
        file=META-INF/services/$(basename "$service")
        while IFS= read -r provider; do
            grep -qxF "$provider" "$work/bundle/$file" 2>/dev/null \
                || problems+=("$file lacks $provider (from $name)")
        done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$service" | grep -v '^$')
    done
done

for service in "$work"/bundle/META-INF/services/*; do
    [[ -f $service ]] || continue
    while IFS= read -r provider; do
        problems+=("META-INF/services/$(basename "$service") names $provider, not an Isthmus class")
    done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$service" | grep -v '^$' | grep -v '^dev\.isthmus\.' || true)
done

if [ "${#problems[@]}" -gt 0 ]; then
    printf "check-bundle: $bundle: %s\n" "${problems[@]}" >&2
    exit 1
fi
echo "check-bundle: OK $bundle ($(wc -l < "$work/bundle.entries") entries from $# jars)"
