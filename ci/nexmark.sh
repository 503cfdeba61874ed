#!/usr/bin/env bash
# The Nexmark benchmark on Iceberg tables, stock against native: builds the benchmarks jar (tests
# skipped), writes the input tables once per seed and size, runs the cells, then renders the
# report section and chart from the raw observations.
# Usage: ci/nexmark.sh [--events N] [--queries all|q0,q5,...] [--modes heap/off|all|heap/off,rocksdb/on]
#        [--parallelism N] [--pairs N] [--warehouse DIR] [--results CSV] [--seed N]
# Cells already in the results CSV are skipped: rerun the same command to resume.
# ISTHMUS_SKIP_BUILD=1 reuses the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
isthmus_build_benchmarks
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
java $ISTHMUS_JVM_FLAGS -Xmx12g -cp jmh/target/benchmarks.jar dev.isthmus.bench.nexmark.Nexmark "$@" 2>&1 | tee "$log"

# The report: docs/nexmark.md's section for the results CSV, its chart and its numbers as JSON,
# all recomputed from the CSV (ci/nexmark-report.py --check --markdown docs/nexmark.md checks them).
results=$(sed -n 's/^nexmark: results //p' "$log" | tail -n 1)
name=$(basename "$results" .csv)
python3 ci/nexmark-report.py "$results" --markdown docs/nexmark.md --section "$name" \
    --svg "$(dirname "$results")/$name.svg" --json "$(dirname "$results")/$name.json"
echo "nexmark: report in docs/nexmark.md (section $name), chart $(dirname "$results")/$name.svg"
