#!/usr/bin/env bash
# The C API has one Java caller layer: the bindings module (codecs, diagnostics, the loader and
# the library's counters) and the decoder's and encoder's Java side (the `parquet` packages of
# the source and the sink). Everything else uses their Java types; a downcall anywhere else in
# main code fails this check.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed='^(ffm-bindings/src/main/|iceberg-native-source/src/main/java/dev/isthmus/iceberg/source/parquet/|iceberg-native-sink/src/main/java/dev/isthmus/iceberg/sink/parquet/)'
offenders=$(git ls-files '*/src/main/**.java' \
    | xargs grep -lE 'isthmus_h(\.|::)isthmus_' \
    | grep -vE "$allowed" || true)
if [[ -n "$offenders" ]]; then
    echo "downcalls into the C API outside the caller layer (use dev.isthmus.ffm or the parquet packages):" >&2
    echo "$offenders" >&2
    exit 1
fi
echo "check-c-api-callers: ok"
