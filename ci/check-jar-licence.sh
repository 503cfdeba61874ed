#!/usr/bin/env bash
# Checks that a jar carrying libisthmus.so also carries the licence and notice of what the
# library links statically (LICENSE and NOTICE under META-INF/).
# Usage: ci/check-jar-licence.sh path/to.jar [path/to/jdk/bin/jar]
set -euo pipefail

jar=$(realpath "${1:?usage: $0 path/to.jar [jar tool]}")
tool=${2:-jar}
[[ -f $jar ]] || { echo "check-jar-licence: no such file: $jar" >&2; exit 1; }

problems=()
grep -qx 'native/linux-x86_64/libisthmus.so' <("$tool" tf "$jar") \
    || problems+=("no native/linux-x86_64/libisthmus.so")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$tool" xf "$jar" META-INF/LICENSE META-INF/NOTICE)
for entry in META-INF/LICENSE META-INF/NOTICE; do
    [[ -f $dir/$entry ]] || { problems+=("no $entry"); continue; }
    for library in Zstandard Snappy LZ4 zlib Brotli libstdc++; do
        grep -q "$library" "$dir/$entry" || problems+=("$entry does not name $library")
    done
done
[[ -f $dir/META-INF/LICENSE ]] && ! grep -q "Apache License" "$dir/META-INF/LICENSE" \
    && problems+=("META-INF/LICENSE lacks the Apache License")

if [ "${#problems[@]}" -gt 0 ]; then
    for problem in "${problems[@]}"; do
        echo "check-jar-licence: $jar: $problem" >&2
    done
    exit 1
fi
echo "check-jar-licence: OK $jar"
