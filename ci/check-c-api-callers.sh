#!/usr/bin/env bash
# The C API has one Java caller layer: the bindings module (codecs, diagnostics, the loader and
# the library's counters) and the decoder's and encoder's Java side (the `parquet` packages of
# the source and the sink). Everything else uses their Java types; a downcall, or an import of
# isthmus_h, anywhere else in main code fails this check.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed='^(ffm-bindings/src/main/|iceberg-native-source/src/main/java/dev/isthmus/iceberg/source/parquet/|iceberg-native-sink/src/main/java/dev/isthmus/iceberg/sink/parquet/)'
files=$(git ls-files '*/src/main/**.java')
if [[ -z "$files" ]]; then
    echo "check-c-api-callers: no Java sources found (not a git checkout?)" >&2
    exit 1
fi
offenders=$(echo "$files" \
    | xargs grep -lE 'isthmus_h(\.|::)isthmus_|import static dev\.isthmus\.ffm\.gen\.isthmus_h' \
    | grep -vE "$allowed" || true)
if [[ -n "$offenders" ]]; then
    echo "downcalls into the C API outside the caller layer (use dev.isthmus.ffm or the parquet packages):" >&2
    echo "$offenders" >&2
    exit 1
fi
echo "check-c-api-callers: ok"
